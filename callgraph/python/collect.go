package python

import (
	"strconv"
	"strings"

	"github.com/faultline-dev/faultline/callgraph"
	"github.com/faultline-dev/faultline/task"
)

// collector walks one parsed file and records its definitions, scopes, bindings and call
// sites. It is used by one goroutine.
type collector struct {
	t     *tree
	f     *fileInfo
	rows  []int32 // prefix sums of code rows: rows[r] = code rows before row r
	calls []callSite
	sc    *scratch
	// operands: interned per file; opID[i] is node i's operand id (-1 if not an operand)
	nOperands int32
	strs      []string // interned operand texts by id
	// slab and xslab are the current slabs of expressions without and with an
	// operand (see newExpr)
	slab  []expr
	xslab []exprX
	// names interns the names of the file's expressions (see intern)
	names    map[string]*string
	nameSlab []string
	// recs interns the names' nameRecs (see nameRec)
	recs    map[nameRec]*nameRec
	recSlab []nameRec
	// caller is the definition whose code the node being visited belongs to
	caller *defInfo
	// transient is set while converting what only lazy sites hold: those expressions go
	// to tslab, whose slabs the file lists apart (fileInfo.transient)
	transient bool
	tslab     []expr
	txslab    []exprX
	scopes    []*scope // the file's scopes (see newScope)
	// comp holds the scope of each comprehension converted or visited so far: conv
	// (compElems) may meet a comprehension before visit does, and both must bind and
	// look up its loop names in the same scope
	comp map[int32]*scope
}

// newCallLit returns the literal data of a call expression with room for n arguments,
// both carved from the worker's slabs (scratch.callLits, callArgs). The arguments'
// slice is clipped to n: appending past it copies.
func (c *collector) newCallLit(n int) *litData {
	sc := c.sc
	if len(sc.callLits) == cap(sc.callLits) {
		sc.callLits = make([]litData, 0, 1024)
	}
	sc.callLits = append(sc.callLits, litData{})
	l := &sc.callLits[len(sc.callLits)-1]
	if n > 0 {
		if cap(sc.callArgs)-len(sc.callArgs) < n {
			sc.callArgs = make([]*expr, 0, max(4096, n))
		}
		k := len(sc.callArgs)
		sc.callArgs = sc.callArgs[:k+n]
		l.setElems(sc.callArgs[k : k : k+n])
	}
	return l
}

// newExpr allocates an expression from the collector's current slab (fewer, larger
// allocations for the many small expressions of a file): one of exprX when its op has
// an operand.
func (c *collector) newExpr(s exprSpec) *expr {
	var rec *nameRec
	if s.op == eName {
		rec = c.nameRec(s.nm, (*scope)(s.ref))
	}
	e := s.pack(rec)
	if s.op.hasSub() {
		slab := &c.xslab
		if c.transient {
			slab = &c.txslab
		}
		if len(*slab) == cap(*slab) {
			*slab = make([]exprX, 0, slabCap(cap(*slab), c.transient))
			if c.transient {
				c.f.transientX = append(c.f.transientX, *slab)
			}
		}
		*slab = append(*slab, e)
		return &(*slab)[len(*slab)-1].expr
	}
	slab := &c.slab
	if c.transient {
		slab = &c.tslab
	}
	if len(*slab) == cap(*slab) {
		*slab = make([]expr, 0, slabCap(cap(*slab), c.transient))
		if c.transient {
			c.f.transient = append(c.f.transient, *slab)
		}
	}
	*slab = append(*slab, e.expr)
	return &(*slab)[len(*slab)-1]
}

// slabCap is the capacity of the expression slab that follows one of capacity prev: 128
// records, except that a file's transient slabs start at 16 and double up to it: they
// are the file's own, each file's last one partly empty (3.4 MB less live on sympy than
// with 128 from the first; the persistent slabs continue across a worker's files, see
// scratch.slab).
func slabCap(prev int, transient bool) int {
	if !transient {
		return 128
	}
	return max(16, min(128, 2*prev))
}

// nameRec returns the file's one nameRec of name nm in scope sc.
func (c *collector) nameRec(nm *string, sc *scope) *nameRec {
	return internIn(&c.recs, &c.recSlab, nameRec{nm: nm, sc: sc})
}

// internIn returns the one copy of k that *m keeps, adding k to the current slab (a new
// one of 256 when it is full, so earlier copies never move) the first time.
func internIn[K comparable](m *map[K]*K, slab *[]K, k K) *K {
	if p, ok := (*m)[k]; ok {
		return p
	}
	if *m == nil {
		*m = map[K]*K{}
	}
	if len(*slab) == cap(*slab) {
		*slab = make([]K, 0, 256)
	}
	*slab = append(*slab, k)
	p := &(*slab)[len(*slab)-1]
	(*m)[k] = p
	return p
}

// lazyOnly starts converting what only lazy sites will hold (see collector.transient);
// the function it returns ends it. Memoised conversions (calls, attributes, lambdas),
// which other facts share, stay out of it (see persistent).
func (c *collector) lazyOnly() (end func()) {
	was := c.transient
	c.transient = true
	return func() { c.transient = was }
}

// persistent suspends lazyOnly while a memoised node is converted; the function it
// returns resumes it.
func (c *collector) persistent() (end func()) {
	was := c.transient
	c.transient = false
	return func() { c.transient = was }
}

// intern returns the file's one copy of name, for an expression's name (see
// expr.nameRef; "" is nil).
func (c *collector) intern(name string) *string {
	if name == "" {
		return nil
	}
	return internIn(&c.names, &c.nameSlab, name)
}

// str returns the text of node i, interned when i is an operand (identifiers, literals).
func (c *collector) str(i int32) string {
	if id := c.sc.opID[i]; id >= 0 {
		return c.strs[id]
	}
	return c.t.text(i)
}

// collectFile analyses one file's tree, given as the C walker's flat nodes.
func collectFile(path string, src []byte, cn []cnode, sc *scratch) *fileInfo {
	return collectTree(path, src, buildTree(src, cn, sc), sc)
}

// collectTree analyses one file's tree.
func collectTree(path string, src []byte, t *tree, sc *scratch) *fileInfo {
	f := &fileInfo{path: path}
	f.key, f.isInit = moduleKey(path)
	// the lists grow in the worker's buffers, and the file keeps exact copies (see detach)
	c := &collector{t: t, f: f, sc: sc, calls: sc.calls[:0]}
	// the persistent slabs continue from the worker's previous file (see scratch.slab)
	c.slab, c.xslab, c.recSlab, c.nameSlab = sc.slab, sc.xslab, sc.recSlab, sc.nameSlab
	f.lazy, f.stores, f.attrStores = sc.lazy[:0], sc.stores[:0], sc.attrStores[:0]
	pend := sc.pend[:0]
	f.pend = &pend
	sc.callMemo = grow(sc.callMemo, len(t.nodes))
	clear(sc.callMemo)
	c.rows = c.codeRows()
	f.scope = c.newScope(scopeModule, nil, nil)
	mod := &defInfo{file: f, qual: callgraph.ModuleName, simple: callgraph.ModuleName, scope: f.scope}
	nlines := countLines(src)
	fn := task.Function{File: path, Name: callgraph.ModuleName, Kind: task.KindModule, Language: "python",
		Line: 1, EndLine: nlines, DecoratorLine: 1,
		Def: task.Span{Start: 0, End: len(src)}, Body: task.Span{Start: 0, End: len(src)}}
	mod.fn = packFn(&fn)
	f.defs = append(f.defs, mod)
	if len(t.nodes) > 0 {
		c.visitChildren(0, f.scope, mod, false)
		mod.metrics = packMetrics(c.metrics(0, 1, nlines))
		if t.nodes[0].kind == kModule && hasError(t) {
			f.syntaxErr = firstError(t, path)
		}
		if ln := tooDeep(src); ln > 0 && (f.syntaxErr == nil || ln < f.syntaxErr.Line) {
			f.syntaxErr = &callgraph.SyntaxError{Path: path, Line: ln, Column: 1, Msg: "too many levels of indentation"}
		}
	} else {
		mod.metrics = packMetrics(callgraph.Metrics{Cyclomatic: 1, Lines: nlines})
		if len(src) > maxSource {
			f.syntaxErr = &callgraph.SyntaxError{Path: path, Line: 1, Column: 1, Msg: "file too large for tree-sitter"}
		}
	}
	// the file's facts live until resolution ends: exact copies, without the slack
	// appending left
	f.calls, f.lazy = detach(&sc.calls, c.calls), detach(&sc.lazy, f.lazy)
	f.stores, f.attrStores = detach(&sc.stores, f.stores), detach(&sc.attrStores, f.attrStores)
	freezeBindings(pend)
	clear(pend)
	sc.pend, f.pend = pend[:0], nil
	sc.slab, sc.xslab, sc.recSlab, sc.nameSlab = c.slab, c.xslab, c.recSlab, c.nameSlab
	return f
}

