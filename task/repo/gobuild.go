package repo

import (
	"bytes"
	"go/build"
	"io"
)

// GoFileBuilds reports whether the go command would build the .go file name of directory
// dir on this machine: go/build's default context (GOOS, GOARCH, cgo, the release tags, no
// custom tags) judges the file's //go:build (or // +build) lines, its _GOOS/_GOARCH name
// suffixes and, without cgo, its import "C". src is the file's content, or nil to read it
// from dir. A file whose header cannot be read is taken as built (the parser or the type
// checker then says what is wrong). The call graph's Go front end and the Go type checker
// of corrupt and extract take the files this says are built.
func GoFileBuilds(dir, name string, src []byte) bool {
	ctx := build.Default
	if src != nil {
		ctx.OpenFile = func(string) (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(src)), nil }
	}
	ok, err := ctx.MatchFile(dir, name)
	return err != nil || ok
}
