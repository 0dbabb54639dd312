package callgraph

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/faultline-dev/faultline/task"
	"github.com/stretchr/testify/require"
)

// refCase is one graph of testdata/centrality, written by testdata/gen_centrality.py.
type refCase struct {
	Name     string               `json:"name"`
	N        int                  `json:"n"`
	Edges    [][2]int32           `json:"edges"`
	IDs      []string             `json:"ids"`
	NetworkX map[string][]float64 `json:"networkx"`
	IGraph   map[string][]float64 `json:"igraph"`
	Compat   map[string][]float64 `json:"compat"`
}

func loadRefCases(t testing.TB) []refCase {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "centrality", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, paths, "run /usr/bin/python3 callgraph/testdata/gen_centrality.py")
	var cases []refCase
	for _, p := range paths {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		var c refCase
		require.NoError(t, json.Unmarshal(b, &c), p)
		cases = append(cases, c)
	}
	return cases
}

// close1e9 reports whether got and want agree to 1e-9, relative for large magnitudes.
func close1e9(got, want float64) bool {
	return math.Abs(got-want) <= 1e-9*math.Max(1, math.Abs(want))
}

func requireVec(t *testing.T, what string, got []float64, want []float64) {
	t.Helper()
	require.Len(t, got, len(want), what)
	for i := range want {
		if !close1e9(got[i], want[i]) {
			t.Fatalf("%s[%d] = %.17g, want %.17g (diff %.3g)", what, i, got[i], want[i], got[i]-want[i])
		}
	}
}

func intsToFloats(xs []int) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = float64(x)
	}
	return out
}

func TestCentralityMatchesReferences(t *testing.T) {
	ctx := context.Background()
	for _, rc := range loadRefCases(t) {
		t.Run(rc.Name, func(t *testing.T) {
			c := newCSR(rc.N, rc.Edges)
			def, err := computeCentrality(ctx, c, CentralityOptions{})
			require.NoError(t, err)
			nx := rc.NetworkX
			requireVec(t, "harmonic vs networkx", def.Harmonic, nx["harmonic"])
			requireVec(t, "harmonic vs igraph", def.Harmonic, rc.IGraph["harmonic"])
			requireVec(t, "distance discount α=0.5", def.DistanceDiscount, nx["distance_discount_05"])
			requireVec(t, "pagerank vs networkx", def.PageRank, nx["pagerank"])
			require.True(t, def.PageRankConverged)
			requireVec(t, "betweenness vs networkx", def.Betweenness, nx["betweenness"])
			requireVec(t, "betweenness vs igraph", def.Betweenness, rc.IGraph["betweenness"])
			requireVec(t, "in-degree", intsToFloats(def.InDegree), nx["in_degree"])
			requireVec(t, "out-degree", intsToFloats(def.OutDegree), nx["out_degree"])

			norm, err := computeCentrality(ctx, c, CentralityOptions{NormalizeBetweenness: true, Alpha: 0.8})
			require.NoError(t, err)
			requireVec(t, "normalised betweenness", norm.Betweenness, nx["betweenness_normalized"])
			requireVec(t, "distance discount α=0.8", norm.DistanceDiscount, nx["distance_discount_08"])

			bp, err := computeCentrality(ctx, c, CentralityOptions{Compat: CompatBreakpoint})
			require.NoError(t, err)
			requireVec(t, "compat harmonic", bp.Harmonic, nx["harmonic"])
			requireVec(t, "compat distance discount (α=0.8)", bp.DistanceDiscount, nx["distance_discount_08"])
			requireVec(t, "compat betweenness", bp.Betweenness, rc.Compat["betweenness"])
			requireVec(t, "compat pagerank", bp.PageRank, rc.Compat["pagerank"])
		})
	}
}

