package callgraph

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

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
		r.Nodes[i] = g.reportNode(i, c, compat)
	}
	for k := range g.edges {
		r.Edges[k] = g.reportEdge(k)
	}
	r.Stats = g.reportSummary()
	return r
}

// reportNode is node i of the report with centrality c in the compatibility mode compat.
func (g *Graph) reportNode(i int, c *Centrality, compat Compat) ReportNode {
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
	return rn
}

// reportEdge is edge k of the report.
func (g *Graph) reportEdge(k int) ReportEdge {
	e := &g.edges[k]
	return ReportEdge{Caller: g.nodes[e.From].ID, Callee: g.nodes[e.To].ID, Lines: e.Lines}
}

func (g *Graph) reportSummary() ReportSummary {
	s := g.stats
	return ReportSummary{
		Files: s.Files, Functions: s.Functions, Calls: s.Calls, Resolved: s.Resolved,
		Unresolved: s.Unresolved, ParseErrors: s.ParseErrors,
	}
}

// WriteJSON writes g.Report(c) as one line of JSON followed by a newline, the bytes
// encoding/json's Encoder writes for it with HTML escaping off. The nodes and edges are
// encoded in blocks on up to GOMAXPROCS goroutines (a JSON array is its elements joined
// by commas, so the blocks' arrays are joined without their brackets); nothing is
// written if an element cannot be encoded.
func (g *Graph) WriteJSON(w io.Writer, c *Centrality) error {
	compat := CompatNone
	if c != nil {
		compat = c.Compat
	}
	const block = 2048
	nn, ne := (len(g.nodes)+block-1)/block, (len(g.edges)+block-1)/block
	parts := make([][]byte, nn+ne)
	errs := make([]error, nn+ne)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), max(nn+ne, 1)) {
		wg.Go(func() {
			var nodes []ReportNode
			var edges []ReportEdge
			for {
				b := int(next.Add(1) - 1)
				if b >= nn+ne {
					return
				}
				if b < nn {
					lo, hi := b*block, min((b+1)*block, len(g.nodes))
					nodes = nodes[:0]
					for i := lo; i < hi; i++ {
						nodes = append(nodes, g.reportNode(i, c, compat))
					}
					parts[b], errs[b] = jsonElements(nodes)
				} else {
					lo, hi := (b-nn)*block, min((b-nn+1)*block, len(g.edges))
					edges = edges[:0]
					for k := lo; k < hi; k++ {
						edges = append(edges, g.reportEdge(k))
					}
					parts[b], errs[b] = jsonElements(edges)
				}
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("callgraph: write json: %w", err)
	}
	var head, tail []byte
	var err error
	if p := g.Project(); p != nil {
		if head, err = jsonValue(p); err != nil {
			return fmt.Errorf("callgraph: write json: %w", err)
		}
		head = append(append([]byte(`{"project":`), head...), `,"nodes":[`...)
	} else {
		head = []byte(`{"nodes":[`)
	}
	if tail, err = jsonValue(g.reportSummary()); err != nil {
		return fmt.Errorf("callgraph: write json: %w", err)
	}
	tail = append(append([]byte(`],"stats":`), tail...), "}\n"...)
	size := len(head) + len(tail) + len(`],"edges":[`) + len(parts)
	for _, part := range parts {
		size += len(part)
	}
	out := make([]byte, 0, size)
	out = append(out, head...)
	for b, part := range parts {
		if b == nn {
			out = append(out, `],"edges":[`...)
		}
		if b != 0 && b != nn {
			out = append(out, ',')
		}
		out = append(out, part...)
	}
	if ne == 0 {
		out = append(out, `],"edges":[`...)
	}
	out = append(out, tail...)
	if _, err := w.Write(out); err != nil {
		return fmt.Errorf("callgraph: write json: %w", err)
	}
	return nil
}

// jsonValue is v as encoding/json's Encoder writes it with HTML escaping off, without
// the newline.
func jsonValue(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // keep `path::<module>` readable
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// jsonElements is the JSON array of s without its brackets (the elements joined by
// commas), empty when s is.
func jsonElements[T any](s []T) ([]byte, error) {
	b, err := jsonValue(s)
	if err != nil || len(s) == 0 {
		return nil, err
	}
	return b[1 : len(b)-1], nil
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
