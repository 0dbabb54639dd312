// Package tsnode holds the syntax tree the tree-sitter front ends of callgraph share: a
// Go-native copy of a tree-sitter parse tree (no C object survives a parse) and a pool of
// parsers per grammar. It is not API: the front ends keep tree-sitter types out of their
// exported signatures.
package tsnode

import (
	"context"
	"fmt"
	"sort"
	"sync"

	sitter "github.com/smacker/go-tree-sitter"
)

// Node is a Go-native copy of one tree-sitter syntax node. A parse copies the tree into
// these structs in a single cursor walk and closes the C tree at once, so no C object
// outlives ParserPool.Parse and the analysis itself never crosses cgo.
type Node struct {
	Type       string
	Field      string // field name under the parent ("" when unnamed)
	Start, End int    // byte offsets
	Row, Col   int    // 0-based start point
	EndRow     int    // 0-based end row
	Named      bool
	Bad        bool // an ERROR or MISSING node
	Kids       []*Node
	Parent     *Node
}

// Child returns the first child under the given field name, or nil.
func (n *Node) Child(field string) *Node {
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
func (n *Node) Children(field string) []*Node {
	if n == nil {
		return nil
	}
	var out []*Node
	for _, k := range n.Kids {
		if k.Field == field {
			out = append(out, k)
		}
	}
	return out
}

// NamedKids returns the named children.
func (n *Node) NamedKids() []*Node {
	if n == nil {
		return nil
	}
	var out []*Node
	for _, k := range n.Kids {
		if k.Named {
			out = append(out, k)
		}
	}
	return out
}

// FirstOfType returns the first child of the given type, or nil.
func (n *Node) FirstOfType(typ string) *Node {
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
func (n *Node) Text(src []byte) string {
	if n == nil {
		return ""
	}
	return string(src[n.Start:n.End])
}

// ParserPool hands out tree-sitter parsers for one language. Parsers are C objects: a
// pooled parser is reused, and one the pool drops is released by go-tree-sitter's
// finalizer.
type ParserPool struct {
	lang *sitter.Language
	pool sync.Pool
}

// NewParserPool returns a pool of parsers for lang.
func NewParserPool(lang *sitter.Language) *ParserPool {
	p := &ParserPool{lang: lang}
	p.pool.New = func() any {
		ps := sitter.NewParser()
		ps.SetLanguage(lang)
		return ps
	}
	return p
}

// Parse parses src and returns its native copy, and the first syntax error position (row,
// col 0-based; hasErr false when the tree is clean). Cancellation is checked before the
// parse: go-tree-sitter's own cancellation leaves a flag set on a parser whose context is
// cancelled after the parse finished, which would poison a pooled parser.
func (p *ParserPool) Parse(ctx context.Context, src []byte) (root *Node, errRow, errCol int, hasErr bool, err error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, 0, false, err
	}
	ps := p.pool.Get().(*sitter.Parser)
	tree, err := ps.ParseCtx(context.Background(), nil, src)
	if err != nil {
		ps.Reset()
		p.pool.Put(ps)
		return nil, 0, 0, false, fmt.Errorf("parse: %w", err)
	}
	p.pool.Put(ps)
	defer tree.Close()
	root, errRow, errCol, hasErr = convert(tree.RootNode(), p.lang, src)
	return root, errRow, errCol, hasErr, nil
}

// convert copies the tree under root. It also returns the position of the first ERROR or
// MISSING node in document order. Rows and columns are computed from byte offsets in Go,
// and a symbol's name and namedness are looked up once, to keep cgo calls per node few.
func convert(root *sitter.Node, lang *sitter.Language, src []byte) (*Node, int, int, bool) {
	lineStarts := []int{0}
	for i, c := range src {
		if c == '\n' {
			lineStarts = append(lineStarts, i+1)
		}
	}
	rowOf := func(off int) int {
		return sort.Search(len(lineStarts), func(i int) bool { return lineStarts[i] > off }) - 1
	}
	type symInfo struct {
		name  string
		named bool
	}
	syms := map[sitter.Symbol]symInfo{}
	info := func(n *sitter.Node) symInfo {
		s := n.Symbol()
		if si, ok := syms[s]; ok {
			return si
		}
		si := symInfo{name: n.Type(), named: n.IsNamed()}
		syms[s] = si
		return si
	}
	cur := sitter.NewTreeCursor(root)
	defer cur.Close()
	mk := func(parent *Node) *Node {
		n := cur.CurrentNode()
		si := info(n)
		start, end := int(n.StartByte()), int(n.EndByte())
		row := rowOf(start)
		out := &Node{
			Type:   si.name,
			Field:  cur.CurrentFieldName(),
			Start:  start,
			End:    end,
			Row:    row,
			Col:    start - lineStarts[row],
			EndRow: rowOf(max(start, end-1)),
			Named:  si.named,
			Bad:    si.name == "ERROR" || (start == end && n.IsMissing()),
			Parent: parent,
		}
		if parent != nil {
			parent.Kids = append(parent.Kids, out)
		}
		return out
	}
	top := mk(nil)
	errRow, errCol, hasErr := 0, 0, false
	note := func(n *Node) {
		if n.Bad && (!hasErr || n.Row < errRow || (n.Row == errRow && n.Col < errCol)) {
			errRow, errCol, hasErr = n.Row, n.Col, true
		}
	}
	note(top)
	at := top
	if !cur.GoToFirstChild() {
		return top, errRow, errCol, hasErr
	}
	for {
		n := mk(at)
		note(n)
		if cur.GoToFirstChild() {
			at = n
			continue
		}
		for !cur.GoToNextSibling() {
			if !cur.GoToParent() {
				return top, errRow, errCol, hasErr
			}
			at = at.Parent
			if at == nil {
				return top, errRow, errCol, hasErr
			}
		}
	}
}