// TestCentralityRealCallGraph checks the same vectors through the public API on the real
// call graphs (networkx's source, name-resolved with ast, and as our Python front end
// resolves it): each graph is assembled with FromAnalyses from its node IDs.
func TestCentralityRealCallGraph(t *testing.T) {
	seen := 0
	for _, rc := range loadRefCases(t) {
		if rc.IDs == nil {
			continue
		}
		seen++
		t.Run(rc.Name, func(t *testing.T) {
			a := &Analysis{}
			for _, id := range rc.IDs {
				a.Definitions = append(a.Definitions, Definition{Function: task.Function{ID: id, Kind: task.KindFunction}})
			}
			for k, e := range rc.Edges {
				a.Calls = append(a.Calls, Call{Caller: rc.IDs[e[0]], Callee: rc.IDs[e[1]], Line: k + 1})
			}
			g, err := FromAnalyses(a)
			require.NoError(t, err)
			require.Equal(t, rc.N, g.Len())
			for i, id := range rc.IDs {
				require.Equal(t, id, g.Node(i).ID, "nodes sorted by ID")
			}
			c, err := g.Centrality(context.Background(), CentralityOptions{})
			require.NoError(t, err)
			require.Equal(t, rc.N, c.N)
			requireVec(t, "harmonic", c.Harmonic, rc.NetworkX["harmonic"])
			requireVec(t, "pagerank", c.PageRank, rc.NetworkX["pagerank"])
			requireVec(t, "betweenness", c.Betweenness, rc.NetworkX["betweenness"])
			requireVec(t, "distance discount", c.DistanceDiscount, rc.NetworkX["distance_discount_05"])
			requireVec(t, "in-degree", intsToFloats(c.InDegree), rc.NetworkX["in_degree"])
		})
	}
	require.Equal(t, 2, seen, "real call graphs in testdata")
}

func TestCentralityDeterministicAcrossWorkers(t *testing.T) {
	var rc refCase
	for _, c := range loadRefCases(t) {
		if c.Name == "rand_1000_dangling" {
			rc = c
		}
	}
	require.Equal(t, 1000, rc.N)
	c := newCSR(rc.N, rc.Edges)
	bits := func(r *Centrality) string {
		var s []uint64
		for _, v := range [][]float64{r.Harmonic, r.DistanceDiscount, r.PageRank, r.Betweenness} {
			for _, x := range v {
				s = append(s, math.Float64bits(x))
			}
		}
		return fmt.Sprint(s)
	}
	var want string
	for _, w := range []int{1, 2, 3, 8, 64} {
		for _, compat := range []Compat{CompatNone, CompatBreakpoint} {
			r, err := computeCentrality(context.Background(), c, CentralityOptions{Workers: w, Compat: compat})
			require.NoError(t, err)
			if compat == CompatNone {
				if want == "" {
					want = bits(r)
				}
				require.Equal(t, want, bits(r), "workers=%d", w)
			}
		}
	}
}

func TestCentralityCancelled(t *testing.T) {
	rc := loadRefCases(t)[0]
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := computeCentrality(ctx, newCSR(rc.N, rc.Edges), CentralityOptions{})
	require.ErrorIs(t, err, context.Canceled)
}

func TestPageRankIterationCap(t *testing.T) {
	// A 2-cycle with a tail never settles within one iteration.
	c := newCSR(3, [][2]int32{{0, 1}, {1, 0}, {2, 0}})
	r, err := computeCentrality(context.Background(), c, CentralityOptions{MaxIter: 1})
	require.NoError(t, err)
	require.False(t, r.PageRankConverged)
	require.Equal(t, 1, r.PageRankIterations)
	full, err := computeCentrality(context.Background(), c, CentralityOptions{})
	require.NoError(t, err)
	require.True(t, full.PageRankConverged)
	require.Greater(t, full.PageRankIterations, 1)
	require.InDelta(t, 1, full.PageRank[0]+full.PageRank[1]+full.PageRank[2], 1e-12)
}

// graphWithModule builds: a module pseudo-node calling f; f → g (lines 3, 5, 3), g → g
// (recursion), g → h, h → f.
func graphWithModule(t *testing.T) *Graph {
	t.Helper()
	def := func(id string, k task.Kind) Definition {
		return Definition{Function: task.Function{ID: id, Kind: k, File: "m.py"}}
	}
	a := &Analysis{
		Definitions: []Definition{
			def("m.py::<module>", task.KindModule), def("m.py::f", task.KindFunction),
			def("m.py::g", task.KindFunction), def("m.py::h", task.KindFunction),
		},
		Calls: []Call{
			{"m.py::f", "m.py::g", 5}, {"m.py::f", "m.py::g", 3}, {"m.py::f", "m.py::g", 3},
			{"m.py::g", "m.py::g", 9}, {"m.py::g", "m.py::h", 10}, {"m.py::h", "m.py::f", 12},
			{"m.py::<module>", "m.py::f", 20},
		},
		CallSites: 9, Resolved: 7, Unresolved: 2,
	}
	g, err := FromAnalyses(a)
	require.NoError(t, err)
	return g
}

