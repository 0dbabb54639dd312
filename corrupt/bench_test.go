package corrupt

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/faultline-dev/faultline/sandbox"
	"github.com/faultline-dev/faultline/task"
)

// BenchmarkGenerateJobs measures concurrent validation: the same REMOVE generation on the
// sample with one worker and with two (no result cache, so every validation runs go test).
// Compare the two sub-benchmarks' ns/op for the speed-up:
//
//	go test ./corrupt -run '^$' -bench GenerateJobs -benchtime 3x
func BenchmarkGenerateJobs(b *testing.B) {
	ctx := context.Background()
	root, err := filepath.Abs("../examples/sample")
	if err != nil {
		b.Fatal(err)
	}
	g, c := sampleGraph(b)
	r := sandbox.NewLocal(sandbox.Options{Jobs: 2})
	b.Cleanup(func() { r.Close() })
	req := task.RunRequest{Root: root, Kind: task.GoTest}
	bl, err := sandbox.Baseline(ctx, r, req, 1)
	if err != nil {
		b.Fatal(err)
	}
	base := Baseline{Passing: bl.Passing}
	var first string
	for _, jobs := range []int{1, 2} {
		b.Run(fmt.Sprintf("jobs=%d", jobs), func(b *testing.B) {
			for b.Loop() {
				res, err := Generate(ctx, root, g, c, r, base, Options{Mode: Remove, N: 4, Seed: 2, Run: req, Jobs: jobs})
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
