package python

/*
#include <stdint.h>
#include <stdlib.h>
#include <stdbool.h>
#include <stddef.h>

// Declarations of the tree-sitter C API (api.h of the tree-sitter runtime that
// github.com/smacker/go-tree-sitter compiles and links) and of the grammar entry point
// compiled by github.com/smacker/go-tree-sitter/python. The definitions come from those
// packages, which this package imports; the struct layouts are tree-sitter's ABI.
typedef struct TSLanguage TSLanguage;
typedef struct TSParser TSParser;
typedef struct TSTree TSTree;
typedef struct { uint32_t row, column; } TSPoint;
typedef struct { uint32_t context[4]; const void *id; const TSTree *tree; } TSNode;
typedef struct { const void *tree; const void *id; uint32_t context[3]; } TSTreeCursor;

extern const TSLanguage *tree_sitter_python(void);
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
extern bool ts_tree_cursor_goto_first_child(TSTreeCursor *);
extern bool ts_tree_cursor_goto_next_sibling(TSTreeCursor *);
extern bool ts_tree_cursor_goto_parent(TSTreeCursor *);
extern uint16_t ts_node_symbol(TSNode);
extern uint32_t ts_node_start_byte(TSNode);
extern uint32_t ts_node_end_byte(TSNode);
extern TSPoint ts_node_start_point(TSNode);
extern TSPoint ts_node_end_point(TSNode);
extern bool ts_node_is_missing(TSNode);
extern bool ts_node_is_extra(TSNode);

// fl_node is one syntax node in pre-order; it mirrors the Go type cnode.
typedef struct {
	uint32_t start, end;   // byte offsets
	uint32_t srow, scol;   // 0-based start row and byte column
	uint32_t erow;         // 0-based end row
	int32_t parent;        // index of the parent, -1 for the root
	uint16_t sym;          // grammar symbol
	uint16_t flags;        // 1 missing, 2 extra
} fl_node;

// fl_parse parses src and flattens the whole tree into a malloc'ed array in pre-order
// (the caller frees it). The tree itself is deleted before returning, so no C object
// outlives the call. It returns the number of nodes, 0 if parsing failed.
static uint32_t fl_parse(TSParser *p, const char *src, uint32_t n, fl_node **out) {
	*out = NULL;
	TSTree *t = ts_parser_parse_string(p, NULL, src, n);
	if (!t) return 0;
	TSNode root = ts_tree_root_node(t);
	uint32_t cap = ts_node_descendant_count(root) + 1;
	fl_node *buf = malloc(sizeof(fl_node) * cap);
	if (!buf) { ts_tree_delete(t); return 0; }
	TSTreeCursor c = ts_tree_cursor_new(root);
	uint32_t i = 0;
	int32_t parent = -1;
	for (;;) {
		if (i == cap) {
			cap *= 2;
			fl_node *nb = realloc(buf, sizeof(fl_node) * cap);
			if (!nb) { free(buf); buf = NULL; i = 0; break; }
			buf = nb;
		}
		TSNode nd = ts_tree_cursor_current_node(&c);
		fl_node *o = &buf[i];
		TSPoint sp = ts_node_start_point(nd);
		o->start = ts_node_start_byte(nd);
		o->end = ts_node_end_byte(nd);
		o->srow = sp.row;
		o->scol = sp.column;
		o->erow = ts_node_end_point(nd).row;
		o->sym = ts_node_symbol(nd);
		o->flags = (ts_node_is_missing(nd) ? 1 : 0) | (ts_node_is_extra(nd) ? 2 : 0);
		o->parent = parent;
		int32_t me = (int32_t)i++;
		if (ts_tree_cursor_goto_first_child(&c)) { parent = me; continue; }
		while (!ts_tree_cursor_goto_next_sibling(&c)) {
			if (!ts_tree_cursor_goto_parent(&c)) goto done;
			parent = buf[parent].parent;
		}
	}
done:
	ts_tree_cursor_delete(&c);
	ts_tree_delete(t);
	*out = buf;
	return i;
}

// fl_gonode mirrors the Go type node: one syntax node with its child and sibling links
// and its classification (the package's kind and namedness, from tables indexed by
// grammar symbol).
typedef struct {
	uint32_t start, end;
	uint32_t row, col;
	uint32_t erow;
	int32_t parent, first, next;
	uint16_t sym;
	uint8_t kind, named, missing, extra;
} fl_gonode;

// fl_parse_tree parses src and stores in *count the number of nodes fl_walk will write.
static TSTree *fl_parse_tree(TSParser *p, const char *src, uint32_t n, uint32_t *count) {
	*count = 0;
	TSTree *t = ts_parser_parse_string(p, NULL, src, n);
	if (t) *count = ts_node_descendant_count(ts_tree_root_node(t)) + 1;
	return t;
}

// fl_walk writes the nodes of t in pre-order into out (capacity cap), links children
// and siblings, classifies each node with the tables (nsyms entries; errKind for ERROR
// nodes) and deletes t. It returns the number of nodes written, or cap+1 when the tree
// has more nodes than cap. A node is linked from its previous sibling (the node the
// cursor leaves for it), or from its parent when it is the first child.
static uint32_t fl_walk(TSTree *t, fl_gonode *out, uint32_t cap,
		const uint8_t *kinds, const uint8_t *named, uint32_t nsyms, uint8_t errKind) {
	TSTreeCursor c = ts_tree_cursor_new(ts_tree_root_node(t));
	uint32_t i = 0;
	int32_t parent = -1, prev = -1;
	for (;;) {
		if (i == cap) { i = cap + 1; break; }
		TSNode nd = ts_tree_cursor_current_node(&c);
		fl_gonode *o = &out[i];
		TSPoint sp = ts_node_start_point(nd);
		uint16_t sym = ts_node_symbol(nd);
		o->start = ts_node_start_byte(nd);
		o->end = ts_node_end_byte(nd);
		o->row = sp.row;
		o->col = sp.column;
		o->erow = ts_node_end_point(nd).row;
		o->parent = parent;
		o->first = -1;
		o->next = -1;
		o->sym = sym;
		if (sym == 0xFFFF) { o->kind = errKind; o->named = 1; }
		else if (sym < nsyms) { o->kind = kinds[sym]; o->named = named[sym]; }
		else { o->kind = 0; o->named = 0; }
		o->missing = ts_node_is_missing(nd) ? 1 : 0;
		o->extra = ts_node_is_extra(nd) ? 1 : 0;
		if (prev >= 0) out[prev].next = (int32_t)i;
		else if (parent >= 0) out[parent].first = (int32_t)i;
		int32_t me = (int32_t)i++;
		if (ts_tree_cursor_goto_first_child(&c)) { parent = me; prev = -1; continue; }
		while (!ts_tree_cursor_goto_next_sibling(&c)) {
			if (!ts_tree_cursor_goto_parent(&c)) goto done;
			me = parent;
			parent = out[parent].parent;
		}
		prev = me;
	}
done:
	ts_tree_cursor_delete(&c);
	ts_tree_delete(t);
	return i;
}

// fl_gonode_layout returns the size of fl_gonode (k = 0) or the offset of its k-th field.
static size_t fl_gonode_layout(int k) {
	switch (k) {
	case 0: return sizeof(fl_gonode);
	case 1: return offsetof(fl_gonode, row);
	case 2: return offsetof(fl_gonode, erow);
	case 3: return offsetof(fl_gonode, parent);
	case 4: return offsetof(fl_gonode, next);
	case 5: return offsetof(fl_gonode, sym);
	case 6: return offsetof(fl_gonode, kind);
	case 7: return offsetof(fl_gonode, named);
	case 8: return offsetof(fl_gonode, extra);
	}
	return 0;
}

// fl_trim gives the C heap's free memory back to the system where the C library can
// (glibc's malloc_trim): the trees of the largest files leave ≈200 MB of it behind on
// sympy, resident while the resolution grows the Go heap.
#if defined(__GLIBC__)
#include <malloc.h>
static void fl_trim(void) { malloc_trim(0); }
#else
static void fl_trim(void) {}
#endif

static TSParser *fl_new_parser(void) {
	TSParser *p = ts_parser_new();
	if (p && !ts_parser_set_language(p, tree_sitter_python())) { ts_parser_delete(p); return NULL; }
	return p;
}
*/
import "C"