// newScope returns a new scope of the file, to be frozen with it (see nameTable).
func (c *collector) newScope(k scopeKind, parent *scope, d *defInfo) *scope {
	s := newScope(k, parent, c.f, d)
	c.scopes = append(c.scopes, s)
	return s
}

// compScope returns the scope of comprehension i, made on first use with parent sc.
func (c *collector) compScope(i int32, sc *scope) *scope {
	if cs := c.comp[i]; cs != nil {
		return cs
	}
	if c.comp == nil {
		c.comp = map[int32]*scope{}
	}
	cs := c.newScope(scopeLambda, sc, nil)
	c.comp[i] = cs
	return cs
}

// detach returns a copy of s without spare capacity (nil when s is empty) and keeps s's
// array, cleared, in *buf for the next file: the lists of a file grow there instead of
// leaving each file's outgrown arrays behind (on sympy ≈200 MB of garbage while
// collecting, the lazy sites and call sites most).
func detach[T any](buf *[]T, s []T) []T {
	var out []T
	if len(s) > 0 {
		out = append(make([]T, 0, len(s)), s...)
	}
	clear(s)
	*buf = s[:0]
	return out
}

func countLines(src []byte) int {
	n := 1
	for _, b := range src {
		if b == '\n' {
			n++
		}
	}
	if len(src) > 0 && src[len(src)-1] == '\n' {
		n--
	}
	return n
}

// moduleKey maps a slash path to the module key (path without .py, package __init__
// mapped to its directory).
func moduleKey(path string) (key string, isInit bool) {
	key = strings.TrimSuffix(strings.TrimSuffix(path, ".py"), ".pyi")
	if key == "__init__" {
		return "", true
	}
	if strings.HasSuffix(key, "/__init__") {
		return strings.TrimSuffix(key, "/__init__"), true
	}
	return key, false
}

func hasError(t *tree) bool {
	for i := range t.nodes {
		if t.nodes[i].kind == kError || t.nodes[i].missing {
			return true
		}
	}
	return false
}

// firstError returns the syntax error that starts first in the file.
func firstError(t *tree, path string) *callgraph.SyntaxError {
	best := int32(-1)
	for i := range t.nodes {
		n := &t.nodes[i]
		if n.kind != kError && !n.missing {
			continue
		}
		if best < 0 || n.start < t.nodes[best].start {
			best = int32(i)
		}
	}
	n := &t.nodes[best]
	msg := "invalid syntax"
	if n.missing {
		msg = "missing " + t.symName(best)
	}
	return &callgraph.SyntaxError{Path: path, Line: int(n.row) + 1, Column: int(n.col) + 1, Msg: msg}
}

// codeRows marks the rows on which a token other than a comment or a newline starts, as
// Python 3.11's tokenize sees them (a string literal, f-strings included, is one token at
// its start), and returns their prefix sums.
//
// The same pass interns the Halstead operands (identifiers, literals, whole strings).
func (c *collector) codeRows() []int32 {
	t := c.t
	c.sc.opID = grow(c.sc.opID, len(t.nodes))
	opID := c.sc.opID
	if c.sc.intern == nil {
		c.sc.intern = map[string]int32{}
	}
	intern := c.sc.intern
	clear(intern)
	var maxRow uint32
	for i := range t.nodes {
		if r := t.nodes[i].endRow; r > maxRow {
			maxRow = r
		}
	}
	c.sc.mark = grow(c.sc.mark, int(maxRow)+2)
	mark := c.sc.mark
	clear(mark)
	c.sc.inStr = grow(c.sc.inStr, len(t.nodes))
	inStr := c.sc.inStr
	for i := range t.nodes {
		n := &t.nodes[i]
		opID[i] = -1
		inStr[i] = false
		if n.parent >= 0 {
			p := &t.nodes[n.parent]
			inStr[i] = inStr[n.parent] || p.kind == kString
		}
		if inStr[i] {
			continue
		}
		if n.named && (n.kind == kString || n.first < 0 && !n.extra && n.end > n.start) {
			text := t.src[n.start:n.end]
			id, ok := intern[string(text)]
			if !ok {
				id = int32(len(c.strs))
				str := string(text)
				intern[str] = id
				c.strs = append(c.strs, str)
			}
			opID[i] = id
		}
		switch {
		case n.kind == kString:
			mark[n.row] = true
		case n.first < 0 && !n.extra && n.end > n.start && n.kind != kLineContinuation && n.kind != kComment:
			mark[n.row] = true
		}
	}
	c.nOperands = int32(len(intern))
	c.sc.rows = grow(c.sc.rows, len(mark)+1)
	rows := c.sc.rows
	rows[0] = 0
	for r, m := range mark {
		rows[r+1] = rows[r]
		if m {
			rows[r+1]++
		}
	}
	return rows
}

// codeLines counts the code rows in the 1-based inclusive line range.
func (c *collector) codeLines(line, endLine int) int {
	lo, hi := line-1, endLine
	if lo < 0 {
		lo = 0
	}
	if hi >= len(c.rows) {
		hi = len(c.rows) - 1
	}
	if hi <= lo {
		return 0
	}
	return int(c.rows[hi] - c.rows[lo])
}

// visitChildren visits the children of node i.
func (c *collector) visitChildren(i int32, sc *scope, caller *defInfo, cond bool) {
	for ch := c.t.nodes[i].first; ch >= 0; ch = c.t.nodes[ch].next {
		c.visit(ch, sc, caller, cond)
	}
}

