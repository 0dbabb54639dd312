package golang

import (
	"context"
	"runtime"
	"testing"

	"github.com/faultline-dev/faultline/callgraph"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBuildConstraints: by default the files this machine's go command would not build are
// not analysed — a //go:build ignore program, an old-style // +build ignore file, a file for
// another GOOS by its name — while a constraint that holds and a file named for this GOOS
// are; AllFiles analyses them all. The pure-Go fallback of an assembly function (xxhash's
// Sum64 in xxhash_other.go) then gives no second Sum64.
func TestBuildConstraints(t *testing.T) {
	files := []callgraph.SourceFile{
		{Path: "go.mod", Src: []byte("module example.com/p\n")},
		{Path: "a.go", Src: []byte("package p\n\nfunc use() int { return Sum64(nil) + native() }\n")},
		{Path: "sum_asm.go", Src: []byte("//go:build go1.1\n\npackage p\n\n// Sum64 is written in assembly.\n//\n//go:noescape\nfunc Sum64(b []byte) int\n")},
		{Path: "sum_other.go", Src: []byte("// Copyright\n\n//go:build ignore\n\npackage p\n\nfunc Sum64(b []byte) int { return len(b) }\n")},
		{Path: "gen.go", Src: []byte("// +build ignore\n\npackage main\n\nfunc main() { generate() }\n\nfunc generate() {}\n")},
		{Path: "native_plan9.go", Src: []byte("package p\n\nfunc native() int { return 9 }\n")},
		{Path: "native_" + runtime.GOOS + ".go", Src: []byte("package p\n\nfunc native() int { return 1 }\n")},
		{Path: "native_plan9_test.go", Src: []byte("package p\n\nimport \"testing\"\n\nfunc TestNative(t *testing.T) { native() }\n")},
	}
	functions := func(opts Options) []string {
		a, err := New(opts).Analyze(context.Background(), files)
		require.NoError(t, err)
		var ids []string
		for _, f := range a.Definitions {
			ids = append(ids, f.ID)
		}
		return ids
	}
	host := "native_" + runtime.GOOS + ".go::native"
	assert.ElementsMatch(t, []string{"a.go::use", "sum_asm.go::Sum64", host}, functions(Options{}))
	assert.ElementsMatch(t, []string{"a.go::use", "sum_asm.go::Sum64", "sum_other.go::Sum64", "gen.go::main", "gen.go::generate",
		"native_plan9.go::native", host, "native_plan9_test.go::TestNative"}, functions(Options{AllFiles: true}))

	a, err := New(Options{}).Analyze(context.Background(), files)
	require.NoError(t, err)
	var callees []string
	for _, c := range a.Calls {
		if c.Caller == "a.go::use" {
			callees = append(callees, c.Callee)
		}
	}
	assert.ElementsMatch(t, []string{"sum_asm.go::Sum64", host}, callees)
}

func TestConstrainedName(t *testing.T) {
	for name, want := range map[string]bool{
		"a.go": false, "a_test.go": false, "x_linux.go": true, "x_amd64_test.go": true,
		"snake_case.go": true, "trailing_.go": false,
	} {
		assert.Equal(t, want, constrainedName(name), name)
	}
}
