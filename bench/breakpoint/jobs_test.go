package breakpoint_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/faultline-dev/faultline/bench/breakpoint"
	"github.com/faultline-dev/faultline/callgraph"
	"github.com/faultline-dev/faultline/corrupt"
	"github.com/faultline-dev/faultline/sandbox"
	"github.com/faultline-dev/faultline/task"
)

// BenchmarkJobsSimplejson measures concurrent validation on a real Python repository (its
// pytest runs are single-threaded, unlike go test's compile and link): the same REMOVE
// generation with one worker and with two, no result cache. Compare the sub-benchmarks:
//
//	go test ./bench/breakpoint -run '^$' -bench JobsSimplejson -benchtime 2x
func BenchmarkJobsSimplejson(b *testing.B) {
	ctx := context.Background()
	repo := breakpoint.SimplejsonTB(b)
	g, err := callgraph.Build(ctx, repo.Root, []callgraph.Language{repo.Lang}, callgraph.BuildOptions{SkipTests: true})
	if err != nil {
		b.Fatal(err)
	}
	c, err := g.Centrality(ctx, callgraph.CentralityOptions{})
	if err != nil {
		b.Fatal(err)
	}
	r := sandbox.NewLocal(sandbox.Options{Jobs: 2})
	b.Cleanup(func() { r.Close() })
	req := task.RunRequest{Root: repo.Root, Kind: repo.Kind}
	bl, err := sandbox.Baseline(ctx, r, req, 1)
	if err != nil {
		b.Fatal(err)
	}
	base := corrupt.Baseline{Passing: bl.Passing}
	var first string
	for _, jobs := range []int{1, 2} {
		b.Run(fmt.Sprintf("jobs=%d", jobs), func(b *testing.B) {
			for b.Loop() {
				res, err := corrupt.Generate(ctx, repo.Root, g, c, r, base, corrupt.Options{Mode: corrupt.Remove, N: 6, Seed: 7, Run: req, Jobs: jobs})
				if err != nil {
					b.Fatal(err)
				}
				key := ""
				for _, x := range res {
					key += x.Patch
				}
				if first == "" {
					first = key
				} else if key != first {
					b.Fatal("the output depends on the number of workers")
				}
			}
		})
	}
}