// visit records what node i defines, binds and calls. cond tells whether i is nested in a
// conditional or loop statement of scope sc.
func (c *collector) visit(i int32, sc *scope, caller *defInfo, cond bool) {
	t := c.t
	n := &t.nodes[i]
	c.caller = caller
	switch n.kind {
	case kFunctionDef:
		c.function(i, -1, sc, caller, cond)
		return
	case kClassDef:
		c.class(i, -1, sc, caller, cond)
		return
	case kDecoratedDef:
		def := t.child(i, kFunctionDef)
		isClass := false
		if def < 0 {
			def = t.child(i, kClassDef)
			isClass = true
		}
		if def < 0 {
			c.visitChildren(i, sc, caller, cond)
			return
		}
		if isClass {
			c.class(def, i, sc, caller, cond)
		} else {
			c.function(def, i, sc, caller, cond)
		}
		return
	case kCall:
		c.call(i, sc, caller)
	case kLambda:
		ld := c.lambda(i, sc).def()
		for ch := n.first; ch >= 0; ch = t.nodes[ch].next {
			if t.nodes[ch].kind == kLambdaParameters {
				c.visitChildren(ch, sc, caller, false) // calls in default values
			} else {
				c.visit(ch, ld.scope, caller, false)
			}
		}
		return
	case kComprehension:
		cs := c.compScope(i, sc)
		for ch := n.first; ch >= 0; ch = t.nodes[ch].next {
			if t.nodes[ch].kind == kForInClause {
				if l := t.firstNamed(ch); l >= 0 {
					iterE, tv := c.iterOf(l, cs)
					c.bindTarget(l, tv, cs, 0, false)
					c.protoIter(ch, iterE, caller)
				}
			}
		}
		c.visitChildren(i, cs, caller, false)
		return
	case kAssignment:
		c.assignment(i, sc, cond)
		if l := t.firstNamed(i); l >= 0 {
			c.visitTarget(l, sc, caller)
			for ch := t.nodes[l].next; ch >= 0; ch = t.nodes[ch].next {
				c.visit(ch, sc, caller, cond)
			}
		}
		return
	case kAugAssignment:
		if l := t.firstNamed(i); l >= 0 && t.nodes[l].kind == kIdentifier {
			name := c.str(l)
			if sc.kind == scopeModule && name == "__all__" {
				c.allNames(t.nodes[l].next, true)
			}
			c.bindName(sc, name, binding{pos: n.end, cond: true, val: unknownExpr})
		}
		c.augmented(i, sc, caller)
	case kAttribute:
		if attr := lastIdent(t, i); attr != "" && c.sc.names.prop(attr) {
			c.lazy(lazySite{kind: lzAttr, x: c.conv(i, sc), line: int32(n.row) + 1})
		}
		if attr := lastIdent(t, i); attr != "" && c.sc.names.descr(attr, descrGet) {
			if e := c.conv(i, sc); e.op == eAttr {
				c.descrSite(e.sub(), attr, 0, nil, int32(n.row)+1)
			}
		}
		c.attrHook(i, sc, 0)
	case kSubscript:
		c.subscript(i, sc, 0, nil)
	case kBinaryOp:
		c.binary(i, sc)
	case kCompareOp:
		c.compare(i, sc)
	case kUnaryOp:
		c.unary(i, sc)
	case kNotOp:
		c.truth(t.firstNamed(i), sc)
	case kAssert:
		c.truth(t.firstNamed(i), sc)
	case kBoolOp:
		for _, ch := range t.namedChildren(i, nil) {
			c.truth(ch, sc)
		}
		c.narrowBool(i, sc)
	case kConditionalExpr:
		if kids := t.namedChildren(i, nil); len(kids) == 3 {
			c.truth(kids[1], sc)
		}
	case kInterpolation:
		c.interpolation(i, sc)
	case kDelete:
		c.deleteStmt(i, sc, caller)
		return
	case kNamedExpr:
		if l := t.firstNamed(i); l >= 0 && t.nodes[l].kind == kIdentifier {
			r := t.nodes[l].next
			for r >= 0 && !t.nodes[r].named {
				r = t.nodes[r].next
			}
			val := unknownExpr
			if r >= 0 {
				val = c.conv(r, sc)
			}
			// assignment expressions in comprehensions bind in the enclosing scope
			target := sc
			for target.kind == scopeLambda && target.parent != nil {
				target = target.parent
			}
			c.bindName(target, c.str(l), binding{pos: n.end, cond: true, val: val})
		}
	case kFor:
		if l := t.firstNamed(i); l >= 0 {
			iterE, tv := c.iterOf(l, sc)
			c.bindTarget(l, tv, sc, n.start, true)
			c.protoIter(i, iterE, caller)
		}
		c.visitChildren(i, sc, caller, true)
		return
	case kIf, kElif, kElse, kWhile, kExcept, kMatch, kCase:
		if n.kind == kIf || n.kind == kElif || n.kind == kWhile {
			c.truth(t.firstNamed(i), sc)
		}
		if n.kind == kIf {
			c.narrowIf(i, sc)
		}
		if n.kind == kIf || n.kind == kElif {
			c.narrowClassName(i, sc)
		}
		if n.kind == kExcept {
			if ap := t.child(i, kAsPattern); ap >= 0 {
				if tg := t.child(ap, kAsPatternTarget); tg >= 0 {
					c.bindTarget(t.firstNamed(tg), c.caught(t.firstNamed(ap), sc), sc, n.start, true)
				}
			}
		}
		c.visitChildren(i, sc, caller, true)
		return
	case kWithItem:
		// with E as target: E.__enter__() and E.__exit__(...) are called, and the target
		// is bound to what __enter__ returns
		valNode := t.firstNamed(i)
		ap := t.child(i, kAsPattern)
		if ap >= 0 {
			valNode = t.firstNamed(ap)
		}
		var enter *expr
		if valNode >= 0 {
			enterName, exitName := "__enter__", "__exit__"
			if c.isAsync(i) {
				enterName, exitName = "__aenter__", "__aexit__"
			}
			e := c.conv(valNode, sc)
			line := int(n.row) + 1
			// Both are call sites of the resolution rounds, not lazy sites: the subject
			// flows into the methods' self, so an inherited __enter__ that calls
			// self.setUp() reaches the subclass's steps (fixtures' Fixture.__enter__).
			em := c.newExpr(exprSpec{op: eProto, x: e, nm: c.intern(enterName)})
			enter = c.newExpr(exprSpec{op: eCall, x: em})
			c.addSite(caller, newSite(int32(line), true, enter))
			c.site(caller, int32(line), true, c.newExpr(exprSpec{op: eProto, x: e, nm: c.intern(exitName)}), nil)
		}
		if ap >= 0 {
			if tg := t.child(ap, kAsPatternTarget); tg >= 0 {
				c.bindTarget(t.firstNamed(tg), enter, sc, n.end, cond)
			}
		}
	case kRaise:
		if sc.kind == scopeFunction && sc.def != nil && c.abstractRaise(i) {
			sc.def.abstract = true
		}
		// raise C (a class, not a call) instantiates C
		if e := t.firstNamed(i); e >= 0 && t.nodes[e].kind != kCall {
			c.site(caller, int32(n.row)+1, true, c.newExpr(exprSpec{op: eClassOf, x: c.conv(e, sc)}), nil)
		}
	case kImport, kImportFrom, kFutureImport:
		c.importStmt(i, sc, cond)
		return
	case kGlobal, kNonlocal:
		if sc.kind == scopeFunction && n.kind == kGlobal {
			for ch := n.first; ch >= 0; ch = t.nodes[ch].next {
				if t.nodes[ch].kind == kIdentifier {
					if sc.global == nil {
						sc.global = map[string]bool{}
					}
					sc.global[c.str(ch)] = true
				}
			}
		}
		return
	case kReturn:
		if fs := sc; fs.kind == scopeFunction && fs.def != nil {
			if v := t.firstNamed(i); v >= 0 {
				fs.def.returns = append(fs.def.returns, c.conv(v, sc))
			}
		}
	case kAwait:
		// await x calls x.__await__() (the awaitable protocol), as `with` calls
		// __enter__: async_generator's `await ANextIter(...)` reaches
		// ANextIter.__await__. A class without __await__ (a coroutine's value is not
		// modelled) gives nothing.
		if v := t.firstNamed(i); v >= 0 {
			c.site(caller, int32(n.row)+1, true, c.newExpr(exprSpec{op: eProto, x: c.conv(v, sc), nm: c.intern("__await__")}), nil)
		}
	case kYield:
		for s := sc; s != nil; s = s.parent {
			if s.kind == scopeFunction {
				if d := s.def; d != nil {
					d.yields = true
					if v := t.firstNamed(i); v >= 0 && s == sc {
						e := c.conv(v, sc)
						if ch := t.nodes[i].first; ch >= 0 && t.nodes[ch].next >= 0 && t.isToken(t.nodes[ch].next, "from") {
							e = c.newExpr(exprSpec{op: eIter, x: e}) // yield from
						}
						d.yieldVals = append(d.yieldVals, e)
					}
				}
				break
			}
			if s.kind != scopeLambda {
				break
			}
		}
	}
	c.visitChildren(i, sc, caller, cond)
}

