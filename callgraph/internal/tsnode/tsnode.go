// Package tsnode holds the syntax tree the tree-sitter front ends of callgraph share: a
// Go-native copy of a tree-sitter parse tree (no C object survives a parse) and a pool of
// parsers per grammar. It is not API: the front ends keep tree-sitter types out of their
// exported signatures.
//
// A parse crosses cgo twice: once to parse, once to flatten the whole tree in pre-order
// into a Go buffer (flat.go). The Go tree is then built from that buffer without cgo, its
// nodes allocated in one slab per file; ParseFunc, for callers that keep nothing of the
// tree, reuses the slabs from file to file.
package tsnode

// Node is a Go-native copy of one tree-sitter syntax node. A parse copies the tree into
// these structs and deletes the C tree at once, so no C object outlives ParserPool.Parse
// and the analysis itself never crosses cgo. The nodes of one parse share one allocation:
// a node that is kept keeps its whole tree alive (as its Parent link does anyway).
type Node struct {
	Type       string
	Field      string // field name under the parent ("" when unnamed)
	Start, End int    // byte offsets
	Row, Col   int    // 0-based start point
	EndRow     int    // 0-based end row
	Named      bool
	Bad        bool // an ERROR or MISSING node
	// Sym is the grammar symbol (ErrorSym for ERROR nodes) and FieldID the field id under
	// the parent (0 when unnamed): the numbers behind Type and Field, for front ends that
	// index tables by them instead of hashing the names.
	Sym     uint16
	FieldID uint16
	Kids    []*Node
	Parent  *Node
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
