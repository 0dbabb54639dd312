package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/callgraph"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/graph/formats/dot"
)

const fixture = "testdata/mixed" // a Python package (with tests), a Go module, a JS file

func runCLI(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	return out.String(), errb.String(), code
}

func decode(t *testing.T, s string) (*callgraph.Report, map[string]callgraph.ReportNode) {
	t.Helper()
	var r callgraph.Report
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(&r))
	byID := map[string]callgraph.ReportNode{}
	for _, n := range r.Nodes {
		byID[n.ID] = n
	}
	return &r, byID
}

func TestJSONOnMixedFixture(t *testing.T) {
	out, stderr, code := runCLI(t, "-skip-tests", fixture)
	require.Equal(t, 0, code, stderr)
	r, byID := decode(t, out)

	var ids []string
	for _, n := range r.Nodes {
		ids = append(ids, n.ID)
	}
	require.Equal(t, []string{
		"shop/cart.py::<module>", "shop/cart.py::Cart", "shop/cart.py::Cart.__init__", "shop/cart.py::Cart.checkout",
		"shop/cart.py::Cart.total", "shop/cart.py::discount", "shop/cart.py::main", "shop/cart.py::price",
		"tools/stats.go::Acc.Add", "tools/stats.go::Acc.Mean", "tools/stats.go::Mean", "tools/stats.go::Sum",
		"web/format.js::line", "web/format.js::money", "web/format.js::pad",
	}, ids, "sorted IDs, test files skipped")

	chk := byID["shop/cart.py::Cart.checkout"]
	require.Equal(t, "shop/cart.py", chk.File)
	require.Equal(t, "Cart.checkout", chk.Name)
	require.Equal(t, "method", string(chk.Kind))
	require.Equal(t, 22, chk.Line)
	require.Equal(t, 24, chk.EndLine)
	require.Equal(t, 3, chk.Metrics.CodeLines)
	require.Equal(t, 1, chk.Metrics.Cyclomatic)
	require.Equal(t, 3, byID["shop/cart.py::discount"].Metrics.Cyclomatic, "if + or")

	var edges []string
	for _, e := range r.Edges {
		edges = append(edges, e.Caller+" -> "+e.Callee)
	}
	require.Contains(t, edges, "shop/cart.py::main -> shop/cart.py::Cart.__init__", "C() calls C.__init__")
	require.Contains(t, edges, "shop/cart.py::Cart.checkout -> shop/cart.py::Cart.total")
	require.Contains(t, edges, "tools/stats.go::Acc.Mean -> tools/stats.go::Mean")
	require.Contains(t, edges, "shop/cart.py::<module> -> shop/cart.py::main")
	require.Contains(t, edges, "web/format.js::money -> web/format.js::pad")
	require.Equal(t, 4, r.Stats.Files, "cart.py, stats.go, go.mod (the Go front end claims it) and format.js")
	require.Equal(t, 14, r.Stats.Functions)
	require.Zero(t, r.Stats.ParseErrors)

	// Hand-computed on the 14-node centrality graph (module node excluded): main reaches
	// __init__ and checkout at 1, total and discount at 2, price at 3.
	m := byID["shop/cart.py::main"].Centrality
	require.InDelta(t, (1+1+0.5+0.5+1.0/3)/13, *m.Harmonic, 1e-12)
	require.InDelta(t, 0.5+0.5+0.25+0.25+0.125, *m.DistanceDiscount, 1e-12)
	require.Equal(t, 0, m.InDegree)
	require.Equal(t, 2, m.OutDegree)
	require.InDelta(t, 3, *byID["shop/cart.py::Cart.checkout"].Centrality.Betweenness, 1e-12)
	require.InDelta(t, 2, *byID["shop/cart.py::Cart.total"].Centrality.Betweenness, 1e-12)
	require.Nil(t, byID["shop/cart.py::<module>"].Centrality, "no centrality for a module node, rather than zeros")
	var sum float64
	for _, n := range r.Nodes {
		if n.Centrality != nil {
			sum += *n.Centrality.PageRank
		}
	}
	require.InDelta(t, 1, sum, 1e-9)

	// Breakpoint mode: α = 0.8 and one more code line.
	out, stderr, code = runCLI(t, "-skip-tests", "-compat", "breakpoint", fixture)
	require.Equal(t, 0, code, stderr)
	_, bp := decode(t, out)
	require.InDelta(t, 0.8+0.8+0.64+0.64+0.512, *bp["shop/cart.py::main"].Centrality.DistanceDiscount, 1e-12)
	require.Equal(t, 4, bp["shop/cart.py::Cart.checkout"].Metrics.CodeLines)
	require.InDelta(t, 3.0/(13*12), *bp["shop/cart.py::Cart.checkout"].Centrality.Betweenness, 1e-12)

	out, stderr, code = runCLI(t, "-skip-tests", "-alpha", "0.25", "-include-modules", fixture)
	require.Equal(t, 0, code, stderr)
	_, al := decode(t, out)
	require.InDelta(t, 0.25+0.25+0.0625+0.0625+0.015625, *al["shop/cart.py::main"].Centrality.DistanceDiscount, 1e-12)
	require.Equal(t, 1, al["shop/cart.py::main"].Centrality.InDegree, "the module node now counts")
}