// narrowIf records the isinstance narrowings of if statement i in a function scope: in
// `if isinstance(x, C):` (x a local name or parameter, C a class or a tuple of classes) x
// holds only instances of C in the body, and none in the elif and else clauses; `not
// isinstance` swaps the two. When the body always leaves (return, raise, continue,
// break) and there is no else clause, x holds no instance of C after the statement, up
// to the end of the enclosing block. Narrowings are bindings valid over a range of
// positions (binding.until), so assignments inside the branches still reach the code
// after the statement.
func (c *collector) narrowIf(i int32, sc *scope) {
	t := c.t
	if sc.kind != scopeFunction {
		return
	}
	cond := t.firstNamed(i)
	name, classes, attr, neg := c.isinstanceTest(cond, sc)
	identity, flag := false, false
	if name < 0 {
		name, classes, neg = c.identityTest(cond, sc)
		identity = true
	}
	if name < 0 {
		name, attr, neg = c.flagTest(cond)
		identity, flag = false, true
	}
	if name < 0 {
		name, neg = c.truthTest(cond)
		identity, flag, attr = false, true, ""
	}
	if name < 0 {
		return
	}
	var body int32 = -1
	var alts []int32
	for ch := t.nodes[cond].next; ch >= 0; ch = t.nodes[ch].next {
		switch t.nodes[ch].kind {
		case kBlock:
			if body < 0 {
				body = ch
			}
		case kElif, kElse:
			alts = append(alts, ch)
		}
	}
	if body < 0 {
		return
	}
	id := c.str(name)
	if !sc.binds(id) && sc.def != nil {
		// only names the function binds (parameters, locals): a global's narrowing
		// would have to be visible to the other functions too
		return
	}
	pre := c.newExpr(exprSpec{op: eName, nm: c.intern(id), ref: inScope(sc), pos: t.nodes[i].start})
	narrowed := func(keep bool) *expr {
		return c.newExpr(exprSpec{op: eNarrow, x: pre, pos: flags(keep, flag, identity), nm: c.intern(attr), ref: withLit(litOf(classes))})
	}
	if len(alts) == 0 && !c.leaves(body) && c.rebinds(body, id) {
		// The body always rebinds x, so what falls through past the statement unchanged
		// is x narrowed the other way, joined by the body's own (conditional) bindings:
		// hyperlink's DecodedURL.click, `if isinstance(href, DecodedURL): href =
		// href._url`, passes href on holding no DecodedURL. Bound first, at the body's
		// start, so that inside the body the body's narrowing (same position, bound
		// after) is the one that counts.
		if p := t.nodes[i].parent; p >= 0 && t.nodes[p].end > t.nodes[i].end {
			c.bindName(sc, id, binding{pos: t.nodes[body].start, until: t.nodes[p].end, val: narrowed(neg)})
		}
	}
	c.bindName(sc, id, binding{pos: t.nodes[body].start, until: t.nodes[body].end, val: narrowed(!neg)})
	if len(alts) > 0 && c.leaves(body) {
		// Every path past the statement went through the elif and else clauses, where x
		// is narrowed the other way: so is what falls through, joined by the clauses'
		// own bindings. parameterized's param.from_decorator, `if isinstance(args,
		// param): return args` then `elif isinstance(args, string_types): args =
		// (args, )`, formats no param in its later error message. Bound at the first
		// clause's start, before the clauses' narrowings (same position, bound after,
		// which count inside them), so that the assignments in the clauses still reach
		// past the statement.
		if p := t.nodes[i].parent; p >= 0 && t.nodes[p].end > t.nodes[i].end {
			c.bindName(sc, id, binding{pos: t.nodes[alts[0]].start, until: t.nodes[p].end, val: narrowed(neg)})
		}
	}
	for _, a := range alts {
		c.bindName(sc, id, binding{pos: t.nodes[a].start, until: t.nodes[a].end, val: narrowed(neg)})
	}
	if len(alts) == 0 && c.leaves(body) {
		if p := t.nodes[i].parent; p >= 0 && t.nodes[p].end > t.nodes[i].end {
			c.bindName(sc, id, binding{pos: t.nodes[i].end, until: t.nodes[p].end, val: narrowed(neg)})
		}
	}
}

// narrowClassName records the narrowing of an if or elif clause i whose condition
// compares the class name of a name the function binds with a string, `x.__class__.__name__
// == 'N'` or `type(x).__name__ == 'N'` (either side): in the clause's body x is an
// instance of a class named N, and nothing else, whatever flowed into x. castellan's
// BarbicanKeyManager._get_keystone_auth reads the properties of the credential it is
// given in branches `if context.__class__.__name__ == 'KeystonePassword':` / `elif ...
// == 'KeystoneToken':`, and its callers pass credentials made outside the package.
func (c *collector) narrowClassName(i int32, sc *scope) {
	t := c.t
	if sc.kind != scopeFunction || sc.def == nil {
		return
	}
	name, cls := c.classNameTest(t.firstNamed(i), sc)
	if name < 0 {
		return
	}
	body := t.child(i, kBlock)
	if body < 0 {
		return
	}
	id := c.str(name)
	pre := c.newExpr(exprSpec{op: eName, nm: c.intern(id), ref: inScope(sc), pos: t.nodes[i].start})
	val := c.newExpr(exprSpec{op: eNarrow, x: pre, pos: flags(true, true, true), nm: c.intern(cls)})
	c.bindName(sc, id, binding{pos: t.nodes[body].start, until: t.nodes[body].end, val: val})
}

// classNameTest recognises `x.__class__.__name__ == 'N'` and `type(x).__name__ == 'N'`
// (operands in either order, x a name the scope binds): it returns x's node and N, or -1.
func (c *collector) classNameTest(cond int32, sc *scope) (name int32, cls string) {
	t := c.t
	if cond >= 0 && t.nodes[cond].kind == kParenthesized {
		cond = t.firstNamed(cond)
	}
	if cond < 0 || t.nodes[cond].kind != kCompareOp {
		return -1, ""
	}
	var operands []int32
	tok := ""
	for ch := t.nodes[cond].first; ch >= 0; ch = t.nodes[ch].next {
		switch n := &t.nodes[ch]; {
		case n.extra:
		case !n.named:
			tok += t.symName(ch)
		default:
			operands = append(operands, ch)
		}
	}
	if len(operands) != 2 || tok != "==" {
		return -1, ""
	}
	for k, o := range operands {
		s, ok := stringLit(t, operands[1-k])
		if !ok || s == "" {
			continue
		}
		if x := c.classNameOf(o); x >= 0 && sc.binds(c.str(x)) {
			return x, s
		}
	}
	return -1, ""
}

// classNameOf returns x's node when i is `x.__class__.__name__` or `type(x).__name__`
// with x a name, else -1.
func (c *collector) classNameOf(i int32) int32 {
	t := c.t
	if t.nodes[i].kind != kAttribute {
		return -1
	}
	obj := t.firstNamed(i)
	if at := t.firstNamedAfter(obj); at < 0 || !t.textEq(at, "__name__") {
		return -1
	}
	switch t.nodes[obj].kind {
	case kAttribute:
		x := t.firstNamed(obj)
		if at := t.firstNamedAfter(x); x >= 0 && t.nodes[x].kind == kIdentifier && at >= 0 && t.textEq(at, "__class__") {
			return x
		}
	case kCall:
		fn := t.firstNamed(obj)
		if fn < 0 || t.nodes[fn].kind != kIdentifier || !t.textEq(fn, "type") {
			return -1
		}
		if al := t.nodes[fn].next; al >= 0 && t.nodes[al].kind == kArgumentList {
			if args := t.namedChildren(al, nil); len(args) == 1 && t.nodes[args[0]].kind == kIdentifier {
				return args[0]
			}
		}
	}
	return -1
}

