package golang

import (
	"cmp"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"sort"
	"sync"
	"unsafe"
)

// The go/parser front end of the parse.
//
// tree-sitter's parse of a large tree costs more CPU time than a whole type-checking
// analysis of it, most of it in the parse itself and in copying its trees out of C. A file
// that go/parser accepts is parsed by go/parser instead and its syntax tree rewritten as
// the tree the tree-sitter Go grammar gives for the same source: the same node types,
// field names, named-ness, byte spans and positions, with every token (keywords,
// punctuation, comments) a leaf as in tree-sitter's tree. The anonymous tokens come from
// a second pass over the source (lexTokens, lex.go: only the tokens' ends and types, as
// go/parser has already checked them): each token falls in the innermost built node whose
// span holds it, where tree-sitter puts it too. extract then reads that tree exactly as it
// reads tree-sitter's (see astTree).
//
// tree-sitter resolves the ambiguities of Go's syntax (a[i](x): a call, or a conversion
// to an instantiated type?) by the grammar's precedences, not by Go's rules, and rejects a
// few valid constructs; the rewrite follows its choices where they are known and gives up
// (errUnmapped) on anything else, and such a file keeps the tree-sitter parse.
// TestASTTreesMatchTreeSitter compares the two parses file by file on real trees.

// errUnmapped says that a file holds a construct the rewrite does not map: the file is
// parsed by tree-sitter.
var errUnmapped = errors.New("golang: construct not mapped to the tree-sitter grammar")

// bn is a node of the tree under construction: the named nodes (and the anonymous
// tokens with a field) built from go/ast, before the tokens are filled in.
type bn struct {
	typ, field string
	start, end int
	kids       []*bn
	leaf       bool // a token: takes the scanned token at its start
	anon       bool // an anonymous token
}

// stok is one scanned token.
type stok struct {
	start, end int
	typ        string
}

type astBuilder struct {
	src   []byte
	base  int
	toks  []stok
	ti    int
	lines []uint32
	g     *grammar
	fail  bool
	// Storage: built nodes in chunks (those of sc, then new ones); the tree's nodes and
	// child lists in one slab each, the children of a node gathered on a stack until it
	// is done.
	sc    *astScratch
	chunk int // the chunk of sc.bns being filled
	bns   []bn
	nodes []tsNode
	kids  []*tsNode
	stack []*tsNode
	built int // nodes built
	atRow int // row cursor: nodes are placed in pre-order, so their starts only grow
	// deferBodies leaves the bodies of function and method declarations out of the
	// tree: stubs are their stand-ins, in source order (see stream).
	deferBodies bool
	bodyBuilt   int      // the nodes built in bodies
	bodySpans   [][2]int // the bodies' byte spans
	stubs       []bodyStub
	stubAt      int // the next stub stream expects
}

// bodyStub is a function body left out of the tree: its stand-in (a childless node),
// its built node and the range of its scanned tokens.
type bodyStub struct {
	t          *tsNode
	n          *bn
	from, upto int
}

// newBn returns storage for a built node, whose fields the caller sets (kids has a
// length of 0 and maybe the capacity of a previous tree's node).
func (b *astBuilder) newBn() *bn {
	if len(b.bns) == cap(b.bns) {
		if b.chunk == len(b.sc.bns) {
			b.sc.bns = append(b.sc.bns, make([]bn, 0, bnChunk))
		}
		b.bns = b.sc.bns[b.chunk][:0]
		b.chunk++
	}
	b.bns = b.bns[:len(b.bns)+1]
	n := &b.bns[len(b.bns)-1]
	n.kids = n.kids[:0]
	return n
}

// set sets the fields of a built node but its children, one by one (a whole-struct
// assignment would drop the storage of kids).
func (n *bn) set(typ string, start, end int, leaf bool) {
	n.typ, n.field = typ, ""
	n.start, n.end = start, end
	n.leaf, n.anon = leaf, false
}

// bnChunk is the number of built nodes in a chunk of storage.
const bnChunk = 1024

func (b *astBuilder) newNode() *tsNode {
	if len(b.nodes) == cap(b.nodes) {
		b.nodes = make([]tsNode, 0, 1024)
	}
	b.nodes = b.nodes[:len(b.nodes)+1]
	return &b.nodes[len(b.nodes)-1]
}

// astTree parses src with go/parser and returns the tree the tree-sitter grammar gives
// for it, or errUnmapped (or go/parser's error) when the tree-sitter parse must be used.
func (g *grammar) astTree(src []byte, lines []uint32) (*tsNode, error) {
	root, _, err := g.buildAST(src, lines, &astScratch{}, false)
	return root, err
}

// astTreeFunc is astTree for a tree only read while use runs: its storage is reused by
// later calls once use returns (use must keep no node). The bodies of the function and
// method declarations are not in the tree: each is a childless stand-in, which
// bodies.stream encodes and measures (with the scanned tokens it spans) while use runs.
// use's error is returned; when streaming a body finds a construct the rewrite does not
// map, the error is errUnmapped, whatever use returned, and use's results must be
// dropped.
func (g *grammar) astTreeFunc(src []byte, lines []uint32, use func(root *tsNode, bodies *astBuilder) error) error {
	sc, _ := astScratchPool.Get().(*astScratch)
	if sc == nil {
		sc = &astScratch{}
	}
	root, b, err := g.buildAST(src, lines, sc, true)
	if err == nil {
		err = use(root, b)
		if b.fail {
			err = errUnmapped
		}
	}
	if cap(sc.nodes) <= maxPooledNodes {
		// A large file's extra chunks of built nodes are left to the collector.
		sc.bns = sc.bns[:min(len(sc.bns), maxPooledNodes/bnChunk)]
		astScratchPool.Put(sc)
	}
	return err
}

// astScratch is the storage of one rewritten tree, which astTreeFunc reuses.
type astScratch struct {
	nodes []tsNode
	kids  []*tsNode
	toks  []stok
	bns   [][]bn // chunks of bnChunk built nodes
	// syms and fields cache the grammar's numbers of node types and field names.
	syms, fields [nameSlots]nameID
}

var astScratchPool sync.Pool // of *astScratch

// maxPooledNodes bounds the trees whose storage is pooled: a larger file's (a generated
// table's) is left to the collector.
const maxPooledNodes = 1 << 16

// buildAST builds the tree of src; deferBodies leaves the function and method bodies out
// (see astTreeFunc), and the builder is returned to stream them.
func (g *grammar) buildAST(src []byte, lines []uint32, sc *astScratch, deferBodies bool) (*tsNode, *astBuilder, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.SkipObjectResolution)
	if err != nil {
		return nil, nil, err
	}
	b := &astBuilder{src: src, g: g, lines: lines, sc: sc, deferBodies: deferBodies}
	tf := fset.File(f.Package)
	b.base = tf.Base()
	b.toks = sc.toks[:0]
	ok := b.scan()
	sc.toks = b.toks
	if !ok {
		return nil, nil, errUnmapped
	}
	root := b.file(f)
	if b.fail {
		return nil, nil, errUnmapped
	}
	need := b.built + len(b.toks)
	if deferBodies {
		// The bodies' nodes and tokens are not built.
		need -= b.bodyBuilt
		for _, sp := range b.bodySpans {
			lo := sort.Search(len(b.toks), func(i int) bool { return b.toks[i].start >= sp[0] })
			hi := sort.Search(len(b.toks), func(i int) bool { return b.toks[i].start >= sp[1] })
			need -= hi - lo
		}
	}
	if cap(sc.nodes) < need {
		sc.nodes = make([]tsNode, 0, need+need/4)
		sc.kids = make([]*tsNode, 0, need+need/4)
	}
	b.nodes, b.kids = sc.nodes[:0], sc.kids[:0]
	t := b.finish(root, nil)
	if b.fail || b.ti != len(b.toks) {
		return nil, nil, errUnmapped
	}
	return t, b, nil
}

