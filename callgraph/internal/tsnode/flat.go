package tsnode

/*
#include <stdint.h>
#include <stdbool.h>

// The part of the tree-sitter C API used here (api.h of the runtime that
// github.com/smacker/go-tree-sitter compiles; this package imports it, so the linker
// finds the definitions). The struct layouts are tree-sitter's ABI for that runtime.
typedef struct TSLanguage TSLanguage;
typedef struct TSParser TSParser;
typedef struct TSTree TSTree;
typedef struct { uint32_t row, column; } TSPoint;
typedef struct { uint32_t context[4]; const void *id; const TSTree *tree; } TSNode;
typedef struct { const void *tree; const void *id; uint32_t context[3]; } TSTreeCursor;

extern TSParser *ts_parser_new(void);
extern void ts_parser_delete(TSParser *);
extern bool ts_parser_set_language(TSParser *, const TSLanguage *);
extern TSTree *ts_parser_parse_string(TSParser *, const TSTree *, const char *, uint32_t);
extern void ts_tree_delete(TSTree *);
extern TSNode ts_tree_root_node(const TSTree *);
extern uint32_t ts_node_descendant_count(TSNode);
extern TSTreeCursor ts_tree_cursor_new(TSNode);
extern void ts_tree_cursor_delete(TSTreeCursor *);
extern TSNode ts_tree_cursor_current_node(const TSTreeCursor *);
extern uint16_t ts_tree_cursor_current_field_id(const TSTreeCursor *);
extern bool ts_tree_cursor_goto_first_child(TSTreeCursor *);
extern bool ts_tree_cursor_goto_next_sibling(TSTreeCursor *);
extern bool ts_tree_cursor_goto_parent(TSTreeCursor *);
extern uint16_t ts_node_symbol(TSNode);
extern uint32_t ts_node_start_byte(TSNode);
extern uint32_t ts_node_end_byte(TSNode);
extern TSPoint ts_node_start_point(TSNode);
extern TSPoint ts_node_end_point(TSNode);
extern bool ts_node_is_missing(TSNode);
extern uint32_t ts_language_field_count(const TSLanguage *);
extern uint32_t ts_language_symbol_count(const TSLanguage *);

// tsn_rec is one node of a flattened tree; it mirrors the Go type rec.
typedef struct {
	uint32_t start, end; // byte offsets
	uint32_t row, col;   // 0-based start point (col in bytes)
	uint32_t erow;       // 0-based row of the end point
	int32_t parent;      // index of the parent in pre-order, -1 for the root
	uint16_t sym;        // grammar symbol (aliases resolved, as ts_node_type names it)
	uint16_t field;      // field id under the parent, 0 when none
	uint32_t missing;    // a MISSING node
} tsn_rec;

static TSParser *tsn_new_parser(const TSLanguage *lang) {
	TSParser *p = ts_parser_new();
	if (p && !ts_parser_set_language(p, lang)) {
		ts_parser_delete(p);
		return NULL;
	}
	return p;
}

// tsn_parse parses src; *count is the number of nodes tsn_flatten will write.
static TSTree *tsn_parse(TSParser *p, const char *src, uint32_t n, uint32_t *count) {
	*count = 0;
	TSTree *t = ts_parser_parse_string(p, NULL, src, n);
	if (t) *count = ts_node_descendant_count(ts_tree_root_node(t)) + 1;
	return t;
}

// tsn_flatten writes the nodes of t in pre-order into out (capacity cap). It returns the
// number of nodes, cap+1 when they do not fit. The tree is left alone.
static uint32_t tsn_flatten(const TSTree *t, tsn_rec *out, uint32_t cap) {
	TSTreeCursor c = ts_tree_cursor_new(ts_tree_root_node(t));
	uint32_t i = 0;
	int32_t parent = -1;
	for (;;) {
		if (i == cap) { i = cap + 1; break; }
		TSNode nd = ts_tree_cursor_current_node(&c);
		tsn_rec *o = &out[i];
		TSPoint sp = ts_node_start_point(nd);
		TSPoint ep = ts_node_end_point(nd);
		o->start = ts_node_start_byte(nd);
		o->end = ts_node_end_byte(nd);
		o->row = sp.row;
		o->col = sp.column;
		// The row of the last byte: an end point at column 0 lies after a newline.
		o->erow = (o->end > o->start && ep.column == 0 && ep.row > 0) ? ep.row - 1 : ep.row;
		o->parent = parent;
		o->sym = ts_node_symbol(nd);
		o->field = ts_tree_cursor_current_field_id(&c);
		o->missing = (o->start == o->end && ts_node_is_missing(nd)) ? 1 : 0;
		int32_t me = (int32_t)i++;
		if (ts_tree_cursor_goto_first_child(&c)) { parent = me; continue; }
		while (!ts_tree_cursor_goto_next_sibling(&c)) {
			if (!ts_tree_cursor_goto_parent(&c)) goto done;
			parent = out[parent].parent;
		}
	}
done:
	ts_tree_cursor_delete(&c);
	return i;
}
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"unsafe"

	sitter "github.com/smacker/go-tree-sitter"
)

// rec is the Go view of tsn_rec (the layouts are checked in init).
type rec struct {
	start, end uint32
	row, col   uint32
	erow       uint32
	parent     int32
	sym, field uint16
	missing    uint32
}

func init() {
	if unsafe.Sizeof(rec{}) != unsafe.Sizeof(C.tsn_rec{}) {
		panic("tsnode: rec and tsn_rec layouts differ")
	}
}

// ErrorSym is tree-sitter's symbol of ERROR nodes (Node.Sym).
const ErrorSym = 0xFFFF

// maxSource is the largest source tree-sitter addresses (32-bit offsets).
const maxSource = 1<<32 - 1

// ParserPool hands out tree-sitter parsers for one language. Parsers are C objects: a
// pooled parser is reused, and one the pool drops is deleted by a cleanup when it is
// garbage collected. A ParserPool is safe for concurrent use.
type ParserPool struct {
	lang   *C.TSLanguage
	syms   []symInfo // by grammar symbol
	fields []string  // by field id
	pool   sync.Pool // of *cparser
	bufs   sync.Pool // of *[]rec, flattening scratch
	slabs  sync.Pool // of *slabs, ParseFunc's trees
}

type symInfo struct {
	name  string
	named bool
}

type cparser struct{ p *C.TSParser }

// NewParserPool returns a pool of parsers for lang.
func NewParserPool(lang *sitter.Language) *ParserPool {
	// sitter.Language holds the TSLanguage pointer as its only field.
	cl := (*C.TSLanguage)(*(*unsafe.Pointer)(unsafe.Pointer(lang)))
	p := &ParserPool{lang: cl}
	nsym := int(C.ts_language_symbol_count(cl))
	p.syms = make([]symInfo, nsym)
	for s := range nsym {
		p.syms[s] = symInfo{name: lang.SymbolName(sitter.Symbol(s)), named: lang.SymbolType(sitter.Symbol(s)) == sitter.SymbolTypeRegular}
	}
	nf := int(C.ts_language_field_count(cl))
	p.fields = make([]string, nf+1)
	for f := 1; f <= nf; f++ {
		p.fields[f] = lang.FieldName(f)
	}
	return p
}

func (p *ParserPool) sym(s uint16) symInfo {
	if s == ErrorSym {
		return symInfo{name: "ERROR", named: true}
	}
	if int(s) < len(p.syms) {
		return p.syms[s]
	}
	return symInfo{}
}

func (p *ParserPool) get() (*cparser, error) {
	if cp, ok := p.pool.Get().(*cparser); ok {
		return cp, nil
	}
	cp := &cparser{p: C.tsn_new_parser(p.lang)}
	if cp.p == nil {
		return nil, errors.New("parse: cannot create a tree-sitter parser")
	}
	runtime.AddCleanup(cp, func(cpp *C.TSParser) { C.ts_parser_delete(cpp) }, cp.p)
	return cp, nil
}

// Parse parses src and returns its native copy, and the first syntax error position (row,
// col 0-based; hasErr false when the tree is clean). Cancellation is checked before the
// parse; a parse once started runs to its end.
func (p *ParserPool) Parse(ctx context.Context, src []byte) (root *Node, errRow, errCol int, hasErr bool, err error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, 0, false, err
	}
	if len(src) > maxSource {
		return nil, 0, 0, false, fmt.Errorf("parse: source of %d bytes is larger than tree-sitter addresses", len(src))
	}
	recs, err := p.flatten(src)
	if err != nil {
		return nil, 0, 0, false, err
	}
	root, errRow, errCol, hasErr = p.build(recs, nil)
	p.putRecs(recs)
	return root, errRow, errCol, hasErr, nil
}

// slabs is the storage of one tree that ParseFunc reuses from parse to parse.
type slabs struct {
	nodes []Node
	kids  []*Node
	nkids []int32
}

// ParseFunc is Parse for a tree that is only read while use runs: the tree's storage is
// reused by later calls once use returns, so that parsing many files does not allocate a
// tree each (use must keep no node, nor anything pointing into the tree).
func (p *ParserPool) ParseFunc(ctx context.Context, src []byte, use func(root *Node, errRow, errCol int, hasErr bool)) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(src) > maxSource {
		return fmt.Errorf("parse: source of %d bytes is larger than tree-sitter addresses", len(src))
	}
	recs, err := p.flatten(src)
	if err != nil {
		return err
	}
	var sl *slabs
	if len(recs) <= maxPooledNodes {
		sl, _ = p.slabs.Get().(*slabs)
		if sl == nil {
			sl = &slabs{}
		}
	}
	root, errRow, errCol, hasErr := p.build(recs, sl)
	p.putRecs(recs)
	use(root, errRow, errCol, hasErr)
	if sl != nil {
		p.slabs.Put(sl)
	}
	return nil
}

// putRecs hands a flattening buffer back for reuse, unless it is larger than the pooled
// trees (see maxPooledNodes).
func (p *ParserPool) putRecs(recs []rec) {
	if cap(recs) <= 2*maxPooledNodes {
		p.bufs.Put(&recs)
	}
}

// maxPooledNodes bounds the trees whose storage ParseFunc keeps for reuse: a larger tree
// (a generated table, say) gets storage of its own, which the collector takes back, so
// that the pool never holds the memory of the largest file per worker.
const maxPooledNodes = 1 << 16

// flatten parses src into the pre-order records of its tree (a pooled buffer the caller
// hands back to p.bufs).
func (p *ParserPool) flatten(src []byte) ([]rec, error) {
	cp, err := p.get()
	if err != nil {
		return nil, err
	}
	defer p.pool.Put(cp)
	if len(src) == 0 {
		src = []byte{0}[:0:1] // a valid pointer for the empty source
	}
	sp := (*C.char)(unsafe.Pointer(unsafe.SliceData(src)))
	var count C.uint32_t
	t := C.tsn_parse(cp.p, sp, C.uint32_t(len(src)), &count)
	if t == nil {
		return nil, errors.New("parse: tree-sitter returned no tree")
	}
	defer C.ts_tree_delete(t)
	var recs []rec
	if b, ok := p.bufs.Get().(*[]rec); ok {
		recs = *b
	}
	for n := max(int(count), 1); ; n *= 2 {
		if cap(recs) < n {
			recs = make([]rec, n)
		}
		recs = recs[:n]
		got := int(C.tsn_flatten(t, (*C.tsn_rec)(unsafe.Pointer(&recs[0])), C.uint32_t(n)))
		if got <= n {
			return recs[:got], nil
		}
	}
}

// build makes the Go tree of the flattened records: one slab of nodes and one of child
// pointers, taken from sl when it is not nil (and left there, grown as needed). It also
// returns the position of the first ERROR or MISSING node in document order.
func (p *ParserPool) build(recs []rec, sl *slabs) (*Node, int, int, bool) {
	var nodes []Node
	var kids []*Node
	nk := max(len(recs)-1, 0)
	if sl == nil {
		nodes, kids = make([]Node, len(recs)), make([]*Node, nk)
	} else {
		if cap(sl.nodes) < len(recs) {
			sl.nodes = make([]Node, len(recs)+len(recs)/4)
		}
		if cap(sl.kids) < nk {
			sl.kids = make([]*Node, nk+nk/4)
		}
		nodes, kids = sl.nodes[:len(recs)], sl.kids[:nk]
	}
	var nkids []int32
	if sl == nil || cap(sl.nkids) < len(recs) {
		nkids = make([]int32, len(recs)+len(recs)/4)[:len(recs)]
		if sl != nil {
			sl.nkids = nkids
		}
	} else {
		nkids = sl.nkids[:len(recs)]
		clear(nkids)
	}
	for i := 1; i < len(recs); i++ {
		nkids[recs[i].parent]++
	}
	// Each node's children take the next nkids[i] slots of kids, in pre-order of parents.
	off := 0
	errRow, errCol, hasErr := 0, 0, false
	for i := range recs {
		r := &recs[i]
		si := p.sym(r.sym)
		n := &nodes[i]
		*n = Node{
			Type: si.name, Start: int(r.start), End: int(r.end),
			Row: int(r.row), Col: int(r.col), EndRow: int(r.erow),
			Named: si.named, Bad: r.sym == ErrorSym || r.missing != 0, Sym: r.sym,
		}
		if int(r.field) < len(p.fields) {
			n.Field, n.FieldID = p.fields[r.field], r.field
		}
		if k := int(nkids[i]); k > 0 {
			n.Kids = kids[off : off : off+k]
			off += k
		}
		if r.parent >= 0 {
			par := &nodes[r.parent]
			n.Parent = par
			par.Kids = append(par.Kids, n)
		}
		if n.Bad && (!hasErr || n.Row < errRow || (n.Row == errRow && n.Col < errCol)) {
			errRow, errCol, hasErr = n.Row, n.Col, true
		}
	}
	return &nodes[0], errRow, errCol, hasErr
}
