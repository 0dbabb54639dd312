package golang

import (
	sitter "github.com/smacker/go-tree-sitter"

	"github.com/faultline-dev/faultline/callgraph/internal/tsnode"
)

// The syntax tree and parser pool are shared with the other tree-sitter front ends.
type (
	node       = tsnode.Node
	parserPool = tsnode.ParserPool
)

var newParserPool = tsnode.NewParserPool

// Trees between parsing and resolution.
//
// A file's tree is parsed, measured (definitions, spans, metrics, doc comments) and then
// kept in two pruned parts, so that the trees of a whole repository never sit in memory
// as Go nodes at once: the outline (everything but the bodies of function and method
// declarations) as Go nodes, which the declarations and type inference of every other
// file consult; and the bodies in a compact pointer-free encoding (cnode), turned back
// into Go nodes only while the file's calls are resolved. Pruning drops what resolution
// never reads: comments, the children of string literals, and anonymous tokens that
// have no field name, except the few whose presence resolution tests (keptTokens).

// keptTokens are the anonymous tokens without a field that resolution looks for: "(" (the
// line of a generic call parsed as a conversion), "*" (an embedded pointer field), "..."
// (a spread argument), "=" (a plain assignment), ":=", "&" and "<-".
var keptTokens = map[string]bool{"(": true, "*": true, "...": true, "=": true, ":=": true, "&": true, "<-": true}

// stringTypes are the literal node types whose children are dropped.
var stringTypes = map[string]bool{"interpreted_string_literal": true, "raw_string_literal": true, "rune_literal": true}

// pruned reports whether a node (and its subtree) is left out of the kept trees.
func pruned(n *node) bool {
	if n.Type == "comment" {
		return true
	}
	return !n.Named && n.Field == "" && !keptTokens[n.Type]
}

// grammar numbers the node types and field names of the Go grammar for cnode.
type grammar struct {
	types   []string
	typeID  map[string]uint16
	fields  []string
	fieldID map[string]uint8
}

func newGrammar(lang *sitter.Language) *grammar {
	g := &grammar{typeID: map[string]uint16{}, fieldID: map[string]uint8{}, fields: []string{""}}
	add := func(name string) {
		if _, ok := g.typeID[name]; !ok {
			g.typeID[name] = uint16(len(g.types))
			g.types = append(g.types, name)
		}
	}
	for s := range lang.SymbolCount() {
		add(lang.SymbolName(sitter.Symbol(s)))
	}
	add("ERROR")
	g.fieldID[""] = 0
	for i := 1; i < 256; i++ {
		name := lang.FieldName(i)
		if name == "" {
			break
		}
		g.fieldID[name] = uint8(len(g.fields))
		g.fields = append(g.fields, name)
	}
	return g
}

// cnode is one node of an encoded subtree, in pre-order: 28 bytes without pointers.
type cnode struct {
	start, end   uint32
	row, col     uint32
	endRow       uint32
	nkids        uint32
	typ          uint16
	field, flags uint8
}

const (
	cNamed = 1 << iota
	cBad
)

// encode appends the pruned subtree of n to out in pre-order; skip, when not nil, leaves
// out a child and its subtree besides the pruned ones.
func (g *grammar) encode(n *node, out []cnode, skip func(parent, kid *node) bool) []cnode {
	at := len(out)
	c := cnode{start: uint32(n.Start), end: uint32(n.End), row: uint32(n.Row), col: uint32(n.Col), endRow: uint32(n.EndRow),
		typ: g.typeID[n.Type], field: g.fieldID[n.Field]}
	if n.Named {
		c.flags |= cNamed
	}
	if n.Bad {
		c.flags |= cBad
	}
	out = append(out, c)
	if stringTypes[n.Type] {
		return out
	}
	for _, k := range n.Kids {
		if pruned(k) || skip != nil && skip(n, k) {
			continue
		}
		out[at].nkids++
		out = g.encode(k, out, skip)
	}
	return out
}

// decode builds the Go trees of the encoded subtrees in cs (one slab for all) and returns
// their roots in order.
func (g *grammar) decode(cs []cnode) []*node {
	nodes := make([]node, len(cs))
	kids := make([]*node, len(cs))
	var roots []*node
	next, kidAt := 0, 0
	var build func(parent *node) *node
	build = func(parent *node) *node {
		c := &cs[next]
		n := &nodes[next]
		next++
		*n = node{Type: g.types[c.typ], Field: g.fields[c.field], Start: int(c.start), End: int(c.end),
			Row: int(c.row), Col: int(c.col), EndRow: int(c.endRow), Named: c.flags&cNamed != 0, Bad: c.flags&cBad != 0,
			Parent: parent}
		if c.nkids > 0 {
			k := int(c.nkids)
			n.Kids = kids[kidAt : kidAt+k : kidAt+k]
			kidAt += k
			for i := range k {
				n.Kids[i] = build(n)
			}
		}
		return n
	}
	for next < len(cs) {
		roots = append(roots, build(nil))
	}
	return roots
}

// nodeKey names a syntax node by its file and byte span, so that the analysis can
// remember facts about nodes without keeping the trees alive. Among nodes of one type
// (the maps keyed by it hold one type each: calls, function literals, selectors,
// type instantiations) the span is unique.
type nodeKey struct {
	file       int32
	start, end uint32
}

func (f *file) key(n *node) nodeKey {
	return nodeKey{file: f.idx, start: uint32(n.Start), end: uint32(n.End)}
}
