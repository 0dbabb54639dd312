package golang

import (
	"bytes"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/faultline-dev/faultline/callgraph/internal/tsnode"
)

// The parser pool and its trees are shared with the other tree-sitter front ends. A
// parse gives a whole tsnode tree, which the parse workers measure and then keep in the
// smaller node form below.
type (
	tsNode     = tsnode.Node
	parserPool = tsnode.ParserPool
)

// node is a syntax node of the kept trees: the outline and the decoded bodies. It is the
// tsnode.Node of the parse less what resolution never reads (the parent link, which
// would tie a kept node to its whole tree, and the end row) and with 32-bit positions:
// 80 bytes instead of 112.
type node struct {
	Type  string
	Field string // field name under the parent ("" when unnamed)
	Kids  []*node
	Start uint32 // byte offsets
	End   uint32
	Row   uint32 // 0-based start point (Col in bytes)
	Col   uint32
	Named bool
	Bad   bool // an ERROR or MISSING node
}

// Child returns the first child under the given field name, or nil.
func (n *node) Child(field string) *node {
	if n == nil {
		return nil
	}
	for _, k := range n.Kids {
		if k.Field == field {
			return k
		}
	}
	return nil
}

// Children returns every child under the given field name.
func (n *node) Children(field string) []*node {
	if n == nil {
		return nil
	}
	var out []*node
	for _, k := range n.Kids {
		if k.Field == field {
			out = append(out, k)
		}
	}
	return out
}

// NamedKids returns the named children.
func (n *node) NamedKids() []*node {
	if n == nil {
		return nil
	}
	var out []*node
	for _, k := range n.Kids {
		if k.Named {
			out = append(out, k)
		}
	}
	return out
}

// FirstOfType returns the first child of the given type, or nil.
func (n *node) FirstOfType(typ string) *node {
	if n == nil {
		return nil
	}
	for _, k := range n.Kids {
		if k.Type == typ {
			return k
		}
	}
	return nil
}

// Text returns the source text the node spans.
func (n *node) Text(src []byte) string {
	if n == nil {
		return ""
	}
	return string(src[n.Start:n.End])
}

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
func pruned(n *tsNode) bool {
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
	// bySym describes each grammar symbol (tsnode.Node.Sym; the last entry is ERROR's),
	// so that encoding a node reads a table instead of hashing its type name.
	bySym []symFacts
	// symByName is a symbol of each node type name (for trees built from go/ast).
	symByName map[string]uint16
}

// symFacts is what encode needs of a node type: its number in grammar.types, and whether
// it is a comment, a kept anonymous token (keptTokens) or a string literal (stringTypes).
type symFacts struct {
	typ                   uint16
	comment, kept, string bool
}

// facts returns the facts of n's type.
func (g *grammar) facts(n *tsNode) symFacts {
	s := int(n.Sym)
	if n.Sym == tsnode.ErrorSym {
		s = len(g.bySym) - 1
	}
	if s < len(g.bySym) {
		return g.bySym[s]
	}
	return symFactsOf(g, n.Type)
}

func symFactsOf(g *grammar, typ string) symFacts {
	return symFacts{typ: g.typeID[typ], comment: typ == "comment", kept: keptTokens[typ], string: stringTypes[typ]}
}

// field returns the number of n's field in grammar.fields.
func (g *grammar) field(n *tsNode) uint8 {
	if id := int(n.FieldID); id < len(g.fields) && g.fields[id] == n.Field {
		return uint8(id)
	}
	return g.fieldID[n.Field]
}

// prunedKid is pruned by the grammar's tables.
func (g *grammar) prunedKid(n *tsNode) bool {
	f := g.facts(n)
	return f.comment || !n.Named && n.Field == "" && !f.kept
}