// scan lists the tokens of the source, without the semicolons Go inserts at line ends
// (see lexTokens).
func (b *astBuilder) scan() bool {
	if cap(b.toks) < len(b.src)/5 {
		b.toks = make([]stok, 0, len(b.src)/5+16)
	}
	var ok bool
	b.toks, ok = lexTokens(b.src, b.toks[:0])
	return ok
}

func (b *astBuilder) off(p token.Pos) int { return int(p) - b.base }

// finish fills the scanned tokens into the built tree and converts it to tsNodes.
func (b *astBuilder) finish(n *bn, parent *tsNode) *tsNode {
	t := b.newNode()
	b.reset(t, n.typ, n.field, n.start, n.end, !n.anon, parent)
	b.place(t)
	if b.deferBodies && n.field == "body" && parent != nil && (parent.Type == "function_declaration" || parent.Type == "method_declaration") {
		st := bodyStub{t: t, n: n, from: b.ti}
		for b.ti < len(b.toks) && b.toks[b.ti].start < n.end {
			b.ti++
		}
		st.upto = b.ti
		b.stubs = append(b.stubs, st)
		return t
	}
	if n.leaf {
		if b.ti >= len(b.toks) || b.toks[b.ti].start != n.start || b.toks[b.ti].end != n.end {
			b.fail = true
			return t
		}
		b.ti++
		return t
	}
	var prev *bn
	base := len(b.stack)
	for _, k := range n.kids {
		for b.ti < len(b.toks) && b.toks[b.ti].start < k.start {
			b.stack = append(b.stack, b.token(n, t, prev, k))
		}
		b.stack = append(b.stack, b.finish(k, t))
		prev = k
	}
	for b.ti < len(b.toks) && b.toks[b.ti].start < n.end {
		b.stack = append(b.stack, b.token(n, t, prev, nil))
	}
	if k := len(b.stack) - base; k > 0 {
		at := len(b.kids)
		b.kids = append(b.kids, b.stack[base:]...)
		t.Kids = b.kids[at : at+k : at+k]
		b.stack = b.stack[:base]
	}
	return t
}

// token makes a node of the next scanned token, a child of n between prev and next.
func (b *astBuilder) token(n *bn, parent *tsNode, prev, next *bn) *tsNode {
	tk := b.toks[b.ti]
	b.ti++
	if tk.typ == "" || tk.end > n.end {
		b.fail = true // an identifier or literal the rewrite did not place
	}
	t := b.newNode()
	b.reset(t, tk.typ, "", tk.start, tk.end, false, parent)
	switch tk.typ {
	case "comment", "interpreted_string_literal", "raw_string_literal":
		t.Named = true
		if tk.typ != "comment" {
			b.fail = true
		}
	}
	if tk.typ != "comment" {
		t.Field = tokenField(n, prev, next, tk.typ)
	}
	b.place(t)
	return t
}

// Streaming the bodies.
//
// astTreeFunc leaves the bodies of function and method declarations out of its tree, as
// they are only encoded (see tree.go) and measured: stream does both from the built
// nodes and the scanned tokens, in the order finish would build the body's tree, without
// building it. What it gives must be exactly what encode and measure give on the tree;
// TestStreamedBodiesMatchTrees compares them on real files.

// left reports whether n is the stand-in of a body left out of b's tree (b may be nil).
func (b *astBuilder) left(n *tsNode) bool {
	if b == nil || len(n.Kids) > 0 || n.Field != "body" {
		return false
	}
	i, ok := slices.BinarySearchFunc(b.stubs, n.Start, func(s bodyStub, start int) int { return cmp.Compare(s.t.Start, start) })
	return ok && b.stubs[i].t == n
}

// stream encodes the body whose stand-in is stub into out, as encode encodes the body's
// tree, and counts it into meters, as meter.walk counts it. It reports false when stub is
// not the next body left out of b's tree (b may be nil): bodies are streamed in source
// order, each once.
func (b *astBuilder) stream(stub *tsNode, out []cnode, meters []*meter) ([]cnode, bool) {
	if b == nil || b.stubAt >= len(b.stubs) || b.stubs[b.stubAt].t != stub {
		return out, false
	}
	st := b.stubs[b.stubAt]
	b.stubAt++
	b.ti = st.from
	out = b.emit(st.n, out, true, meters, 0)
	if b.ti != st.upto {
		b.fail = true
	}
	return out, true
}

// emit streams the subtree of built node n with the tokens it spans (from b.ti on), as
// finish builds it: its encoding is appended to out when keep and it is not pruned (as
// encode appends it; keep is false below a pruned node or a string literal), and it is
// counted into meters at nesting depth depth.
func (b *astBuilder) emit(n *bn, out []cnode, keep bool, meters []*meter, depth int) []cnode {
	sym, ok := b.symOf(n.typ)
	if !ok {
		b.fail = true
	}
	f := b.g.bySym[sym]
	row := b.rowAt(n.start)
	named := !n.anon
	if f.comment { // not built: a comment is a scanned token
		b.fail = true
	}
	keep = keep && !(f.comment || !named && n.field == "" && !f.kept) // prunedKid
	inner := depth
	for _, mt := range meters {
		inner = mt.enter(n.typ, n.field, depth)
	}
	at := len(out)
	if keep {
		c := cnode{start: uint32(n.start), end: uint32(n.end), row: uint32(row), typ: f.typ, field: b.fieldOf(n.field)}
		if named {
			c.flags |= cNamed
		}
		out = append(out, c)
	}
	keepKids := keep && !f.string
	lit := literalOperand(n.typ)
	kids := 0
	if n.leaf {
		if b.ti >= len(b.toks) || b.toks[b.ti].start != n.start || b.toks[b.ti].end != n.end {
			b.fail = true
		} else {
			b.ti++
		}
	} else {
		if lit { // measure would not count its children
			b.fail = true
		}
		op := n.typ == "binary_expression" // its operator is still to be counted
		var prev *bn
		for _, k := range n.kids {
			for b.ti < len(b.toks) && b.toks[b.ti].start < k.start {
				out = b.emitToken(n, prev, k, out, keepKids, at, meters, &op)
				kids++
			}
			kept := len(out)
			out = b.emit(k, out, keepKids, meters, inner)
			if len(out) > kept {
				out[at].nkids++
			}
			kids++
			prev = k
		}
		for b.ti < len(b.toks) && b.toks[b.ti].start < n.end {
			out = b.emitToken(n, prev, nil, out, keepKids, at, meters, &op)
			kids++
		}
	}
	if lit || kids == 0 {
		for _, mt := range meters {
			mt.token(n.typ, n.start, n.end, row, named, lit, b.src)
		}
	}
	return out
}

