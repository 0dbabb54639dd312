package javascript

import (
	"context"
	"fmt"
	"sort"
	"sync"

	sitter "github.com/smacker/go-tree-sitter"
)

// node is a Go-native copy of one tree-sitter syntax node. The front end copies each parse
// tree into these structs in a single cursor walk and closes the C tree at once, so no C
// object outlives Analyze and the analysis itself never crosses cgo.
type node struct {
	typ        string
	field      string // field name under the parent ("" when unnamed)
	start, end int    // byte offsets
	row, col   int    // 0-based start point
	endRow     int    // 0-based end row
	named      bool
	bad        bool // an ERROR or MISSING node
	kids       []*node
	parent     *node
}

// child returns the first child under the given field name, or nil.
func (n *node) child(field string) *node {
	if n == nil {
		return nil
	}
	for _, k := range n.kids {
		if k.field == field {
			return k
		}
	}
	return nil
}

// children returns every child under the given field name.
func (n *node) children(field string) []*node {
	if n == nil {
		return nil
	}
	var out []*node
	for _, k := range n.kids {
		if k.field == field {
			out = append(out, k)
		}
	}
	return out
}

// namedKids returns the named children.
func (n *node) namedKids() []*node {
	if n == nil {
		return nil
	}
	var out []*node
	for _, k := range n.kids {
		if k.named {
			out = append(out, k)
		}
	}
	return out
}

// firstNamed returns the first named child of the given type, or nil.
func (n *node) firstOfType(typ string) *node {
	if n == nil {
		return nil
	}
	for _, k := range n.kids {
		if k.typ == typ {
			return k
		}
	}
	return nil
}

func (n *node) text(src []byte) string {
	if n == nil {
		return ""
	}
	return string(src[n.start:n.end])
}

// parserPool hands out tree-sitter parsers for one language. Parsers are C objects: a
// pooled parser is reused, and one the pool drops is released by go-tree-sitter's
// finalizer.
type parserPool struct {
	lang *sitter.Language
	pool sync.Pool
}

func newParserPool(lang *sitter.Language) *parserPool {
	p := &parserPool{lang: lang}
	p.pool.New = func() any {
		ps := sitter.NewParser()
		ps.SetLanguage(lang)
		return ps
	}
	return p
}

// parse parses src and returns its native copy, and the first syntax error position (row,
// col 0-based; hasErr false when the tree is clean). Cancellation is checked before the
// parse: go-tree-sitter's own cancellation leaves a flag set on a parser whose context is
// cancelled after the parse finished, which would poison a pooled parser.
func (p *parserPool) parse(ctx context.Context, src []byte) (root *node, errRow, errCol int, hasErr bool, err error) {
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
func convert(root *sitter.Node, lang *sitter.Language, src []byte) (*node, int, int, bool) {
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
	mk := func(parent *node) *node {
		n := cur.CurrentNode()
		si := info(n)
		start, end := int(n.StartByte()), int(n.EndByte())
		row := rowOf(start)
		out := &node{
			typ:    si.name,
			field:  cur.CurrentFieldName(),
			start:  start,
			end:    end,
			row:    row,
			col:    start - lineStarts[row],
			endRow: rowOf(max(start, end-1)),
			named:  si.named,
			bad:    si.name == "ERROR" || (start == end && n.IsMissing()),
			parent: parent,
		}
		if parent != nil {
			parent.kids = append(parent.kids, out)
		}
		return out
	}
	top := mk(nil)
	errRow, errCol, hasErr := 0, 0, false
	note := func(n *node) {
		if n.bad && (!hasErr || n.row < errRow || (n.row == errRow && n.col < errCol)) {
			errRow, errCol, hasErr = n.row, n.col, true
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
			at = at.parent
			if at == nil {
				return top, errRow, errCol, hasErr
			}
		}
	}
}
