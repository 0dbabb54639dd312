package callgraph

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/faultline-dev/faultline/task"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/graph"
	"gonum.org/v1/gonum/graph/iterator"
	"gonum.org/v1/gonum/graph/path"
	"gonum.org/v1/gonum/graph/topo"
)

func TestFromAnalysesStructure(t *testing.T) {
	g := graphWithModule(t)
	require.Equal(t, 4, g.Len())
	var ids []string
	for i, n := range g.Nodes() {
		require.Equal(t, i, n.Index)
		ids = append(ids, n.ID)
	}
	require.Equal(t, []string{"m.py::<module>", "m.py::f", "m.py::g", "m.py::h"}, ids)
	f, ok := g.Lookup("m.py::f")
	require.True(t, ok)
	gg, _ := g.Lookup("m.py::g")
	h, _ := g.Lookup("m.py::h")
	_, ok = g.Lookup("m.py::nope")
	require.False(t, ok)

	e, ok := g.Edge(f, gg)
	require.True(t, ok)
	require.Equal(t, []int{3, 5}, e.Lines, "sorted, de-duplicated call-site lines")
	_, ok = g.Edge(gg, f)
	require.False(t, ok)
	require.Equal(t, []int{gg, h}, g.Callees(gg), "recursion kept in the graph")
	require.Equal(t, []int{0, h}, g.Callers(f))
	require.True(t, g.Node(0).IsModule())

	var pairs [][2]int
	for _, e := range g.Edges() {
		pairs = append(pairs, [2]int{e.From, e.To})
	}
	require.Equal(t, [][2]int{{0, f}, {f, gg}, {gg, gg}, {gg, h}, {h, f}}, pairs)

	s := g.Stats()
	require.Equal(t, Stats{Files: 1, Functions: 3, Calls: 9, Resolved: 7, Unresolved: 2}, s)
}

func TestFromAnalysesErrors(t *testing.T) {
	d := func(id string) Definition { return Definition{Function: task.Function{ID: id}} }
	_, err := FromAnalyses(&Analysis{Definitions: []Definition{d("a::f")}}, &Analysis{Definitions: []Definition{d("a::f")}})
	require.ErrorIs(t, err, ErrDuplicateID)
	_, err = FromAnalyses(&Analysis{Definitions: []Definition{d("a::f")}, Calls: []Call{{"a::f", "a::g", 1}}})
	require.ErrorIs(t, err, ErrUnknownDefinition)
	require.ErrorContains(t, err, `"a::g"`)

	g, err := FromAnalyses(nil, &Analysis{
		Definitions: []Definition{d("b.py::x")},
		Errors: []error{
			&SyntaxError{Path: "c.py", Line: 3, Column: 1, Msg: "bad"},
			&SyntaxError{Path: "a.py", Line: 1, Column: 2, Msg: "worse"},
		},
	})
	require.NoError(t, err)
	errs := g.Errors()
	require.Len(t, errs, 2)
	se, ok := errors.AsType[*SyntaxError](errs[0])
	require.True(t, ok)
	require.Equal(t, "a.py", se.Path)
	require.Equal(t, 2, g.Stats().ParseErrors)
	require.Equal(t, 3, g.Stats().Files, "b.py plus the two files with errors")

	empty, err := FromAnalyses()
	require.NoError(t, err)
	require.Zero(t, empty.Len())
	c, err := empty.Centrality(context.Background(), CentralityOptions{})
	require.NoError(t, err)
	require.Zero(t, c.N)
}

func TestDirectedView(t *testing.T) {
	g := graphWithModule(t)
	v := g.Directed()
	require.Equal(t, 4, v.Nodes().Len())
	f, _ := g.Lookup("m.py::f")
	gg, _ := g.Lookup("m.py::g")
	require.False(t, v.HasEdgeFromTo(int64(gg), int64(gg)), "self-loops excluded")
	require.Equal(t, 1, v.From(int64(gg)).Len())
	require.True(t, v.HasEdgeBetween(int64(gg), int64(f)))
	require.Nil(t, v.Edge(int64(gg), int64(f)))
	require.NotNil(t, v.Edge(int64(f), int64(gg)))
	require.Nil(t, v.Node(99))
	require.Zero(t, v.From(99).Len())
	// gonum algorithms accept the view: the f → g → h → f cycle is one strongly connected
	// component, the module node another.
	sccs := topo.TarjanSCC(v)
	require.Len(t, sccs, 2)
	sizes := []int{len(sccs[0]), len(sccs[1])}
	require.ElementsMatch(t, []int{1, 3}, sizes)
}