// emitToken streams the next scanned token, a child of n (whose encoding is out[at] when
// keep) between its built children prev and next, as token builds it; op is set while
// n is a binary expression whose operator is not counted yet.
func (b *astBuilder) emitToken(n, prev, next *bn, out []cnode, keep bool, at int, meters []*meter, op *bool) []cnode {
	tk := b.toks[b.ti]
	b.ti++
	if tk.typ == "" || tk.end > n.end {
		b.fail = true // an identifier or literal the rewrite did not place
	}
	if tk.typ == "comment" { // pruned, and not counted
		return out
	}
	if tk.typ == "interpreted_string_literal" || tk.typ == "raw_string_literal" {
		b.fail = true // a literal the rewrite did not build
	}
	field := tokenField(n, prev, next, tk.typ)
	sym, ok := b.symOf(tk.typ)
	if !ok {
		b.fail = true
	}
	f := b.g.bySym[sym]
	row := b.rowAt(tk.start)
	if keep && (field != "" || f.kept) {
		out = append(out, cnode{start: uint32(tk.start), end: uint32(tk.end), row: uint32(row), typ: f.typ, field: b.fieldOf(field)})
		out[at].nkids++
	}
	if *op && field == "operator" {
		*op = false
		for _, mt := range meters {
			mt.operator(tk.typ)
		}
	}
	for _, mt := range meters {
		mt.token(tk.typ, tk.start, tk.end, row, false, literalOperand(tk.typ), b.src)
	}
	return out
}

// tokenField is the field name of scanned token typ, a child of n between its built
// children prev and next ("" for most tokens; not asked for comments).
func tokenField(n, prev, next *bn, typ string) string {
	pf, nf := "", ""
	if prev != nil {
		pf = prev.field
	}
	if next != nil {
		nf = next.field
	}
	switch n.typ {
	case "binary_expression", "assignment_statement":
		if pf == "left" && nf == "right" {
			return "operator"
		}
	case "unary_expression":
		if prev == nil && nf == "operand" {
			return "operator"
		}
	case "const_spec":
		if typ == "," && pf == "name" && nf == "name" {
			return "name"
		}
	case "type_case":
		if typ == "," && pf == "type" && nf == "type" {
			return "type"
		}
	}
	return ""
}

// reset sets the fields of a node, reused storage, that place does not. It assigns them
// one by one: a whole-struct assignment copies with a bulk write barrier while the
// collector runs, which cost as much as the rest of the rewrite.
func (b *astBuilder) reset(t *tsNode, typ, field string, start, end int, named bool, parent *tsNode) {
	t.Type, t.Field = typ, field
	t.Start, t.End = start, end
	t.Named, t.Bad = named, false
	t.Sym, t.FieldID = 0, 0
	t.Kids, t.Parent = nil, parent
}

// place sets a node's row, column, end row and grammar symbol.
func (b *astBuilder) place(t *tsNode) {
	t.Row = b.rowAt(t.Start)
	t.Col = t.Start - int(b.lines[t.Row])
	last := t.End
	if t.End > t.Start {
		last--
	}
	t.EndRow = t.Row
	if t.Row+1 < len(b.lines) && int(b.lines[t.Row+1]) <= last {
		t.EndRow = b.row(last)
	}
	if s, ok := b.symOf(t.Type); ok {
		t.Sym = s
	} else {
		b.fail = true
	}
	if t.Field != "" {
		t.FieldID = uint16(b.fieldOf(t.Field))
	}
}

// symOf is grammar.symByName[typ] through a small cache: node types are a few constant
// strings, which the cache tells apart by their address first (an entry holds its
// string, so an address it holds is never another string's).
func (b *astBuilder) symOf(typ string) (uint16, bool) {
	e := &b.sc.syms[nameSlot(typ)]
	if e.ok && e.name == typ {
		return e.id, true
	}
	sym, ok := b.g.symByName[typ]
	if ok {
		*e = nameID{name: typ, id: sym, ok: true}
	}
	return sym, ok
}

// fieldOf is grammar.fieldID[field] through a cache like symOf's.
func (b *astBuilder) fieldOf(field string) uint8 {
	if field == "" {
		return 0
	}
	e := &b.sc.fields[nameSlot(field)]
	if e.ok && e.name == field {
		return uint8(e.id)
	}
	id := b.g.fieldID[field]
	*e = nameID{name: field, id: uint16(id), ok: true}
	return id
}

// nameID is an entry of the caches of symOf and fieldOf.
type nameID struct {
	name string
	id   uint16
	ok   bool
}

// nameSlot is the cache slot of a name, by its address.
func nameSlot(s string) uintptr {
	p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
	return (p>>3 ^ p>>11) % nameSlots
}

const nameSlots = 512

// rowAt returns the row of byte offset off, moving the row cursor there.
func (b *astBuilder) rowAt(off int) int {
	for b.atRow+1 < len(b.lines) && int(b.lines[b.atRow+1]) <= off {
		b.atRow++
	}
	if int(b.lines[b.atRow]) > off {
		b.atRow = b.row(off)
	}
	return b.atRow
}

func (b *astBuilder) row(off int) int {
	return sort.Search(len(b.lines), func(i int) bool { return int(b.lines[i]) > off }) - 1
}

// Building.

func (b *astBuilder) node(typ string, start, end int, kids ...*bn) *bn {
	out := b.newBn()
	b.built++
	out.set(typ, start, end, false)
	for _, k := range kids {
		if k != nil {
			out.kids = append(out.kids, k)
		}
	}
	return out
}

func (b *astBuilder) span(n ast.Node) (int, int) { return b.off(n.Pos()), b.off(n.End()) }

func (b *astBuilder) leafOf(typ string, n ast.Node) *bn {
	s, e := b.span(n)
	out := b.newBn()
	b.built++
	out.set(typ, s, e, true)
	return out
}

func fieldOf(f string, n *bn) *bn {
	if n != nil {
		n.field = f
	}
	return n
}

func (b *astBuilder) unmapped() *bn {
	b.fail = true
	return nil
}

func (b *astBuilder) file(f *ast.File) *bn {
	// tree-sitter's source_file spans its tokens, comments included, and the newline
	// that terminates its last declaration.
	root := b.node("source_file", b.toks[0].start, b.toks[len(b.toks)-1].end)
	root.end = b.termEnd(root.end)
	ps := b.off(f.Package)
	root.kids = append(root.kids, b.node("package_clause", ps, b.off(f.Name.End()), b.leafOf("package_identifier", f.Name)))
	for _, d := range f.Decls {
		root.kids = append(root.kids, b.decl(d))
	}
	return root
}

func (b *astBuilder) decl(d ast.Decl) *bn {
	switch d := d.(type) {
	case *ast.FuncDecl:
		return b.funcDecl(d)
	case *ast.GenDecl:
		return b.genDecl(d)
	}
	return b.unmapped()
}

