package python

import (
	"sync"

	sitter "github.com/smacker/go-tree-sitter"
	tspython "github.com/smacker/go-tree-sitter/python"
)

// kind is the package's own classification of tree-sitter Python node types.
type kind uint8

const (
	kOther kind = iota
	kModule
	kIdentifier
	kFunctionDef
	kClassDef
	kDecoratedDef
	kDecorator
	kBlock
	kCall
	kAttribute
	kArgumentList
	kKeywordArgument
	kString
	kConcatString
	kComment
	kLineContinuation
	kExpressionStatement
	kAssignment
	kAugAssignment
	kImport
	kImportFrom
	kFutureImport
	kDottedName
	kAliasedImport
	kRelativeImport
	kImportPrefix
	kWildcardImport
	kParameters
	kLambdaParameters
	kDefaultParameter
	kTypedParameter
	kTypedDefaultParameter
	kListSplatPattern
	kDictSplatPattern
	kListSplat
	kDictSplat
	kLambda
	kIf
	kElif
	kElse
	kFor
	kWhile
	kTry
	kExcept
	kFinally
	kWith
	kWithItem
	kMatch
	kCase
	kBoolOp
	kConditionalExpr
	kIfClause
	kForInClause
	kComprehension
	kReturn
	kGlobal
	kNonlocal
	kList
	kTuple
	kDict
	kSet
	kPair
	kParenthesized
	kPatternList
	kExprList
	kSubscript
	kError
	kNamedExpr
	kAsPattern
	kAsPatternTarget
	kInteger
	kYield
	kTypeAlias
	kKeywordSeparator
	kPositionalSeparator
	kRaise
	kBinaryOp
	kCompareOp
	kUnaryOp
	kNotOp
	kDelete
	kInterpolation
	kTypeConversion
	kAssert
	kLiteral // float, true, false, none, ellipsis: never an instance of a project class
	kAwait
)

var kindNames = map[string]kind{
	"module":                   kModule,
	"identifier":               kIdentifier,
	"function_definition":      kFunctionDef,
	"class_definition":         kClassDef,
	"decorated_definition":     kDecoratedDef,
	"decorator":                kDecorator,
	"block":                    kBlock,
	"call":                     kCall,
	"attribute":                kAttribute,
	"argument_list":            kArgumentList,
	"keyword_argument":         kKeywordArgument,
	"string":                   kString,
	"concatenated_string":      kConcatString,
	"comment":                  kComment,
	"line_continuation":        kLineContinuation,
	"expression_statement":     kExpressionStatement,
	"assignment":               kAssignment,
	"augmented_assignment":     kAugAssignment,
	"import_statement":         kImport,
	"import_from_statement":    kImportFrom,
	"future_import_statement":  kFutureImport,
	"dotted_name":              kDottedName,
	"aliased_import":           kAliasedImport,
	"relative_import":          kRelativeImport,
	"import_prefix":            kImportPrefix,
	"wildcard_import":          kWildcardImport,
	"parameters":               kParameters,
	"lambda_parameters":        kLambdaParameters,
	"default_parameter":        kDefaultParameter,
	"typed_parameter":          kTypedParameter,
	"typed_default_parameter":  kTypedDefaultParameter,
	"list_splat_pattern":       kListSplatPattern,
	"dictionary_splat_pattern": kDictSplatPattern,
	"list_splat":               kListSplat,
	"dictionary_splat":         kDictSplat,
	"if_statement":             kIf,
	"elif_clause":              kElif,
	"else_clause":              kElse,
	"for_statement":            kFor,
	"while_statement":          kWhile,
	"try_statement":            kTry,
	"except_clause":            kExcept,
	"except_group_clause":      kExcept,
	"finally_clause":           kFinally,
	"with_statement":           kWith,
	"with_item":                kWithItem,
	"match_statement":          kMatch,
	"case_clause":              kCase,
	"boolean_operator":         kBoolOp,
	"conditional_expression":   kConditionalExpr,
	"if_clause":                kIfClause,
	"for_in_clause":            kForInClause,
	"list_comprehension":       kComprehension,
	"dictionary_comprehension": kComprehension,
	"set_comprehension":        kComprehension,
	"generator_expression":     kComprehension,
	"return_statement":         kReturn,
	"global_statement":         kGlobal,
	"nonlocal_statement":       kNonlocal,
	"list":                     kList,
	"tuple":                    kTuple,
	"dictionary":               kDict,
	"set":                      kSet,
	"pair":                     kPair,
	"parenthesized_expression": kParenthesized,
	"pattern_list":             kPatternList,
	"tuple_pattern":            kTuple,
	"list_pattern":             kList,
	"expression_list":          kExprList,
	"subscript":                kSubscript,
	"ERROR":                    kError,
	"named_expression":         kNamedExpr,
	"as_pattern":               kAsPattern,
	"as_pattern_target":        kAsPatternTarget,
	"integer":                  kInteger,
	"yield":                    kYield,
	"await":                    kAwait,
	"type_alias_statement":     kTypeAlias,
	"keyword_separator":        kKeywordSeparator,
	"positional_separator":     kPositionalSeparator,
	"raise_statement":          kRaise,
	"binary_operator":          kBinaryOp,
	"comparison_operator":      kCompareOp,
	"unary_operator":           kUnaryOp,
	"not_operator":             kNotOp,
	"delete_statement":         kDelete,
	"interpolation":            kInterpolation,
	"type_conversion":          kTypeConversion,
	"assert_statement":         kAssert,
	"float":                    kLiteral,
	"true":                     kLiteral,
	"false":                    kLiteral,
	"none":                     kLiteral,
	"ellipsis":                 kLiteral,
}