// narrowBool records the isinstance narrowing of a boolean operation i whose left
// operand tests a name the enclosing function or lambda binds: in `isinstance(x, C) and
// E`, E runs only where x is a C, so x holds only instances of C in E; in `not
// isinstance(x, C) or E` the same, and the two other forms narrow the other way. pycadf's
// validators, `lambda x: isinstance(x, reason.Reason) and x.is_valid()`, are handed
// every value stored through any descriptor, and call is_valid on Reasons only.
func (c *collector) narrowBool(i int32, sc *scope) {
	t := c.t
	if sc.kind != scopeFunction && sc.kind != scopeLambda {
		return
	}
	var left, right int32 = -1, -1
	op := ""
	for ch := t.nodes[i].first; ch >= 0; ch = t.nodes[ch].next {
		switch n := &t.nodes[ch]; {
		case n.extra:
		case !n.named:
			op = t.symName(ch)
		case left < 0:
			left = ch
		default:
			right = ch
		}
	}
	if right < 0 || op != "and" && op != "or" {
		return
	}
	name, classes, attr, neg := c.isinstanceTest(left, sc)
	if name < 0 {
		return
	}
	id := c.str(name)
	if !sc.binds(id) || sc.kind == scopeFunction && sc.def == nil {
		return
	}
	keep := !neg // and: the right operand runs where the test holds
	if op == "or" {
		keep = neg
	}
	pre := c.newExpr(exprSpec{op: eName, nm: c.intern(id), ref: inScope(sc), pos: t.nodes[i].start})
	val := c.newExpr(exprSpec{op: eNarrow, x: pre, pos: flags(keep, false, false), nm: c.intern(attr), ref: withLit(litOf(classes))})
	c.bindName(sc, id, binding{pos: t.nodes[right].start, until: t.nodes[right].end, val: val})
}

// isinstanceTest recognises `isinstance(x, C)` and `not isinstance(x, C)` with x a name:
// it returns x's node, the class expressions and whether the test is negated, or -1.
// `hasattr(x, "a")` is recognised too: attr is then "a" and there are no classes.
func (c *collector) isinstanceTest(cond int32, sc *scope) (name int32, classes []*expr, attr string, neg bool) {
	t := c.t
	cond, neg = c.unwrapNot(cond)
	if cond < 0 || t.nodes[cond].kind != kCall {
		return -1, nil, "", false
	}
	fn := t.firstNamed(cond)
	if fn < 0 || t.nodes[fn].kind != kIdentifier || !t.textEq(fn, "isinstance") && !t.textEq(fn, "hasattr") {
		return -1, nil, "", false
	}
	al := t.nodes[fn].next
	if al < 0 || t.nodes[al].kind != kArgumentList {
		return -1, nil, "", false
	}
	args := t.namedChildren(al, nil)
	if len(args) != 2 || t.nodes[args[0]].kind != kIdentifier {
		return -1, nil, "", false
	}
	if t.textEq(fn, "hasattr") {
		if k, ok := constKey(t, args[1]); ok && k[0] == 's' && k != "s" {
			return args[0], nil, k[1:], neg
		}
		return -1, nil, "", false
	}
	cl := args[1]
	if t.nodes[cl].kind == kParenthesized {
		cl = t.firstNamed(cl)
	}
	if cl >= 0 && t.nodes[cl].kind == kTuple {
		for _, el := range t.namedChildren(cl, nil) {
			classes = append(classes, c.conv(el, sc))
		}
	} else if cl >= 0 {
		classes = append(classes, c.conv(cl, sc))
	}
	return args[0], classes, "", neg
}

// identityTest recognises `x is C`, `x == C`, `x in (C, D)` (a tuple or list literal)
// and their negations (`is not`, `!=`, `not in`, `not ...`) with x a name: it returns x's
// node, the expressions compared with and whether the test is negated, or -1.
func (c *collector) identityTest(cond int32, sc *scope) (name int32, vals []*expr, neg bool) {
	t := c.t
	cond, neg = c.unwrapNot(cond)
	if cond < 0 || t.nodes[cond].kind != kCompareOp {
		return -1, nil, false
	}
	var operands []int32
	tok := ""
	for ch := t.nodes[cond].first; ch >= 0; ch = t.nodes[ch].next {
		switch n := &t.nodes[ch]; {
		case n.extra:
		case !n.named:
			if len(operands) != 1 {
				return -1, nil, false
			}
			if tok != "" {
				tok += " "
			}
			tok += t.symName(ch)
		default:
			operands = append(operands, ch)
		}
	}
	if len(operands) != 2 || t.nodes[operands[0]].kind != kIdentifier {
		return -1, nil, false
	}
	rhs := operands[1]
	switch tok {
	case "is", "==":
	case "is not", "!=":
		neg = !neg
	case "in", "not in":
		if tok == "not in" {
			neg = !neg
		}
		if t.nodes[rhs].kind == kParenthesized {
			rhs = t.firstNamed(rhs)
		}
		if rhs < 0 || t.nodes[rhs].kind != kTuple && t.nodes[rhs].kind != kList {
			return -1, nil, false
		}
		for _, el := range t.namedChildren(rhs, nil) {
			vals = append(vals, c.conv(el, sc))
		}
		return operands[0], vals, neg
	default:
		return -1, nil, false
	}
	return operands[0], []*expr{c.conv(rhs, sc)}, neg
}

// flagTest recognises the truth test `x.attr` (or `not x.attr`) with x a name: it
// returns x's node, attr and whether the test is negated, or -1.
func (c *collector) flagTest(cond int32) (name int32, attr string, neg bool) {
	t := c.t
	cond, neg = c.unwrapNot(cond)
	if cond < 0 || t.nodes[cond].kind != kAttribute {
		return -1, "", false
	}
	obj := t.firstNamed(cond)
	if obj < 0 || t.nodes[obj].kind != kIdentifier {
		return -1, "", false
	}
	at := t.firstNamedAfter(obj)
	if at < 0 || t.nodes[at].kind != kIdentifier {
		return -1, "", false
	}
	return obj, c.str(at), neg
}

// unwrapNot strips the `not` operators and parentheses around cond: it returns the
// expression inside and whether an odd number of `not`s negated it.
func (c *collector) unwrapNot(cond int32) (int32, bool) {
	t, neg := c.t, false
	for cond >= 0 && (t.nodes[cond].kind == kNotOp || t.nodes[cond].kind == kParenthesized) {
		if t.nodes[cond].kind == kNotOp {
			neg = !neg
		}
		cond = t.firstNamed(cond)
	}
	return cond, neg
}

// truthTest recognises the truth test of a name, `x` or `not x`: it returns x's node and
// whether the test is negated, or -1.
func (c *collector) truthTest(cond int32) (name int32, neg bool) {
	t := c.t
	cond, neg = c.unwrapNot(cond)
	if cond < 0 || t.nodes[cond].kind != kIdentifier {
		return -1, false
	}
	return cond, neg
}

// leaves reports whether block b always leaves it: its last statement is a return,
// raise, continue or break.
func (c *collector) leaves(b int32) bool {
	t := c.t
	var last int32 = -1
	for ch := t.nodes[b].first; ch >= 0; ch = t.nodes[ch].next {
		if t.nodes[ch].named && !t.nodes[ch].extra {
			last = ch
		}
	}
	if last < 0 {
		return false
	}
	switch t.nodes[last].kind {
	case kReturn, kRaise:
		return true
	case kIf:
		return c.ifLeaves(last)
	}
	switch t.symName(last) {
	case "continue_statement", "break_statement":
		return true
	}
	return false
}