func (b *astBuilder) funcDecl(d *ast.FuncDecl) *bn {
	s, e := b.span(d)
	var n *bn
	if d.Recv != nil {
		n = b.node("method_declaration", s, e, fieldOf("receiver", b.params(d.Recv)), fieldOf("name", b.leafOf("field_identifier", d.Name)))
	} else {
		n = b.node("function_declaration", s, e, fieldOf("name", b.leafOf("identifier", d.Name)))
		if d.Type.TypeParams != nil {
			n.kids = append(n.kids, fieldOf("type_parameters", b.typeParams(d.Type.TypeParams)))
		}
	}
	n.kids = append(n.kids, fieldOf("parameters", b.params(d.Type.Params)))
	if r := b.result(d.Type.Results); r != nil {
		n.kids = append(n.kids, r)
	}
	if d.Body != nil {
		built := b.built
		body := b.block(d.Body)
		b.bodyBuilt += b.built - built
		b.bodySpans = append(b.bodySpans, [2]int{body.start, body.end})
		n.kids = append(n.kids, fieldOf("body", body))
	}
	return n
}

func (b *astBuilder) result(r *ast.FieldList) *bn {
	if r == nil || len(r.List) == 0 && !r.Opening.IsValid() {
		return nil
	}
	if r.Opening.IsValid() {
		return fieldOf("result", b.params(r))
	}
	return fieldOf("result", b.simpleType(r.List[0].Type))
}

func (b *astBuilder) params(fl *ast.FieldList) *bn {
	n := b.node("parameter_list", b.off(fl.Opening), b.off(fl.Closing)+1)
	list := fl.List
	named := false
	for _, f := range list {
		named = named || len(f.Names) > 0
	}
	if !named {
		// tree-sitter misreads unnamed parameters (a, map[K]V), (a, func()): it takes
		// the keyword for a second name.
		for i := 1; i < len(list); i++ {
			if _, ok := list[i-1].Type.(*ast.Ident); ok {
				switch list[i].Type.(type) {
				case *ast.MapType, *ast.FuncType, *ast.ChanType, *ast.StructType, *ast.InterfaceType:
					return b.unmapped()
				}
			}
		}
	}
	for _, f := range list {
		if el, ok := f.Type.(*ast.Ellipsis); ok {
			if len(f.Names) > 1 || el.Elt == nil {
				return b.unmapped()
			}
			s := b.off(el.Pos())
			if len(f.Names) == 1 {
				s = b.off(f.Names[0].Pos())
			}
			v := b.node("variadic_parameter_declaration", s, b.off(el.End()))
			if len(f.Names) == 1 {
				v.kids = append(v.kids, fieldOf("name", b.leafOf("identifier", f.Names[0])))
			}
			v.kids = append(v.kids, fieldOf("type", b.typ(el.Elt)))
			n.kids = append(n.kids, v)
			continue
		}
		s, e := b.span(f)
		if f.Tag != nil {
			return b.unmapped()
		}
		if len(f.Names) >= 10 {
			return b.unmapped() // tree-sitter's parse of long name lists splits them
		}
		p := b.node("parameter_declaration", s, e)
		for _, nm := range f.Names {
			p.kids = append(p.kids, fieldOf("name", b.leafOf("identifier", nm)))
		}
		p.kids = append(p.kids, fieldOf("type", b.typ(f.Type)))
		n.kids = append(n.kids, p)
	}
	return n
}

func (b *astBuilder) typeParams(fl *ast.FieldList) *bn {
	n := b.node("type_parameter_list", b.off(fl.Opening), b.off(fl.Closing)+1)
	for _, f := range fl.List {
		s, e := b.span(f)
		p := b.node("type_parameter_declaration", s, e)
		for _, nm := range f.Names {
			p.kids = append(p.kids, fieldOf("name", b.leafOf("identifier", nm)))
		}
		c := b.typeElem(f.Type, "type_constraint")
		p.kids = append(p.kids, fieldOf("type", c))
		n.kids = append(n.kids, p)
	}
	return n
}

// typeElem is a union of types (a|b|~c) as type_elem (or its alias typ).
func (b *astBuilder) typeElem(e ast.Expr, typ string) *bn {
	var terms []ast.Expr
	var flat func(e ast.Expr)
	flat = func(e ast.Expr) {
		if be, ok := e.(*ast.BinaryExpr); ok && be.Op == token.OR {
			flat(be.X)
			flat(be.Y)
			return
		}
		terms = append(terms, e)
	}
	flat(e)
	s, _ := b.span(terms[0])
	_, end := b.span(terms[len(terms)-1])
	n := b.node(typ, s, end)
	for _, t := range terms {
		n.kids = append(n.kids, b.typ(t))
	}
	return n
}

func (b *astBuilder) genDecl(d *ast.GenDecl) *bn {
	s, e := b.span(d)
	switch d.Tok {
	case token.IMPORT:
		n := b.node("import_declaration", s, e)
		if d.Lparen.IsValid() {
			l := b.node("import_spec_list", b.off(d.Lparen), b.off(d.Rparen)+1)
			for _, sp := range d.Specs {
				l.kids = append(l.kids, b.importSpec(sp.(*ast.ImportSpec)))
			}
			n.kids = append(n.kids, l)
		} else {
			n.kids = append(n.kids, b.importSpec(d.Specs[0].(*ast.ImportSpec)))
		}
		return n
	case token.CONST:
		n := b.node("const_declaration", s, e)
		for _, sp := range d.Specs {
			n.kids = append(n.kids, b.valueSpec(sp.(*ast.ValueSpec), "const_spec"))
		}
		return n
	case token.VAR:
		n := b.node("var_declaration", s, e)
		if d.Lparen.IsValid() {
			l := b.node("var_spec_list", b.off(d.Lparen), b.off(d.Rparen)+1)
			for _, sp := range d.Specs {
				l.kids = append(l.kids, b.valueSpec(sp.(*ast.ValueSpec), "var_spec"))
			}
			n.kids = append(n.kids, l)
		} else {
			n.kids = append(n.kids, b.valueSpec(d.Specs[0].(*ast.ValueSpec), "var_spec"))
		}
		return n
	case token.TYPE:
		n := b.node("type_declaration", s, e)
		for _, sp := range d.Specs {
			n.kids = append(n.kids, b.typeSpec(sp.(*ast.TypeSpec)))
		}
		return n
	}
	return b.unmapped()
}

func (b *astBuilder) importSpec(sp *ast.ImportSpec) *bn {
	s, e := b.span(sp)
	n := b.node("import_spec", s, e)
	if sp.Name != nil {
		switch sp.Name.Name {
		case ".":
			s, e := b.span(sp.Name)
			n.kids = append(n.kids, fieldOf("name", b.node("dot", s, e)))
		case "_":
			n.kids = append(n.kids, fieldOf("name", b.leafOf("blank_identifier", sp.Name)))
		default:
			n.kids = append(n.kids, fieldOf("name", b.leafOf("package_identifier", sp.Name)))
		}
	}
	n.kids = append(n.kids, fieldOf("path", b.lit(sp.Path)))
	return n
}

// valueSpec is a var_spec or const_spec.
func (b *astBuilder) valueSpec(sp *ast.ValueSpec, typ string) *bn {
	s, e := b.span(sp)
	n := b.node(typ, s, e)
	for _, nm := range sp.Names {
		n.kids = append(n.kids, fieldOf("name", b.leafOf("identifier", nm)))
	}
	if sp.Type != nil {
		n.kids = append(n.kids, fieldOf("type", b.typ(sp.Type)))
		if typ == "const_spec" && len(sp.Values) == 0 {
			return b.unmapped()
		}
	}
	if len(sp.Values) > 0 {
		n.kids = append(n.kids, fieldOf("value", b.exprList(sp.Values)))
	}
	return n
}