func TestCentralityModulesAndSelfLoops(t *testing.T) {
	g := graphWithModule(t)
	ctx := context.Background()
	c, err := g.Centrality(ctx, CentralityOptions{})
	require.NoError(t, err)
	mod, _ := g.Lookup("m.py::<module>")
	require.False(t, c.Included[mod])
	require.Equal(t, 3, c.N)
	// f → g → h → f is a 3-cycle once the module node and g's self-loop are gone.
	for _, id := range []string{"m.py::f", "m.py::g", "m.py::h"} {
		i, _ := g.Lookup(id)
		require.True(t, c.Included[i])
		require.InDelta(t, (1+0.5)/2, c.Harmonic[i], 1e-15, id)
		require.InDelta(t, 0.5+0.25, c.DistanceDiscount[i], 1e-15, id)
		require.InDelta(t, 1.0/3, c.PageRank[i], 1e-9, id)
		require.InDelta(t, 1, c.Betweenness[i], 1e-15, id)
		require.Equal(t, 1, c.InDegree[i], id)
		require.Equal(t, 1, c.OutDegree[i], id)
	}
	require.Zero(t, c.Harmonic[mod])

	with, err := g.Centrality(ctx, CentralityOptions{IncludeModules: true})
	require.NoError(t, err)
	require.Equal(t, 4, with.N)
	require.True(t, with.Included[mod])
	require.InDelta(t, (1+0.5+1.0/3)/3, with.Harmonic[mod], 1e-15)
	f, _ := g.Lookup("m.py::f")
	require.Equal(t, 2, with.InDegree[f])
	require.Equal(t, 3, with.TotalDegree(f))
}

func TestCentralityMeasuresSubset(t *testing.T) {
	g := graphWithModule(t)
	ctx := context.Background()
	all, err := g.Centrality(ctx, CentralityOptions{})
	require.NoError(t, err)
	for _, m := range []Measure{MeasureHarmonic, MeasureBetweenness, MeasurePageRank, MeasureHarmonic | MeasurePageRank} {
		sub, err := g.Centrality(ctx, CentralityOptions{Measures: m})
		require.NoError(t, err)
		// A measure not computed is absent (a nil slice), never zeros.
		pick := func(on Measure, v []float64) []float64 {
			if m&on != 0 {
				return v
			}
			return nil
		}
		require.Equal(t, pick(MeasureHarmonic, all.Harmonic), sub.Harmonic, "measures %b", m)
		require.Equal(t, pick(MeasureHarmonic, all.DistanceDiscount), sub.DistanceDiscount, "measures %b", m)
		require.Equal(t, pick(MeasureBetweenness, all.Betweenness), sub.Betweenness, "measures %b", m)
		require.Equal(t, pick(MeasurePageRank, all.PageRank), sub.PageRank, "measures %b", m)
		require.Equal(t, all.InDegree, sub.InDegree)
		require.Equal(t, m&MeasurePageRank != 0, sub.PageRankConverged)
		require.Equal(t, m, sub.Measures)
		f, _ := g.Lookup("m.py::f")
		nc, ok := sub.Node(f)
		require.True(t, ok)
		require.Equal(t, m&MeasureHarmonic != 0, nc.Harmonic != nil, "measures %b", m)
		require.Equal(t, m&MeasureHarmonic != 0, nc.DistanceDiscount != nil, "measures %b", m)
		require.Equal(t, m&MeasureBetweenness != 0, nc.Betweenness != nil, "measures %b", m)
		require.Equal(t, m&MeasurePageRank != 0, nc.PageRank != nil, "measures %b", m)
		_, ok = sub.Value(f, ScoreBetweenness)
		require.Equal(t, m&MeasureBetweenness != 0, ok)
		if m&MeasureBetweenness == 0 {
			require.Empty(t, sub.Ranked(ScoreBetweenness, 0, nil))
		}
	}
}

func TestCentralityNodeView(t *testing.T) {
	g := graphWithModule(t)
	c, err := g.Centrality(context.Background(), CentralityOptions{})
	require.NoError(t, err)
	for i := range g.Nodes() {
		nc, ok := c.Node(i)
		require.Equal(t, c.Included[i], ok)
		if !ok {
			require.True(t, g.Node(i).IsModule())
			_, has := c.Value(i, ScoreInDegree)
			require.False(t, has, "a node outside the centrality graph has no degree either")
			continue
		}
		require.Equal(t, c.Harmonic[i], *nc.Harmonic)
		require.Equal(t, c.DistanceDiscount[i], *nc.DistanceDiscount)
		require.Equal(t, c.PageRank[i], *nc.PageRank)
		require.Equal(t, c.Betweenness[i], *nc.Betweenness)
		require.Equal(t, c.InDegree[i], nc.InDegree)
		require.Equal(t, c.OutDegree[i], nc.OutDegree)
		v, ok := c.Value(i, ScoreDegree)
		require.True(t, ok)
		require.Equal(t, float64(c.TotalDegree(i)), v)
	}
	_, ok := c.Value(0, Score("nope"))
	require.False(t, ok)
}

