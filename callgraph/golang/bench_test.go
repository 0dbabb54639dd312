package golang

import (
	"context"
	"errors"
	"go/parser"
	"go/token"
	"testing"

	"github.com/faultline-dev/faultline/callgraph"
)

// BenchmarkTestify measures the front end on testify's 34 non-test files: "go-parser" is
// the standard library's go/parser on the same files (the peer), "parse" the tree-sitter
// parse and copy alone, "analyze" the whole Analyze (parse on all cores, inventory,
// resolution, metrics) in the three interface modes (see benchModes). Compare the ns/op:
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
	benchModes(b, files)
}

// benchModes measures the tree-sitter parse and copy alone ("parse"), go/parser and the
// rewrite of its trees ("parse-goast"), then Analyze in
// each interface mode: "analyze" is the default (type flow), "analyze-none" leaves
// interface calls unresolved (the syntactic baseline that the type flow adds to),
// "analyze-cha" expands them by class hierarchy.
func benchModes(b *testing.B, files []callgraph.SourceFile) {
	b.Run("parse", func(b *testing.B) {
		fe := New(Options{})
		for b.Loop() {
			for _, f := range files {
				if _, _, _, _, err := fe.parsers.Parse(context.Background(), f.Src); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("parse-goast", func(b *testing.B) {
		// What Analyze runs instead for files go/parser accepts: go/parser and the
		// rewrite of its tree as tree-sitter's (astfront.go).
		fe := New(Options{})
		for b.Loop() {
			for _, f := range files {
				if f.Path == "go.mod" {
					continue
				}
				if _, err := fe.grammar.astTree(f.Src, lineStarts(f.Src)); err != nil && !errors.Is(err, errUnmapped) {
					b.Fatal(err)
				}
			}
		}
	})
	for _, c := range []struct {
		name string
		opts Options
	}{{"analyze", Options{}}, {"analyze-none", Options{Interfaces: InterfacesNone}}, {"analyze-cha", Options{Interfaces: InterfacesCHA}}} {
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

// BenchmarkGonumGraph measures the front end on gonum/graph's 152 non-test files, which
// call through interfaces throughout (the type-flow graph is largest here): "parse" is
// the tree-sitter parse and copy alone, then the three interface modes.
//
//	go test -run XXX -bench GonumGraph -benchmem ./callgraph/golang
func BenchmarkGonumGraph(b *testing.B) {
	gt := readGroundTruth(b, "gonum-graph.txt")
	files := loadModuleFiles(b, gt)
	benchModes(b, files)
}