func (b *astBuilder) typeSpec(sp *ast.TypeSpec) *bn {
	s, e := b.span(sp)
	if sp.Assign.IsValid() {
		if sp.TypeParams != nil {
			return b.unmapped()
		}
		return b.node("type_alias", s, e, fieldOf("name", b.leafOf("type_identifier", sp.Name)), fieldOf("type", b.typ(sp.Type)))
	}
	n := b.node("type_spec", s, e, fieldOf("name", b.leafOf("type_identifier", sp.Name)))
	if sp.TypeParams != nil {
		n.kids = append(n.kids, fieldOf("type_parameters", b.typeParams(sp.TypeParams)))
	}
	n.kids = append(n.kids, fieldOf("type", b.typ(sp.Type)))
	return n
}

// Types.

// simpleType is a type where the grammar takes no parenthesized type.
func (b *astBuilder) simpleType(e ast.Expr) *bn {
	if _, ok := e.(*ast.ParenExpr); ok {
		return b.unmapped()
	}
	return b.typ(e)
}

func (b *astBuilder) typ(e ast.Expr) *bn {
	s, end := b.span(e)
	switch e := e.(type) {
	case *ast.Ident:
		return b.leafOf("type_identifier", e)
	case *ast.SelectorExpr:
		if x, ok := e.X.(*ast.Ident); ok {
			return b.node("qualified_type", s, end, fieldOf("package", b.leafOf("package_identifier", x)), fieldOf("name", b.leafOf("type_identifier", e.Sel)))
		}
	case *ast.StarExpr:
		return b.node("pointer_type", s, end, b.typ(e.X))
	case *ast.ParenExpr:
		return b.node("parenthesized_type", s, end, b.typ(e.X))
	case *ast.ArrayType:
		switch {
		case e.Len == nil:
			return b.node("slice_type", s, end, fieldOf("element", b.typ(e.Elt)))
		default:
			if _, ok := e.Len.(*ast.Ellipsis); ok {
				return b.unmapped() // only a composite literal's type
			}
			return b.node("array_type", s, end, fieldOf("length", b.expr(e.Len)), fieldOf("element", b.typ(e.Elt)))
		}
	case *ast.MapType:
		return b.node("map_type", s, end, fieldOf("key", b.typ(e.Key)), fieldOf("value", b.typ(e.Value)))
	case *ast.ChanType:
		if v, ok := e.Value.(*ast.ChanType); ok && v.Dir == ast.RECV || e.Arrow.IsValid() && e.Arrow < e.Begin {
			return b.unmapped() // chan<- <-chan T: not known
		}
		return b.node("channel_type", s, end, fieldOf("value", b.typ(e.Value)))
	case *ast.FuncType:
		n := b.node("function_type", s, end, fieldOf("parameters", b.params(e.Params)))
		if e.TypeParams != nil {
			return b.unmapped()
		}
		if r := b.result(e.Results); r != nil {
			n.kids = append(n.kids, r)
		}
		return n
	case *ast.StructType:
		fl := b.node("field_declaration_list", b.off(e.Fields.Opening), b.off(e.Fields.Closing)+1)
		for _, f := range e.Fields.List {
			fl.kids = append(fl.kids, b.fieldDecl(f))
		}
		return b.node("struct_type", s, end, fl)
	case *ast.InterfaceType:
		n := b.node("interface_type", s, end)
		for _, f := range e.Methods.List {
			if len(f.Names) > 1 {
				return b.unmapped()
			}
			if len(f.Names) == 1 {
				ft, ok := f.Type.(*ast.FuncType)
				if !ok {
					return b.unmapped()
				}
				fs, fe := b.span(f)
				m := b.node("method_elem", fs, fe, fieldOf("name", b.leafOf("field_identifier", f.Names[0])), fieldOf("parameters", b.params(ft.Params)))
				if r := b.result(ft.Results); r != nil {
					m.kids = append(m.kids, r)
				}
				n.kids = append(n.kids, m)
				continue
			}
			n.kids = append(n.kids, b.typeElem(f.Type, "type_elem"))
		}
		return n
	case *ast.IndexExpr:
		return b.genericType(s, end, e.X, []ast.Expr{e.Index}, e.Lbrack, e.Rbrack)
	case *ast.IndexListExpr:
		return b.genericType(s, end, e.X, e.Indices, e.Lbrack, e.Rbrack)
	case *ast.UnaryExpr:
		if e.Op == token.TILDE {
			return b.node("negated_type", s, end, b.typ(e.X))
		}
	}
	return b.unmapped()
}

func (b *astBuilder) genericType(s, end int, x ast.Expr, idx []ast.Expr, lb, rb token.Pos) *bn {
	var t *bn
	switch x := x.(type) {
	case *ast.Ident:
		t = b.leafOf("type_identifier", x)
	case *ast.SelectorExpr:
		t = b.typ(x)
	default:
		return b.unmapped()
	}
	return b.node("generic_type", s, end, fieldOf("type", t), fieldOf("type_arguments", b.typeArgs(idx, lb, rb)))
}

func (b *astBuilder) typeArgs(idx []ast.Expr, lb, rb token.Pos) *bn {
	n := b.node("type_arguments", b.off(lb), b.off(rb)+1)
	for _, e := range idx {
		n.kids = append(n.kids, b.typeElem(e, "type_elem"))
	}
	return n
}

func (b *astBuilder) fieldDecl(f *ast.Field) *bn {
	s, e := b.span(f)
	n := b.node("field_declaration", s, e)
	if len(f.Names) == 0 {
		t := f.Type
		if st, ok := t.(*ast.StarExpr); ok {
			t = st.X
		}
		switch t.(type) {
		case *ast.Ident, *ast.SelectorExpr, *ast.IndexExpr, *ast.IndexListExpr:
		default:
			return b.unmapped()
		}
		n.kids = append(n.kids, fieldOf("type", b.typ(t)))
	} else {
		for _, nm := range f.Names {
			n.kids = append(n.kids, fieldOf("name", b.leafOf("field_identifier", nm)))
		}
		n.kids = append(n.kids, fieldOf("type", b.typ(f.Type)))
	}
	if f.Tag != nil {
		n.kids = append(n.kids, fieldOf("tag", b.lit(f.Tag)))
	}
	return n
}

// typeLike reports whether tree-sitter can read an expression as a type.
func typeLike(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.Ident:
		return true
	case *ast.SelectorExpr:
		_, ok := e.X.(*ast.Ident)
		return ok
	case *ast.StarExpr:
		return typeLike(e.X)
	case *ast.ArrayType, *ast.MapType, *ast.ChanType, *ast.FuncType, *ast.StructType, *ast.InterfaceType:
		return true
	}
	return false
}

// typeOnly reports whether an expression is a type tree-sitter cannot read as an
// expression.
func typeOnly(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.ArrayType, *ast.MapType, *ast.ChanType, *ast.FuncType, *ast.StructType, *ast.InterfaceType:
		return true
	case *ast.StarExpr:
		return typeOnly(e.X)
	case *ast.ParenExpr:
		return typeOnly(e.X)
	}
	return false
}

