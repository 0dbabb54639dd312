package extract

import (
	"path"
	"slices"
	"strings"

	"github.com/faultline-dev/faultline/task"
	"github.com/faultline-dev/faultline/task/repo"
)

// Node is one object of a dependency graph.
type Node struct {
	Object
	// SeenInP2P is set when a chosen pass-to-pass file's trace executed the object.
	SeenInP2P bool `json:"seen_in_p2p"`
	// Protected is set for objects executed or imported while collecting (they must stay).
	Protected bool `json:"protected"`
	// Def is the object's static definition (spans and lines), nil when the front end
	// found none for it (then it cannot be extracted).
	Def *task.Function `json:"def,omitempty"`
}

// DepGraph is the dependency graph of one F2P test file: the objects its trace executed
// with their callees, flagged with what the chosen P2P traces executed and what is
// protected. Nodes are sorted by ID.
type DepGraph struct {
	Nodes []Node `json:"nodes"`
}

// Lookup returns the node with the given id.
func (g *DepGraph) Lookup(id string) (*Node, bool) {
	i, ok := slices.BinarySearchFunc(g.Nodes, id, func(n Node, id string) int { return strings.Compare(n.ID, id) })
	if !ok {
		return nil, false
	}
	return &g.Nodes[i], true
}

// NewDepGraph merges the F2P trace with the chosen P2P traces: the nodes are the F2P
// trace's objects; SeenInP2P is set for those any P2P trace executed; Protected for the
// ids in protected; Def from defs (see DefIndex).
func NewDepGraph(f2p *Trace, p2p []*Trace, protected []string, defs *DefIndex) *DepGraph {
	seen := map[string]bool{}
	for _, t := range p2p {
		for _, o := range t.Objects {
			seen[o.ID] = true
		}
	}
	prot := map[string]bool{}
	for _, p := range protected {
		prot[p] = true
	}
	g := &DepGraph{Nodes: make([]Node, 0, len(f2p.Objects))}
	for _, o := range f2p.Objects {
		n := Node{Object: o, SeenInP2P: seen[o.ID], Protected: prot[o.ID]}
		n.Callees = slices.Clone(o.Callees)
		if defs != nil {
			n.Def = defs.Find(o.File, o.Name, o.Line)
		}
		g.Nodes = append(g.Nodes, n)
	}
	return g
}

// DefIndex finds the static definition (task.Function) of a traced object by file,
// qualified name and line: the line may be the def/class keyword's or the first
// decorator's.
type DefIndex struct {
	byFile map[string][]task.Function
}

// NewDefIndex indexes definitions (module pseudo-definitions are left out).
func NewDefIndex(fns []task.Function) *DefIndex {
	x := &DefIndex{byFile: map[string][]task.Function{}}
	for _, f := range fns {
		if f.Kind == task.KindModule {
			continue
		}
		x.byFile[f.File] = append(x.byFile[f.File], f)
	}
	return x
}

// Find returns the definition of file::name::line, or nil. When no definition has that
// name and line, a definition at that line whose name ends in the traced name's last
// component is accepted (the Python < 3.11 fallback names methods by co_name).
func (x *DefIndex) Find(file, name string, line int) *task.Function {
	fns := x.byFile[file]
	for i := range fns {
		f := &fns[i]
		if f.Name == name && (f.Line == line || f.DecoratorLine == line) {
			return f
		}
	}
	last := name[strings.LastIndexByte(name, '.')+1:]
	for i := range fns {
		f := &fns[i]
		if (f.Line == line || f.DecoratorLine == line) && (f.Name == last || strings.HasSuffix(f.Name, "."+last)) {
			return f
		}
	}
	return nil
}

// Span returns the definition's first (decorator) line and last line.
func defLines(f *task.Function) (int, int) {
	start := f.Line
	if f.DecoratorLine > 0 && f.DecoratorLine < start {
		start = f.DecoratorLine
	}
	return start, f.EndLine
}

// IsTestObjectFile reports whether objects of the slash path file may never be top
// objects or extracted: test files (task/repo.IsTestPath, the project's one test-file rule),
// conftest.py and __init__.py.
func IsTestObjectFile(file string) bool {
	base := path.Base(file)
	return repo.IsTestPath(file) || base == "conftest.py" || base == "__init__.py"
}

// isPseudo reports whether a qualified name has a pseudo-name component (<module>,
// <lambda>, <listcomp>, ...).
func isPseudo(name string) bool {
	for _, c := range strings.Split(name, ".") {
		if c == "" || strings.HasPrefix(c, "<") {
			return true
		}
	}
	return false
}

// LineSet counts the lines of a set of definitions without double counting: a class and
// its methods (nested ranges) or overlapping ranges count once. The zero value is empty.
type LineSet struct {
	byFile map[string][][2]int // sorted, disjoint, non-adjacent ranges
	total  int
}

// Cost returns the number of lines of [start, end] in file not yet in the set.
func (s *LineSet) Cost(file string, start, end int) int {
	if end < start {
		return 0
	}
	n := end - start + 1
	for _, r := range s.byFile[file] {
		lo, hi := max(r[0], start), min(r[1], end)
		if lo <= hi {
			n -= hi - lo + 1
		}
	}
	return n
}

// Add adds [start, end] in file and returns the number of new lines.
func (s *LineSet) Add(file string, start, end int) int {
	c := s.Cost(file, start, end)
	if c == 0 {
		return 0
	}
	if s.byFile == nil {
		s.byFile = map[string][][2]int{}
	}
	rs := append(s.byFile[file], [2]int{start, end})
	slices.SortFunc(rs, func(a, b [2]int) int { return a[0] - b[0] })
	merged := rs[:0:0]
	for _, r := range rs {
		if k := len(merged) - 1; k >= 0 && r[0] <= merged[k][1]+1 {
			merged[k][1] = max(merged[k][1], r[1])
			continue
		}
		merged = append(merged, r)
	}
	s.byFile[file] = merged
	s.total += c
	return c
}

// Total returns the number of lines in the set.
func (s *LineSet) Total() int { return s.total }
