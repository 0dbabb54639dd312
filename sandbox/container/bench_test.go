package container

import (
	"context"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/task"
)

// BenchmarkContainerReuse compares a run in a reused container (reset with cp -a) with a
// run in a fresh container (start, copy the tree, run, remove), in one benchmark.
func BenchmarkContainerReuse(b *testing.B) {
	r := needDocker(b, PythonImage)
	root := copyDir(b, "../testdata/pyfix")
	ctx := context.Background()
	req := task.RunRequest{Root: root, Kind: task.Pytest, Select: task.Selection{Files: []string{"test_mathx.py"}}}
	if _, err := r.Run(ctx, req); err != nil {
		b.Fatal(err)
	}
	var reuse, fresh time.Duration
	for b.Loop() {
		start := time.Now()
		if _, err := r.Run(ctx, req); err != nil {
			b.Fatal(err)
		}
		reuse += time.Since(start)
		start = time.Now()
		f := New(Options{})
		if _, err := f.Run(ctx, req); err != nil {
			b.Fatal(err)
		}
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
		fresh += time.Since(start)
	}
	n := float64(b.N)
	b.ReportMetric(float64(reuse.Milliseconds())/n, "reuse-ms/op")
	b.ReportMetric(float64(fresh.Milliseconds())/n, "fresh-ms/op")
	b.ReportMetric(float64(fresh)/float64(reuse), "fresh/reuse")
}