func newGrammar(lang *sitter.Language) *grammar {
	g := &grammar{typeID: map[string]uint16{}, fieldID: map[string]uint8{}, fields: []string{""}}
	add := func(name string) {
		if _, ok := g.typeID[name]; !ok {
			g.typeID[name] = uint16(len(g.types))
			g.types = append(g.types, name)
		}
	}
	nsym := lang.SymbolCount()
	for s := range nsym {
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
	g.bySym = make([]symFacts, nsym+1)
	for s := range nsym {
		g.bySym[s] = symFactsOf(g, lang.SymbolName(sitter.Symbol(s)))
	}
	g.bySym[nsym] = symFactsOf(g, "ERROR")
	g.symByName = map[string]uint16{}
	for s := int(nsym) - 1; s >= 0; s-- {
		g.symByName[lang.SymbolName(sitter.Symbol(s))] = uint16(s)
	}
	return g
}

// cnode is one node of an encoded subtree, in pre-order: 20 bytes without pointers (the
// column is recomputed from the file's line starts).
type cnode struct {
	start, end   uint32
	row          uint32
	nkids        uint32
	typ          uint16
	field, flags uint8
}

// lineStarts returns the byte offset at which each line of src starts.
func lineStarts(src []byte) []uint32 {
	out := make([]uint32, 1, bytes.Count(src, []byte{'\n'})+1)
	for i := 0; ; {
		k := bytes.IndexByte(src[i:], '\n')
		if k < 0 {
			return out
		}
		i += k + 1
		out = append(out, uint32(i))
	}
}

const (
	cNamed = 1 << iota
	cBad
)

// encode appends the pruned subtree of n to out in pre-order; skip, when not nil, leaves
// out a child and its subtree besides the pruned ones.
func (g *grammar) encode(n *tsNode, out []cnode, skip func(parent, kid *tsNode) bool) []cnode {
	at := len(out)
	f := g.facts(n)
	c := cnode{start: uint32(n.Start), end: uint32(n.End), row: uint32(n.Row), typ: f.typ, field: g.field(n)}
	if n.Named {
		c.flags |= cNamed
	}
	if n.Bad {
		c.flags |= cBad
	}
	out = append(out, c)
	if f.string {
		return out
	}
	for _, k := range n.Kids {
		if g.prunedKid(k) || skip != nil && skip(n, k) {
			continue
		}
		out[at].nkids++
		out = g.encode(k, out, skip)
	}
	return out
}

// decode builds the Go trees of the encoded subtrees in cs (one slab for all) and returns
// their roots in order; lines are the line starts of their file.
func (g *grammar) decode(cs []cnode, lines []uint32) []*node {
	return g.decodeInto(cs, lines, nil)
}

// decodeScratch is storage for decoded trees that decodeInto reuses: the trees decoded
// into it before are overwritten.
type decodeScratch struct {
	nodes []node
	kids  []*node
}

// maxScratchNodes bounds the storage a decodeScratch keeps: a generated table's trees are
// left to the collector.
const maxScratchNodes = 1 << 16

// decodeInto is decode into sc's storage (new storage when sc is nil).
func (g *grammar) decodeInto(cs []cnode, lines []uint32, sc *decodeScratch) []*node {
	var nodes []node
	var kids []*node
	if sc != nil && cap(sc.nodes) >= len(cs) {
		nodes, kids = sc.nodes[:len(cs)], sc.kids[:len(cs)]
	} else {
		nodes, kids = make([]node, len(cs)), make([]*node, len(cs))
		if sc != nil && len(cs) <= maxScratchNodes {
			sc.nodes, sc.kids = nodes, kids
		}
	}
	var roots []*node
	next, kidAt := 0, 0
	var build func() *node
	build = func() *node {
		c := &cs[next]
		n := &nodes[next]
		next++
		// Field by field: a whole-struct assignment would copy with a bulk write
		// barrier while the collector runs.
		n.Type, n.Field = g.types[c.typ], g.fields[c.field]
		n.Start, n.End, n.Row, n.Col = c.start, c.end, c.row, c.start-lines[c.row]
		n.Named, n.Bad = c.flags&cNamed != 0, c.flags&cBad != 0
		n.Kids = nil
		if c.nkids > 0 {
			k := int(c.nkids)
			n.Kids = kids[kidAt : kidAt+k : kidAt+k]
			kidAt += k
			for i := range k {
				n.Kids[i] = build()
			}
		}
		return n
	}
	for next < len(cs) {
		roots = append(roots, build())
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
	return nodeKey{file: f.idx, start: n.Start, end: n.End}
}
