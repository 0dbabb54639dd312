package corrupt

import (
	"context"
	"errors"
	"testing"

	"github.com/faultline-dev/faultline/callgraph"
	"github.com/faultline-dev/faultline/callgraph/golang"
)

// Functions without a body (Go declarations implemented in assembly) or whose body is
// already empty cannot be corrupted: Stub and NewTarget say so with ErrNoSites, and
// Generate reports the reason when nothing else qualifies.
func TestNoBodyToChange(t *testing.T) {
	ctx := context.Background()
	goSrc := "package m\n\n// Add is implemented in add_amd64.s.\n//\n//go:noescape\nfunc Add(x, y int) int\n\n// Use calls Add.\nfunc Use() int { return Add(1, 2) }\n"
	root := writeTree(t, map[string]string{"go.mod": "module example.com/m\n\ngo 1.22\n", "m.go": goSrc})
	g, err := callgraph.Build(ctx, root, []callgraph.Language{golang.New(golang.Options{})}, callgraph.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	id, ok := g.Lookup("m.go::Add")
	if !ok {
		t.Fatal("the front end did not report Add")
	}
	fn := g.Node(id).Function
	if _, err := Stub("go", []byte(goSrc), fn); !errors.Is(err, ErrNoSites) {
		t.Errorf("Stub of a body-less declaration: err = %v", err)
	}
	if _, err := NewTarget("m.go", []byte(goSrc), fn); !errors.Is(err, ErrNoSites) {
		t.Errorf("NewTarget of a body-less declaration: err = %v", err)
	}

	pySrc := []byte("def f():\n    pass\n\ndef g():\n    \"\"\"Only a docstring.\"\"\"\n")
	found := false
	for _, fn := range pyFuncs(t, "m.py", pySrc) {
		if fn.Name != "f" {
			continue
		}
		found = true
		if _, err := Stub("python", pySrc, fn); !errors.Is(err, ErrNoSites) {
			t.Errorf("Stub of `pass`: err = %v", err)
		}
	}

	if !found {
		t.Error("the Python front end did not report f")
	}
	// The generator turns it into a rejection reason, not an error.
	for mode, want := range map[Mode]string{Remove: "no body to remove", Discovery: "no body to change"} {
		gen := &generator{root: root, o: Options{Mode: mode, MutantsPerFunction: 6}, files: map[string][]byte{}}
		ms, reason, err := gen.mutantsFor(ctx, Candidate{Node: g.Node(id)}, nil)
		if err != nil || len(ms) != 0 || reason != want {
			t.Errorf("%s: %d mutants, reason %q, err %v; want reason %q", mode, len(ms), reason, err, want)
		}
	}
}