func TestCentralityRanked(t *testing.T) {
	// a calls b and c, b calls c, c calls d: in-degree c=2, b=1, d=1, a=0.
	d := func(id string) Definition {
		return Definition{Function: task.Function{ID: id, Kind: task.KindFunction}}
	}
	g, err := FromAnalyses(&Analysis{
		Definitions: []Definition{d("x.py::a"), d("x.py::b"), d("x.py::c"), d("x.py::d")},
		Calls:       []Call{{"x.py::a", "x.py::b", 1}, {"x.py::a", "x.py::c", 2}, {"x.py::b", "x.py::c", 3}, {"x.py::c", "x.py::d", 4}},
	})
	require.NoError(t, err)
	c, err := g.Centrality(context.Background(), CentralityOptions{})
	require.NoError(t, err)
	ids := func(idx []int) []string {
		var out []string
		for _, i := range idx {
			out = append(out, g.Node(i).ID)
		}
		return out
	}
	// Ties (b and d both have in-degree 1) go in ID order.
	require.Equal(t, []string{"x.py::c", "x.py::b", "x.py::d", "x.py::a"}, ids(c.Ranked(ScoreInDegree, 0, nil)))
	require.Equal(t, []string{"x.py::c", "x.py::b"}, ids(c.Ranked(ScoreInDegree, 2, nil)))
	// Harmonic (outgoing): a reaches b, c (1 step) and d (2 steps).
	require.Equal(t, "x.py::a", ids(c.Ranked(ScoreHarmonic, 1, nil))[0])
	notA := func(i int) bool { return g.Node(i).ID != "x.py::a" }
	require.Equal(t, []string{"x.py::b", "x.py::c"}, ids(c.Ranked(ScoreHarmonic, 2, notA)))
	for _, s := range []Score{ScoreHarmonic, ScoreDistanceDiscount, ScorePageRank, ScoreBetweenness, ScoreOutDegree, ScoreDegree} {
		r := c.Ranked(s, 0, nil)
		require.Len(t, r, 4, s)
		for k := 1; k < len(r); k++ {
			prev, _ := c.Value(r[k-1], s)
			cur, _ := c.Value(r[k], s)
			require.GreaterOrEqual(t, prev, cur, s)
		}
	}
}

// The Breakpoint-compatible betweenness credits one shortest path per pair, the first in
// node order: on the diamond 0→{1,2}→3 the pair (0,3) goes entirely through 1, where
// Brandes splits it. Where shortest paths are unique the two agree up to the scale.
func TestCompatBetweennessTieBreaking(t *testing.T) {
	ctx := context.Background()
	diamond := newCSR(4, [][2]int32{{0, 1}, {0, 2}, {1, 3}, {2, 3}})
	bp, err := computeCentrality(ctx, diamond, CentralityOptions{Compat: CompatBreakpoint})
	require.NoError(t, err)
	require.Equal(t, []float64{0, 1.0 / 6, 0, 0}, bp.Betweenness)
	br, err := computeCentrality(ctx, diamond, CentralityOptions{})
	require.NoError(t, err)
	require.Equal(t, []float64{0, 0.5, 0.5, 0}, br.Betweenness)

	// A directed tree (unique paths): compat × (n−1)(n−2) == Brandes.
	tree := newCSR(7, [][2]int32{{0, 1}, {0, 2}, {1, 3}, {1, 4}, {2, 5}, {5, 6}})
	bp, err = computeCentrality(ctx, tree, CentralityOptions{Compat: CompatBreakpoint})
	require.NoError(t, err)
	br, err = computeCentrality(ctx, tree, CentralityOptions{})
	require.NoError(t, err)
	for v := range 7 {
		require.InDelta(t, br.Betweenness[v], bp.Betweenness[v]*30, 1e-12, "node %d", v)
	}
	require.Equal(t, 2.0, br.Betweenness[1])
	require.Equal(t, 2.0, br.Betweenness[2]) // (0,5), (0,6)
	require.Equal(t, 2.0, br.Betweenness[5]) // (0,6), (2,6)
}
