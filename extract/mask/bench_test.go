package mask

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/callgraph"
	"github.com/faultline-dev/faultline/callgraph/python"
	"github.com/faultline-dev/faultline/task"
)

// BenchmarkMaskNetworkx masks every definition of networkx's weighted shortest-path module
// in a copy of Debian's python3-networkx (about 165k lines in 600 files: the import
// propagation scans every non-test file), and reports the ratio to one front-end analysis
// of the masked module alone as "x-analyze" — the share of the cost that is masking rather
// than parsing.
func BenchmarkMaskNetworkx(b *testing.B) {
	src := "/usr/lib/python3/dist-packages/networkx"
	if _, err := os.Stat(src); err != nil {
		b.Skip("mask: python3-networkx is not installed")
	}
	root := b.TempDir()
	dst := filepath.Join(root, "networkx")
	if err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			if d.Name() == "__pycache__" {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	}); err != nil {
		b.Fatal(err)
	}
	const file = "networkx/algorithms/shortest_paths/weighted.py"
	data, err := os.ReadFile(filepath.Join(root, file))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	fe := python.New(python.Options{})
	an, err := fe.Analyze(ctx, []callgraph.SourceFile{{Path: file, Src: data}})
	if err != nil {
		b.Fatal(err)
	}
	var targets []Target
	for _, d := range an.Definitions {
		if d.Kind != task.KindModule {
			targets = append(targets, Target{File: d.File, Name: d.Name, Line: d.Line})
		}
	}
	b.ReportMetric(float64(len(targets)), "targets")
	// The cost of one analysis of the module, timed before the benchmark's own loop.
	const reps = 20
	start := time.Now()
	for range reps {
		if _, err := fe.Analyze(ctx, []callgraph.SourceFile{{Path: file, Src: data}}); err != nil {
			b.Fatal(err)
		}
	}
	analyze := float64(time.Since(start).Nanoseconds()) / reps
	b.ResetTimer()
	for b.Loop() {
		res, err := Mask(ctx, root, targets, Options{Python: fe})
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Removed) == 0 {
			b.Fatal("nothing removed")
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/analyze, "x-analyze")
}
