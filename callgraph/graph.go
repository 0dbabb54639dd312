package callgraph

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/faultline-dev/faultline/task"
	"github.com/faultline-dev/faultline/task/repo"
)

// Node is one definition of the graph with its dense index.
type Node struct {
	Index int // position in Graph.Nodes: the rank of ID in byte order
	Definition
}

// IsModule reports whether the node is a file's module pseudo-definition.
func (n *Node) IsModule() bool { return n.Kind == task.KindModule }

// Edge is a resolved call edge: the caller (From) contains at least one call site that
// resolves to the callee (To). Lines are the call sites' 1-based lines, sorted and
// de-duplicated. An edge with From == To is recursion (a self-loop): it is kept in the
// graph but left out of the gonum view, chain distances and centrality.
type Edge struct {
	From, To int
	Lines    []int
}

// Stats summarises a build.
type Stats struct {
	// Files is the number of files handed to front ends (Build), or the number of distinct
	// files named by the definitions and syntax errors (FromAnalyses).
	Files int `json:"files"`
	// Functions counts the definitions other than module pseudo-definitions.
	Functions int `json:"functions"`
	// Calls counts call sites; Resolved those resolved to at least one definition;
	// Unresolved = Calls − Resolved.
	Calls      int `json:"calls"`
	Resolved   int `json:"resolved"`
	Unresolved int `json:"unresolved"`
	// ParseErrors counts files that did not parse cleanly (see Graph.Errors).
	ParseErrors int `json:"parse_errors"`
	// Skipped lists the files Build left out, with the reason, sorted by path.
	Skipped []Skipped `json:"skipped,omitempty"`
}