// rebinds reports whether block b assigns name at its own level (`name = ...` as one
// of its statements, not nested in another statement), so that every path through b
// that reaches its end has rebound name.
func (c *collector) rebinds(b int32, name string) bool {
	t := c.t
	for ch := t.nodes[b].first; ch >= 0; ch = t.nodes[ch].next {
		if t.nodes[ch].kind != kExpressionStatement {
			continue
		}
		a := t.firstNamed(ch)
		if a < 0 || t.nodes[a].kind != kAssignment {
			continue
		}
		if l := t.firstNamed(a); l >= 0 && t.nodes[l].kind == kIdentifier && c.str(l) == name {
			return true
		}
	}
	return false
}

// ifLeaves reports whether if statement i always leaves: it has an else clause, and its
// body and every elif and else block leave (hyperlink's `_textcheck`: `if not
// isinstance(value, Text): if nullable and value is None: return value / else: raise
// TypeError(...)`, after which value is a str).
func (c *collector) ifLeaves(i int32) bool {
	t := c.t
	cond := t.firstNamed(i)
	if cond < 0 {
		return false
	}
	hasElse := false
	for ch := t.nodes[cond].next; ch >= 0; ch = t.nodes[ch].next {
		switch t.nodes[ch].kind {
		case kBlock:
			if !c.leaves(ch) {
				return false
			}
		case kElif, kElse:
			hasElse = hasElse || t.nodes[ch].kind == kElse
			b := t.nodes[ch].first
			for b >= 0 && t.nodes[b].kind != kBlock {
				b = t.nodes[b].next
			}
			if b < 0 || !c.leaves(b) {
				return false
			}
		}
	}
	return hasElse
}

// lambda returns the value of lambda expression i (evaluated in scope sc): a hidden
// definition, not a node of the graph, whose parameters receive the arguments of the
// calls that reach it and whose result is its body's value. Its calls belong to the
// enclosing definition. It is memoised per node, as the lambda is both converted as a
// value and visited for its calls.
func (c *collector) lambda(i int32, sc *scope) *expr {
	if e := c.sc.callMemo[i]; e != nil {
		return e
	}
	defer c.persistent()()
	t := c.t
	ld := &defInfo{file: c.f, simple: "<lambda>", qual: "<lambda>", outer: sc, lambda: true}
	ld.fn.Kind = task.KindFunction
	for s := sc; s != nil; s = s.parent {
		if s.def != nil {
			ld.parent = s.def
			break
		}
	}
	ls := c.newScope(scopeLambda, sc, nil)
	ld.scope = ls
	if p := t.child(i, kLambdaParameters); p >= 0 {
		ld.params = c.params(p, sc, nil)
	}
	// `name = lambda self: ...` in a class body is a method: its first parameter is the
	// instance it is called on (transaction's `__enter__ = lambda self: self.begin()`)
	if sc.kind == scopeClass && sc.def != nil && len(ld.params) > 0 && !ld.params[0].star {
		if p := t.nodes[i].parent; p >= 0 && t.nodes[p].kind == kAssignment {
			var right int32 = -1 // the assigned value: the assignment's last named child
			for ch := t.nodes[p].first; ch >= 0; ch = t.nodes[ch].next {
				if t.nodes[ch].named && !t.nodes[ch].extra {
					right = ch
				}
			}
			if right == i {
				ld.class = sc.def
			}
		}
	}
	for k := range ld.params {
		v := c.newExpr(exprSpec{op: eParam, ref: inScope(ld.ref()), pos: idxPos(int32(k))})
		if k == 0 && ld.class != nil {
			v = c.newExpr(exprSpec{op: eSelf, ref: inScope(ld.ref())})
		}
		ls.bind(ld.params[k].name, binding{pos: 0, val: v})
	}
	e := c.newExpr(exprSpec{op: eDef, ref: inScope(ld.ref())})
	c.sc.callMemo[i] = e
	var body int32 = -1
	for ch := t.nodes[i].first; ch >= 0; ch = t.nodes[ch].next {
		if t.nodes[ch].named && !t.nodes[ch].extra && t.nodes[ch].kind != kLambdaParameters {
			body = ch
		}
	}
	if body >= 0 {
		ld.returns = append(ld.returns, c.conv(body, ls))
	}
	return e
}

// iterOf returns the iterable after `in` of loop target l and the value of the target:
// an element of the iterable when the target is a plain name (nil otherwise).
func (c *collector) iterOf(l int32, sc *scope) (iterable, elem *expr) {
	t := c.t
	r := t.firstNamedAfter(l)
	if r < 0 {
		return nil, nil
	}
	iterable = c.conv(r, sc)
	// a tuple target (`for key, fn in pairs:`) unpacks each element: bindTarget
	// subscripts the element by position
	return iterable, c.newExpr(exprSpec{op: eIter, x: iterable})
}

// protoIter records the implicit calls of iterating over iterable in the loop or
// comprehension clause i: iterable.__iter__() and __next__() of what that returns
// (__aiter__ and __anext__ for async loops).
func (c *collector) protoIter(i int32, iterable *expr, caller *defInfo) {
	if iterable == nil || iterable.op == eUnknown || iterable.op == eSeq || iterable.op == eDict {
		return
	}
	iterName, nextName := "__iter__", "__next__"
	if c.isAsync(i) {
		iterName, nextName = "__aiter__", "__anext__"
	}
	line := int(c.t.nodes[i].row) + 1
	defer c.lazyOnly()()
	m := c.newExpr(exprSpec{op: eProto, x: iterable, nm: c.intern(iterName)})
	it := c.newExpr(exprSpec{op: eCall, x: m})
	c.lazyOf(caller, lazySite{kind: lzReady, x: m, line: int32(line)})
	c.lazyOf(caller, lazySite{kind: lzReady, x: c.newExpr(exprSpec{op: eProto, x: it, nm: c.intern(nextName)}), line: int32(line)})
}

// isAsync reports whether loop or with item i belongs to an `async for` / `async with`:
// its statement (or, for a with item, the statement two levels up) starts with async.
func (c *collector) isAsync(i int32) bool {
	t := c.t
	if t.nodes[i].kind == kWithItem {
		for k := 0; k < 2 && i >= 0; k++ {
			i = t.nodes[i].parent
		}
		if i < 0 {
			return false
		}
	}
	f := t.nodes[i].first
	return f >= 0 && !t.nodes[f].named && t.symName(f) == "async"
}

// bindName binds a name in sc, or in the module scope if sc declares it global.
func (c *collector) bindName(sc *scope, name string, b binding) {
	if sc.kind == scopeFunction && sc.global[name] {
		b.pos, b.cond = ^uint32(0), true
		c.f.scope.bind(name, b)
		return
	}
	sc.bind(name, b)
}

