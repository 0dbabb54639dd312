package callgraph

import (
	"context"
	"math"
	"slices"
	"testing"
)

// graphFromBytes decodes fuzz input into a small directed graph: the first byte picks
// n ∈ [1, 24], every following pair of bytes is an edge (self-loops and duplicates
// allowed; they must be dropped).
func graphFromBytes(data []byte) (int, [][2]int32) {
	if len(data) == 0 {
		return 1, nil
	}
	n := 1 + int(data[0])%24
	var edges [][2]int32
	for k := 1; k+1 < len(data); k += 2 {
		edges = append(edges, [2]int32{int32(int(data[k]) % n), int32(int(data[k+1]) % n)})
	}
	slices.SortFunc(edges, func(a, b [2]int32) int {
		if a[0] != b[0] {
			return int(a[0] - b[0])
		}
		return int(a[1] - b[1])
	})
	return n, slices.Compact(edges)
}

// bruteForce computes distances and shortest-path counts between all pairs from an
// adjacency matrix, and from them the definitions of docs/callgraph.md directly.
func bruteForce(n int, edges [][2]int32, alpha float64) (hc, dd, bc []float64) {
	const inf = math.MaxInt32
	dist := make([][]int, n)
	sigma := make([][]float64, n)
	for s := range n {
		dist[s] = make([]int, n)
		sigma[s] = make([]float64, n)
		for t := range n {
			dist[s][t] = inf
		}
		dist[s][s], sigma[s][s] = 0, 1
	}
	adj := make([][]bool, n)
	for i := range adj {
		adj[i] = make([]bool, n)
	}
	for _, e := range edges {
		if e[0] != e[1] {
			adj[e[0]][e[1]] = true
		}
	}
	// Path counts by length: σ_k(s,t) = Σ_{u→t} σ_{k−1}(s,u), taken at the first k that
	// reaches t.
	for s := range n {
		frontier := map[int]float64{s: 1}
		for k := 1; k < n && len(frontier) > 0; k++ {
			next := map[int]float64{}
			for t := range n {
				if dist[s][t] != inf {
					continue
				}
				var cnt float64
				for u, c := range frontier {
					if adj[u][t] {
						cnt += c
					}
				}
				if cnt > 0 {
					next[t] = cnt
				}
			}
			for t, c := range next {
				dist[s][t], sigma[s][t] = k, c
			}
			frontier = next
		}
	}
	hc, dd, bc = make([]float64, n), make([]float64, n), make([]float64, n)
	for s := range n {
		for t := range n {
			if t == s || dist[s][t] == inf {
				continue
			}
			if n > 1 {
				hc[s] += 1 / float64(dist[s][t]) / float64(n-1)
			}
			dd[s] += math.Pow(alpha, float64(dist[s][t]))
			for v := range n {
				if v == s || v == t || dist[s][v] == inf || dist[v][t] == inf {
					continue
				}
				if dist[s][v]+dist[v][t] == dist[s][t] {
					bc[v] += sigma[s][v] * sigma[v][t] / sigma[s][t]
				}
			}
		}
	}
	return hc, dd, bc
}

func FuzzCentrality(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{4, 0, 1, 1, 2, 2, 3, 0, 2})
	f.Add([]byte{6, 0, 1, 0, 2, 1, 3, 2, 3, 3, 4, 3, 5, 4, 0, 5, 5})
	f.Add([]byte{10, 1, 1, 2, 2, 3, 4, 4, 3, 7, 8, 8, 9, 9, 7})
	f.Add([]byte{23, 0, 5, 5, 9, 9, 0, 1, 2, 2, 3, 3, 1, 0, 1, 4, 6, 6, 4, 11, 12, 12, 13, 22, 21})
	f.Fuzz(func(t *testing.T, data []byte) {
		n, edges := graphFromBytes(data)
		c := newCSR(n, edges)
		got, err := computeCentrality(context.Background(), c, CentralityOptions{Alpha: 0.7, Workers: 3})
		if err != nil {
			t.Fatal(err)
		}
		hc, dd, bc := bruteForce(n, edges, 0.7)
		for v := range n {
			if !close1e9(got.Harmonic[v], hc[v]) || !close1e9(got.DistanceDiscount[v], dd[v]) || !close1e9(got.Betweenness[v], bc[v]) {
				t.Fatalf("node %d of %d %v: got hc %g dd %g bc %g, want %g %g %g", v, n, edges,
					got.Harmonic[v], got.DistanceDiscount[v], got.Betweenness[v], hc[v], dd[v], bc[v])
			}
		}
		var sum float64
		for _, p := range got.PageRank {
			sum += p
		}
		if got.PageRankConverged && math.Abs(sum-1) > 1e-9 {
			t.Fatalf("PageRank sums to %g", sum)
		}
		// The compat betweenness credits exactly one tree path per reachable pair, so its
		// raw total is Σ over pairs of (d(s,t) − 1).
		bp, err := computeCentrality(context.Background(), c, CentralityOptions{Compat: CompatBreakpoint})
		if err != nil {
			t.Fatal(err)
		}
		var want, total float64
		for s := 0; s < n; s++ {
			b := newBFS(n)
			bfsRun(b, c, int32(s))
			for _, v := range b.order[1:] {
				want += float64(b.dist[v] - 1)
			}
		}
		for _, x := range bp.Betweenness {
			total += x
		}
		if n > 2 {
			total *= float64(n-1) * float64(n-2)
		}
		if math.Abs(total-want) > 1e-9*math.Max(1, want) {
			t.Fatalf("compat betweenness total %g, want %g", total, want)
		}
	})
}

// bfsRun visits the nodes reachable from s, recording distances and BFS order.
func bfsRun(b *bfs, c *csr, s int32) {
	for _, v := range b.order {
		b.dist[v] = -1
	}
	b.order = append(b.order[:0], s)
	b.dist[s] = 0
	for h := 0; h < len(b.order); h++ {
		v := b.order[h]
		d := b.dist[v] + 1
		for _, w := range c.succ(v) {
			if b.dist[w] < 0 {
				b.dist[w] = d
				b.order = append(b.order, w)
			}
		}
	}
}
