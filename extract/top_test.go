package extract

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/faultline-dev/faultline/task"
)

func obj(id string, callees ...string) Object {
	f, n, l, err := ParseObjectID(id)
	if err != nil {
		panic(err)
	}
	if callees == nil {
		callees = []string{}
	}
	slices.Sort(callees)
	return Object{ID: id, File: f, Name: n, Line: l, Calls: 1, Callees: callees}
}

func mkTrace(t testing.TB, objs []Object, imps ...Import) *Trace {
	t.Helper()
	if imps == nil {
		imps = []Import{}
	}
	slices.SortFunc(objs, func(a, b Object) int { return strings.Compare(a.ID, b.ID) })
	tr := &Trace{Objects: objs, Imports: imps}
	require.NoError(t, tr.Validate())
	return tr
}

// A test file whose test calls a helper of its own (depth stays 0), which calls lib.f
// (depth 1); f calls g (2); g calls h (3); a test also calls util.u; __init__ and conftest
// objects are never candidates.
func fixtureTrace(t testing.TB) *Trace {
	return mkTrace(t, []Object{
		obj("lib/__init__.py::setup::1", "lib/a.py::h::30"),
		obj("lib/a.py::f::1", "lib/a.py::g::10"),
		obj("lib/a.py::g::10", "lib/a.py::h::30"),
		obj("lib/a.py::h::30"),
		obj("lib/util.py::u::1"),
		obj("tests/conftest.py::fixture::3", "lib/__init__.py::setup::1"),
		obj("tests/test_a.py::TestA.helper::4", "lib/a.py::f::1"),
		obj("tests/test_a.py::TestA.test_one::9", "tests/test_a.py::TestA.helper::4", "lib/util.py::u::1", "tests/conftest.py::fixture::3"),
	}, Import{File: "tests/test_a.py", Module: "lib.a", Name: "g", Target: "lib/a.py::g::10"})
}

func TestCandidatesAndHeuristic(t *testing.T) {
	tr := fixtureTrace(t)
	others := map[string][]string{
		"tests/test_a.py": DirectUses(tr, "tests/test_a.py"), // ignored: the file itself
		"tests/test_b.py": {"lib/util.py::u::1"},
		"tests/test_c.py": {"lib/util.py::u::1"},
		"tests/test_d.py": {"lib/util.py::u::1", "lib/a.py::f::1"},
		"tests/test_e.py": {},
	}
	require.Equal(t, []string{"lib/a.py::f::1", "lib/a.py::g::10", "lib/util.py::u::1", "tests/conftest.py::fixture::3"}, DirectUses(tr, "tests/test_a.py"))
	cs := Candidates(tr, "tests/test_a.py", 0, others)
	require.Equal(t, []Candidate{
		{ID: "lib/a.py::f::1", File: "lib/a.py", Name: "f", Depth: 1, UsedBy: 1},
		// Reached through the conftest fixture and the package's __init__: both cost nothing.
		{ID: "lib/a.py::h::30", File: "lib/a.py", Name: "h", Depth: 1},
		{ID: "lib/util.py::u::1", File: "lib/util.py", Name: "u", Depth: 1, UsedBy: 3},
		{ID: "lib/a.py::g::10", File: "lib/a.py", Name: "g", Depth: 2, Imported: true},
	}, cs)
	// Depth limit 1 leaves g out.
	require.Len(t, Candidates(tr, "tests/test_a.py", 1, others), 3)

	req := ClassifyRequest{TestFile: "tests/test_a.py", Candidates: cs, OtherFiles: 4}
	top, err := TopObjects(context.Background(), Heuristic{}, req)
	require.NoError(t, err)
	// u is used by 3 of 4 other files: a general utility.
	require.Equal(t, []string{"lib/a.py::f::1", "lib/a.py::g::10", "lib/a.py::h::30"}, top)
	// With fewer other files than MinOthers no utility is recognised.
	req.OtherFiles = 3
	top, err = TopObjects(context.Background(), Heuristic{}, req)
	require.NoError(t, err)
	require.Equal(t, []string{"lib/a.py::f::1", "lib/a.py::g::10", "lib/a.py::h::30", "lib/util.py::u::1"}, top)
	// When every direct candidate is a utility, the least shared ones are the tested objects.
	req = ClassifyRequest{TestFile: "tests/test_a.py", OtherFiles: 6, Candidates: []Candidate{
		{ID: "a.py::x::1", Depth: 1, UsedBy: 6}, {ID: "a.py::y::1", Depth: 1, UsedBy: 4},
		{ID: "a.py::z::1", Imported: true, Depth: 3, UsedBy: 4}, {ID: "a.py::w::1", Depth: 2, UsedBy: 0},
	}}
	top, err = TopObjects(context.Background(), Heuristic{}, req)
	require.NoError(t, err)
	require.Equal(t, []string{"a.py::y::1", "a.py::z::1"}, top)

	_, err = TopObjects(context.Background(), Heuristic{}, ClassifyRequest{TestFile: "t.py"})
	require.ErrorIs(t, err, ErrNoTopObjects)
	// A classifier answering ids that are not candidates yields nothing.
	bogus := ClassifierFunc(func(context.Context, ClassifyRequest) ([]string, error) { return []string{"x.py::y::1"}, nil })
	_, err = TopObjects(context.Background(), bogus, req)
	require.ErrorIs(t, err, ErrNoTopObjects)
}

