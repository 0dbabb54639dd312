package corrupt

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/faultline-dev/faultline/callgraph"
	"github.com/faultline-dev/faultline/internal/numeric"
	"github.com/faultline-dev/faultline/task"
)

// Candidate is a function eligible for corruption, with its difficulty axes.
type Candidate struct {
	Node      *callgraph.Node
	CodeLines int     // Breakpoint's code lines (+1 in compatibility mode)
	Harmonic  float64 // out-harmonic centrality, normalised by n−1
	Degree    int     // callers + callees
	// Metrics holds the node's difficulty measures for the task record: code_lines,
	// cyclomatic and every centrality measure computed (one not computed is absent).
	Metrics map[string]float64
	// Hard reports membership of the hard set (see SelectOptions.Hard).
	Hard bool
}

// SelectOptions configures Select. The zero value follows the Breakpoint paper's defaults.
type SelectOptions struct {
	// MinCodeLines is the smallest code-line count kept; 0 means 5 (20 when Hard).
	MinCodeLines int
	// MinDegree is the smallest call-graph degree (callers + callees) kept; 0 means 1
	// (4 when Hard).
	MinDegree int
	// Hard keeps only the hard set: functions at or above the Percentile-th percentile of
	// both log(code lines + 1) and harmonic centrality, the percentiles taken over every
	// function that passes the non-hard filters (numpy's linear percentile).
	Hard bool
	// Percentile is the hard-set threshold; 0 means 90.
	Percentile float64
	// IsTest classifies test files and helpers, which are never corrupted; nil means
	// callgraph.IsTestPath.
	IsTest func(path string) bool
	// Compat counts code lines as Breakpoint's released code did (one more).
	Compat bool
}

func (o SelectOptions) withDefaults() SelectOptions {
	if o.MinCodeLines == 0 {
		o.MinCodeLines = 5
		if o.Hard {
			o.MinCodeLines = 20
		}
	}
	if o.MinDegree == 0 {
		o.MinDegree = 1
		if o.Hard {
			o.MinDegree = 4
		}
	}
	if o.Percentile == 0 {
		o.Percentile = 90
	}
	if o.IsTest == nil {
		o.IsTest = callgraph.IsTestPath
	}
	return o
}

// Select returns the functions of g that may be corrupted, sorted by node ID: functions and
// methods (not classes or module code) outside test files, with enough code lines and
// call-graph degree; with opts.Hard, only the hard set. c must come from g.Centrality.
// Every candidate's Hard flag is set whether or not opts.Hard filters on it.
func Select(g *callgraph.Graph, c *callgraph.Centrality, opts SelectOptions) []Candidate {
	o := opts.withDefaults()
	base := SelectOptions{MinCodeLines: 5, MinDegree: 1, IsTest: o.IsTest, Compat: o.Compat, Percentile: o.Percentile}
	if opts.MinCodeLines != 0 && opts.MinCodeLines < base.MinCodeLines {
		base.MinCodeLines = opts.MinCodeLines
	}
	if opts.MinDegree != 0 && opts.MinDegree < base.MinDegree {
		base.MinDegree = opts.MinDegree
	}
	var pool []Candidate
	for i := range g.Nodes() {
		n := g.Node(i)
		if n.Kind != task.KindFunction && n.Kind != task.KindMethod {
			continue
		}
		if base.IsTest(n.File) || !c.Included[i] {
			continue
		}
		cl := n.Metrics.CodeLines
		if o.Compat {
			cl = n.Metrics.CompatCodeLines()
		}
		deg := c.InDegree[i] + c.OutDegree[i]
		if cl < base.MinCodeLines || deg < base.MinDegree {
			continue
		}
		// Only the measures the centrality computed: one left out is absent, never a 0.
		scores := map[string]float64{"code_lines": float64(cl), "cyclomatic": float64(n.Metrics.Cyclomatic)}
		for _, s := range []callgraph.Score{callgraph.ScoreHarmonic, callgraph.ScoreDistanceDiscount, callgraph.ScorePageRank,
			callgraph.ScoreBetweenness, callgraph.ScoreInDegree, callgraph.ScoreOutDegree} {
			if v, ok := c.Value(i, s); ok {
				scores[string(s)] = v
			}
		}
		harmonic := scores[string(callgraph.ScoreHarmonic)] // 0 when not computed: no hard set then
		pool = append(pool, Candidate{Node: n, CodeLines: cl, Harmonic: harmonic, Degree: deg, Metrics: scores})
	}
	if len(pool) > 0 {
		logs := make([]float64, len(pool))
		harm := make([]float64, len(pool))
		for i, p := range pool {
			logs[i] = math.Log(float64(p.CodeLines) + 1)
			harm[i] = p.Harmonic
		}
		lt, ht := numeric.Percentile(logs, o.Percentile), numeric.Percentile(harm, o.Percentile)
		for i := range pool {
			pool[i].Hard = logs[i] >= lt && harm[i] >= ht
		}
	}
	out := pool[:0]
	for _, p := range pool {
		if p.CodeLines < o.MinCodeLines || p.Degree < o.MinDegree || (o.Hard && !p.Hard) {
			continue
		}
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Node.ID < out[j].Node.ID })
	return out
}

