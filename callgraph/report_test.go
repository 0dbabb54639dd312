package callgraph

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"testing"

	"github.com/faultline-dev/faultline/task"
	"github.com/faultline-dev/faultline/task/repo"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/graph/formats/dot"
	"gonum.org/v1/gonum/graph/formats/dot/ast"
)

func keysOf(m map[string]any) []string {
	var k []string
	for key := range m {
		k = append(k, key)
	}
	slices.Sort(k)
	return k
}

func TestWriteJSONContract(t *testing.T) {
	g := graphWithModule(t)
	for i := range g.nodes {
		g.nodes[i].Metrics = Metrics{CodeLines: 10 + i, Cyclomatic: 2, HalsteadVolume: 12.5, HalsteadDifficulty: 3.25, Nesting: 1, Lines: 40}
		g.nodes[i].Line, g.nodes[i].EndLine = i+1, i+3
		g.nodes[i].Name = g.nodes[i].ID[len("m.py::"):]
	}
	for _, compat := range []Compat{CompatNone, CompatBreakpoint} {
		c, err := g.Centrality(context.Background(), CentralityOptions{Compat: compat})
		require.NoError(t, err)
		var buf bytes.Buffer
		require.NoError(t, g.WriteJSON(&buf, c))
		require.Equal(t, 1, bytes.Count(buf.Bytes(), []byte("\n")), "one line")
		var doc map[string]any
		require.NoError(t, json.Unmarshal(buf.Bytes(), &doc))
		require.Equal(t, []string{"edges", "nodes", "stats"}, keysOf(doc))

		nodes := doc["nodes"].([]any)
		require.Len(t, nodes, g.Len())
		for i, raw := range nodes {
			n := raw.(map[string]any)
			node := g.Node(i)
			if !c.Included[i] {
				// A module pseudo-node has no centrality: the field is absent, not zero.
				require.True(t, node.IsModule())
				require.Equal(t, []string{"end_line", "file", "id", "kind", "line", "metrics", "name"}, keysOf(n))
				continue
			}
			require.Equal(t, []string{"centrality", "end_line", "file", "id", "kind", "line", "metrics", "name"}, keysOf(n))
			m := n["metrics"].(map[string]any)
			require.Equal(t, []string{"code_lines", "cyclomatic", "halstead_difficulty", "halstead_volume", "nesting"}, keysOf(m))
			cen := n["centrality"].(map[string]any)
			require.Equal(t, []string{"betweenness", "distance_discount", "harmonic", "in_degree", "out_degree", "pagerank"}, keysOf(cen))
			require.Equal(t, node.ID, n["id"])
			require.Equal(t, "m.py", n["file"])
			require.Equal(t, node.Name, n["name"])
			require.Equal(t, string(node.Kind), n["kind"])
			require.EqualValues(t, i+1, n["line"])
			require.EqualValues(t, i+3, n["end_line"])
			want := 10 + i
			if compat == CompatBreakpoint {
				want++
			}
			require.EqualValues(t, want, m["code_lines"])
			require.EqualValues(t, 12.5, m["halstead_volume"])
			require.Equal(t, c.Harmonic[i], cen["harmonic"])
			require.Equal(t, c.PageRank[i], cen["pagerank"])
			require.Equal(t, c.Betweenness[i], cen["betweenness"])
			require.Equal(t, c.DistanceDiscount[i], cen["distance_discount"])
			require.EqualValues(t, c.InDegree[i], cen["in_degree"])
		}
		edges := doc["edges"].([]any)
		require.Len(t, edges, len(g.Edges()))
		e := edges[1].(map[string]any)
		require.Equal(t, []string{"callee", "caller", "lines"}, keysOf(e))
		require.Equal(t, "m.py::f", e["caller"])
		require.Equal(t, "m.py::g", e["callee"])
		require.Equal(t, []any{3.0, 5.0}, e["lines"])
		st := doc["stats"].(map[string]any)
		require.Equal(t, []string{"calls", "files", "functions", "parse_errors", "resolved", "unresolved"}, keysOf(st))
		require.EqualValues(t, 9, st["calls"])
		require.EqualValues(t, 3, st["functions"])
	}

	// Without centrality the field is absent.
	r := g.Report(nil)
	require.Nil(t, r.Nodes[1].Centrality)
	require.Nil(t, r.Project, "a graph from FromAnalyses has no project")

	// Measures not computed are absent from the report, not zero; degrees always present.
	c, err := g.Centrality(context.Background(), CentralityOptions{Measures: MeasurePageRank})
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, g.WriteJSON(&buf, c))
	var doc struct {
		Nodes []struct {
			Centrality map[string]any `json:"centrality"`
		} `json:"nodes"`
	}
	require.NoError(t, json.Unmarshal(buf.Bytes(), &doc))
	f, _ := g.Lookup("m.py::f")
	require.Equal(t, []string{"in_degree", "out_degree", "pagerank"}, keysOf(doc.Nodes[f].Centrality))
	require.Equal(t, c.PageRank[f], doc.Nodes[f].Centrality["pagerank"])
}

