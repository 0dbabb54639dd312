package golang

import (
	"context"
	"go/parser"
	"go/token"
	"testing"
)

// BenchmarkTestify measures the front end on testify's 34 non-test files: "go-parser" is
// the standard library's go/parser on the same files (the peer), "parse" the tree-sitter
// parse and copy alone, "analyze" the whole Analyze (parse on all cores, inventory,
// resolution, metrics) and "analyze-cha" with interface expansion. Compare the ns/op:
//
//	go test -run XXX -bench Testify -benchmem ./callgraph/golang
func BenchmarkTestify(b *testing.B) {
	gt := readGroundTruth(b, "testify.txt")
	files := loadModuleFiles(b, gt)
	b.Run("go-parser", func(b *testing.B) {
		// The peer: the standard library's parser on the same files (syntax tree only).
		for b.Loop() {
			fset := token.NewFileSet()
			for _, f := range files {
				if f.Path == "go.mod" {
					continue
				}
				if _, err := parser.ParseFile(fset, f.Path, f.Src, parser.ParseComments); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("parse", func(b *testing.B) {
		fe := New(Options{})
		for b.Loop() {
			for _, f := range files {
				if _, _, _, _, err := fe.parsers.parse(context.Background(), f.Src); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	for _, c := range []struct {
		name string
		opts Options
	}{{"analyze", Options{}}, {"analyze-cha", Options{CHA: true}}} {
		b.Run(c.name, func(b *testing.B) {
			fe := New(c.opts)
			for b.Loop() {
				if _, err := fe.Analyze(context.Background(), files); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