func TestLanguagesAndTests(t *testing.T) {
	out, stderr, code := runCLI(t, "-lang", "python", fixture)
	require.Equal(t, 0, code, stderr)
	r, byID := decode(t, out)
	for _, n := range r.Nodes {
		require.True(t, strings.HasSuffix(n.File, ".py"), n.ID)
	}
	_, ok := byID["shop/test_cart.py::test_checkout"]
	require.True(t, ok, "test files are analysed unless -skip-tests")

	out, stderr, code = runCLI(t, "-lang", "go", "-cha", fixture)
	require.Equal(t, 0, code, stderr)
	r, _ = decode(t, out)
	require.Len(t, r.Nodes, 4)

	out, stderr, code = runCLI(t, "-lang", "javascript", fixture)
	require.Equal(t, 0, code, stderr)
	r, byID = decode(t, out)
	require.Len(t, r.Nodes, 3)
	require.InDelta(t, (1+0.5)/2, *byID["web/format.js::line"].Centrality.Harmonic, 1e-12)
	require.InDelta(t, 1, *byID["web/format.js::money"].Centrality.Betweenness, 1e-12)
}

// TestInterfaceModes: Total's call x.Area() reaches Square.Area by type flow (only squares
// flow into Total), both areas under CHA (a Circle is created too), neither under none.
func TestInterfaceModes(t *testing.T) {
	callees := func(args ...string) []string {
		out, stderr, code := runCLI(t, append(args, "testdata/shapes")...)
		require.Equal(t, 0, code, stderr)
		r, _ := decode(t, out)
		var got []string
		for _, e := range r.Edges {
			if e.Caller == "shapes.go::Total" {
				got = append(got, e.Callee)
			}
		}
		return got
	}
	require.Equal(t, []string{"shapes.go::Square.Area"}, callees())
	require.Equal(t, []string{"shapes.go::Square.Area"}, callees("-interfaces", "typeflow"))
	require.Equal(t, []string{"shapes.go::Circle.Area", "shapes.go::Square.Area"}, callees("-interfaces", "cha"))
	require.Equal(t, []string{"shapes.go::Circle.Area", "shapes.go::Square.Area"}, callees("-cha"))
	require.Empty(t, callees("-interfaces", "none"))
	_, stderr, code := runCLI(t, "-interfaces", "vta", "testdata/shapes")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, `unknown -interfaces "vta"`)
}

func TestDOT(t *testing.T) {
	out, stderr, code := runCLI(t, "-format", "dot", fixture)
	require.Equal(t, 0, code, stderr)
	f, err := dot.ParseString(out)
	require.NoError(t, err)
	require.Len(t, f.Graphs, 1)
	require.Contains(t, out, `label="shop/cart.py::Cart.checkout"`)
}