import (
	"errors"
	"sync"
	"unsafe"

	// The tree-sitter runtime and the Python grammar: their compiled C code provides the
	// functions declared above.
	_ "github.com/smacker/go-tree-sitter"
	_ "github.com/smacker/go-tree-sitter/python"
)

// cnode is the Go view of fl_node; the layouts must agree (checked in init).
type cnode struct {
	start, end uint32
	srow, scol uint32
	erow       uint32
	parent     int32
	sym        uint16
	flags      uint16
}

const (
	flagMissing = 1
	flagExtra   = 2
)

func init() {
	if unsafe.Sizeof(cnode{}) != unsafe.Sizeof(C.fl_node{}) {
		panic("python: cnode and fl_node layouts differ")
	}
	var n node
	goLayout := []uintptr{unsafe.Sizeof(n), unsafe.Offsetof(n.row), unsafe.Offsetof(n.endRow),
		unsafe.Offsetof(n.parent), unsafe.Offsetof(n.next), unsafe.Offsetof(n.sym),
		unsafe.Offsetof(n.kind), unsafe.Offsetof(n.named), unsafe.Offsetof(n.extra)}
	for k, off := range goLayout {
		if uintptr(C.fl_gonode_layout(C.int(k))) != off {
			panic("python: node and fl_gonode layouts differ")
		}
	}
}

