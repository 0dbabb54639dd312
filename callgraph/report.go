package callgraph

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/faultline-dev/faultline/task"
)

// Report is the JSON contract of the callgraph tool (examples/callgraph): every node with
// its metrics and centrality, every edge with its call-site lines, and the build summary.
// Nodes are in index order (sorted by ID) and edges sorted by (caller, callee) index.
type Report struct {
	Nodes []ReportNode  `json:"nodes"`
	Edges []ReportEdge  `json:"edges"`
	Stats ReportSummary `json:"stats"`
}

// ReportNode is one node of a Report. File is the slash path relative to the root and
// Name the qualified name.
type ReportNode struct {
	ID         string           `json:"id"`
	File       string           `json:"file"`
	Name       string           `json:"name"`
	Kind       task.Kind        `json:"kind"`
	Line       int              `json:"line"`
	EndLine    int              `json:"end_line"`
	Metrics    ReportMetrics    `json:"metrics"`
	Centrality ReportCentrality `json:"centrality"`
}

// ReportMetrics are a node's complexity measures. CodeLines follows the report's
// compatibility mode (CompatBreakpoint adds one).
type ReportMetrics struct {
	CodeLines          int     `json:"code_lines"`
	Cyclomatic         int     `json:"cyclomatic"`
	HalsteadVolume     float64 `json:"halstead_volume"`
	HalsteadDifficulty float64 `json:"halstead_difficulty"`
	Nesting            int     `json:"nesting"`
}

// ReportCentrality are a node's centrality measures (zero for nodes left out of the
// centrality graph).
type ReportCentrality struct {
	Harmonic         float64 `json:"harmonic"`
	DistanceDiscount float64 `json:"distance_discount"`
	PageRank         float64 `json:"pagerank"`
	Betweenness      float64 `json:"betweenness"`
	InDegree         int     `json:"in_degree"`
	OutDegree        int     `json:"out_degree"`
}

// ReportEdge is one call edge by node ID with its sorted call-site lines.
type ReportEdge struct {
	Caller string `json:"caller"`
	Callee string `json:"callee"`
	Lines  []int  `json:"lines"`
}

// ReportSummary is the build summary of a Report (Stats without the skipped files).
type ReportSummary struct {
	Files       int `json:"files"`
	Functions   int `json:"functions"`
	Calls       int `json:"calls"`
	Resolved    int `json:"resolved"`
	Unresolved  int `json:"unresolved"`
	ParseErrors int `json:"parse_errors"`
}

// Report assembles the JSON contract for the graph with centrality c (computed by
// g.Centrality; nil leaves the centrality fields zero). compat selects how code lines
// are counted.
func (g *Graph) Report(c *Centrality, compat Compat) *Report {
	r := &Report{Nodes: make([]ReportNode, len(g.nodes)), Edges: make([]ReportEdge, len(g.edges))}
	for i := range g.nodes {
		n := &g.nodes[i]
		m := n.Metrics
		code := m.CodeLines
		if compat == CompatBreakpoint {
			code = m.CompatCodeLines()
		}
		rn := ReportNode{
			ID: n.ID, File: n.File, Name: n.Name, Kind: n.Kind, Line: n.Line, EndLine: n.EndLine,
			Metrics: ReportMetrics{
				CodeLines: code, Cyclomatic: m.Cyclomatic, HalsteadVolume: m.HalsteadVolume,
				HalsteadDifficulty: m.HalsteadDifficulty, Nesting: m.Nesting,
			},
		}
		if c != nil {
			rn.Centrality = ReportCentrality{
				Harmonic: c.Harmonic[i], DistanceDiscount: c.DistanceDiscount[i], PageRank: c.PageRank[i],
				Betweenness: c.Betweenness[i], InDegree: c.InDegree[i], OutDegree: c.OutDegree[i],
			}
		}
		r.Nodes[i] = rn
	}
	for k, e := range g.edges {
		r.Edges[k] = ReportEdge{Caller: g.nodes[e.From].ID, Callee: g.nodes[e.To].ID, Lines: e.Lines}
	}
	s := g.stats
	r.Stats = ReportSummary{
		Files: s.Files, Functions: s.Functions, Calls: s.Calls, Resolved: s.Resolved,
		Unresolved: s.Unresolved, ParseErrors: s.ParseErrors,
	}
	return r
}

// WriteJSON writes g.Report(c, compat) as one line of JSON followed by a newline.
func (g *Graph) WriteJSON(w io.Writer, c *Centrality, compat Compat) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // keep `path::<module>` readable
	if err := enc.Encode(g.Report(c, compat)); err != nil {
		return fmt.Errorf("callgraph: write json: %w", err)
	}
	return nil
}

// WriteDOT writes the graph in Graphviz DOT: one node per definition labelled with its
// ID (module pseudo-nodes drawn as boxes), one edge per call edge labelled with its
// call-site lines. When c is non-nil each node also carries its harmonic centrality and
// PageRank as a tooltip.
func (g *Graph) WriteDOT(w io.Writer, c *Centrality) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "digraph callgraph {")
	fmt.Fprintln(bw, "\tnode [shape=ellipse];")
	for i := range g.nodes {
		n := &g.nodes[i]
		attrs := []string{"label=" + dotQuote(n.ID)}
		if n.IsModule() {
			attrs = append(attrs, "shape=box")
		}
		if c != nil && c.Included[i] {
			attrs = append(attrs, "tooltip="+dotQuote(fmt.Sprintf("harmonic=%g pagerank=%g", c.Harmonic[i], c.PageRank[i])))
		}
		fmt.Fprintf(bw, "\tn%d [%s];\n", i, strings.Join(attrs, ", "))
	}
	for _, e := range g.edges {
		lines := make([]string, len(e.Lines))
		for k, l := range e.Lines {
			lines[k] = fmt.Sprint(l)
		}
		fmt.Fprintf(bw, "\tn%d -> n%d [label=%s];\n", e.From, e.To, dotQuote(strings.Join(lines, ",")))
	}
	fmt.Fprintln(bw, "}")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("callgraph: write dot: %w", err)
	}
	return nil
}

// dotQuote returns s as a DOT double-quoted string.
func dotQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