// bindTarget binds an assignment target to val (nil: an unknown value). Tuple targets are
// matched element-wise against tuple values of the same length.
func (c *collector) bindTarget(i int32, val *expr, sc *scope, pos uint32, cond bool) {
	if i < 0 {
		return
	}
	t := c.t
	switch t.nodes[i].kind {
	case kIdentifier:
		if val == nil {
			val = unknownExpr
		}
		c.bindName(sc, c.str(i), binding{pos: pos, cond: cond, val: val})
	case kPatternList, kTuple, kList, kExprList, kParenthesized:
		elems := t.namedChildren(i, nil)
		star := -1
		for k, e := range elems {
			if kk := t.nodes[e].kind; kk == kListSplatPattern || kk == kListSplat {
				star = k
				break
			}
		}
		for k, e := range elems {
			var ev *expr
			switch {
			case val == nil:
			case val.op == eSeq && star < 0 && len(val.lit().elems()) == len(elems):
				ev = val.lit().elems()[k]
			case val.op == eSeq && star >= 0 && len(val.lit().elems()) >= len(elems)-1:
				// a, *rest, z = literal: rest takes the middle elements as a list
				rest := len(val.lit().elems()) - (len(elems) - 1)
				switch {
				case k < star:
					ev = val.lit().elems()[k]
				case k == star:
					ev = c.newExpr(exprSpec{op: eSeq, ref: withLit(litOf(val.lit().elems()[star : star+rest]))})
				default:
					ev = val.lit().elems()[k-1+rest]
				}
			case val.op != eSeq && val.op != eUnknown && (star < 0 || k < star):
				// unpacking another value (a call's result, a variable): its k-th element
				// (positions after a starred target are unknown)
				ev = c.newExpr(exprSpec{op: eSubscript, x: val, nm: c.intern("i" + strconv.Itoa(k)), pos: keyOKBit})
			}
			if k == star {
				c.bindTarget(t.firstNamed(e), ev, sc, pos, cond)
				continue
			}
			c.bindTarget(e, ev, sc, pos, cond)
		}
	case kListSplatPattern, kListSplat:
		c.bindTarget(t.firstNamed(i), nil, sc, pos, cond)
	case kAttribute:
		// self.x = v in a method records an instance attribute of the class; any other
		// obj.x = v is resolved later (resolver.applyStores).
		if val == nil {
			return
		}
		attr := lastIdent(t, i)
		obj := t.nodes[i].first
		if attr == "" || obj < 0 {
			return
		}
		if c.sc.names.prop(attr) && c.caller != nil {
			end := c.lazyOnly()
			c.lazy(lazySite{kind: lzAttr, op: 1, x: c.newExpr(exprSpec{op: eAttr, x: c.conv(obj, sc), nm: c.intern(attr)}), line: int32(t.nodes[i].row) + 1})
			end()
		}
		if c.sc.names.descr(attr, descrSet) && c.caller != nil {
			c.descrSite(c.conv(obj, sc), attr, 1, val, int32(t.nodes[i].row)+1)
		}
		if c.caller != nil {
			c.attrHook(i, sc, 1)
		}
		if t.nodes[obj].kind == kIdentifier {
			name := c.str(obj)
			for s := sc; s != nil; s = s.parent {
				if s.kind != scopeFunction {
					continue
				}
				if s.selfName != "" && s.selfName == name && s.def.class != nil {
					cf := s.def.class.cfactsFor()
					if cf.instAttrs == nil {
						cf.instAttrs = map[string][]*expr{}
					}
					cf.instAttrs[attr] = append(cf.instAttrs[attr], val)
					if !cond && s == sc && s.def != nil && s.def.simple == "__init__" {
						// set on every instance: it shadows a class attribute of that name
						if cf.initAttrs == nil {
							cf.initAttrs = map[string]bool{}
						}
						cf.initAttrs[attr] = true
					}
					return
				}
				break
			}
		}
		c.f.attrStores = append(c.f.attrStores, attrStore{obj: c.conv(obj, sc), name: attr, val: val})
	}
}

func lastIdent(t *tree, i int32) string {
	var last int32 = -1
	for ch := t.nodes[i].first; ch >= 0; ch = t.nodes[ch].next {
		if t.nodes[ch].kind == kIdentifier {
			last = ch
		}
	}
	if last < 0 || last == t.nodes[i].first {
		return ""
	}
	return t.text(last)
}

// assignment binds `a = b = value` and `a: T = value`.
func (c *collector) assignment(i int32, sc *scope, cond bool) {
	t := c.t
	var targets []int32
	cur := i
	var right int32 = -1
	for {
		l := t.firstNamed(cur)
		if l < 0 {
			return
		}
		targets = append(targets, l)
		right = -1
		sawEq := false
		for ch := t.nodes[l].next; ch >= 0; ch = t.nodes[ch].next {
			if !t.nodes[ch].named && t.symName(ch) == "=" {
				sawEq = true
				continue
			}
			if sawEq && t.nodes[ch].named && !t.nodes[ch].extra {
				right = ch
				break
			}
		}
		if right >= 0 && t.nodes[right].kind == kAssignment {
			cur = right
			continue
		}
		break
	}
	if right < 0 {
		return // annotation only
	}
	val := c.conv(right, sc)
	end := t.nodes[i].end
	for _, tg := range targets {
		if sc.kind == scopeModule && t.nodes[tg].kind == kIdentifier && t.textEq(tg, "__all__") {
			c.allNames(right, false)
		}
		if t.nodes[tg].kind == kSubscript {
			// x[k] = v stores v into the container x, or calls x.__setitem__(k, v)
			if st := c.conv(tg, sc); st.op == eSubscript {
				c.f.stores = append(c.f.stores, store{x: st.sub(), key: st.name(), keyOK: st.keyOK(), val: val, sub: st})
				c.dictStore(st, sc, val, cond)
			}
			c.subscript(tg, sc, 1, val)
			continue
		}
		c.bindTarget(tg, val, sc, end, cond)
	}
}

// dictStore records self.__dict__['name'] = v in a method (self its first parameter) as
// an instance attribute name of the method's class, as self.name = v would be: a class
// whose __setattr__ refuses stores sets its attributes so (lazr.config's Section), and
// reads of self.name then find them without the __getattr__ fallback.
func (c *collector) dictStore(st *expr, sc *scope, val *expr, cond bool) {
	d := st.sub()
	if !st.keyOK() || d == nil || d.op != eAttr || d.name() != "__dict__" || d.sub() == nil || d.sub().op != eName {
		return
	}
	attr, isStr := strings.CutPrefix(st.name(), "s")
	if !isStr || attr == "" || sc.kind != scopeFunction || sc.selfName == "" || sc.def.class == nil || d.sub().name() != sc.selfName {
		return
	}
	cf := sc.def.class.cfactsFor()
	if cf.instAttrs == nil {
		cf.instAttrs = map[string][]*expr{}
	}
	cf.instAttrs[attr] = append(cf.instAttrs[attr], val)
	if !cond && sc.def != nil && sc.def.simple == "__init__" {
		if cf.initAttrs == nil {
			cf.initAttrs = map[string]bool{}
		}
		cf.initAttrs[attr] = true
	}
}

// allNames records the string literals of a module-level __all__ list.
func (c *collector) allNames(i int32, add bool) {
	if i < 0 {
		return
	}
	t := c.t
	for i >= 0 && !t.nodes[i].named {
		i = t.nodes[i].next
	}
	if i < 0 {
		return
	}
	switch t.nodes[i].kind {
	case kList, kTuple, kSet:
	default:
		return
	}
	if !add {
		c.f.all = nil
	}
	c.f.hasAll = true
	for _, e := range t.namedChildren(i, nil) {
		if s, ok := stringLit(t, e); ok {
			c.f.all = append(c.f.all, s)
		}
	}
}

// stringLit returns the value of a plain string literal without escapes or interpolation.
func stringLit(t *tree, i int32) (string, bool) {
	return plainLit(t, i, false)
}

// plainLit returns the text of a literal without interpolation: a str literal (no f or b
// prefix), or with bytes a bytes literal (a b prefix, no f or r prefix, no backslash).
func plainLit(t *tree, i int32, bytes bool) (string, bool) {
	if t.nodes[i].kind != kString {
		return "", false
	}
	var sb strings.Builder
	for ch := t.nodes[i].first; ch >= 0; ch = t.nodes[ch].next {
		switch t.symName(ch) {
		case "string_start":
			st := t.text(ch)
			if bytes && (!strings.ContainsAny(st, "bB") || strings.ContainsAny(st, "fFrR")) || !bytes && strings.ContainsAny(st, "fFbB") {
				return "", false
			}
		case "string_content":
			if t.nodes[ch].first >= 0 || bytes && strings.ContainsRune(t.text(ch), '\\') {
				return "", false
			}
			sb.WriteString(t.text(ch))
		case "string_end":
		default:
			return "", false
		}
	}
	return sb.String(), true
}