// Statements.

func (b *astBuilder) block(bl *ast.BlockStmt) *bn {
	n := b.node("block", b.off(bl.Lbrace), b.off(bl.Rbrace)+1)
	b.stmts(n, bl.List)
	return n
}

func (b *astBuilder) stmts(n *bn, list []ast.Stmt) {
	for _, s := range list {
		if k := b.stmt(s); k != nil {
			n.kids = append(n.kids, k)
		}
	}
}

func (b *astBuilder) stmt(st ast.Stmt) *bn {
	s, e := b.span(st)
	switch st := st.(type) {
	case *ast.ExprStmt:
		return b.node("expression_statement", s, e, b.expr(st.X))
	case *ast.SendStmt:
		return b.node("send_statement", s, e, fieldOf("channel", b.expr(st.Chan)), fieldOf("value", b.expr(st.Value)))
	case *ast.IncDecStmt:
		typ := "inc_statement"
		if st.Tok == token.DEC {
			typ = "dec_statement"
		}
		return b.node(typ, s, e, b.expr(st.X))
	case *ast.AssignStmt:
		if st.Tok == token.DEFINE {
			return b.node("short_var_declaration", s, e, fieldOf("left", b.exprList(st.Lhs)), fieldOf("right", b.exprList(st.Rhs)))
		}
		return b.node("assignment_statement", s, e, fieldOf("left", b.exprList(st.Lhs)), fieldOf("right", b.exprList(st.Rhs)))
	case *ast.GoStmt:
		return b.node("go_statement", s, e, b.expr(st.Call))
	case *ast.DeferStmt:
		return b.node("defer_statement", s, e, b.expr(st.Call))
	case *ast.ReturnStmt:
		n := b.node("return_statement", s, e)
		if len(st.Results) > 0 {
			n.kids = append(n.kids, b.exprList(st.Results))
		}
		return n
	case *ast.BranchStmt:
		typ := map[token.Token]string{token.BREAK: "break_statement", token.CONTINUE: "continue_statement",
			token.GOTO: "goto_statement", token.FALLTHROUGH: "fallthrough_statement"}[st.Tok]
		n := b.node(typ, s, e)
		if st.Label != nil {
			n.kids = append(n.kids, b.leafOf("label_name", st.Label))
		}
		return n
	case *ast.BlockStmt:
		return b.block(st)
	case *ast.IfStmt:
		n := b.node("if_statement", s, e)
		if st.Init != nil {
			n.kids = append(n.kids, fieldOf("initializer", b.stmt(st.Init)))
		}
		n.kids = append(n.kids, fieldOf("condition", b.expr(st.Cond)), fieldOf("consequence", b.block(st.Body)))
		if st.Else != nil {
			n.kids = append(n.kids, fieldOf("alternative", b.stmt(st.Else)))
		}
		return n
	case *ast.ForStmt:
		n := b.node("for_statement", s, e)
		if st.Init == nil && st.Post == nil && !b.hasTok(b.off(st.For), b.off(st.Body.Lbrace), ";") {
			if st.Cond != nil {
				n.kids = append(n.kids, b.expr(st.Cond))
			}
		} else {
			cs, ce := -1, -1
			var kids []*bn
			if st.Init != nil {
				kids = append(kids, fieldOf("initializer", b.stmt(st.Init)))
			}
			if st.Cond != nil {
				kids = append(kids, fieldOf("condition", b.expr(st.Cond)))
			}
			if st.Post != nil {
				kids = append(kids, fieldOf("update", b.stmt(st.Post)))
			}
			// The clause spans from its first to its last token.
			for i := b.tokAt(b.off(st.For)) + 1; i < len(b.toks) && b.toks[i].start < b.off(st.Body.Lbrace); i++ {
				if cs < 0 {
					cs = b.toks[i].start
				}
				if b.toks[i].typ != "comment" {
					ce = b.toks[i].end
				}
			}
			for cs >= 0 && b.toks[b.tokAt(cs)].typ == "comment" {
				cs = b.toks[b.tokAt(cs)+1].start
			}
			n.kids = append(n.kids, b.node("for_clause", cs, ce, kids...))
		}
		n.kids = append(n.kids, fieldOf("body", b.block(st.Body)))
		return n
	case *ast.RangeStmt:
		n := b.node("for_statement", s, e)
		var rc *bn
		if st.Key != nil {
			ks, _ := b.span(st.Key)
			l := []ast.Expr{st.Key}
			if st.Value != nil {
				l = append(l, st.Value)
			}
			rc = b.node("range_clause", ks, b.off(st.X.End()), fieldOf("left", b.exprList(l)), fieldOf("right", b.expr(st.X)))
		} else {
			rc = b.node("range_clause", b.off(st.Range), b.off(st.X.End()), fieldOf("right", b.expr(st.X)))
		}
		n.kids = append(n.kids, rc, fieldOf("body", b.block(st.Body)))
		return n
	case *ast.SwitchStmt:
		n := b.node("expression_switch_statement", s, e)
		if st.Init != nil {
			n.kids = append(n.kids, fieldOf("initializer", b.stmt(st.Init)))
		}
		if st.Tag != nil {
			n.kids = append(n.kids, fieldOf("value", b.expr(st.Tag)))
		}
		for _, c := range st.Body.List {
			cc := c.(*ast.CaseClause)
			b.clause(n, "expression_case", cc.Case, cc.Colon, cc.List == nil, cc.Body, func(k *bn) {
				k.kids = append(k.kids, fieldOf("value", b.exprList(cc.List)))
			})
		}
		return n
	case *ast.TypeSwitchStmt:
		n := b.node("type_switch_statement", s, e)
		if st.Init != nil {
			n.kids = append(n.kids, fieldOf("initializer", b.stmt(st.Init)))
		}
		var ta *ast.TypeAssertExpr
		switch a := st.Assign.(type) {
		case *ast.AssignStmt:
			if len(a.Lhs) != 1 || len(a.Rhs) != 1 || a.Tok != token.DEFINE {
				return b.unmapped()
			}
			n.kids = append(n.kids, fieldOf("alias", b.exprList(a.Lhs)))
			ta, _ = a.Rhs[0].(*ast.TypeAssertExpr)
		case *ast.ExprStmt:
			ta, _ = a.X.(*ast.TypeAssertExpr)
		}
		if ta == nil {
			return b.unmapped()
		}
		n.kids = append(n.kids, fieldOf("value", b.expr(ta.X)))
		for _, c := range st.Body.List {
			cc := c.(*ast.CaseClause)
			b.clause(n, "type_case", cc.Case, cc.Colon, cc.List == nil, cc.Body, func(k *bn) {
				for _, t := range cc.List {
					k.kids = append(k.kids, fieldOf("type", b.typ(t)))
				}
			})
		}
		return n
	case *ast.SelectStmt:
		n := b.node("select_statement", s, e)
		for _, c := range st.Body.List {
			cc := c.(*ast.CommClause)
			b.clause(n, "communication_case", cc.Case, cc.Colon, cc.Comm == nil, cc.Body, func(k *bn) {
				k.kids = append(k.kids, fieldOf("communication", b.comm(cc.Comm)))
			})
		}
		return n
	case *ast.LabeledStmt:
		n := b.node("labeled_statement", s, e, fieldOf("label", b.leafOf("label_name", st.Label)))
		if es, ok := st.Stmt.(*ast.EmptyStmt); ok && es.Implicit {
			n.end = b.off(st.Colon) + 1
			return n
		}
		n.kids = append(n.kids, b.stmt(st.Stmt))
		return n
	case *ast.DeclStmt:
		return b.decl(st.Decl)
	case *ast.EmptyStmt:
		if st.Implicit {
			return nil
		}
	}
	return b.unmapped()
}