// symInfo describes one grammar symbol.
type symInfo struct {
	kind  kind
	canon uint16 // the first symbol with the same name and namedness (Halstead operator identity)
	name  string // the grammar's name: the token text for anonymous tokens
	named bool
}

var (
	symOnce  sync.Once
	symTable []symInfo
)

// symbols returns the table from grammar symbol to symInfo, built once from the grammar.
// The lambda keyword and the lambda expression share the name "lambda" and are told apart
// by namedness.
func symbols() []symInfo {
	symOnce.Do(func() {
		lang := tspython.GetLanguage()
		n := lang.SymbolCount()
		t := make([]symInfo, n+1)
		first := map[string]uint16{}
		for i := uint32(0); i < n; i++ {
			s := sitter.Symbol(i)
			name := lang.SymbolName(s)
			named := lang.SymbolType(s) == sitter.SymbolTypeRegular
			k := kindNames[name]
			if name == "lambda" && named {
				k = kLambda
			}
			if name == "yield" && !named {
				k = kOther
			}
			key := name
			if named {
				key = "\x00" + name
			}
			canon, ok := first[key]
			if !ok {
				canon = uint16(i)
				first[key] = canon
			}
			t[i] = symInfo{kind: k, name: name, named: named, canon: canon}
		}
		symTable = t
	})
	return symTable
}

const errorSymbol = 0xFFFF

// node is one syntax node of a parsed file.
type node struct {
	start, end uint32
	row, col   uint32 // 0-based start row and byte column
	endRow     uint32 // 0-based end row
	parent     int32
	first      int32 // first child or -1
	next       int32 // next sibling or -1
	sym        uint16
	kind       kind
	named      bool
	missing    bool
	extra      bool
}

// tree is a parsed file: its nodes in pre-order (index 0 is the module) and the source.
type tree struct {
	src   []byte
	nodes []node
}

// scratch holds buffers one worker reuses from file to file.
type scratch struct {
	nodes []node
	last  []int32
	inStr []bool
	opID  []int32
	// Halstead distinct counting: stamp per operator symbol and per operand id
	opStamp, argStamp []int32
	stamp             int32
	// callMemo[i] is the expression of node i when it is converted once and shared: the
	// eCall of a call (see collector.callExpr), a lambda's eDef, an attribute's eAttr, an
	// operator's union of special-method calls
	callMemo []*expr
	// names are the project-wide facts of the current analysis (nil: unknown)
	names *projectNames
	// code-row marks and their prefix sums, and the operand intern table of one file
	mark   []bool
	rows   []int32
	intern map[string]int32
	// callLits and callArgs are slabs of the calls' literal data and argument arrays,
	// shared by the files a worker collects (see collector.newCallLit): calls are
	// memoised and persistent (never transient), all live until the resolution ends,
	// and sympy has ≈0.85M of them, two allocations each before
	callLits []litData
	callArgs []*expr
	// slab, xslab, recSlab and nameSlab are the current slabs of the collector's
	// persistent expressions, nameRecs and names, which the next file continues (their
	// records live until the resolution ends, and the slabs are never freed per file):
	// each file starting its own left ≈1,472 partly empty slabs of each kind on sympy
	// (the transient slabs stay per file: they go with its lazy sites)
	slab     []expr
	xslab    []exprX
	recSlab  []nameRec
	nameSlab []string
	// the buffers a file's lists grow in (see detach)
	calls      []callSite
	lazy       []lazySite
	stores     []store
	attrStores []attrStore
	pend       []pendBind
}