// Skipped is a file that a front end would have claimed but Build did not analyse.
type Skipped struct {
	// Path is the slash path relative to the root; for SkipInvalidName, quoted with Go's
	// string escapes (see Build).
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Graph is a call graph. Nodes are sorted by ID and indexed densely from 0; edges are
// sorted by (From, To). A Graph is immutable once built and safe for concurrent use.
type Graph struct {
	nodes []Node
	byID  map[string]int
	edges []Edge
	// out[i]:out[i+1] is the range of edges leaving node i; in lists edge indices sorted
	// by (To, From), inStart delimits them per node.
	outStart []int
	inStart  []int
	in       []int
	stats    Stats
	errs     []error
	project  *repo.Project // where Build analysed; nil for FromAnalyses
}

// ErrDuplicateID is returned (wrapped) by FromAnalyses when two definitions share an ID.
var ErrDuplicateID = errors.New("callgraph: duplicate definition id")

// ErrUnknownDefinition is returned (wrapped) by FromAnalyses when a call names a caller
// or callee that no analysis defines.
var ErrUnknownDefinition = errors.New("callgraph: call to or from an unknown definition")

// FromAnalyses assembles a graph from front-end output. Definitions from all analyses
// are merged and sorted by ID; IDs must be unique (ErrDuplicateID) and every call must
// name defined IDs (ErrUnknownDefinition). Calls between the same pair of definitions
// become one edge whose lines are sorted and de-duplicated. Nil analyses are ignored.
func FromAnalyses(analyses ...*Analysis) (*Graph, error) {
	// The definitions are sorted by ID through their indices (a Node is large to move),
	// then copied once in that order; the tables are sized from the counts.
	ndefs, ncalls := 0, 0
	for _, a := range analyses {
		if a != nil {
			ndefs += len(a.Definitions)
			ncalls += len(a.Calls)
		}
	}
	defs := make([]*Definition, 0, ndefs)
	g := &Graph{byID: make(map[string]int, ndefs), nodes: make([]Node, 0, ndefs)}
	files := map[string]bool{}
	for _, a := range analyses {
		if a == nil {
			continue
		}
		for i := range a.Definitions {
			d := &a.Definitions[i]
			defs = append(defs, d)
			if !files[d.File] {
				files[d.File] = true
			}
		}
		g.stats.Calls += a.CallSites
		g.stats.Resolved += a.Resolved
		g.stats.Unresolved += a.Unresolved
		for _, err := range a.Errors {
			g.errs = append(g.errs, err)
			if se, ok := errors.AsType[*SyntaxError](err); ok {
				files[se.Path] = true
			}
		}
	}
	slices.SortFunc(defs, func(a, b *Definition) int { return strings.Compare(a.ID, b.ID) })
	for _, d := range defs {
		g.nodes = append(g.nodes, Node{Definition: *d})
	}
	for i := range g.nodes {
		n := &g.nodes[i]
		n.Index = i
		if i > 0 && g.nodes[i-1].ID == n.ID {
			return nil, fmt.Errorf("%w: %q", ErrDuplicateID, n.ID)
		}
		g.byID[n.ID] = i
		if !n.IsModule() {
			g.stats.Functions++
		}
	}
	g.stats.Files = len(files)
	g.stats.ParseErrors = len(g.errs)
	slices.SortStableFunc(g.errs, func(a, b error) int { return strings.Compare(errPath(a), errPath(b)) })

	type site struct{ from, to, line int }
	sites := make([]site, 0, ncalls)
	for _, a := range analyses {
		if a == nil {
			continue
		}
		for _, c := range a.Calls {
			from, ok1 := g.byID[c.Caller]
			to, ok2 := g.byID[c.Callee]
			if !ok1 || !ok2 {
				return nil, fmt.Errorf("%w: %q -> %q at line %d", ErrUnknownDefinition, c.Caller, c.Callee, c.Line)
			}
			sites = append(sites, site{from, to, c.Line})
		}
	}
	slices.SortFunc(sites, func(a, b site) int {
		return cmp.Or(cmp.Compare(a.from, b.from), cmp.Compare(a.to, b.to), cmp.Compare(a.line, b.line))
	})
	for i, s := range sites {
		if i > 0 && sites[i-1].from == s.from && sites[i-1].to == s.to {
			e := &g.edges[len(g.edges)-1]
			if e.Lines[len(e.Lines)-1] != s.line {
				e.Lines = append(e.Lines, s.line)
			}
			continue
		}
		g.edges = append(g.edges, Edge{From: s.from, To: s.to, Lines: []int{s.line}})
	}
	g.index()
	return g, nil
}

// errPath is the file an error is about, for sorting.
func errPath(err error) string {
	if se, ok := errors.AsType[*SyntaxError](err); ok {
		return se.Path
	}
	return ""
}

// index builds the CSR offsets of the edge list (already sorted by (From, To)).
func (g *Graph) index() {
	n := len(g.nodes)
	g.outStart = make([]int, n+1)
	g.inStart = make([]int, n+1)
	for _, e := range g.edges {
		g.outStart[e.From+1]++
		g.inStart[e.To+1]++
	}
	for i := range n {
		g.outStart[i+1] += g.outStart[i]
		g.inStart[i+1] += g.inStart[i]
	}
	g.in = make([]int, len(g.edges))
	next := slices.Clone(g.inStart[:n])
	// Edges are visited in (From, To) order, so each node's incoming list is sorted by From.
	for k, e := range g.edges {
		g.in[next[e.To]] = k
		next[e.To]++
	}
}

// Len returns the number of nodes.
func (g *Graph) Len() int { return len(g.nodes) }

// Nodes returns the nodes in index order (sorted by ID). The slice is the graph's own:
// callers must not modify it.
func (g *Graph) Nodes() []Node { return g.nodes }

// Node returns the node with index i. It panics if i is out of range.
func (g *Graph) Node(i int) *Node { return &g.nodes[i] }

// Lookup returns the index of the node with the given ID.
func (g *Graph) Lookup(id string) (int, bool) {
	i, ok := g.byID[id]
	return i, ok
}

// Edges returns the edges sorted by (From, To), self-loops included. The slice is the
// graph's own: callers must not modify it.
func (g *Graph) Edges() []Edge { return g.edges }

// Edge returns the edge from → to, if any.
func (g *Graph) Edge(from, to int) (Edge, bool) {
	out := g.edges[g.outStart[from]:g.outStart[from+1]]
	k, ok := slices.BinarySearchFunc(out, to, func(e Edge, t int) int { return cmp.Compare(e.To, t) })
	if !ok {
		return Edge{}, false
	}
	return out[k], true
}

// Callees returns the indices of the nodes i calls, sorted (i itself included if it is
// recursive).
func (g *Graph) Callees(i int) []int {
	out := g.edges[g.outStart[i]:g.outStart[i+1]]
	r := make([]int, len(out))
	for k, e := range out {
		r[k] = e.To
	}
	return r
}

// Callers returns the indices of the nodes that call i, sorted (i itself included if it
// is recursive).
func (g *Graph) Callers(i int) []int {
	in := g.in[g.inStart[i]:g.inStart[i+1]]
	r := make([]int, len(in))
	for k, e := range in {
		r[k] = g.edges[e].From
	}
	return r
}

// Stats returns the build summary.
func (g *Graph) Stats() Stats {
	s := g.stats
	s.Skipped = slices.Clone(s.Skipped)
	return s
}

// Project returns where Build analysed and why (see Build): Root is the directory the
// analysis ran from, Target the directory the graph holds (relative to Root), Include the
// parts of Root analysed (empty: all), Module the Go module path or the Python package,
// Reason one sentence on the choice. It is nil for a graph from FromAnalyses. The value is
// a copy.
func (g *Graph) Project() *repo.Project {
	if g.project == nil {
		return nil
	}
	p := *g.project
	p.Include = slices.Clone(p.Include)
	p.PythonPath = slices.Clone(p.PythonPath)
	return &p
}

// Errors returns the front ends' per-file errors (normally *SyntaxError), sorted by path.
func (g *Graph) Errors() []error { return slices.Clone(g.errs) }