// importStmt binds the names an import statement introduces.
func (c *collector) importStmt(i int32, sc *scope, cond bool) {
	t := c.t
	n := &t.nodes[i]
	pos := n.end
	switch n.kind {
	case kImport:
		for ch := n.first; ch >= 0; ch = t.nodes[ch].next {
			switch t.nodes[ch].kind {
			case kDottedName:
				full := c.str(ch)
				first := full
				if k := strings.IndexByte(full, '.'); k >= 0 {
					first = full[:k]
				}
				c.bindName(sc, first, binding{pos: pos, cond: cond, val: c.newExpr(exprSpec{op: eModule, nm: c.intern(first)})})
			case kAliasedImport:
				dn := t.child(ch, kDottedName)
				alias := t.nodes[ch].first
				for a := t.nodes[ch].first; a >= 0; a = t.nodes[a].next {
					if t.nodes[a].kind == kIdentifier {
						alias = a
					}
				}
				if dn >= 0 && alias >= 0 && t.nodes[alias].kind == kIdentifier {
					c.bindName(sc, c.str(alias), binding{pos: pos, cond: cond, val: c.newExpr(exprSpec{op: eModule, nm: c.intern(cleanDotted(c.str(dn)))})})
				}
			}
		}
	case kImportFrom:
		level, mod := 0, ""
		ch := n.first
		// the module part follows `from`
		for ; ch >= 0; ch = t.nodes[ch].next {
			k := t.nodes[ch].kind
			if k == kDottedName {
				mod = cleanDotted(c.str(ch))
				ch = t.nodes[ch].next
				break
			}
			if k == kRelativeImport {
				for r := t.nodes[ch].first; r >= 0; r = t.nodes[r].next {
					switch t.nodes[r].kind {
					case kImportPrefix:
						level = strings.Count(c.str(r), ".")
					case kDottedName:
						mod = cleanDotted(c.str(r))
					}
				}
				ch = t.nodes[ch].next
				break
			}
		}
		if c.sc.names.dunder("__getattr__") && (mod != "" || level > 0) {
			// the import looks up M.__path__: a module's own __getattr__ answers
			end := c.lazyOnly()
			c.lazy(lazySite{kind: lzModuleGetattr, x: c.newExpr(exprSpec{op: eFrom, pos: idxPos(int32(level)), nm: c.intern("__getattr__"), x: c.newExpr(exprSpec{op: eModule, nm: c.intern(mod)}), ref: inScope(sc)}), line: int32(n.row) + 1})
			end()
		}
		for ; ch >= 0; ch = t.nodes[ch].next {
			switch t.nodes[ch].kind {
			case kWildcardImport:
				if sc.kind == scopeModule {
					c.f.stars = append(c.f.stars, starImport{level: level, mod: mod, pos: pos})
				}
			case kDottedName:
				name := c.str(ch)
				c.bindName(sc, name, binding{pos: pos, cond: cond, val: c.newExpr(exprSpec{op: eFrom, pos: idxPos(int32(level)), nm: c.intern(name), x: c.newExpr(exprSpec{op: eModule, nm: c.intern(mod)}), ref: inScope(sc)})})
			case kAliasedImport:
				dn := t.child(ch, kDottedName)
				var alias int32 = -1
				for a := t.nodes[ch].first; a >= 0; a = t.nodes[a].next {
					if t.nodes[a].kind == kIdentifier {
						alias = a
					}
				}
				if dn >= 0 && alias >= 0 {
					c.bindName(sc, c.str(alias), binding{pos: pos, cond: cond, val: c.newExpr(exprSpec{op: eFrom, pos: idxPos(int32(level)), nm: c.intern(c.str(dn)), x: c.newExpr(exprSpec{op: eModule, nm: c.intern(mod)}), ref: inScope(sc)})})
				}
			}
		}
	}
}

// cleanDotted removes whitespace and comments tree-sitter allows inside dotted names.
func cleanDotted(s string) string {
	if !strings.ContainsAny(s, " \t\\\n#") {
		return s
	}
	var parts []string
	for _, p := range strings.Split(s, ".") {
		p = strings.TrimSpace(p)
		if k := strings.IndexAny(p, " \t\\\n#"); k >= 0 {
			p = p[:k]
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, ".")
}

// abstractRaise reports whether raise statement i raises NotImplementedError (the class
// or a call of it) as the first statement of a function body, after its docstring.
func (c *collector) abstractRaise(i int32) bool {
	t := c.t
	e := t.firstNamed(i)
	if e >= 0 && t.nodes[e].kind == kCall {
		e = t.firstNamed(e)
	}
	if e < 0 || t.nodes[e].kind != kIdentifier || c.str(e) != "NotImplementedError" {
		return false
	}
	body := t.nodes[i].parent
	if body < 0 || t.nodes[body].kind != kBlock || t.nodes[body].parent < 0 || t.nodes[t.nodes[body].parent].kind != kFunctionDef {
		return false
	}
	for ch := t.nodes[body].first; ch >= 0 && ch != i; ch = t.nodes[ch].next {
		n := t.nodes[ch]
		if !n.named || n.extra {
			continue
		}
		if n.kind != kExpressionStatement || n.first < 0 || t.nodes[n.first].kind != kString {
			return false
		}
	}
	return true
}

// stubBody reports whether function body b does nothing: after its docstring, no
// statement, or one of pass, `...`, a bare return, or a return of None or of an empty
// {}, [] or () (blazarclient's OpenStackCommand.get_data is `pass`, BlazarCommand.args2body
// `return {}`).
func (c *collector) stubBody(b int32) bool {
	t := c.t
	doc := true
	stmts := 0
	for ch := t.nodes[b].first; ch >= 0; ch = t.nodes[ch].next {
		n := &t.nodes[ch]
		if !n.named || n.extra || n.kind == kComment {
			continue
		}
		if doc && n.kind == kExpressionStatement && n.first >= 0 && t.nodes[n.first].kind == kString {
			doc = false
			continue
		}
		doc = false
		stmts++
		if stmts > 1 {
			return false
		}
		switch n.kind {
		case kReturn:
			e := t.firstNamed(ch)
			if e < 0 {
				continue
			}
			if !c.emptyValue(e) {
				return false
			}
		case kExpressionStatement:
			if n.first < 0 || t.symName(n.first) != "ellipsis" {
				return false
			}
		default:
			if t.symName(ch) != "pass_statement" {
				return false
			}
		}
	}
	return true
}

// emptyValue reports whether expression e is None or an empty dict, list or tuple
// literal.
func (c *collector) emptyValue(e int32) bool {
	t := c.t
	switch t.nodes[e].kind {
	case kDict, kList, kTuple:
		return t.firstNamed(e) < 0
	case kLiteral:
		return t.symName(e) == "none"
	}
	return false
}

// caught returns what `except E as name:` binds name to: an instance of the project
// classes E (a class, or a tuple of classes) evaluates to; h11's
// `except LocalProtocolError as exc: exc._reraise_as_remote_protocol_error()`.
func (c *collector) caught(i int32, sc *scope) *expr {
	if i < 0 {
		return nil
	}
	var classes []*expr
	if c.t.nodes[i].kind == kTuple {
		for ch := c.t.nodes[i].first; ch >= 0; ch = c.t.nodes[ch].next {
			if nd := &c.t.nodes[ch]; nd.named && !nd.extra {
				classes = append(classes, c.newExpr(exprSpec{op: eClassOf, x: c.conv(ch, sc), pos: keyOKBit}))
			}
		}
	} else {
		classes = append(classes, c.newExpr(exprSpec{op: eClassOf, x: c.conv(i, sc), pos: keyOKBit}))
	}
	return c.newExpr(exprSpec{op: eCall, x: c.newExpr(exprSpec{op: eUnion, ref: withLit(litOf(classes))})})
}