// grow returns s resliced to n elements, or a new slice with a quarter of headroom when
// s is too short: the worker's buffers follow the largest file so far, and files come
// in path order, not size order (sympy's exact-size regrowths left ≈40 MB of garbage).
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n, n+n/4)
	}
	return s[:n]
}

// buildTree converts the flat C nodes to a tree with child and sibling links.
func buildTree(src []byte, cn []cnode, sc *scratch) *tree {
	syms := symbols()
	sc.nodes = grow(sc.nodes, len(cn))
	sc.last = grow(sc.last, len(cn))
	t := &tree{src: src, nodes: sc.nodes}
	last := sc.last
	for i := range cn {
		c := &cn[i]
		n := &t.nodes[i]
		*n = node{start: c.start, end: c.end, row: c.srow, col: c.scol, endRow: c.erow,
			parent: c.parent, first: -1, next: -1, sym: c.sym,
			missing: c.flags&flagMissing != 0, extra: c.flags&flagExtra != 0}
		if c.sym == errorSymbol {
			n.kind, n.named = kError, true
		} else if int(c.sym) < len(syms) {
			n.kind, n.named = syms[c.sym].kind, syms[c.sym].named
		}
		last[i] = -1
		if p := c.parent; p >= 0 {
			if l := last[p]; l < 0 {
				t.nodes[p].first = int32(i)
			} else {
				t.nodes[l].next = int32(i)
			}
			last[p] = int32(i)
		}
	}
	return t
}

// symName returns the grammar name of node i (the token text for anonymous tokens).
func (t *tree) symName(i int32) string {
	s := t.nodes[i].sym
	if s == errorSymbol {
		return "ERROR"
	}
	syms := symbols()
	if int(s) < len(syms) {
		return syms[s].name
	}
	return ""
}

// text returns the source text of node i.
func (t *tree) text(i int32) string {
	n := &t.nodes[i]
	return string(t.src[n.start:n.end])
}

// textEq reports whether node i's text equals s, without allocating.
func (t *tree) textEq(i int32, s string) bool {
	n := &t.nodes[i]
	return string(t.src[n.start:n.end]) == s
}

// child returns the first child of i of kind k, or -1.
func (t *tree) child(i int32, k kind) int32 {
	for c := t.nodes[i].first; c >= 0; c = t.nodes[c].next {
		if t.nodes[c].kind == k {
			return c
		}
	}
	return -1
}

// firstNamed returns the first named, non-extra child of i, or -1.
func (t *tree) firstNamed(i int32) int32 {
	for c := t.nodes[i].first; c >= 0; c = t.nodes[c].next {
		if t.nodes[c].named && !t.nodes[c].extra {
			return c
		}
	}
	return -1
}

// namedChildren appends the named, non-extra children of i to buf.
func (t *tree) namedChildren(i int32, buf []int32) []int32 {
	for c := t.nodes[i].first; c >= 0; c = t.nodes[c].next {
		if t.nodes[c].named && !t.nodes[c].extra {
			buf = append(buf, c)
		}
	}
	return buf
}

// lastReal returns the last descendant leaf of i that is neither extra (a comment) nor
// missing, or i itself.
func (t *tree) lastReal(i int32) int32 {
	for {
		var pick int32 = -1
		for c := t.nodes[i].first; c >= 0; c = t.nodes[c].next {
			n := &t.nodes[c]
			if n.extra || (n.missing && n.start == n.end) || (n.start == n.end && n.first < 0) {
				continue
			}
			pick = c
		}
		if pick < 0 {
			return i
		}
		i = pick
	}
}

// isTokenNode reports whether the anonymous leaf is the given token.
func (t *tree) isToken(i int32, tok string) bool {
	n := &t.nodes[i]
	return !n.named && t.symName(i) == tok
}
