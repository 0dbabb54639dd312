package container

import (
	"context"
	"fmt"
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

// BenchmarkGoRun measures a Go run in a reused box with the same overlay (warm), with a new
// overlay (the build step runs again), and in a new runner's first box (its build cache is
// whatever the design allows it to share), over the gofix fixture's lib package.
func BenchmarkGoRun(b *testing.B) {
	r := needDocker(b, GoImage)
	root := copyDir(b, "../testdata/gofix")
	ctx := context.Background()
	req := task.RunRequest{Root: root, Kind: task.GoTest, Select: task.Selection{Files: []string{"lib"}}}
	if _, err := r.Run(ctx, req); err != nil {
		b.Fatal(err)
	}
	var warm, changed, fresh time.Duration
	i := 0
	for b.Loop() {
		start := time.Now()
		rep, err := r.Run(ctx, req)
		if err != nil || !rep.Ran() {
			b.Fatal(err, rep)
		}
		warm += time.Since(start)
		// A new overlay each time, as a benchmark builder's corruptions are.
		i++
		ov := task.Overlay{}
		ov.Set("lib/lib.go", []byte(fmt.Sprintf("package lib\n\n// v%d\nfunc Add(a, b int) int { return a + b + %d - %d }\n", i, i, i)))
		start = time.Now()
		rep, err = r.Run(ctx, task.RunRequest{Root: req.Root, Kind: req.Kind, Select: req.Select, Overlay: ov})
		if err != nil || !rep.Ran() {
			b.Fatal(err, rep)
		}
		changed += time.Since(start)
		start = time.Now()
		f := New(Options{})
		if rep, err := f.Run(ctx, req); err != nil || !rep.Ran() {
			b.Fatal(err, rep)
		}
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
		fresh += time.Since(start)
	}
	n := float64(b.N)
	b.ReportMetric(float64(warm.Milliseconds())/n, "warm-ms/op")
	b.ReportMetric(float64(changed.Milliseconds())/n, "new-overlay-ms/op")
	b.ReportMetric(float64(fresh.Milliseconds())/n, "fresh-ms/op")
}
