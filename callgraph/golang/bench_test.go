package golang

import (
	"context"
	"testing"
)

// BenchmarkTestify measures the front end on testify's 34 non-test files: "parse" is the
// tree-sitter parse and copy alone, "analyze" the whole Analyze (parse, inventory,
// resolution, metrics) and "analyze-cha" with interface expansion. Compare ns/op of the
// three to see the cost of resolution relative to parsing:
//
//	go test -run XXX -bench Testify -benchmem ./callgraph/golang
func BenchmarkTestify(b *testing.B) {
	gt := readGroundTruth(b, "testify.txt")
	files := loadModuleFiles(b, gt)
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
