package python

/*
#include <stdint.h>
#include <stdlib.h>
#include <stdbool.h>

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

static TSParser *fl_new_parser(void) {
	TSParser *p = ts_parser_new();
	if (p && !ts_parser_set_language(p, tree_sitter_python())) { ts_parser_delete(p); return NULL; }
	return p;
}
*/
import "C"

import (
	"errors"
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
}

// parser owns one C parser; it is used by one goroutine at a time and must be closed.
type parser struct{ p *C.TSParser }

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
