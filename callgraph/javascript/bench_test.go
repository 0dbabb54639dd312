package javascript

import (
	"context"
	"os"
	"testing"
)

// BenchmarkNpm measures the front end on npm's own lib/ (about 110 CommonJS files, shipped
// with Debian's nodejs package): "parse" is the tree-sitter parse and copy alone,
// "analyze" the whole Analyze. Compare the two ns/op to see the cost of resolution
// relative to parsing:
//
//	go test -run XXX -bench Npm ./callgraph/javascript
func BenchmarkNpm(b *testing.B) {
	const root = "/usr/lib/node_modules/npm/lib"
	if _, err := os.Stat(root); err != nil {
		b.Skipf("npm sources not installed (apt-get install nodejs): %v", err)
	}
	files := loadTree(b, root)
	fe := New(Options{})
	b.Run("parse", func(b *testing.B) {
		for b.Loop() {
			for _, f := range files {
				if fe.Match(f.Path) {
					if _, _, _, _, err := fe.poolFor(f.Path).Parse(context.Background(), f.Src); err != nil {
						b.Fatal(err)
					}
				}
			}
		}
	})
	b.Run("analyze", func(b *testing.B) {
		for b.Loop() {
			if _, err := fe.Analyze(context.Background(), files); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestNpmSmoke analyses npm's lib/ (real CommonJS code with classes and private
// methods): no syntax errors, and a floor on resolved edges so a regression in
// require/class resolution shows.
func TestNpmSmoke(t *testing.T) {
	const root = "/usr/lib/node_modules/npm/lib"
	if _, err := os.Stat(root); err != nil {
		t.Skipf("npm sources not installed (apt-get install nodejs): %v", err)
	}
	a, err := New(Options{}).Analyze(context.Background(), loadTree(t, root))
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Errors) > 0 {
		t.Fatalf("syntax errors: %v", a.Errors)
	}
	crossFile := 0
	for _, c := range a.Calls {
		if fileOfID(c.Caller) != fileOfID(c.Callee) {
			crossFile++
		}
	}
	t.Logf("%d definitions, %d call sites, %d resolved, %d edges (%d across files)",
		len(a.Definitions), a.CallSites, a.Resolved, len(a.Calls), crossFile)
	if len(a.Calls) < 300 || crossFile < 50 {
		t.Fatalf("too few edges: %d (%d across files)", len(a.Calls), crossFile)
	}
}

func fileOfID(id string) string {
	for i := 0; i+1 < len(id); i++ {
		if id[i] == ':' && id[i+1] == ':' {
			return id[:i]
		}
	}
	return id
}
