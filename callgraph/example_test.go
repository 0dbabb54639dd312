package callgraph_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/faultline-dev/faultline/callgraph"
	"github.com/faultline-dev/faultline/task"
)

// Ranking functions by a score, and one node's view: a measure not computed (here
// betweenness) is absent, not zero. eval and parse tie on PageRank (each gets half of
// main's); the tie goes to the first in ID order. main reaches parse and eval in one
// step and lex in two: harmonic (1 + 1 + 1/2) / 3.
func ExampleCentrality_Ranked() {
	def := func(name string) callgraph.Definition {
		return callgraph.Definition{Function: task.Function{ID: task.MakeID("calc.py", name), File: "calc.py", Name: name, Kind: task.KindFunction}}
	}
	g, err := callgraph.FromAnalyses(&callgraph.Analysis{
		Definitions: []callgraph.Definition{def("main"), def("parse"), def("eval"), def("lex")},
		Calls: []callgraph.Call{
			{Caller: "calc.py::main", Callee: "calc.py::parse", Line: 3},
			{Caller: "calc.py::main", Callee: "calc.py::eval", Line: 4},
			{Caller: "calc.py::parse", Callee: "calc.py::lex", Line: 7},
		},
	})
	if err != nil {
		panic(err)
	}
	c, err := g.Centrality(context.Background(), callgraph.CentralityOptions{Measures: callgraph.MeasureHarmonic | callgraph.MeasurePageRank})
	if err != nil {
		panic(err)
	}
	notMain := func(i int) bool { return g.Node(i).Name != "main" }
	for _, i := range c.Ranked(callgraph.ScorePageRank, 2, notMain) {
		v, _ := c.Value(i, callgraph.ScorePageRank)
		fmt.Printf("%s pagerank=%.3f\n", g.Node(i).ID, v)
	}
	main, _ := g.Lookup("calc.py::main")
	n, _ := c.Node(main)
	fmt.Printf("main: harmonic=%.3f out-degree=%d betweenness computed: %v\n", *n.Harmonic, n.OutDegree, n.Betweenness != nil)
	// Output:
	// calc.py::lex pagerank=0.365
	// calc.py::eval pagerank=0.235
	// main: harmonic=0.833 out-degree=2 betweenness computed: false
}

// A graph assembled from front-end output: main calls parse and eval, eval calls parse
// and itself. Centrality ignores the self-loop; the module pseudo-node is left out.
func ExampleFromAnalyses() {
	def := func(name string, k task.Kind) callgraph.Definition {
		return callgraph.Definition{Function: task.Function{ID: task.MakeID("calc.py", name), File: "calc.py", Name: name, Kind: k}}
	}
	a := &callgraph.Analysis{
		Definitions: []callgraph.Definition{
			def(callgraph.ModuleName, task.KindModule), def("main", task.KindFunction),
			def("parse", task.KindFunction), def("eval", task.KindFunction),
		},
		Calls: []callgraph.Call{
			{Caller: "calc.py::<module>", Callee: "calc.py::main", Line: 20},
			{Caller: "calc.py::main", Callee: "calc.py::parse", Line: 3},
			{Caller: "calc.py::main", Callee: "calc.py::eval", Line: 4},
			{Caller: "calc.py::eval", Callee: "calc.py::parse", Line: 9},
			{Caller: "calc.py::eval", Callee: "calc.py::eval", Line: 11},
		},
	}
	g, err := callgraph.FromAnalyses(a)
	if err != nil {
		panic(err)
	}
	c, err := g.Centrality(context.Background(), callgraph.CentralityOptions{})
	if err != nil {
		panic(err)
	}
	for i, n := range g.Nodes() {
		if !c.Included[i] {
			fmt.Printf("%-18s (module code, not ranked)\n", n.ID)
			continue
		}
		fmt.Printf("%-18s harmonic=%.3f discount=%.2f pagerank=%.3f betweenness=%g\n",
			n.ID, c.Harmonic[i], c.DistanceDiscount[i], c.PageRank[i], c.Betweenness[i])
	}
	main, _ := g.Lookup("calc.py::main")
	parse, _ := g.Lookup("calc.py::parse")
	d, _ := g.Distance(parse, main, true)
	_, reachable := g.Distance(parse, main, false)
	fmt.Println("parse–main undirected distance:", d, "directed reachable:", reachable)
	// Output:
	// calc.py::<module>  (module code, not ranked)
	// calc.py::eval      harmonic=0.500 discount=0.50 pagerank=0.282 betweenness=0
	// calc.py::main      harmonic=1.000 discount=1.00 pagerank=0.198 betweenness=0
	// calc.py::parse     harmonic=0.000 discount=0.00 pagerank=0.521 betweenness=0
	// parse–main undirected distance: 1 directed reachable: false
}

// lineLang is a toy front end for *.calls files: each line "f g h" defines f calling g
// and h.
type lineLang struct{}

func (lineLang) Name() string           { return "calls" }
func (lineLang) Match(path string) bool { return strings.HasSuffix(path, ".calls") }
func (lineLang) Analyze(_ context.Context, files []callgraph.SourceFile) (*callgraph.Analysis, error) {
	a := &callgraph.Analysis{}
	for _, f := range files {
		for i, line := range strings.Split(strings.TrimSpace(string(f.Src)), "\n") {
			fields := strings.Fields(line)
			id := task.MakeID(f.Path, fields[0])
			a.Definitions = append(a.Definitions, callgraph.Definition{Function: task.Function{ID: id, File: f.Path, Name: fields[0], Kind: task.KindFunction, Line: i + 1}})
			for _, callee := range fields[1:] {
				a.CallSites++
				a.Resolved++
				a.Calls = append(a.Calls, callgraph.Call{Caller: id, Callee: task.MakeID(f.Path, callee), Line: i + 1})
			}
		}
	}
	return a, nil
}

// Build walks a directory and hands files to the languages that claim them.
func ExampleBuild() {
	dir, err := os.MkdirTemp("", "callgraph-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	_ = os.WriteFile(filepath.Join(dir, "app.calls"), []byte("main load save\nload\nsave load\n"), 0o644)
	_ = os.WriteFile(filepath.Join(dir, "blob.calls"), []byte("x\x00y\n"), 0o644)

	g, err := callgraph.Build(context.Background(), dir, []callgraph.Language{lineLang{}}, callgraph.BuildOptions{})
	if err != nil {
		panic(err)
	}
	for _, e := range g.Edges() {
		fmt.Println(g.Node(e.From).Name, "->", g.Node(e.To).Name, e.Lines)
	}
	s := g.Stats()
	fmt.Printf("files=%d functions=%d calls=%d skipped=%v\n", s.Files, s.Functions, s.Calls, s.Skipped)
	// Output:
	// main -> load [1]
	// main -> save [1]
	// save -> load [3]
	// files=1 functions=3 calls=3 skipped=[{blob.calls binary (contains NUL bytes)}]
}
