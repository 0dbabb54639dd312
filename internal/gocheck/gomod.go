package gocheck

import "github.com/faultline-dev/faultline/task/repo"

// Module is what a go.mod says about its module: task/repo's GoMod, read by its one go.mod
// rule (repo.ReadGoMod).
type Module = repo.GoMod