// symTables are the kind and namedness of each grammar symbol, as byte tables for fl_walk.
var (
	symTablesOnce      sync.Once
	symKinds, symNamed []uint8
)

func symTables() ([]uint8, []uint8) {
	symTablesOnce.Do(func() {
		syms := symbols()
		symKinds, symNamed = make([]uint8, len(syms)), make([]uint8, len(syms))
		for i, s := range syms {
			symKinds[i] = uint8(s.kind)
			if s.named {
				symNamed[i] = 1
			}
		}
	})
	return symKinds, symNamed
}

// parseTree parses src into a tree whose nodes live in p's C buffer (valid until the
// next parse with p or its close): the C walker writes the nodes, their links and kinds
// directly, which saves the copy and the pass of buildTree. The buffer is C memory,
// outside the Go heap: the largest files' nodes (tens of MB on sympy, reallocated at
// each larger file) neither advance the collector's cycles nor need zeroing.
func (p *parser) parseTree(src []byte, _ *scratch) *tree {
	t := &tree{src: src}
	if len(src) == 0 || len(src) > maxSource {
		return t
	}
	var count C.uint32_t
	ct := C.fl_parse_tree(p.p, (*C.char)(unsafe.Pointer(&src[0])), C.uint32_t(len(src)), &count)
	if ct == nil || count == 0 {
		if ct != nil {
			C.ts_tree_delete(ct)
		}
		return t
	}
	kinds, named := symTables()
	for capN := int(count); ; capN *= 2 {
		p.reserve(capN)
		n := C.fl_walk(ct, p.nodes, C.uint32_t(capN), (*C.uint8_t)(unsafe.Pointer(&kinds[0])),
			(*C.uint8_t)(unsafe.Pointer(&named[0])), C.uint32_t(len(kinds)), C.uint8_t(kError))
		if int(n) <= capN {
			t.nodes = unsafe.Slice((*node)(unsafe.Pointer(p.nodes)), int(n))
			return t
		}
		// more nodes than the tree said (never seen): parse again into a larger buffer
		ct = C.fl_parse_tree(p.p, (*C.char)(unsafe.Pointer(&src[0])), C.uint32_t(len(src)), &count)
		if ct == nil {
			return t
		}
	}
}

// reserve makes room for n nodes in p's C buffer (with a quarter more, for the next
// larger file).
func (p *parser) reserve(n int) {
	if n <= p.capN {
		return
	}
	p.freeNodes()
	n += n / 4
	p.nodes = (*C.fl_gonode)(C.malloc(C.size_t(n) * C.sizeof_fl_gonode))
	if p.nodes == nil {
		panic("python: out of memory for a syntax tree")
	}
	p.capN = n
}

// freeNodes frees p's node buffer.
func (p *parser) freeNodes() {
	C.free(unsafe.Pointer(p.nodes))
	p.nodes, p.capN = nil, 0
}

// parser owns one C parser and the C buffers its trees' nodes are written to (see
// parseTree); it is used by one goroutine at a time and must be closed.
type parser struct {
	p     *C.TSParser
	nodes *C.fl_gonode
	capN  int
}

// trimCHeap returns the C heap's free memory to the system (see fl_trim): called once
// every parser of an analysis is closed.
func trimCHeap() { C.fl_trim() }

func newParser() (*parser, error) {
	p := C.fl_new_parser()
	if p == nil {
		return nil, errors.New("python: cannot create a tree-sitter parser")
	}
	return &parser{p: p}, nil
}

func (p *parser) close() {
	if p.p != nil {
		C.ts_parser_delete(p.p)
		p.p = nil
	}
	p.freeNodes()
}

// maxSource is the largest file tree-sitter can address (32-bit offsets).
const maxSource = 1<<32 - 1

// parse returns the flattened syntax tree of src in pre-order, appended to buf[:0].
func (p *parser) parse(src []byte, buf []cnode) []cnode {
	buf = buf[:0]
	if len(src) == 0 || len(src) > maxSource {
		return buf
	}
	var out *C.fl_node
	n := C.fl_parse(p.p, (*C.char)(unsafe.Pointer(&src[0])), C.uint32_t(len(src)), &out)
	if out == nil {
		return buf
	}
	defer C.free(unsafe.Pointer(out))
	return append(buf, unsafe.Slice((*cnode)(unsafe.Pointer(out)), int(n))...)
}