// TestUsageErrors: each bad flag is refused before any work with a message naming it and
// exit status 2; nothing is written.
func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(file, []byte("x"), 0o644))
	for _, c := range []struct {
		name string
		args []string
		msg  string
	}{
		{"no dir", []string{}, "usage: callgraph"},
		{"two dirs", []string{"a", "b"}, "one directory, not 2"},
		{"repo and another dir", []string{"-repo", fixture, "testdata/shapes"}, "two directories"},
		{"bad lang", []string{"-lang", "cobol", fixture}, `unknown -lang "cobol"`},
		{"bad format", []string{"-format", "xml", fixture}, `unknown -format "xml"`},
		{"bad compat", []string{"-compat", "swe", fixture}, `unknown -compat "swe"`},
		{"bad alpha", []string{"-alpha", "2", fixture}, "-alpha 2"},
		{"negative alpha", []string{"-alpha", "-0.5", fixture}, "-alpha -0.5"},
		{"unknown flag", []string{"-frobnicate", fixture}, "-frobnicate"},
		{"missing dir", []string{"testdata/does-not-exist"}, "-repo testdata/does-not-exist"},
		{"dir is a file", []string{"-repo", file}, "not a directory"},
		{"out empty", []string{"-out", "", fixture}, "-out: empty path"},
		{"out a directory", []string{"-out", dir, fixture}, "is a directory"},
		{"out under a file", []string{"-out", filepath.Join(file, "g.json"), fixture}, "-out"},
		{"out inside the directory", []string{"-out", filepath.Join(fixture, "g.json"), fixture}, "lies inside the repository"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, stderr, code := runCLI(t, c.args...)
			require.Equal(t, 2, code, stderr)
			require.Contains(t, stderr, c.msg)
			require.NotContains(t, stderr, "building the call graph")
			require.Empty(t, out)
			ents, _ := os.ReadDir(dir)
			require.Len(t, ents, 1)
		})
	}
	_, stderr, code := runCLI(t, "-h")
	require.Equal(t, 0, code)
	require.Contains(t, stderr, "-repo")
}

// TestRepoFlagAndOut: -repo DIR is the positional DIR; -out writes the same bytes to a
// file, and stdout stays empty.
func TestRepoFlagAndOut(t *testing.T) {
	positional, stderr, code := runCLI(t, "-skip-tests", fixture)
	require.Equal(t, 0, code, stderr)
	flagged, stderr, code := runCLI(t, "-skip-tests", "-repo", fixture)
	require.Equal(t, 0, code, stderr)
	require.Equal(t, positional, flagged)
	out := filepath.Join(t.TempDir(), "g.json")
	stdout, stderr, code := runCLI(t, "-skip-tests", "-repo", fixture, "-out", out)
	require.Equal(t, 0, code, stderr)
	require.Empty(t, stdout)
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	require.Equal(t, positional, string(b))
	require.Contains(t, stderr, "callgraph: building the call graph of "+fixture)
}

// A package directory pointed at with -repo is analysed from its import root: the chosen
// root is said on stderr and recorded in the output, IDs stay relative to the directory.
func TestPackageDirectory(t *testing.T) {
	site := filepath.Join(t.TempDir(), "dist-packages")
	for name, body := range map[string]string{
		"pkg/__init__.py": "from pkg import util\n",
		"pkg/util.py":     "def f():\n    return 1\n",
		"pkg/use.py":      "import pkg as p\n\ndef g():\n    return p.util.f()\n",
		"other/x.py":      "def x():\n    pass\n",
	} {
		p := filepath.Join(site, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	realSite, err := filepath.EvalSymlinks(site)
	require.NoError(t, err)
	for _, args := range [][]string{{"-repo", filepath.Join(site, "pkg")}, {filepath.Join(site, "pkg")}} {
		out, stderr, code := runCLI(t, append([]string{"-lang", "python"}, args...)...)
		require.Equal(t, 0, code, stderr)
		require.Contains(t, stderr, "callgraph: analysed from "+realSite+" (an installed package")
		require.Contains(t, stderr, "the graph holds pkg")
		r, byID := decode(t, out)
		require.NotNil(t, r.Project)
		require.Equal(t, realSite, r.Project.Root)
		require.Equal(t, "pkg", r.Project.Target)
		require.Contains(t, byID, "use.py::g")
		var edges []string
		for _, e := range r.Edges {
			edges = append(edges, e.Caller+" -> "+e.Callee)
		}
		require.Contains(t, edges, "use.py::g -> util.py::f", "import pkg as p; p.util.f()")
	}
}