// comm is the statement of a select case.
func (b *astBuilder) comm(st ast.Stmt) *bn {
	s, e := b.span(st)
	switch st := st.(type) {
	case *ast.SendStmt:
		return b.stmt(st)
	case *ast.ExprStmt:
		return b.node("receive_statement", s, e, fieldOf("right", b.expr(st.X)))
	case *ast.AssignStmt:
		if len(st.Rhs) != 1 {
			return b.unmapped()
		}
		return b.node("receive_statement", s, e, fieldOf("left", b.exprList(st.Lhs)), fieldOf("right", b.expr(st.Rhs[0])))
	}
	return b.unmapped()
}

// clause adds a case clause of a switch or select to n: a default_case when dflt,
// else one of type typ whose head (values, types or communication) head adds. A clause
// spans to the end of its last statement's terminator, or to its colon.
func (b *astBuilder) clause(n *bn, typ string, casePos, colon token.Pos, dflt bool, body []ast.Stmt, head func(k *bn)) {
	e := b.off(colon) + 1
	if len(body) > 0 {
		e = b.termEnd(b.lastEnd(body))
	}
	if dflt {
		typ = "default_case"
	}
	k := b.node(typ, b.off(casePos), e)
	if !dflt {
		head(k)
	}
	b.stmts(k, body)
	n.kids = append(n.kids, k)
}

// lastEnd is the end of a statement list, past trailing empty statements.
func (b *astBuilder) lastEnd(list []ast.Stmt) int {
	for i := len(list) - 1; i >= 0; i-- {
		if es, ok := list[i].(*ast.EmptyStmt); ok && es.Implicit {
			continue
		}
		return b.off(list[i].End())
	}
	return b.off(list[0].Pos())
}

// termEnd is where the terminator of a statement ending at off ends, when the grammar
// takes it into the node (the last statement of a case clause, the last declaration of
// a file): an explicit ";", or tree-sitter's newline token, a run of newlines, after
// blanks and comments on the same line; off when there is neither.
func (b *astBuilder) termEnd(off int) int {
	pos := off
	for pos < len(b.src) {
		switch c := b.src[pos]; c {
		case ' ', '\t':
			pos++
		case '\n':
			e := pos
			for e < len(b.src) && b.src[e] == '\n' {
				e++
			}
			if e < len(b.src) && b.src[e] == '\r' {
				b.fail = true // not known
			}
			return e
		case ';':
			return pos + 1
		case '/':
			i := b.tokAt(pos)
			if i == len(b.toks) || b.toks[i].start != pos || b.toks[i].typ != "comment" {
				return off
			}
			pos = b.toks[i].end
		case '\r':
			b.fail = true
			return off
		default:
			return off
		}
	}
	return off
}

// tokAt is the index of the token starting at off.
func (b *astBuilder) tokAt(off int) int {
	return sort.Search(len(b.toks), func(i int) bool { return b.toks[i].start >= off })
}

func (b *astBuilder) hasTok(from, to int, typ string) bool {
	for i := b.tokAt(from); i < len(b.toks) && b.toks[i].start < to; i++ {
		if b.toks[i].typ == typ {
			return true
		}
	}
	return false
}

// Expressions.

func (b *astBuilder) exprList(l []ast.Expr) *bn {
	s, _ := b.span(l[0])
	_, e := b.span(l[len(l)-1])
	n := b.node("expression_list", s, e)
	for _, x := range l {
		n.kids = append(n.kids, b.expr(x))
	}
	return n
}

func (b *astBuilder) lit(l *ast.BasicLit) *bn {
	switch l.Kind {
	case token.INT:
		return b.leafOf("int_literal", l)
	case token.FLOAT:
		return b.leafOf("float_literal", l)
	case token.IMAG:
		return b.leafOf("imaginary_literal", l)
	case token.CHAR:
		return b.leafOf("rune_literal", l)
	case token.STRING:
		if l.Value[0] == '`' {
			return b.leafOf("raw_string_literal", l)
		}
		return b.leafOf("interpreted_string_literal", l)
	}
	return b.unmapped()
}

func (b *astBuilder) expr(x ast.Expr) *bn {
	s, e := b.span(x)
	switch x := x.(type) {
	case *ast.Ident:
		switch x.Name {
		case "nil", "true", "false", "iota":
			return b.leafOf(x.Name, x)
		}
		return b.leafOf("identifier", x)
	case *ast.BasicLit:
		return b.lit(x)
	case *ast.CompositeLit:
		if x.Type == nil {
			return b.unmapped()
		}
		var t *bn
		switch tt := x.Type.(type) {
		case *ast.ArrayType:
			if _, ok := tt.Len.(*ast.Ellipsis); ok {
				ts, te := b.span(tt)
				t = b.node("implicit_length_array_type", ts, te, fieldOf("element", b.typ(tt.Elt)))
			} else {
				t = b.typ(tt)
			}
		case *ast.MapType, *ast.StructType, *ast.Ident, *ast.SelectorExpr, *ast.IndexExpr, *ast.IndexListExpr:
			t = b.typ(tt)
		default:
			return b.unmapped()
		}
		return b.node("composite_literal", s, e, fieldOf("type", t), fieldOf("body", b.literalValue(x)))
	case *ast.FuncLit:
		n := b.node("func_literal", s, e, fieldOf("parameters", b.params(x.Type.Params)))
		if r := b.result(x.Type.Results); r != nil {
			n.kids = append(n.kids, r)
		}
		n.kids = append(n.kids, fieldOf("body", b.block(x.Body)))
		return n
	case *ast.ParenExpr:
		if typeOnly(x.X) {
			return b.unmapped()
		}
		return b.node("parenthesized_expression", s, e, b.expr(x.X))
	case *ast.SelectorExpr:
		return b.node("selector_expression", s, e, fieldOf("operand", b.expr(x.X)), fieldOf("field", b.leafOf("field_identifier", x.Sel)))
	case *ast.IndexExpr:
		if typeOnly(x.Index) {
			return b.unmapped()
		}
		if typeish(x.X) && typeish(x.Index) && (hasGeneric(x.X) || hasGeneric(x.Index)) {
			// a[i][j] and a[b[i]] read as instantiations of generic types.
			return b.node("type_instantiation_expression", s, e, fieldOf("type", b.typ(x.X)), b.typ(x.Index))
		}
		return b.node("index_expression", s, e, fieldOf("operand", b.expr(x.X)), fieldOf("index", b.expr(x.Index)))
	case *ast.IndexListExpr:
		var t *bn
		if id, ok := x.X.(*ast.Ident); ok {
			t = b.leafOf("type_identifier", id)
		} else if isGenericType(x.X) {
			t = b.typ(x.X)
		} else {
			return b.unmapped()
		}
		n := b.node("type_instantiation_expression", s, e, fieldOf("type", t))
		for _, t := range x.Indices {
			if !typeLike(t) {
				return b.unmapped()
			}
			n.kids = append(n.kids, b.typ(t))
		}
		return n
	case *ast.SliceExpr:
		n := b.node("slice_expression", s, e, fieldOf("operand", b.expr(x.X)))
		if x.Low != nil {
			n.kids = append(n.kids, fieldOf("start", b.expr(x.Low)))
		}
		if x.High != nil {
			n.kids = append(n.kids, fieldOf("end", b.expr(x.High)))
		}
		if x.Max != nil {
			n.kids = append(n.kids, fieldOf("capacity", b.expr(x.Max)))
		}
		return n
	case *ast.TypeAssertExpr:
		if x.Type == nil {
			return b.unmapped()
		}
		return b.node("type_assertion_expression", s, e, fieldOf("operand", b.expr(x.X)), fieldOf("type", b.typ(x.Type)))
	case *ast.CallExpr:
		return b.call(x)
	case *ast.StarExpr:
		if typeOnly(x.X) {
			return b.unmapped()
		}
		if c, ok := x.X.(*ast.CallExpr); ok && typeOnly(c.Fun) {
			// *(*[N]T)(p) reads as a conversion to the type *(*[N]T).
			_, fe := b.span(c.Fun)
			return b.conversion(c, s, b.node("pointer_type", s, fe, b.typ(c.Fun)))
		}
		return b.node("unary_expression", s, e, fieldOf("operand", b.expr(x.X)))
	case *ast.UnaryExpr:
		if x.Op == token.TILDE {
			return b.unmapped()
		}
		return b.node("unary_expression", s, e, fieldOf("operand", b.expr(x.X)))
	case *ast.BinaryExpr:
		return b.node("binary_expression", s, e, fieldOf("left", b.expr(x.X)), fieldOf("right", b.expr(x.Y)))
	}
	return b.unmapped()
}