// GroupOptions configures Groups.
type GroupOptions struct {
	// K is the group size (≥ 2).
	K int
	// Distance is the largest chain distance allowed between any two members; 0 means 4
	// (the Breakpoint paper's value).
	Distance int
	// Undirected measures distance ignoring call direction (callers ∪ callees). Otherwise
	// two functions are within Distance when either reaches the other along calls in at
	// most Distance steps.
	Undirected bool
	// N is the number of groups wanted; 0 means 1.
	N int
}

// Groups samples up to opts.N distinct groups of opts.K candidates whose members are
// pairwise within opts.Distance in g (docs/breakpoint.md, Corruption modes: Groups),
// deterministically for a given rng. Each group is sorted by node ID; groups come in the
// order found. Fewer groups are returned when the graph does not have enough.
func Groups(g *callgraph.Graph, cands []Candidate, opts GroupOptions, rng *rand.Rand) ([][]Candidate, error) {
	if opts.K < 2 {
		return nil, fmt.Errorf("corrupt: group size %d: want at least 2", opts.K)
	}
	if rng == nil {
		return nil, fmt.Errorf("corrupt: groups need a *rand.Rand")
	}
	d := opts.Distance
	if d == 0 {
		d = 4
	}
	want := opts.N
	if want == 0 {
		want = 1
	}
	byIndex := map[int]int{} // node index → position in cands
	for i, c := range cands {
		byIndex[c.Node.Index] = i
	}
	// near[i] lists the candidates within d of candidate i (in both directions when
	// directed), sorted.
	near := make([][]int, len(cands))
	for i, c := range cands {
		set := map[int]bool{}
		for _, v := range g.Within(c.Node.Index, d, opts.Undirected) {
			if j, ok := byIndex[v]; ok {
				set[j] = true
			}
		}
		if !opts.Undirected {
			for j, o := range cands {
				if j == i || set[j] {
					continue
				}
				if dist, ok := g.Distance(o.Node.Index, c.Node.Index, false); ok && dist <= d {
					set[j] = true
				}
			}
		}
		for j := range set {
			near[i] = append(near[i], j)
		}
		sort.Ints(near[i])
	}
	isNear := func(a, b int) bool {
		_, ok := slices.BinarySearch(near[a], b)
		return ok
	}
	seen := map[string]bool{}
	var groups [][]Candidate
	order := rng.Perm(len(cands))
	for _, seed := range order {
		if len(groups) == want {
			break
		}
		if len(near[seed]) < opts.K-1 {
			continue
		}
		pool := slices.Clone(near[seed])
		rng.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
		members := []int{seed}
		var grow func(from int) bool
		budget := 10000 // bounds the backtracking on dense graphs
		grow = func(from int) bool {
			if len(members) == opts.K {
				return true
			}
			for i := from; i < len(pool); i++ {
				if budget--; budget < 0 {
					return false
				}
				cand := pool[i]
				ok := true
				for _, m := range members {
					if !isNear(m, cand) {
						ok = false
						break
					}
				}
				if !ok {
					continue
				}
				members = append(members, cand)
				if grow(i + 1) {
					return true
				}
				members = members[:len(members)-1]
			}
			return false
		}
		if !grow(0) {
			continue
		}
		group := make([]Candidate, len(members))
		for i, m := range members {
			group[i] = cands[m]
		}
		sort.Slice(group, func(i, j int) bool { return group[i].Node.ID < group[j].Node.ID })
		key := ""
		for _, m := range group {
			key += m.Node.ID + "\x00"
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		groups = append(groups, group)
	}
	return groups, nil
}
