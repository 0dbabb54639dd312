package callgraph

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
)

// randomCSR is a seeded random directed graph with n nodes and m distinct edges, no
// self-loops: 5,000 nodes and 25,000 edges, the shape the centrality benchmarks use.
func randomCSR(n, m int, seed uint64) *csr {
	rng := rand.New(rand.NewPCG(seed, seed))
	seen := map[[2]int32]bool{}
	var edges [][2]int32
	for len(edges) < m {
		e := [2]int32{int32(rng.IntN(n)), int32(rng.IntN(n))}
		if e[0] != e[1] && !seen[e] {
			seen[e] = true
			edges = append(edges, e)
		}
	}
	slices.SortFunc(edges, func(a, b [2]int32) int {
		if a[0] != b[0] {
			return int(a[0] - b[0])
		}
		return int(a[1] - b[1])
	})
	return newCSR(n, edges)
}

func benchMeasure(b *testing.B, m Measure, compat Compat) {
	c := randomCSR(5000, 25000, 1)
	ctx := context.Background()
	for b.Loop() {
		if _, err := computeCentrality(ctx, c, CentralityOptions{Measures: m, Compat: compat}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBetweenness5k(b *testing.B) { benchMeasure(b, MeasureBetweenness, CompatNone) }
func BenchmarkCompatBetweenness5k(b *testing.B) {
	benchMeasure(b, MeasureBetweenness, CompatBreakpoint)
}
func BenchmarkHarmonicDiscount5k(b *testing.B) { benchMeasure(b, MeasureHarmonic, CompatNone) }
func BenchmarkPageRank5k(b *testing.B)         { benchMeasure(b, MeasurePageRank, CompatNone) }