func TestChooseP2P(t *testing.T) {
	x, y := "lib/a.py::x::1", "lib/a.py::y::5"
	tx := mkTrace(t, []Object{obj(x)})
	ty := mkTrace(t, []Object{obj(y)})
	none := mkTrace(t, []Object{})
	// Nobody avoids both: x is in more files and is dropped.
	ch, err := ChooseP2P([]string{y, x}, []P2PFile{{"t3.py", ty}, {"t1.py", tx}, {"t2.py", tx}}, 1, 5, nil)
	require.NoError(t, err)
	require.Equal(t, &P2PChoice{Files: []string{"t1.py", "t2.py"}, Top: []string{y}, Dropped: []string{x}}, ch)

	// Sampling is seeded and bounded.
	var files []P2PFile
	for _, f := range []string{"a.py", "b.py", "c.py", "d.py", "e.py", "f.py", "g.py"} {
		files = append(files, P2PFile{f, none})
	}
	a, err := ChooseP2P([]string{x}, files, 1, 3, rand.New(rand.NewPCG(7, 0)))
	require.NoError(t, err)
	b, err := ChooseP2P([]string{x}, files, 1, 3, rand.New(rand.NewPCG(7, 0)))
	require.NoError(t, err)
	require.Equal(t, a, b)
	require.Len(t, a.Files, 3)
	require.IsIncreasing(t, a.Files)

	_, err = ChooseP2P([]string{x}, []P2PFile{{"t1.py", tx}}, 1, 5, nil)
	require.ErrorIs(t, err, ErrNoP2P)
	_, err = ChooseP2P([]string{x}, nil, 1, 5, nil)
	require.ErrorIs(t, err, ErrNoP2P)
}

func TestLineSet(t *testing.T) {
	var s LineSet
	require.Equal(t, 4, s.Add("a.py", 12, 15)) // a method
	require.Equal(t, 17, s.Cost("a.py", 10, 30))
	require.Equal(t, 17, s.Add("a.py", 10, 30)) // its class: only the new lines
	require.Equal(t, 0, s.Add("a.py", 20, 25))
	require.Equal(t, 5, s.Add("b.py", 20, 24))
	require.Equal(t, 2, s.Add("a.py", 31, 32)) // adjacent range merges
	require.Equal(t, 28, s.Total())
	require.Equal(t, 0, s.Cost("a.py", 5, 4))
}

func fn(file, name string, line, end int) task.Function {
	return task.Function{ID: file + "::" + name, File: file, Name: name, Kind: task.KindFunction, Line: line, EndLine: end, DecoratorLine: line}
}

func TestExtract(t *testing.T) {
	tr := mkTrace(t, []Object{
		obj("lib/a.py::A::1", "lib/a.py::B::20", "lib/a.py::C::40", "lib/a.py::D::3000", "lib/a.py::K.m::5000"),
		obj("lib/a.py::B::20", "lib/a.py::F::5100"),
		obj("lib/a.py::C::40"),
		obj("lib/a.py::D::3000", "lib/a.py::E::4000"),
		obj("lib/a.py::E::4000"),
		obj("lib/a.py::F::5100"),
		obj("lib/a.py::K.m::5000"),
		obj("lib/a.py::K::4999"),
		obj("lib/a.py::<lambda>::7000"),
		obj("tests/test_a.py::test::1", "lib/a.py::A::1"),
	})
	defs := NewDefIndex([]task.Function{
		fn("lib/a.py", "A", 1, 10), fn("lib/a.py", "B", 20, 30), fn("lib/a.py", "C", 40, 2000),
		fn("lib/a.py", "D", 3000, 3001), fn("lib/a.py", "E", 4000, 4010), fn("lib/a.py", "F", 5100, 5101),
		fn("lib/a.py", "K", 4999, 5050), fn("lib/a.py", "K.m", 5000, 5002),
	})
	g := NewDepGraph(tr, []*Trace{mkTrace(t, []Object{obj("lib/a.py::B::20")})}, []string{"lib/a.py::D::3000"}, defs)
	n, ok := g.Lookup("lib/a.py::B::20")
	require.True(t, ok)
	require.True(t, n.SeenInP2P)
	ex := Extract(g, []string{"lib/a.py::A::1", "lib/a.py::K::4999"}, 100)
	require.Equal(t, &Extraction{
		Budget:    100,
		Extracted: []string{"lib/a.py::A::1", "lib/a.py::E::4000", "lib/a.py::F::5100", "lib/a.py::K.m::5000", "lib/a.py::K::4999"},
		Lines:     10 + 11 + 2 + 52, // K.m lies inside K: not counted twice
		Remained:  []string{"lib/a.py::B::20", "lib/a.py::C::40"},
		Protected: []string{"lib/a.py::D::3000"},
	}, ex)
	// A top object over the budget is still extracted; its children are not.
	ex = Extract(g, []string{"lib/a.py::C::40"}, 10)
	require.Equal(t, []string{"lib/a.py::C::40"}, ex.Extracted)
	require.Equal(t, 1961, ex.Lines)
}

func TestDrawBudget(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	seen := map[int]bool{}
	for range 2000 {
		b := DrawBudget(r, 3, 6)
		require.GreaterOrEqual(t, b, 3)
		require.LessOrEqual(t, b, 6)
		seen[b] = true
	}
	require.Len(t, seen, 4)
	b := DrawBudget(rand.New(rand.NewPCG(9, 9)), 0, 0)
	require.GreaterOrEqual(t, b, DefaultMinBudget)
	require.LessOrEqual(t, b, DefaultMaxBudget)
	require.Equal(t, b, DrawBudget(rand.New(rand.NewPCG(9, 9)), 0, 0))
}
