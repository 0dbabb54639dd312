package callgraph

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/faultline-dev/faultline/task"
	"github.com/faultline-dev/faultline/task/repo"
)

// Report is the JSON contract of the callgraph tool (examples/callgraph): every node with
// its metrics and centrality, every edge with its call-site lines, the build summary, and
// for a graph from Build the project analysed (Graph.Project). Nodes are in index order
// (sorted by ID) and edges sorted by (caller, callee) index.
type Report struct {
	Project *repo.Project `json:"project,omitempty"`
	Nodes   []ReportNode  `json:"nodes"`
	Edges   []ReportEdge  `json:"edges"`
	Stats   ReportSummary `json:"stats"`
}

// ReportNode is one node of a Report. File is the slash path relative to the directory
// the graph was built for and Name the qualified name. Centrality is absent when the
// report has none or the node was left out of the centrality graph, and holds only the
// measures computed (see NodeCentrality).
type ReportNode struct {
	ID         string          `json:"id"`
	File       string          `json:"file"`
	Name       string          `json:"name"`
	Kind       task.Kind       `json:"kind"`
	Line       int             `json:"line"`
	EndLine    int             `json:"end_line"`
	Metrics    ReportMetrics   `json:"metrics"`
	Centrality *NodeCentrality `json:"centrality,omitempty"`
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
// g.Centrality; nil leaves centrality out). Code lines are counted in c's compatibility
// mode (CentralityOptions.Compat; CompatNone without c).
func (g *Graph) Report(c *Centrality) *Report {
	r := &Report{Project: g.Project(), Nodes: make([]ReportNode, len(g.nodes)), Edges: make([]ReportEdge, len(g.edges))}
	compat := CompatNone
	if c != nil {
		compat = c.Compat
	}
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
			if nc, ok := c.Node(i); ok {
				rn.Centrality = &nc
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

// WriteJSON writes g.Report(c) as one line of JSON followed by a newline.
func (g *Graph) WriteJSON(w io.Writer, c *Centrality) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // keep `path::<module>` readable
	if err := enc.Encode(g.Report(c)); err != nil {
		return fmt.Errorf("callgraph: write json: %w", err)
	}
	return nil
}

// WriteDOT writes the graph in Graphviz DOT: one node per definition labelled with its
// ID (module pseudo-nodes drawn as boxes), one edge per call edge labelled with its
// call-site lines. When c is non-nil each node in the centrality graph also carries the
// harmonic centrality and PageRank computed as a tooltip.
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
		if c != nil {
			var tip []string
			for _, s := range []Score{ScoreHarmonic, ScorePageRank} {
				if v, ok := c.Value(i, s); ok {
					tip = append(tip, fmt.Sprintf("%s=%g", s, v))
				}
			}
			if len(tip) > 0 {
				attrs = append(attrs, "tooltip="+dotQuote(strings.Join(tip, " ")))
			}
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
