package gocheck

import (
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
