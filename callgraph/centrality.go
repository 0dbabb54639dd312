package callgraph

import (
	"cmp"
	"context"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// Compat selects a compatibility mode for centrality and metrics.
type Compat int

const (
	// CompatNone follows docs/callgraph.md's definitions (the default).
	CompatNone Compat = iota
	// CompatBreakpoint reproduces the released Breakpoint code's quirks: α = 0.8, its
	// single-path betweenness (see Centrality), PageRank without dangling redistribution
	// returning the iterate before convergence, and code lines + 1.
	CompatBreakpoint
)

// Measure selects centrality measures to compute.
type Measure uint8

// The measures Graph.Centrality can compute; degrees are always computed.
const (
	MeasureHarmonic    Measure = 1 << iota // harmonic and distance discount (one BFS per source)
	MeasureBetweenness                     // betweenness
	MeasurePageRank                        // PageRank
	AllMeasures        = MeasureHarmonic | MeasureBetweenness | MeasurePageRank
)

// CentralityOptions configures Graph.Centrality. The zero value gives the spec's defaults.
type CentralityOptions struct {
	// Measures selects what to compute; 0 means AllMeasures. Measures left out are absent:
	// their slices in Centrality are nil, and NodeCentrality, Value and the report leave
	// them out (never 0).
	Measures Measure
	// Alpha is the distance-discount base; 0 means 0.5 (0.8 under CompatBreakpoint).
	Alpha float64
	// Damping is PageRank's damping factor; 0 means 0.85.
	Damping float64
	// Tol is PageRank's tolerance: iteration stops when the L1 change is below n·Tol
	// (networkx's rule); 0 means 1e-6.
	Tol float64
	// MaxIter caps PageRank's iterations; 0 means 100 (networkx's default). Reaching the
	// cap is not an error: Centrality.PageRankConverged reports it.
	MaxIter int
	// NormalizeBetweenness divides betweenness by (n−1)(n−2) (networkx normalized=True
	// for directed graphs). CompatBreakpoint always normalises.
	NormalizeBetweenness bool
	// IncludeModules keeps module pseudo-nodes in the centrality graph.
	IncludeModules bool
	// Compat selects a compatibility mode. The Centrality remembers it, and Graph.Report
	// counts code lines by it: it is given once.
	Compat Compat
	// Workers bounds the goroutines used; 0 means GOMAXPROCS. Results do not depend on it.
	Workers int
}

// Centrality holds per-node measures as parallel slices indexed like Graph.Nodes; Node
// gives one node's view and Ranked orders nodes by a score. Nodes left out of the
// centrality graph (module pseudo-nodes unless IncludeModules) have Included false and
// zeros in the slices, which Node, Value and the report treat as absent. The slices of a
// measure not computed (not among CentralityOptions.Measures) are nil.
type Centrality struct {
	Included         []bool
	N                int       // nodes in the centrality graph
	Harmonic         []float64 // nil unless MeasureHarmonic
	DistanceDiscount []float64 // nil unless MeasureHarmonic
	PageRank         []float64 // nil unless MeasurePageRank
	Betweenness      []float64 // nil unless MeasureBetweenness
	InDegree         []int
	OutDegree        []int
	// Measures are the measures computed (degrees always are).
	Measures Measure
	// Compat is the compatibility mode the measures were computed in.
	Compat Compat
	// PageRankIterations is the number of power iterations run; PageRankConverged is false
	// when MaxIter was reached first (or PageRank was not among the Measures).
	PageRankIterations int
	PageRankConverged  bool
}

// TotalDegree returns in-degree + out-degree of node i.
func (c *Centrality) TotalDegree(i int) int { return c.InDegree[i] + c.OutDegree[i] }

// csr is a compact directed graph: the successors of v are adj[start[v]:start[v+1]],
// sorted, without self-loops or duplicates.
type csr struct {
	n     int
	start []int32
	adj   []int32
	// rstart/radj hold predecessors in the same layout.
	rstart []int32
	radj   []int32
}

// newCSR builds the compact graph of n nodes from edges sorted by (from, to) without
// duplicates; self-loops are dropped.
func newCSR(n int, edges [][2]int32) *csr {
	c := &csr{n: n, start: make([]int32, n+1), rstart: make([]int32, n+1)}
	m := 0
	for _, e := range edges {
		if e[0] != e[1] {
			c.start[e[0]+1]++
			c.rstart[e[1]+1]++
			m++
		}
	}
	for i := range n {
		c.start[i+1] += c.start[i]
		c.rstart[i+1] += c.rstart[i]
	}
	c.adj = make([]int32, 0, m)
	c.radj = make([]int32, m)
	next := make([]int32, n)
	copy(next, c.rstart[:n])
	for _, e := range edges {
		if e[0] == e[1] {
			continue
		}
		c.adj = append(c.adj, e[1])
		c.radj[next[e[1]]] = e[0]
		next[e[1]]++
	}
	return c
}

func (c *csr) succ(v int32) []int32 { return c.adj[c.start[v]:c.start[v+1]] }
func (c *csr) pred(v int32) []int32 { return c.radj[c.rstart[v]:c.rstart[v+1]] }

// subgraph returns the compact centrality graph and the map from its indices to node
// indices.
func (g *Graph) subgraph(includeModules bool) (*csr, []int) {
	sub := make([]int32, len(g.nodes))
	var keep []int
	for i := range g.nodes {
		if includeModules || !g.nodes[i].IsModule() {
			sub[i] = int32(len(keep))
			keep = append(keep, i)
		} else {
			sub[i] = -1
		}
	}
	edges := make([][2]int32, 0, len(g.edges))
	for _, e := range g.edges {
		if a, b := sub[e.From], sub[e.To]; a >= 0 && b >= 0 {
			edges = append(edges, [2]int32{a, b})
		}
	}
	return newCSR(len(keep), edges), keep
}

// Centrality computes the measures of docs/callgraph.md (Centrality) on the graph without
// self-loops (and without module pseudo-nodes unless opts.IncludeModules). Path measures
// run in parallel over sources; the result is bit-for-bit independent of Workers and
// GOMAXPROCS. The error is ctx.Err() if ctx is cancelled.
func (g *Graph) Centrality(ctx context.Context, opts CentralityOptions) (*Centrality, error) {
	c, keep := g.subgraph(opts.IncludeModules)
	r, err := computeCentrality(ctx, c, opts)
	if err != nil {
		return nil, err
	}
	n := len(g.nodes)
	out := &Centrality{
		Included: make([]bool, n), N: c.n,
		InDegree: make([]int, n), OutDegree: make([]int, n),
		Measures: r.Measures, Compat: opts.Compat,
		PageRankIterations: r.PageRankIterations, PageRankConverged: r.PageRankConverged,
	}
	spread := func(m Measure, v []float64) []float64 {
		if r.Measures&m == 0 {
			return nil
		}
		w := make([]float64, n)
		for s, i := range keep {
			w[i] = v[s]
		}
		return w
	}
	out.Harmonic, out.DistanceDiscount = spread(MeasureHarmonic, r.Harmonic), spread(MeasureHarmonic, r.DistanceDiscount)
	out.PageRank, out.Betweenness = spread(MeasurePageRank, r.PageRank), spread(MeasureBetweenness, r.Betweenness)
	for s, i := range keep {
		out.Included[i] = true
		out.InDegree[i] = r.InDegree[s]
		out.OutDegree[i] = r.OutDegree[s]
	}
	return out, nil
}

// computeCentrality computes every measure on c; the result is indexed by c's nodes.
func computeCentrality(ctx context.Context, c *csr, opts CentralityOptions) (*Centrality, error) {
	opts = opts.withDefaults()
	r := &Centrality{N: c.n, InDegree: make([]int, c.n), OutDegree: make([]int, c.n), Measures: opts.Measures & AllMeasures, Compat: opts.Compat}
	for v := range c.n {
		r.OutDegree[v] = int(c.start[v+1] - c.start[v])
		r.InDegree[v] = int(c.rstart[v+1] - c.rstart[v])
	}
	// The measures are computed at the same time: PageRank on one goroutine, the path
	// measures each on its workers, so that no core waits for the last block of one
	// measure before the next starts. Each measure's result does not depend on the others
	// or on the scheduling.
	var wg sync.WaitGroup
	var errH, errB error
	if opts.Measures&MeasurePageRank != 0 {
		wg.Go(func() {
			r.PageRank, r.PageRankIterations, r.PageRankConverged = pageRank(c, opts.Damping, opts.Tol, opts.MaxIter, opts.Compat == CompatBreakpoint)
		})
	}
	if opts.Measures&MeasureHarmonic != 0 {
		wg.Go(func() {
			r.Harmonic, r.DistanceDiscount, errH = closeness(ctx, c, opts.Alpha, opts.Workers)
		})
	}
	if opts.Measures&MeasureBetweenness != 0 {
		wg.Go(func() {
			if opts.Compat == CompatBreakpoint {
				r.Betweenness, errB = treeBetweenness(ctx, c, opts.Workers)
			} else {
				r.Betweenness, errB = brandes(ctx, c, opts.Workers)
			}
		})
	}
	wg.Wait()
	if errH != nil {
		return nil, errH
	}
	if errB != nil {
		return nil, errB
	}
	if opts.Measures&MeasureBetweenness != 0 {
		if opts.NormalizeBetweenness || opts.Compat == CompatBreakpoint {
			if c.n > 2 {
				scale := 1 / (float64(c.n-1) * float64(c.n-2))
				for v := range r.Betweenness {
					r.Betweenness[v] *= scale
				}
			}
		}
	}
	return r, nil
}

func (o CentralityOptions) withDefaults() CentralityOptions {
	if o.Alpha == 0 {
		o.Alpha = 0.5
		if o.Compat == CompatBreakpoint {
			o.Alpha = 0.8
		}
	}
	if o.Measures == 0 {
		o.Measures = AllMeasures
	}
	if o.Damping == 0 {
		o.Damping = 0.85
	}
	if o.Tol == 0 {
		o.Tol = 1e-6
	}
	if o.MaxIter == 0 {
		o.MaxIter = 100
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	return o
}

// bfs is per-goroutine scratch space for breadth-first searches from one source.
type bfs struct {
	dist  []int32 // -1 when unvisited
	order []int32 // visited nodes in BFS order
}

func newBFS(n int) *bfs {
	b := &bfs{dist: make([]int32, n), order: make([]int32, 0, n)}
	for i := range b.dist {
		b.dist[i] = -1
	}
	return b
}

// forSources runs fn for each block of sources [lo, hi) on up to workers goroutines.
// Blocks are fixed by n alone (numBlocks), so a caller that keeps one accumulator per
// block and reduces them in block order gets results independent of workers.
func forSources(ctx context.Context, n, workers int, fn func(block, lo, hi int)) error {
	nb := numBlocks(n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, max(nb, 1)) {
		wg.Go(func() {
			for {
				b := int(next.Add(1) - 1)
				if b >= nb || ctx.Err() != nil {
					return
				}
				fn(b, b*n/nb, (b+1)*n/nb)
			}
		})
	}
	wg.Wait()
	return ctx.Err()
}

// numBlocks is the number of source blocks for n nodes: enough to balance the load on
// any realistic core count, few enough to bound per-block accumulators at 32·n floats.
func numBlocks(n int) int { return min(n, 32) }

// closeness returns outgoing harmonic centrality ÷ (n−1) and the distance discount
// Σ α^d over reachable nodes. It runs a bit-parallel breadth-first search from 64 sources
// at once (each node carries a 64-bit mask of the sources that have reached it, after
// Then, Chan et al.'s MS-BFS): per level, the number of nodes each source first reaches
// is counted, and the sums are formed per source as Σ_d count_d·(1/d) and Σ_d count_d·α^d
// in increasing d. Each source's sums are independent of the others and of how batches
// are spread over goroutines.
func closeness(ctx context.Context, c *csr, alpha float64, workers int) (hc, dd []float64, err error) {
	hc, dd = make([]float64, c.n), make([]float64, c.n)
	pow := make([]float64, c.n+1)
	p := 1.0
	for d := range pow {
		pow[d] = p
		p *= alpha
	}
	norm := 0.0
	if c.n > 1 {
		norm = 1 / float64(c.n-1)
	}
	nbatch := (c.n + 63) / 64
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, max(nbatch, 1)) {
		wg.Go(func() {
			seen := make([]uint64, c.n)
			frontier := make([]uint64, c.n)
			reach := make([]uint64, c.n)
			var cur, nxt []int32
			for {
				bi := int(next.Add(1) - 1)
				if bi >= nbatch || ctx.Err() != nil {
					return
				}
				lo, hi := bi*64, min((bi+1)*64, c.n)
				clear(seen)
				cur = cur[:0]
				for s := lo; s < hi; s++ {
					seen[s] = 1 << (s - lo)
					frontier[s] = seen[s]
					cur = append(cur, int32(s))
				}
				var h, x [64]float64
				for d := 1; len(cur) > 0; d++ {
					nxt = nxt[:0]
					for _, v := range cur {
						f := frontier[v]
						frontier[v] = 0
						for _, w := range c.adj[c.start[v]:c.start[v+1]] {
							if reach[w] == 0 {
								nxt = append(nxt, w)
							}
							reach[w] |= f
						}
					}
					var count [64]int
					k := 0
					for _, w := range nxt {
						nb := reach[w] &^ seen[w]
						reach[w] = 0
						if nb == 0 {
							continue
						}
						seen[w] |= nb
						frontier[w] = nb
						nxt[k] = w
						k++
						for nb != 0 {
							count[bits.TrailingZeros64(nb)]++
							nb &= nb - 1
						}
					}
					inv := 1 / float64(d)
					for i := range hi - lo {
						if count[i] > 0 {
							h[i] += float64(count[i]) * inv
							x[i] += float64(count[i]) * pow[d]
						}
					}
					cur, nxt = nxt[:k], cur
				}
				for i := range hi - lo {
					hc[lo+i] = h[i] * norm
					dd[lo+i] = x[i]
				}
			}
		})
	}
	wg.Wait()
	return hc, dd, ctx.Err()
}

// brandes returns raw betweenness (ordered pairs, networkx normalized=False) by Brandes'
// algorithm with path counts σ in float64. The forward search counts paths as it goes,
// records where each BFS level starts, and lists the edges of the shortest-path DAG (v on
// level L, w on L+1) grouped by level — about a third of all edges on random graphs. The
// backward pass goes level by level from the deepest: each DAG edge pushes its head's
// coefficient coef(w) = (1+δ(w))/σ(w) to its tail, then every node of the level gets
// δ(v) = σ(v)·Σ coef. Sources are processed in fixed blocks, each with its own
// accumulator; blocks are summed in order.
func brandes(ctx context.Context, c *csr, workers int) ([]float64, error) {
	nb := numBlocks(c.n)
	acc := make([][]float64, nb)
	start, adj, rstart, radj := c.start, c.adj, c.rstart, c.radj
	// The scratch space of a search is reused from block to block (a goroutine runs one
	// block at a time, so there are at most workers of them): each search leaves dist at
	// -1 and sum at 0, and writes sigma and coef before it reads them.
	var mu sync.Mutex
	var free []*brandesScratch
	err := forSources(ctx, c.n, workers, func(block, lo, hi int) {
		mu.Lock()
		var sc *brandesScratch
		if k := len(free); k > 0 {
			sc, free = free[k-1], free[:k-1]
		}
		mu.Unlock()
		if sc == nil {
			sc = newBrandesScratch(c.n, len(adj))
		}
		defer func() {
			mu.Lock()
			free = append(free, sc)
			mu.Unlock()
		}()
		bc := make([]float64, c.n)
		unvisited, dist, sigma, coef, sum := sc.unvisited, sc.dist, sc.sigma, sc.coef, sc.sum
		order, levels, dag, dagLevels := sc.order, sc.levels, sc.dag, sc.dagLevels
		defer func() {
			sc.unvisited, sc.order, sc.levels, sc.dag, sc.dagLevels = unvisited, order, levels, dag, dagLevels
		}()
		for s := lo; s < hi; s++ {
			if start[s] == start[s+1] {
				continue // reaches nothing
			}
			order = append(order[:0], int32(s))
			levels = append(levels[:0], 0)
			dag = dag[:0]
			dagLevels = dagLevels[:0]
			dist[s], sigma[s] = 0, 1
			// Direction-optimising search (Beamer et al.): expand the frontier top-down
			// while its out-edges are fewer than the in-edges of the unvisited nodes, then
			// bottom-up, each unvisited node summing σ over its predecessors on the
			// frontier. Every edge is then looked at about once, from whichever end is
			// cheaper.
			frontierOut := int(start[s+1] - start[s])
			remainingIn := len(adj) - int(rstart[s+1]-rstart[s])
			bottomUp := false
			unvisited = unvisited[:0]
			for L := int32(0); ; L++ {
				lo, hi := levels[L], len(order)
				dv := L + 1
				if !bottomUp && frontierOut > remainingIn {
					bottomUp = true
					for u := range int32(c.n) {
						if dist[u] < 0 {
							unvisited = append(unvisited, u)
						}
					}
				}
				nextOut := 0
				dagLevels = append(dagLevels, len(dag))
				if bottomUp {
					k := 0
					for _, u := range unvisited {
						var su float64
						for _, p := range radj[rstart[u]:rstart[u+1]] {
							if dist[p] == L {
								su += sigma[p]
								dag = append(dag, [2]int32{p, u})
							}
						}
						if su > 0 {
							dist[u], sigma[u] = dv, su
							order = append(order, u)
							nextOut += int(start[u+1] - start[u])
							remainingIn -= int(rstart[u+1] - rstart[u])
						} else {
							unvisited[k] = u
							k++
						}
					}
					unvisited = unvisited[:k]
				} else {
					for _, v := range order[lo:hi] {
						sv := sigma[v]
						for _, w := range adj[start[v]:start[v+1]] {
							switch dw := dist[w]; {
							case dw < 0:
								dist[w], sigma[w] = dv, sv
								order = append(order, w)
								nextOut += int(start[w+1] - start[w])
								remainingIn -= int(rstart[w+1] - rstart[w])
								dag = append(dag, [2]int32{v, w})
							case dw == dv:
								sigma[w] += sv
								dag = append(dag, [2]int32{v, w})
							}
						}
					}
				}
				if len(order) == hi {
					break
				}
				levels = append(levels, hi)
				frontierOut = nextOut
			}
			levels = append(levels, len(order))
			dagLevels = append(dagLevels, len(dag))
			// Backward, level by level from the deepest: push each DAG edge's coefficient
			// to its tail, then finish the level.
			for L := len(levels) - 2; L > 0; L-- {
				if L < len(dagLevels)-1 {
					for _, e := range dag[dagLevels[L]:dagLevels[L+1]] {
						sum[e[0]] += coef[e[1]]
					}
				}
				for _, v := range order[levels[L]:levels[L+1]] {
					delta := sigma[v] * sum[v]
					sum[v] = 0
					bc[v] += delta
					coef[v] = (1 + delta) / sigma[v]
				}
			}
			for _, v := range order {
				dist[v] = -1
			}
		}
		acc[block] = bc
	})
	if err != nil {
		return nil, err
	}
	return reduceBlocks(c.n, acc), nil
}

// brandesScratch is the storage of brandes' searches from one source.
type brandesScratch struct {
	unvisited, order []int32
	dist             []int32   // -1 when unvisited
	sigma            []float64 // shortest paths from the source
	coef             []float64 // (1+δ(w))/σ(w), valid once w's level is done
	sum              []float64 // Σ coef over v's DAG successors so far
	levels           []int     // order[levels[L]:levels[L+1]] is level L
	// DAG edges (v on level L, w on level L+1) in discovery order, grouped by L:
	// dag[dagLevels[L]:dagLevels[L+1]].
	dag       [][2]int32
	dagLevels []int
}

func newBrandesScratch(n, m int) *brandesScratch {
	sc := &brandesScratch{
		dist: make([]int32, n), sigma: make([]float64, n), coef: make([]float64, n), sum: make([]float64, n),
		order: make([]int32, 0, n), levels: make([]int, 0, 64), dag: make([][2]int32, 0, m), dagLevels: make([]int, 0, 64),
	}
	for i := range sc.dist {
		sc.dist[i] = -1
	}
	return sc
}

func reduceBlocks(n int, acc [][]float64) []float64 {
	out := make([]float64, n)
	for _, a := range acc {
		for v, x := range a {
			out[v] += x
		}
	}
	return out
}

// treeBetweenness is the Breakpoint-compatible betweenness (docs/breakpoint.md, Where the
// released code differs). Our reading of "accumulated in dictionary order without path
// counts": for each source s, a breadth-first search visits successors in adjacency order
// and gives every node the single parent that discovered it first; each reachable t ≠ s
// then credits 1 to every interior node of the one tree path s → t. Ties between equally
// short paths are thus broken by node order (here: ID order, successors sorted), not shared
// as σ_st(v)/σ_st. Counts are integers, so the sum is exact and order-free.
func treeBetweenness(ctx context.Context, c *csr, workers int) ([]float64, error) {
	nb := numBlocks(c.n)
	acc := make([][]float64, nb)
	err := forSources(ctx, c.n, workers, func(block, lo, hi int) {
		bc := make([]float64, c.n)
		b := newBFS(c.n)
		parent := make([]int32, c.n)
		size := make([]float64, c.n) // nodes in v's BFS subtree, v included
		for s := lo; s < hi; s++ {
			for _, v := range b.order {
				b.dist[v] = -1
			}
			b.order = append(b.order[:0], int32(s))
			b.dist[s] = 0
			for h := 0; h < len(b.order); h++ {
				v := b.order[h]
				size[v] = 1
				for _, w := range c.succ(v) {
					if b.dist[w] < 0 {
						b.dist[w] = b.dist[v] + 1
						parent[w] = v
						b.order = append(b.order, w)
					}
				}
			}
			for k := len(b.order) - 1; k > 0; k-- {
				v := b.order[k]
				bc[v] += size[v] - 1
				size[parent[v]] += size[v]
			}
		}
		acc[block] = bc
	})
	if err != nil {
		return nil, err
	}
	return reduceBlocks(c.n, acc), nil
}

// pageRank runs the power iteration from the uniform vector. Default: networkx's
// iteration x' = d·(xA + Σ_dangling x / n) + (1−d)/n, returning x' once ‖x'−x‖₁ < n·tol.
// compat (Breakpoint): no dangling redistribution, and the previous iterate x is returned.
// Each x'[v] sums its predecessors in index order, so the result is deterministic.
func pageRank(c *csr, damping, tol float64, maxIter int, compat bool) ([]float64, int, bool) {
	n := c.n
	if n == 0 {
		return nil, 0, true
	}
	invOut := make([]float64, n)
	var dangling []int32
	for v := range n {
		if k := c.start[v+1] - c.start[v]; k > 0 {
			invOut[v] = 1 / float64(k)
		} else {
			dangling = append(dangling, int32(v))
		}
	}
	x := make([]float64, n)
	for v := range x {
		x[v] = 1 / float64(n)
	}
	next := make([]float64, n)
	w := make([]float64, n) // x[u]/outdeg(u)
	p := 1 / float64(n)
	for it := 1; it <= maxIter; it++ {
		for u := range n {
			w[u] = x[u] * invOut[u]
		}
		var dsum float64
		if !compat {
			for _, u := range dangling {
				dsum += x[u]
			}
		}
		var errSum float64
		for v := range n {
			var s float64
			for _, u := range c.pred(int32(v)) {
				s += w[u]
			}
			next[v] = damping*(s+dsum*p) + (1-damping)*p
			errSum += math.Abs(next[v] - x[v])
		}
		if errSum < float64(n)*tol {
			if compat {
				return x, it, true
			}
			return next, it, true
		}
		x, next = next, x
	}
	return x, maxIter, false
}

// Score names one per-node centrality value, as the JSON report spells it.
type Score string

// The scores a node can be ranked by.
const (
	ScoreHarmonic         Score = "harmonic"
	ScoreDistanceDiscount Score = "distance_discount"
	ScorePageRank         Score = "pagerank"
	ScoreBetweenness      Score = "betweenness"
	ScoreInDegree         Score = "in_degree"
	ScoreOutDegree        Score = "out_degree"
	ScoreDegree           Score = "degree" // in-degree + out-degree
)

// NodeCentrality is one node's centrality (Centrality.Node). A measure that was not
// computed is nil, and so left out of the JSON form; degrees are always computed.
type NodeCentrality struct {
	Harmonic         *float64 `json:"harmonic,omitempty"`
	DistanceDiscount *float64 `json:"distance_discount,omitempty"`
	PageRank         *float64 `json:"pagerank,omitempty"`
	Betweenness      *float64 `json:"betweenness,omitempty"`
	InDegree         int      `json:"in_degree"`
	OutDegree        int      `json:"out_degree"`
}

// Node returns node i's centrality; ok is false when the node was left out of the
// centrality graph (a module pseudo-node without IncludeModules), which has none. It
// panics if i is out of range.
func (c *Centrality) Node(i int) (n NodeCentrality, ok bool) {
	if !c.Included[i] {
		return NodeCentrality{}, false
	}
	at := func(v []float64) *float64 {
		if v == nil {
			return nil
		}
		x := v[i]
		return &x
	}
	return NodeCentrality{
		Harmonic: at(c.Harmonic), DistanceDiscount: at(c.DistanceDiscount),
		PageRank: at(c.PageRank), Betweenness: at(c.Betweenness),
		InDegree: c.InDegree[i], OutDegree: c.OutDegree[i],
	}, true
}

// Value returns node i's score s; ok is false when the node has no centrality (see
// Node), the measure was not computed, or s is not a Score.
func (c *Centrality) Value(i int, s Score) (v float64, ok bool) {
	if !c.Included[i] {
		return 0, false
	}
	pick := func(v []float64) (float64, bool) {
		if v == nil {
			return 0, false
		}
		return v[i], true
	}
	switch s {
	case ScoreHarmonic:
		return pick(c.Harmonic)
	case ScoreDistanceDiscount:
		return pick(c.DistanceDiscount)
	case ScorePageRank:
		return pick(c.PageRank)
	case ScoreBetweenness:
		return pick(c.Betweenness)
	case ScoreInDegree:
		return float64(c.InDegree[i]), true
	case ScoreOutDegree:
		return float64(c.OutDegree[i]), true
	case ScoreDegree:
		return float64(c.TotalDegree(i)), true
	}
	return 0, false
}

// Ranked returns the indices of the nodes that have score s, highest first, ties in
// index order (node ID order), keeping only those keep accepts (nil keeps all) and at
// most n of them (n ≤ 0: all). It is empty when s was not computed.
func (c *Centrality) Ranked(s Score, n int, keep func(i int) bool) []int {
	type scored struct {
		i int
		v float64
	}
	var all []scored
	for i := range c.Included {
		v, ok := c.Value(i, s)
		if ok && (keep == nil || keep(i)) {
			all = append(all, scored{i, v})
		}
	}
	slices.SortStableFunc(all, func(a, b scored) int { return cmp.Compare(b.v, a.v) })
	if n > 0 && len(all) > n {
		all = all[:n]
	}
	out := make([]int, len(all))
	for k, x := range all {
		out[k] = x.i
	}
	return out
}
