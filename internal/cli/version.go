package cli

import (
	"runtime"
	"runtime/debug"
)

// Version says which build of a program wrote an output, for the provenance a task set
// records: the main module's path and version (a tagged release, or "(devel)" for a build
// from a checkout), the VCS revision and whether the checkout was modified when the go
// command stamped them, and the Go version. It depends only on the binary, so two runs of
// one binary write the same text.
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown build (" + runtime.Version() + ")"
	}
	v := bi.Main.Path
	if v == "" {
		v = bi.Path
	}
	if bi.Main.Version != "" {
		v += " " + bi.Main.Version
	}
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev != "" {
		v += " (" + rev
		if modified == "true" {
			v += ", modified"
		}
		v += ")"
	}
	return v + " " + bi.GoVersion
}