func TestWriteDOT(t *testing.T) {
	d := func(id string, k task.Kind) Definition { return Definition{Function: task.Function{ID: id, Kind: k}} }
	odd := `q.py::say "hi" \ bye`
	g, err := FromAnalyses(&Analysis{
		Definitions: []Definition{d("q.py::<module>", task.KindModule), d(odd, task.KindFunction), d("q.py::b", task.KindFunction)},
		Calls:       []Call{{"q.py::<module>", odd, 1}, {odd, "q.py::b", 4}, {odd, "q.py::b", 2}, {"q.py::b", "q.py::b", 7}},
	})
	require.NoError(t, err)
	c, err := g.Centrality(context.Background(), CentralityOptions{})
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, g.WriteDOT(&buf, c))
	f, err := dot.ParseBytes(buf.Bytes())
	require.NoError(t, err, buf.String())
	require.Len(t, f.Graphs, 1)
	gr := f.Graphs[0]
	require.True(t, gr.Directed)
	labels := map[string]string{}
	shapes := map[string]string{}
	var edges []string
	for _, s := range gr.Stmts {
		switch s := s.(type) {
		case *ast.NodeStmt:
			for _, a := range s.Attrs {
				switch a.Key {
				case "label":
					l, err := strconv.Unquote(a.Val) // DOT escapes used here are a subset of Go's
					require.NoError(t, err)
					labels[s.Node.ID] = l
				case "shape":
					shapes[s.Node.ID] = a.Val
				}
			}
		case *ast.EdgeStmt:
			lab := ""
			for _, a := range s.Attrs {
				if a.Key == "label" {
					lab = a.Val
				}
			}
			edges = append(edges, s.From.(*ast.Node).ID+"->"+s.To.Vertex.(*ast.Node).ID+" "+lab)
		}
	}
	i, _ := g.Lookup(odd)
	require.Equal(t, odd, labels["n"+strconv.Itoa(i)])
	require.Len(t, labels, 3)
	require.Equal(t, map[string]string{"n0": "box"}, shapes)
	require.Equal(t, []string{`n0->n2 "1"`, `n1->n1 "7"`, `n2->n1 "2,4"`}, edges, "sorted by (caller, callee) index")
}

// TestWriteJSONBlocks checks that WriteJSON, which encodes the nodes and edges in blocks
// on several goroutines, writes the bytes encoding/json's Encoder writes for Report: with
// and without nodes, edges, centrality and a project, and across block boundaries.
func TestWriteJSONBlocks(t *testing.T) {
	want := func(g *Graph, c *Centrality) []byte {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		require.NoError(t, enc.Encode(g.Report(c)))
		return buf.Bytes()
	}
	d := func(id string, k task.Kind) Definition { return Definition{Function: task.Function{ID: id, Kind: k}} }
	for _, n := range []int{0, 1, 2, 2047, 2048, 2049, 5000} {
		for _, calls := range []bool{false, true} {
			a := &Analysis{}
			for i := range n {
				a.Definitions = append(a.Definitions, d(fmt.Sprintf("p/<a&b>.go::f%05d\u2028", i), task.KindFunction))
				if calls && i > 0 {
					a.Calls = append(a.Calls, Call{a.Definitions[i-1].ID, a.Definitions[i].ID, i}, Call{a.Definitions[i].ID, a.Definitions[i/2].ID, 2 * i})
				}
			}
			g, err := FromAnalyses(a)
			require.NoError(t, err)
			c, err := g.Centrality(context.Background(), CentralityOptions{})
			require.NoError(t, err)
			for _, proj := range []*repo.Project{nil, {Root: "/r", Target: ".", Lang: repo.Go, Reason: "go.mod"}} {
				g.project = proj
				for _, c := range []*Centrality{nil, c} {
					var buf bytes.Buffer
					require.NoError(t, g.WriteJSON(&buf, c))
					require.Equal(t, string(want(g, c)), buf.String(), "%d nodes, calls %v", n, calls)
				}
			}
		}
	}
}