func TestDistanceMatchesGonum(t *testing.T) {
	var rc refCase
	for _, c := range loadRefCases(t) {
		if c.Name == "networkx_algorithms" {
			rc = c
		}
	}
	require.NotEmpty(t, rc.IDs)
	a := &Analysis{}
	for _, id := range rc.IDs {
		a.Definitions = append(a.Definitions, Definition{Function: task.Function{ID: id}})
	}
	for _, e := range rc.Edges {
		a.Calls = append(a.Calls, Call{Caller: rc.IDs[e[0]], Callee: rc.IDs[e[1]], Line: 1})
	}
	g, err := FromAnalyses(a)
	require.NoError(t, err)
	view := g.Directed()
	und := undirectedView{view}
	checked := 0
	for src := 0; src < g.Len(); src += 37 {
		dir := path.DijkstraFrom(view.Node(int64(src)), view)
		sym := path.DijkstraFrom(und.Node(int64(src)), und)
		within2 := map[int]bool{}
		for _, w := range g.Within(src, 2, true) {
			within2[w] = true
		}
		for dst := 0; dst < g.Len(); dst++ {
			for _, c := range []struct {
				undirected bool
				sp         path.Shortest
			}{{false, dir}, {true, sym}} {
				want := c.sp.WeightTo(int64(dst))
				got, ok := g.Distance(src, dst, c.undirected)
				if math.IsInf(want, 1) {
					require.False(t, ok, "%d→%d", src, dst)
					continue
				}
				require.True(t, ok, "%d→%d", src, dst)
				require.Equal(t, int(want), got, "%d→%d undirected=%v", src, dst, c.undirected)
				checked++
			}
			d, ok := g.Distance(src, dst, true)
			require.Equal(t, ok && d >= 1 && d <= 2, within2[dst], "Within(%d, 2) and %d", src, dst)
		}
	}
	require.Greater(t, checked, 1000)
}

// undirectedView presents a directed gonum graph with edges in both directions.
type undirectedView struct{ graph.Directed }

func (u undirectedView) From(id int64) graph.Nodes {
	var ns []graph.Node
	seen := map[int64]bool{}
	for _, it := range []graph.Nodes{u.Directed.From(id), u.Directed.To(id)} {
		for it.Next() {
			if n := it.Node(); !seen[n.ID()] {
				seen[n.ID()] = true
				ns = append(ns, n)
			}
		}
	}
	return newNodes(ns)
}

func (u undirectedView) Edge(x, y int64) graph.Edge {
	if e := u.Directed.Edge(x, y); e != nil {
		return e
	}
	if e := u.Directed.Edge(y, x); e != nil {
		return e.ReversedEdge()
	}
	return nil
}

func TestDistanceModuleNotInterior(t *testing.T) {
	// Two functions used only at module level are not two steps apart.
	d := func(id string, k task.Kind) Definition { return Definition{Function: task.Function{ID: id, Kind: k}} }
	g, err := FromAnalyses(&Analysis{
		Definitions: []Definition{d("a::<module>", task.KindModule), d("a::f", task.KindFunction), d("a::g", task.KindFunction)},
		Calls:       []Call{{"a::<module>", "a::f", 1}, {"a::<module>", "a::g", 2}},
	})
	require.NoError(t, err)
	f, _ := g.Lookup("a::f")
	gg, _ := g.Lookup("a::g")
	_, ok := g.Distance(f, gg, true)
	require.False(t, ok)
	dm, ok := g.Distance(0, gg, false)
	require.True(t, ok, "the module node may start a chain")
	require.Equal(t, 1, dm)
	du, ok := g.Distance(f, 0, true)
	require.True(t, ok, "and end one")
	require.Equal(t, 1, du)
	require.Equal(t, []int{f, gg}, g.Within(0, 1, false))
	require.Empty(t, g.Within(f, 5, false))
	require.Equal(t, []int{0}, g.Within(f, 5, true))
	d0, ok := g.Distance(f, f, false)
	require.True(t, ok)
	require.Zero(t, d0)
}

func newNodes(ns []graph.Node) graph.Nodes {
	if len(ns) == 0 {
		return graph.Empty
	}
	return iterator.NewOrderedNodes(ns)
}

func TestWithinUnbounded(t *testing.T) {
	g := graphWithModule(t)
	f, _ := g.Lookup("m.py::f")
	gg, _ := g.Lookup("m.py::g")
	h, _ := g.Lookup("m.py::h")
	require.Equal(t, []int{gg, h}, g.Within(f, -1, false))
	require.Equal(t, []int{gg}, g.Within(f, 1, false))
	require.Empty(t, g.Within(f, 0, true))
	require.Equal(t, []int{0, gg, h}, g.Within(f, -1, true))
}