func (b *astBuilder) literalValue(c *ast.CompositeLit) *bn {
	n := b.node("literal_value", b.off(c.Lbrace), b.off(c.Rbrace)+1)
	for _, el := range c.Elts {
		if kv, ok := el.(*ast.KeyValueExpr); ok {
			s, e := b.span(kv)
			n.kids = append(n.kids, b.node("keyed_element", s, e, b.element(kv.Key), b.element(kv.Value)))
			continue
		}
		n.kids = append(n.kids, b.element(el))
	}
	return n
}

func (b *astBuilder) element(x ast.Expr) *bn {
	s, e := b.span(x)
	if c, ok := x.(*ast.CompositeLit); ok && c.Type == nil {
		return b.node("literal_element", s, e, b.literalValue(c))
	}
	return b.node("literal_element", s, e, b.expr(x))
}

func (b *astBuilder) call(c *ast.CallExpr) *bn {
	s, e := b.span(c)
	args := func(special bool) *bn {
		n := b.node("argument_list", b.off(c.Lparen), b.off(c.Rparen)+1)
		for i, a := range c.Args {
			var k *bn
			if special && i == 0 {
				if !typeish(a) {
					return b.unmapped()
				}
				k = b.typ(a)
			} else {
				k = b.expr(a)
			}
			if i == len(c.Args)-1 && c.Ellipsis.IsValid() {
				as, _ := b.span(a)
				k = b.node("variadic_argument", as, b.off(c.Ellipsis)+3, k)
			}
			n.kids = append(n.kids, k)
		}
		return n
	}
	if id, ok := c.Fun.(*ast.Ident); ok && (id.Name == "new" || id.Name == "make") && len(c.Args) > 0 {
		return b.node("call_expression", s, e, fieldOf("function", b.leafOf("identifier", id)), fieldOf("arguments", args(true)))
	}
	if typeOnly(c.Fun) {
		return b.conversion(c, s, b.typ(c.Fun))
	}
	if p, ok := c.Fun.(*ast.ParenExpr); ok && typeish(p) && hasGeneric(p) && len(c.Args) == 1 && !c.Ellipsis.IsValid() {
		// (*T[A])(x) reads as a conversion to the parenthesized type.
		return b.conversion(c, s, b.typ(c.Fun))
	}
	var fun ast.Expr
	var idx []ast.Expr
	var lb, rb token.Pos
	switch f := c.Fun.(type) {
	case *ast.IndexExpr:
		fun, idx, lb, rb = f.X, []ast.Expr{f.Index}, f.Lbrack, f.Rbrack
	case *ast.IndexListExpr:
		fun, idx, lb, rb = f.X, f.Indices, f.Lbrack, f.Rbrack
	}
	if fun != nil {
		allTypes := true
		for _, t := range idx {
			if !typeish(t) {
				allTypes = false
			}
		}
		if allTypes {
			if qualifiable(fun) && len(c.Args) == 1 && !c.Ellipsis.IsValid() {
				fs, fe := b.span(c.Fun)
				return b.conversion(c, s, b.genericType(fs, fe, fun, idx, lb, rb))
			}
			return b.node("call_expression", s, e, fieldOf("function", b.expr(fun)), fieldOf("type_arguments", b.typeArgs(idx, lb, rb)), fieldOf("arguments", args(false)))
		}
		if len(idx) > 1 {
			return b.unmapped()
		}
	}
	return b.node("call_expression", s, e, fieldOf("function", b.expr(c.Fun)), fieldOf("arguments", args(false)))
}

func (b *astBuilder) conversion(c *ast.CallExpr, s int, t *bn) *bn {
	_, e := b.span(c)
	if len(c.Args) != 1 || c.Ellipsis.IsValid() {
		return b.unmapped()
	}
	return b.node("type_conversion_expression", s, e, fieldOf("type", t), fieldOf("operand", b.expr(c.Args[0])))
}

// qualifiable reports whether e is T or p.T, the type of a generic_type.
func qualifiable(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.Ident:
		return true
	case *ast.SelectorExpr:
		_, ok := e.X.(*ast.Ident)
		return ok
	}
	return false
}

// typeish reports whether tree-sitter can read e as a type, instantiations included.
func typeish(e ast.Expr) bool {
	switch s := e.(type) {
	case *ast.StarExpr:
		return typeish(s.X)
	case *ast.ParenExpr:
		return typeish(s.X)
	}
	return typeLike(e) || isGenericType(e)
}

// hasGeneric reports whether e reads as an instantiated type or a pointer to one.
func hasGeneric(e ast.Expr) bool {
	switch s := e.(type) {
	case *ast.StarExpr:
		return hasGeneric(s.X)
	case *ast.ParenExpr:
		return hasGeneric(s.X)
	}
	return isGenericType(e)
}

// isGenericType reports whether e reads as an instantiated type T[A] or p.T[A].
func isGenericType(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.IndexExpr:
		return qualifiable(e.X) && typeish(e.Index)
	case *ast.IndexListExpr:
		if !qualifiable(e.X) {
			return false
		}
		for _, t := range e.Indices {
			if !typeish(t) {
				return false
			}
		}
		return true
	}
	return false
}
