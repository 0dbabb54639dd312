package gocheck

import (
	"go/importer"
	"go/types"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkImports compares the two loading strategies on go-diff's diffmatchpatch package
// (standard-library imports only): "cold" is a new checker's first check (the imports are
// loaded), "warm" a check of a changed file on a checker that has loaded them.
//
//	go test ./internal/gocheck -run '^$' -bench Imports -benchtime 5x
func BenchmarkImports(b *testing.B) {
	root := goDiffDir(b)
	src, err := os.ReadFile(filepath.Join(root, "diffmatchpatch", "diff.go"))
	if err != nil {
		b.Fatal(err)
	}
	sig := "func commonPrefixLength(text1, text2 []rune) int {"
	ov := map[string][]byte{"diffmatchpatch/diff.go": []byte(strings.Replace(string(src), sig, sig+"\n\treturn \"x\"", 1))}
	dirs := []string{"diffmatchpatch"}
	check := func(b *testing.B, c *Checker) {
		got, err := c.NewErrors(dirs, ov)
		if err != nil {
			b.Fatal(err)
		}
		if len(got) != 1 {
			b.Fatalf("%d new errors, want 1: %v", len(got), got)
		}
	}
	for _, m := range modes {
		b.Run(m.name+"/cold", func(b *testing.B) {
			for b.Loop() {
				c, err := New(root, Options{Imports: m.imp})
				if err != nil {
					b.Fatal(err)
				}
				check(b, c)
			}
		})
		b.Run(m.name+"/warm", func(b *testing.B) {
			c, err := New(root, Options{Imports: m.imp})
			if err != nil {
				b.Fatal(err)
			}
			check(b, c)
			for b.Loop() {
				check(b, c)
			}
		})
	}
}

// BenchmarkCgoImports compares, on a module importing net/http (whose net package has cgo
// files), a cold check with gocheck's source importer (cgo off: nothing runs, nothing is
// written) against go/importer's "source" importer, the peer it replaced (which runs `go
// tool cgo` for net and leaves object files in TMPDIR; TMPDIR points at a directory of the
// benchmark's own):
//
//	go test ./internal/gocheck -run '^$' -bench CgoImports -benchtime 3x
func BenchmarkCgoImports(b *testing.B) {
	root := writeModule(b, map[string]string{
		"go.mod": "module example.com/web\n\ngo 1.22\n",
		"web.go": "package web\n\nimport \"net/http\"\n\nfunc Get(c *http.Client, u string) (int, error) {\n\tr, err := c.Get(u)\n\tif err != nil {\n\t\treturn 0, err\n\t}\n\tdefer r.Body.Close()\n\treturn r.StatusCode, nil\n}\n",
	})
	b.Setenv("TMPDIR", b.TempDir())
	for _, peer := range []struct {
		name string
		ext  func(c *Checker) types.ImporterFrom
	}{
		{"gocheck", func(c *Checker) types.ImporterFrom { return c.ext }},
		{"go-importer-source", func(c *Checker) types.ImporterFrom {
			return importer.ForCompiler(c.fset, "source", nil).(types.ImporterFrom)
		}},
	} {
		b.Run(peer.name, func(b *testing.B) {
			for b.Loop() {
				c, err := New(root, Options{})
				if err != nil {
					b.Fatal(err)
				}
				c.ext = peer.ext(c)
				if errs, err := c.Check([]string{"."}, nil); err != nil || len(errs) > 0 {
					b.Fatalf("%v %v", errs, err)
				}
			}
		})
	}
}
