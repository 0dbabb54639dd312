package python

import (
	"cmp"
	"hash/maphash"
	"slices"
	"strings"
	"unsafe"

	"github.com/faultline-dev/faultline/callgraph"
	"github.com/faultline-dev/faultline/task"
)

// scopeKind classifies a lexical scope.
type scopeKind uint8

const (
	scopeModule scopeKind = iota
	scopeClass
	scopeFunction
	scopeLambda // lambdas and comprehensions: own names, calls folded into the enclosing definition
)

// binding is one assignment of a value expression to a name in a scope. It takes effect at
// byte offset pos (the end of the binding statement). cond marks bindings nested in a
// conditional or loop statement of their scope.
type binding struct {
	pos  uint32
	cond bool
	// until, when set, limits a narrowing binding (isinstance) to the positions before it:
	// there it is unconditional, from there on it does not exist
	until uint32
	val   *expr
}

// bound is a binding of a frozen scope (see nameTable): 16 bytes, the conditional mark
// kept in the high bit of until (a narrowing that would end past 2 GB into its file
// ends there).
type bound struct {
	val *expr
	pos uint32
	end uint32 // until, and condBit
}

const condBit = 1 << 31

// cond reports whether the binding is nested in a conditional or loop statement.
func (b *bound) cond() bool { return b.end&condBit != 0 }

// until is the position a narrowing binding ends at (0 if none: see binding.until).
func (b *bound) until() uint32 { return b.end &^ condBit }

// nameTable holds a scope's bindings, frozen once its file is collected (until then
// they are in the file's list, fileInfo.pend): one array sorted by name (sympy's ≈100k
// scopes held ≈45 MB of maps).
type nameTable struct {
	// the bindings of keys[k] (sorted) are binds[offs[k]:offs[k+1]], in the order they
	// were made
	keys  []string
	offs  []uint32
	binds []bound
	// index finds a name among keys without comparing strings along a binary search:
	// an open-addressing table (power-of-two length, at least twice len(keys)) of k+1
	// for keys[k], 0 for an empty slot; nil for tables of at most smallTable keys,
	// which are scanned
	index []uint32
}

// smallTable is the number of names up to which a frozen table is scanned instead of
// indexed.
const smallTable = 8

// nameSeed seeds the hash of nameTable.index (lookups only: no order depends on it).
var nameSeed = maphash.MakeSeed()

// pendBind is a binding made while its file is collected (see fileInfo.pend).
type pendBind struct {
	s    *scope
	name string
	b    binding
}

// freezeBindings freezes the name tables of the scopes bound in pend (a file's bindings
// in the order they were made; reordered here): each scope's run, sorted stably by name,
// becomes its arrays.
func freezeBindings(pend []pendBind) {
	slices.SortStableFunc(pend, func(a, b pendBind) int {
		if a.s != b.s {
			return cmp.Compare(uintptr(unsafe.Pointer(a.s)), uintptr(unsafe.Pointer(b.s)))
		}
		return strings.Compare(a.name, b.name)
	})
	for i := 0; i < len(pend); {
		j := i + 1
		for j < len(pend) && pend[j].s == pend[i].s {
			j++
		}
		pend[i].s.names.freeze(pend[i:j])
		i = j
	}
}

// freeze fills t's arrays from run, the bindings of its scope sorted stably by name.
func (t *nameTable) freeze(run []pendBind) {
	nkeys := 0
	for k := range run {
		if k == 0 || run[k].name != run[k-1].name {
			nkeys++
		}
	}
	t.keys = make([]string, 0, nkeys)
	t.offs = make([]uint32, 0, nkeys+1)
	t.binds = make([]bound, 0, len(run))
	for k := range run {
		p := &run[k]
		if k == 0 || p.name != run[k-1].name {
			t.keys = append(t.keys, p.name)
			t.offs = append(t.offs, uint32(len(t.binds)))
		}
		nb := bound{val: p.b.val, pos: p.b.pos, end: min(p.b.until, condBit-1)}
		if p.b.cond {
			nb.end |= condBit
		}
		t.binds = append(t.binds, nb)
	}
	t.offs = append(t.offs, uint32(len(t.binds)))
	if len(t.keys) > smallTable {
		size := 1
		for size < 2*len(t.keys) {
			size <<= 1
		}
		t.index = make([]uint32, size)
		mask := uint64(size - 1)
		for k, name := range t.keys {
			h := maphash.String(nameSeed, name) & mask
			for t.index[h] != 0 {
				h = (h + 1) & mask
			}
			t.index[h] = uint32(k + 1)
		}
	}
}

// find returns the position of name in the frozen t.keys.
func (t *nameTable) find(name string) (int, bool) {
	if t.index == nil {
		for k, key := range t.keys {
			if key == name {
				return k, true
			}
		}
		return 0, false
	}
	mask := uint64(len(t.index) - 1)
	for h := maphash.String(nameSeed, name) & mask; ; h = (h + 1) & mask {
		i := t.index[h]
		if i == 0 {
			return 0, false
		}
		if t.keys[i-1] == name {
			return int(i - 1), true
		}
	}
}

// bindings returns the bindings of name in s (frozen: see nameTable).
func (s *scope) bindings(name string) []bound {
	t := s.names
	if t == nil {
		return nil
	}
	if t.offs == nil {
		panic("python: a scope's bindings read before its file was collected")
	}
	k, ok := t.find(name)
	if !ok {
		return nil
	}
	return t.binds[t.offs[k]:t.offs[k+1]:t.offs[k+1]]
}

// binds reports whether s binds name, while its file is collected.
func (s *scope) binds(name string) bool {
	if s.names == nil {
		return false
	}
	for k := range *s.file.pend {
		if p := &(*s.file.pend)[k]; p.s == s && p.name == name {
			return true
		}
	}
	return false
}

// starImport is `from m import *` in a module scope (see fileInfo.stars).
type starImport struct {
	level int
	mod   string
	pos   uint32
	// the module's key, resolved once
	resolved, ok bool
	key          string
}

// scope is a lexical scope: a module, a class body, a function, a lambda or a comprehension.
type scope struct {
	kind   scopeKind
	parent *scope
	file   *fileInfo
	def    *defInfo        // the function or class owning the scope (nil for modules and lambdas)
	names  *nameTable      // nil while the scope binds nothing
	global map[string]bool // names declared global (function scopes)
	// selfName is the first parameter of an instance method (`self`), for recording
	// instance attributes (the method's class is then def.class)
	selfName string
}

func newScope(k scopeKind, parent *scope, f *fileInfo, d *defInfo) *scope {
	return &scope{kind: k, parent: parent, file: f, def: d}
}

func (s *scope) bind(name string, b binding) {
	if s.names == nil {
		s.names = &nameTable{}
	}
	*s.file.pend = append(*s.file.pend, pendBind{s: s, name: name, b: b})
}

// exprOp is the operation of a symbolic expression.
type exprOp uint8

const (
	eUnknown    exprOp = iota
	eName              // a name looked up in sc at pos
	eAttr              // x.name
	eCall              // the result of calling x
	eDef               // a definition (possibly decorated)
	eModule            // `import a.b` (name = the dotted module bound)
	eFrom              // `from <level dots><mod> import name`
	eParam             // parameter idx of def
	eSelf              // the self parameter of method def: an instance of its class or of a subclass it was called on
	eClass             // the cls parameter of class method def: its class, or a subclass it was called on
	eSuper             // super() inside method def: the classes after def's class in the order of self's class
	eSeq               // a list, tuple or set literal (elems)
	eDict              // a dict literal (keys, elems)
	eSubscript         // x[key]
	eUnion             // any of elems (a or b, a if c else b)
	eIter              // an element of iterating over x
	eConst             // an integer or plain string constant (name holds constKey's form)
	eProto             // the method name (a dunder) of the instances x evaluates to: implicit protocol calls; litExtra.keys, when set, are fallbacks tried in order when a class (with no base outside the project) lacks the method
	eClassOf           // the project classes x evaluates to (raise C: C is instantiated); with keyOK set (an except clause), also their subclasses the project instantiates
	eBuiltinArg        // x, when the builtin function called name (looked up in its scope, see expr.scope) is not rebound; with elems, when elems[0] (the callee, functools.reduce...) lies outside the project
	eNarrow            // x narrowed by isinstance(x, elems...): keyOK set keeps the instances of those classes, else drops them; with name set, by hasattr(x, name); with slice set, by identity (x is C, x in (C, D)): keyOK set drops the classes and functions x holds that are not among elems', else drops those that are; with raw set, by the truth of x.name where name is a class-level constant flag (keyOK: truthy); with raw and slice set, by the class name test x.__class__.__name__ == name (x is an instance of the project classes named name)
	ePartial           // functools.partial(x, ...): the functions x evaluates to, their argument positions unknown
	eTypeOf            // type(x): the classes of the project instances x evaluates to
	eGetattr           // getattr(x, elems[0][, elems[1]]) with builtin getattr looked up in its scope: x.<name> for each string constant elems[0] holds, or the default
	eDescr             // the descriptor method (idx 0 __get__, 1 __set__, 2 __delete__) of the descriptors that class attribute name of x's values holds: what reading, assigning or deleting x.name calls
	eInstances         // the project instances x evaluates to (a descriptor's inst argument: None when the attribute is read on the class); with raw set, x is a call and only the instances of the classes its callee evaluates to are kept (a comprehension's elements: see compElems)
	eFirst             // the values of the first of elems that evaluates to something (a call's argument for a parameter, else the parameter's merged flows: see substReturn)
	eAffix             // a string made of a constant prefix and suffix around unknown parts (`"%sCommand" % name`, `"on_" + name`): name holds prefix, a NUL and suffix; it evaluates to nothing, and bounds the names a key of globals() may select (see globalsItems)
)

// expr is a symbolic expression: what a name, an attribute or a call may evaluate to.
// Fields are used by op as documented on the ops; container data lives behind litData.
// An expression without an operand (a name, a constant, a definition's handle: sympy
// has ≈2.9M of its ≈4.3M expressions) is 16 bytes; one with an operand is the first
// field of an exprX, 24 bytes (see exprClass). The memo number takes 24 bits, the
// position and the index share a field, whose top bits hold the flags for the ops
// other than eName, and the name, the scope or literal data share one pointer field,
// laid out by the op's class.
type expr struct {
	op exprOp
	// memo numbers the expression's memo slot in its resolver (see resolver.memoOf), 0
	// while it was never evaluated: most expressions never are, so the memo lives
	// outside the expression and keeps it small
	memo [3]uint8
	// pos is eName's position (a byte offset); the other ops keep idx in its low 28
	// bits and their flags (keyOK, raw, slice, read) in the top four
	pos uint32
	// p holds the name (name: interned per file by the collector, a pointer instead of
	// a string header), the scope or definition's handle (scope) and the literal data
	// (lit) as the op's class says (opClasses):
	//
	//	clName   eName: its nameRec (the name and the scope); the other ops: the name
	//	clScoped the definition's handle (see defInfo.ref)
	//	clAttr   the name (the operand in the exprX)
	//	clLit    the literal data (the operand in the exprX)
	//	clTail   an exprTail holding the name and the scope (eFrom) or the literal
	//	         data (nil while both are); the operand in the exprX
	//
	// Read and write it only through the accessors.
	p unsafe.Pointer
}

// exprX is an expression whose op has an operand (clAttr, clLit, clTail): the operand
// follows the expression's fields. Such an expression is always allocated as an exprX
// (newExpr, mkExpr, clone), so that its *expr can be read as one (see expr.ext).
type exprX struct {
	expr
	x *expr
}

// nameRec is an eName's name and scope, shared by the file's names of the same
// identifier in the same scope (see collector.nameRec): sympy's ≈2.1M names have
// ≈0.45M pairs.
type nameRec struct {
	nm *string
	sc *scope
}

// exprTail holds the name and the scope or literal data of the ops of clTail, which
// may have an operand, a name and a scope or literal data together (sympy: ≈0.17M of
// the ≈4.3M expressions). An expression's tail is its own: the setters replace it
// rather than write into it, as copies of an expression (substReturn) share it.
type exprTail struct {
	nm  *string
	ref unsafe.Pointer
}

// exprClass says which of an expression's operand, name, scope and literal data its op
// uses, and so where they are kept (see expr.p).
type exprClass uint8

const (
	clNone   exprClass = iota // eUnknown: none
	clName                    // a name, and eName's scope
	clScoped                  // a definition's handle
	clAttr                    // an operand and a name
	clLit                     // an operand and literal data
	clTail                    // an operand, a name and a scope or literal data
)

// hasSub reports whether expressions of op have an operand (and so are exprX).
func (op exprOp) hasSub() bool {
	switch op.class() {
	case clAttr, clLit, clTail:
		return true
	}
	return false
}

// opClasses is the class of each op.
var opClasses = [...]exprClass{
	eUnknown:    clNone,
	eName:       clName,
	eAttr:       clAttr,
	eCall:       clLit,
	eDef:        clScoped,
	eModule:     clName,
	eFrom:       clTail,
	eParam:      clScoped,
	eSelf:       clScoped,
	eClass:      clScoped,
	eSuper:      clScoped,
	eSeq:        clLit,
	eDict:       clLit,
	eSubscript:  clTail,
	eUnion:      clLit,
	eIter:       clLit,
	eConst:      clName,
	eProto:      clTail,
	eClassOf:    clLit,
	eBuiltinArg: clTail,
	eNarrow:     clTail,
	ePartial:    clLit,
	eTypeOf:     clLit,
	eGetattr:    clLit,
	eDescr:      clTail,
	eInstances:  clLit,
	eFirst:      clLit,
	eAffix:      clName,
}

func (op exprOp) class() exprClass { return opClasses[op] }

// exprSpec is an expression spelled out field by field, as the collector and the
// resolver build them: newExpr and mkExpr pack it into an expr. x is the operand, nm the
// name, ref the scope (scoped ops) or the literal data (the others).
type exprSpec struct {
	op  exprOp
	pos uint32
	nm  *string
	x   *expr
	ref unsafe.Pointer
}

// pack lays s out as its op's class says, eName's name and scope in rec (allocated
// when nil); it panics when s sets a field the class has no room for. An op without
// an operand uses only the result's expr.
func (s exprSpec) pack(rec *nameRec) exprX {
	e := exprX{expr: expr{op: s.op, pos: s.pos}}
	bad := false
	switch s.op.class() {
	case clNone:
		bad = s.nm != nil || s.x != nil || s.ref != nil
	case clName:
		if s.op == eName {
			if rec == nil {
				rec = &nameRec{nm: s.nm, sc: (*scope)(s.ref)}
			}
			e.p = unsafe.Pointer(rec)
		} else {
			e.p = unsafe.Pointer(s.nm)
		}
		bad = s.x != nil || s.ref != nil && s.op != eName
	case clScoped:
		e.p = s.ref
		bad = s.nm != nil || s.x != nil
	case clAttr:
		e.x, e.p = s.x, unsafe.Pointer(s.nm)
		bad = s.ref != nil
	case clLit:
		e.x, e.p = s.x, s.ref
		bad = s.nm != nil
	case clTail:
		e.x = s.x
		if s.nm != nil || s.ref != nil {
			e.p = unsafe.Pointer(&exprTail{nm: s.nm, ref: s.ref})
		}
	}
	if bad {
		panic("python: an expression sets a field its op has no room for")
	}
	return e
}

// mkExpr allocates the expression s on its own (see collector.newExpr for the
// collector's).
func mkExpr(s exprSpec) *expr {
	return alloc(s.pack(nil))
}

// alloc allocates e on its own, as an exprX when its op has an operand.
func alloc(e exprX) *expr {
	if e.op.hasSub() {
		x := new(exprX)
		*x = e
		return &x.expr
	}
	x := new(expr)
	*x = e.expr
	return x
}

// clone returns a copy of e allocated on its own (its memo copied too).
func (e *expr) clone() *expr {
	if e.op.hasSub() {
		return alloc(*e.ext())
	}
	return alloc(exprX{expr: *e})
}

// ext is e as the exprX it is allocated as; only for an op with an operand.
func (e *expr) ext() *exprX { return (*exprX)(unsafe.Pointer(e)) }

// tail is the exprTail of an expression of clTail, nil if none.
func (e *expr) tail() *exprTail { return (*exprTail)(e.p) }

// The flags of the ops other than eName, in the top bits of expr.pos.
const (
	// keyOKBit: eSubscript's name holds a constant key; eNarrow: keep (see the op)
	keyOKBit = 1 << 31
	// rawBit: eDef is the definition itself, before its decorators apply; eNarrow: a
	// flag test
	rawBit = 1 << 30
	// sliceBit: eSubscript's key is a slice (idx is its constant start, -1 if
	// unknown); eCall has *args or **kwargs; eNarrow: an identity test
	sliceBit = 1 << 29
	// readBit: some subscript or iteration read the container (eSeq, eDict): values
	// stored into it matter
	readBit   = 1 << 28
	flagBits  = keyOKBit | rawBit | sliceBit | readBit
	idxBits   = 1<<28 - 1
	memoLimit = 1<<24 - 1
)

// keyOK, raw, slice and read are the expression's flags (false for eName).
func (e *expr) keyOK() bool { return e.op != eName && e.pos&keyOKBit != 0 }
func (e *expr) raw() bool   { return e.op != eName && e.pos&rawBit != 0 }
func (e *expr) slice() bool { return e.op != eName && e.pos&sliceBit != 0 }
func (e *expr) read() bool  { return e.op != eName && e.pos&readBit != 0 }

// setFlag sets flag bits of an expression other than eName.
func (e *expr) setFlag(bits uint32) { e.pos |= bits }

// flags returns the bits of the flags set, for a literal's pos.
func flags(keyOK, raw, slice bool) uint32 {
	var f uint32
	if keyOK {
		f |= keyOKBit
	}
	if raw {
		f |= rawBit
	}
	if slice {
		f |= sliceBit
	}
	return f
}

// idxPos is the pos of an expression whose idx is i (see expr.idx).
func idxPos(i int32) uint32 { return uint32(i) & idxBits }

// setIdx sets idx, keeping the flags.
func (e *expr) setIdx(i int32) { e.pos = e.pos&flagBits | idxPos(i) }

// memo24 is the raw memo field (see resolver.memoOf).
func (e *expr) memo24() uint32 {
	return uint32(e.memo[0]) | uint32(e.memo[1])<<8 | uint32(e.memo[2])<<16
}

func (e *expr) setMemo24(v uint32) {
	e.memo = [3]uint8{uint8(v), uint8(v >> 8), uint8(v >> 16)}
}

// scoped reports whether expressions of op hold a scope (else, if anything, a litData).
func (op exprOp) scoped() bool {
	switch op {
	case eName, eFrom, eDef, eParam, eSelf, eClass, eSuper:
		return true
	}
	return false
}

// idx is the index of eParam (the parameter), eFrom (the relative level), eSubscript
// (the slice's constant start, -1 if unknown) and eDescr (the accessor), kept in pos's
// low 28 bits (sign-extended).
func (e *expr) idx() int32 { return int32(e.pos<<4) >> 4 }

// sub is the operand of the ops that have one (eAttr's object, eCall's callee, ...),
// else nil.
func (e *expr) sub() *expr {
	if e.op.hasSub() {
		return e.ext().x
	}
	return nil
}

// setSub sets the operand of an expression whose op has one.
func (e *expr) setSub(x *expr) {
	if !e.op.hasSub() {
		panic("python: setSub on an expression without an operand")
	}
	e.ext().x = x
}

// ref is the scope of a scoped op, else the literal data, as an untyped pointer.
func (e *expr) ref() unsafe.Pointer {
	switch e.op.class() {
	case clName:
		if e.op == eName {
			return unsafe.Pointer((*nameRec)(e.p).sc)
		}
	case clScoped, clLit:
		return e.p
	case clTail:
		if t := e.tail(); t != nil {
			return t.ref
		}
	}
	return nil
}

// scope is the scope of eName and eFrom, the definition's handle for eDef, eParam,
// eSelf, eClass and eSuper, the scope the builtin's name is looked up in for
// eBuiltinArg (without elems) and eGetattr (kept in their litExtra), else nil.
func (e *expr) scope() *scope {
	if e.op.scoped() {
		return (*scope)(e.ref())
	}
	if l := e.lit(); l != nil && l.litExtra != nil {
		return l.sc
	}
	return nil
}

// lit is the literal data of the ops that are not scoped, nil if none.
func (e *expr) lit() *litData {
	if e.op.scoped() {
		return nil
	}
	return (*litData)(e.ref())
}

// setLit sets the literal data of an expression whose op is not scoped and has room
// for it (clLit, clTail).
func (e *expr) setLit(l *litData) {
	switch {
	case e.op.class() == clLit:
		e.p = unsafe.Pointer(l)
	case e.op.class() == clTail && !e.op.scoped():
		var t exprTail
		if old := e.tail(); old != nil {
			t = *old
		}
		t.ref = unsafe.Pointer(l)
		e.p = unsafe.Pointer(&t)
	default:
		panic("python: setLit on an expression without literal data")
	}
}

// inScope is the ref of a scoped expression of scope s.
func inScope(s *scope) unsafe.Pointer { return unsafe.Pointer(s) }

// withLit is the ref of an expression with literal data l.
func withLit(l *litData) unsafe.Pointer { return unsafe.Pointer(l) }

// nameRef is the interned name of the expression, nil when it has none.
func (e *expr) nameRef() *string {
	switch e.op.class() {
	case clName:
		if e.op == eName {
			return (*nameRec)(e.p).nm
		}
		return (*string)(e.p)
	case clAttr:
		return (*string)(e.p)
	case clTail:
		if t := e.tail(); t != nil {
			return t.nm
		}
	}
	return nil
}

// setName sets the interned name of an expression whose op has one (an eName's
// nameRec is replaced, not written into: other names share it).
func (e *expr) setName(nm *string) {
	switch e.op.class() {
	case clName:
		if e.op == eName {
			e.p = unsafe.Pointer(&nameRec{nm: nm, sc: (*nameRec)(e.p).sc})
			return
		}
		e.p = unsafe.Pointer(nm)
	case clAttr:
		e.p = unsafe.Pointer(nm)
	case clTail:
		if nm == nil && e.tail() == nil {
			return
		}
		var t exprTail
		if old := e.tail(); old != nil {
			t = *old
		}
		t.nm = nm
		e.p = unsafe.Pointer(&t)
	default:
		panic("python: setName on an expression without a name")
	}
}

// name is the expression's name (eName, eAttr, eProto...), "" when it has none.
func (e *expr) name() string {
	if nm := e.nameRef(); nm != nil {
		return *nm
	}
	return ""
}

// def is the definition of eDef, eParam, eSelf, eClass and eSuper (nil for other ops).
func (e *expr) def() *defInfo {
	switch e.op {
	case eDef, eParam, eSelf, eClass, eSuper:
		if s := e.scope(); s != nil {
			return s.def
		}
	}
	return nil
}

// litData holds the elements of container literals (eSeq, eDict) and unions (eUnion),
// and the arguments of calls (eCall). It is 24 bytes: the elements are a slice kept as
// its array, length and capacity in 32 bits each (see elems), and what few literals and
// calls need (keys among them) lives behind litExtra (sympy has ≈0.95M litData, most of
// them calls', few with keyword arguments).
type litData struct {
	// ep, n and c are the elements' slice: its array (nil when its capacity is 0),
	// length and capacity
	ep   **expr
	n, c uint32
	*litExtra
}

// litOf returns literal data holding elems (see setElems).
func litOf(elems []*expr) *litData {
	l := &litData{}
	l.setElems(elems)
	return l
}

// litWith returns literal data holding elems and x.
func litWith(elems []*expr, x *litExtra) *litData {
	l := litOf(elems)
	l.litExtra = x
	return l
}

// elems returns the elements: a slice of l's array, with its capacity (appending past
// the length writes into the array, as for the slice it was set from).
func (l *litData) elems() []*expr {
	if l.ep == nil {
		return nil
	}
	return unsafe.Slice(l.ep, l.c)[:l.n]
}

// setElems sets the elements to s (its array, length and capacity).
func (l *litData) setElems(s []*expr) {
	if cap(s) == 0 {
		l.ep, l.n, l.c = nil, 0, 0
		return
	}
	l.ep, l.n, l.c = &s[:cap(s)][0], uint32(len(s)), uint32(cap(s))
}

// appendElems appends es to the elements.
func (l *litData) appendElems(es ...*expr) { l.setElems(append(l.elems(), es...)) }

// keyList returns the keys parallel to elems (see litExtra.keys), nil if none.
func (l *litData) keyList() []string {
	if l == nil || l.litExtra == nil {
		return nil
	}
	return l.litExtra.keys
}

// litExtra holds the keys of dicts and keyword calls, the values stored into a
// container literal, and what a call of a builtin gives; nil until one is needed.
type litExtra struct {
	// keys: eDict's constant keys ("" when not a constant), eCall's keywords ("" for a
	// positional argument; nil when the call has no keyword argument), eProto's
	// fallbacks; parallel to elems (but eProto's)
	keys []string
	// values stored into the container later (x[k] = v, x.append(v), ...), keyed like
	// its keys ("" for any key)
	extraKeys []string
	extraVals []*expr
	extraSeen *exprSet // extraVals as a set, once they are many (see addOnce)
	// builtin is, for an eCall of a builtin that returns the elements of its argument or
	// the results of calling its function argument (map, filter, sorted, list, ...), a
	// container literal holding them; it applies when the name is not rebound
	builtin *expr
	// extBuiltin marks a builtin that applies when the callee lies outside the project
	// (functools.partial) rather than when a builtin name is not rebound
	extBuiltin bool
	// sc is the scope of eBuiltinArg and eGetattr (see expr.scope)
	sc *scope
}

// extra returns l's litExtra, allocating it on first use.
func (l *litData) extra() *litExtra { return allocated(&l.litExtra) }

// builtinOf returns the builtin result of call l (see litExtra.builtin), nil if none.
func (l *litData) builtinOf() *expr {
	if l == nil || l.litExtra == nil {
		return nil
	}
	return l.builtin
}

var unknownExpr = &expr{op: eUnknown}

// param is one formal parameter (64 bytes: the flags together).
type param struct {
	name      string
	dflt      *expr
	flows     []*expr  // argument expressions flowing in from resolved calls (level 7)
	flowsSeen *exprSet // flows as a set, once they are many (see addOnce)
	star      bool     // *args or **kwargs
	varPos    bool     // *args: the extra positional arguments of each call flow in as a tuple
	kwOnly    bool
	read      bool // evaluated by some expression: new flows matter
}

// defInfo is a definition under analysis. Its flags and small numbers are kept
// together at the end, and what few definitions use behind pointers (asDef, asInst,
// dyn, and cf, what only classes have): it is 512 bytes, a size class (sympy has ≈45k).
type defInfo struct {
	fn         fnInfo
	metrics    defMetrics
	file       *fileInfo
	qual       string // qualified name before duplicate suffixes
	simple     string
	parent     *defInfo
	scope      *scope // body scope
	outer      *scope // defining scope
	class      *defInfo
	params     []param
	returns    []*expr
	yieldVals  []*expr // values of its yield expressions (elements of the generator)
	decorators []*expr // decorator expressions, innermost last
	decCall    *expr   // the value of the decorated name: the outermost decorator's result
	// libWrap is a decorator that turns the function into a library object which runs
	// the body itself, later (hypothesis's @composite): when it comes from outside the
	// project, calling the decorated name does not run the body
	libWrap *expr
	// cf holds what only classes have, nil until a class has any of it (see
	// classFacts)
	cf *classFacts
	// dyn holds the attributes assigned from outside the class, nil until one is (see
	// dynFacts)
	dyn *dynFacts
	// methods: classes of the instances (subclasses of the method's class) the method was
	// called on through a subclass instance (see selfRead)
	selfFlows []*defInfo
	// shared one-value results, allocated on first use (see defValue, instValue)
	asDef, asInst *[1]value
	// self1 holds the definition itself: the one-definition result of resolver.targets,
	// shared instead of allocated per call (≈3.7M calls on sympy)
	self1 [1]*defInfo
	// handle is the definition's handle for expressions (see ref)
	handle *scope

	order               int32 // position in the file's definitions
	yields              bool
	static, classMethod bool
	// abstract marks a method whose body (after its docstring) starts by raising
	// NotImplementedError: a step its class leaves to the subclasses; abstractDecl, a
	// method under @abc.abstractmethod (or abstractproperty)
	abstract, abstractDecl bool
	// stub marks a method whose body (after its docstring) does nothing: pass, ..., or
	// a bare return of None or of an empty literal ({}, [], ()): a hook its class
	// leaves for the subclasses to fill (see resolver.stubHook); not one declared
	// @abc.abstractmethod (abstractDecl has its own rules)
	stub bool
	// libCaller marks a function whose libWrap is a decorator factory (the decorator
	// package's @decorator, wrapt's): applying the result to a function f hands f to
	// the body's first parameter, which the body calls when f is called
	libCaller bool
	lambda    bool // a lambda: not a node; calls reaching it make no edge
	// property marks a property getter (@property, @cached_property): reading it on an
	// instance gives what it returns; accessor marks its @x.setter and @x.deleter
	property, accessor bool
	setter, deleter    bool // the accessor is @x.setter / @x.deleter
	// synth is the code generator that writes the class's __init__ (synthDataclass,
	// synthAttrs; see synthInit)
	synth uint8
	// extBase marks a class with a base outside the project (computed with its order):
	// special methods it lacks may be inherited from there
	extBase bool
	// selfRead marks a method whose self was read
	selfRead bool
	// classes: the project has a subclass of it (so self may be a subclass instance);
	// instantiated: a call of the class itself was resolved; escaped: an instance was
	// passed to a method of an object outside the project (see resolver.escapes)
	hasSub, instantiated, escaped bool
	mroState                      uint8 // 0 not computed, 1 computing, 2 done (see classFacts.mro)
}

// fnInfo is what a definition keeps of its task.Function while it is analysed: the
// kind, the lines and the spans in 32 bits (a file tree-sitter parses is at most
// maxSource bytes), and the ID once the report has made it. The file, the name and the
// language are the definition's own (file.path, qual, "python") and the parent's ID is
// read when the report builds the task.Function (see defInfo.function): 80 bytes where
// the task.Function took 184 (sympy has ≈45k definitions, live through the resolution).
type fnInfo struct {
	Kind                         task.Kind
	ID                           string
	Line, EndLine, DecoratorLine int32
	Def, Signature, Doc, Body    span32
}

// span32 is a task.Span in 32 bits.
type span32 struct{ Start, End uint32 }

func packSpan(s task.Span) span32 { return span32{Start: uint32(s.Start), End: uint32(s.End)} }

func (s span32) span() task.Span { return task.Span{Start: int(s.Start), End: int(s.End)} }

// packFn returns what a definition keeps of f (see fnInfo): f's file, name and language
// must be the definition's own, and f has no ID or parent yet.
func packFn(f *task.Function) fnInfo {
	return fnInfo{Kind: f.Kind, Line: int32(f.Line), EndLine: int32(f.EndLine), DecoratorLine: int32(f.DecoratorLine),
		Def: packSpan(f.Def), Signature: packSpan(f.Signature), Doc: packSpan(f.Doc), Body: packSpan(f.Body)}
}

// function returns d's task.Function, its parent's ID as the parent holds it now.
func (d *defInfo) function() task.Function {
	f := task.Function{ID: d.fn.ID, File: d.file.path, Name: d.qual, Kind: d.fn.Kind, Language: "python",
		Line: int(d.fn.Line), EndLine: int(d.fn.EndLine), DecoratorLine: int(d.fn.DecoratorLine),
		Def: d.fn.Def.span(), Signature: d.fn.Signature.span(), Doc: d.fn.Doc.span(), Body: d.fn.Body.span()}
	if d.parent != nil {
		f.Parent = d.parent.fn.ID
	}
	return f
}

// defMetrics is a definition's callgraph.Metrics with its counts in 32 bits.
type defMetrics struct {
	codeLines, cyclomatic, nesting, lines int32
	halsteadVolume, halsteadDifficulty    float64
}

func packMetrics(m callgraph.Metrics) defMetrics {
	return defMetrics{codeLines: int32(m.CodeLines), cyclomatic: int32(m.Cyclomatic), nesting: int32(m.Nesting), lines: int32(m.Lines),
		halsteadVolume: m.HalsteadVolume, halsteadDifficulty: m.HalsteadDifficulty}
}

func (m defMetrics) metrics() callgraph.Metrics {
	return callgraph.Metrics{CodeLines: int(m.codeLines), Cyclomatic: int(m.cyclomatic), Nesting: int(m.nesting), Lines: int(m.lines),
		HalsteadVolume: m.halsteadVolume, HalsteadDifficulty: m.halsteadDifficulty}
}

// classFacts are the facts only a class has: a definition holds them behind a pointer
// (see defInfo.cfacts, cfactsFor), as most definitions are functions.
type classFacts struct {
	bases     []*expr
	meta      *expr // the metaclass= keyword of a class statement
	instAttrs map[string][]*expr
	initAttrs map[string]bool // instance attributes __init__ always sets
	// synthInit is the generated __init__ of a class whose code generator (synth)
	// writes it: a hidden definition whose parameters are the fields and which stores
	// them as instance attributes
	synthInit *defInfo
	fields    []string   // a generated __init__'s class: its fields' attribute names, in order
	subs      []*defInfo // the project's subclasses, direct or not
	mro       []*defInfo
}

// noClassFacts are the classFacts of a definition that has none: read only.
var noClassFacts classFacts

// cfacts returns d's classFacts for reading (noClassFacts if none).
func (d *defInfo) cfacts() *classFacts { return orEmpty(d.cf, &noClassFacts) }

// cfactsFor returns d's classFacts for writing, allocating them on first use.
func (d *defInfo) cfactsFor() *classFacts { return allocated(&d.cf) }

// orEmpty returns p, or empty (a shared record, for reading only) when p is nil: the
// reading side of facts a definition keeps behind a pointer.
func orEmpty[T any](p, empty *T) *T {
	if p == nil {
		return empty
	}
	return p
}

// allocated returns *p, allocating it first when nil: the writing side.
func allocated[T any](p **T) *T {
	if *p == nil {
		*p = new(T)
	}
	return *p
}

// dynFacts are the attributes assigned to a class's instances (obj.x = v) and to the
// class itself (C.x = v) from outside the class, found while resolving, and the names
// looked up on the class (dynNames only). Few classes have any: a definition holds
// them behind a pointer (see defInfo.dynOf, dynFor).
type dynFacts struct {
	attrs, classAttrs map[string][]*expr
	read              map[string]bool
}

// noDyn is the dynFacts of a definition that has none: read only.
var noDyn dynFacts

// dynOf returns d's dynFacts for reading (noDyn if none).
func (d *defInfo) dynOf() *dynFacts { return orEmpty(d.dyn, &noDyn) }

// dynFor returns d's dynFacts for writing, allocating them on first use.
func (d *defInfo) dynFor() *dynFacts { return allocated(&d.dyn) }

// ref returns d's handle: a scope holding only d (as its def; no scope chain leads to
// it), which expressions of d's ops keep as their scope (see expr.scope, expr.def).
func (d *defInfo) ref() *scope {
	if d.handle == nil {
		d.handle = &scope{def: d}
	}
	return d.handle
}

// callSite is one call expression (or a decorator application), with its outcome
// (line and implicitness, and the targets the resolver finds). The file keeps its sites
// by value and their callers apart (fileInfo.callCallers): sympy has ≈850k, 24 bytes
// each, where a pointer to a site, the site and a resolution kept apart took 80.
type callSite struct {
	outcome
	// call is the call as an eCall expression (x the callee, elems the arguments, keys
	// their keywords, slice a *args or **kwargs), shared with the expression of its
	// result where there is one; nil once the file's facts are released
	call *expr
}

// newSite returns the site of call at line (its caller is recorded apart: see
// collector.addSite).
func newSite(line int32, implicit bool, call *expr) callSite {
	o := outcome{line: line}
	if implicit {
		o.meta = implicitBit
	}
	return callSite{outcome: o, call: call}
}

// callee is the expression called.
func (cs *callSite) callee() *expr { return cs.call.sub() }

// args are the argument expressions.
func (cs *callSite) args() []*expr {
	if cs.call.lit() == nil {
		return nil
	}
	return cs.call.lit().elems()
}

// kw is the keyword of argument k, "" for a positional one.
func (cs *callSite) kw(k int) string { return keyAt(cs.call.lit().keyList(), k) }

// keyAt returns the keyword of a call's argument k: keys[k], or "" when keys is nil (a
// call without keyword arguments keeps no keys: most calls, ≈16 bytes per argument).
func keyAt(keys []string, k int) string {
	if keys == nil {
		return ""
	}
	return keys[k]
}

// star reports *args or **kwargs in the call: positions after it are unknown.
func (cs *callSite) star() bool { return cs.call.slice() }

// store is a value stored into a container: x[key] = val, x.append(val), x.update(val)
// (spread: the elements of val).
type store struct {
	x      *expr
	key    string
	keyOK  bool
	val    *expr
	spread bool
	// sub is the target x[key] of a subscript assignment (nil for the stores of calls)
	sub *expr
}

// attrStore is obj.name = val for an obj other than a method's self.
type attrStore struct {
	obj  *expr
	name string
	val  *expr
}

// fileInfo is one analysed file.
type fileInfo struct {
	idx int // position in the analysis (set by report)
	// pend, while the file is collected, is the list of its bindings in the order they
	// are made (the worker's buffer), frozen into its scopes' name tables at the end
	pend   *[]pendBind
	path   string
	key    string // module key: the slash path without .py and /__init__
	isInit bool
	scope  *scope
	defs   []*defInfo // module pseudo-definition first, then source order
	calls  []callSite
	// callCallers holds the callers of the call sites: the caller of calls[k] is that of
	// the last run starting at or before k (runs in the order of their starts)
	callCallers []callerRun
	stores      []store
	attrStores  []attrStore
	all         []string
	// stars are the module scope's `import *` statements, in source order (kept here
	// rather than in every scope: no other scope has any)
	stars     []starImport
	hasAll    bool
	syntaxErr *callgraph.SyntaxError
	// lazy holds the implicit call sites that only matter when the project defines the
	// special methods or properties they would call (materialized by the resolver)
	lazy []lazySite
	// lazyCallers holds the callers of the lazy sites: the caller of lazy[k] is that of
	// the last run starting at or before k (runs in the order of their starts)
	lazyCallers []callerRun
	// transient and transientX hold the slabs of the expressions only lazy sites hold
	// (see collector.transient), without and with an operand: they go, with their
	// memos, once the file's lazy sites are resolved (see eachTransient)
	transient  [][]expr
	transientX [][]exprX
}

// lazyKind classifies the implicit call sites recorded in fileInfo.lazy.
type lazyKind uint8

const (
	lzBinary        lazyKind = iota // x <op> y: x.__op__(y), or y.__rop__(x); op indexes binaryOps
	lzAug                           // x <op>= y: x.__iop__(y), falling back to __op__, or y.__rop__(x)
	lzCompare                       // x <op> y: op indexes compareOps
	lzUnary                         // <op> x: op indexes unaryOps
	lzConvert                       // str(x), repr(x), format(x), f-strings, %, truth tests: op indexes conversions
	lzSubscript                     // x[y]: op 0 get, 1 set, 2 delete
	lzAttr                          // x (an eAttr) read, assigned or deleted (op 0, 1, 2): property accessors
	lzBuiltin                       // y(x) for a builtin y: op indexes conversions
	lzIterate                       // y(x) for a builtin y that iterates over x: __iter__, then __next__ of its result
	lzReady                         // a call of x with no arguments (for loops, with statements)
	lzGetattr                       // getattr(...) (x, an eGetattr): property getters of the names its key holds
	lzAttrHook                      // an attribute of x read, assigned or deleted (op 0, 1, 2): the __getattribute__, __setattr__ or __delattr__ of x's class
	lzModuleGetattr                 // from M import ... (x, M's __getattr__ as an eFrom): a module's PEP 562 __getattr__, which the lookup of M.__path__ calls
)

// attrHooks are the special methods Python calls on every attribute read, store and
// delete of an instance whose class defines them (lzAttrHook's op indexes it).
var attrHooks = [...]string{"__getattribute__", "__setattr__", "__delattr__"}

// attrFallback is the op of an lzAttrHook site whose x is an attribute read (an eAttr):
// __getattr__ of the instances x.x evaluates to whose classes lack the attribute.
const attrFallback = 3

// lazySite is an implicit call site: the syntax (or a builtin) calls a special method or
// a property accessor of the values of x. It is 24 bytes (sympy has ≈1.2M): its caller
// is kept apart, once for each run of sites the same definition makes (see
// fileInfo.lazyCallers).
type lazySite struct {
	x, y *expr
	line int32
	kind lazyKind
	op   uint8
}

// callerRun starts a run of a file's call sites or lazy sites made by one caller: the
// sites from fileInfo.calls[start] (or lazy[start]) up to the next run's start.
type callerRun struct {
	start  int32
	caller *defInfo
}

const (
	synthNone uint8 = iota
	synthDataclass
	synthAttrs
)

// valueKind classifies abstract values.
type valueKind uint8

const (
	vDef      valueKind = iota // a function or class definition
	vInst                      // an instance of a class definition
	vModule                    // a module or package of the project (by id: see resolver.moduleValue)
	vExternal                  // something outside the project (a third-party module)
	vSuper                     // super() in a method of class recv, on an instance of class def
	vSeq                       // a container literal (expression)
	vGen                       // a generator returned by calling generator function def
)

// value is an abstract value an expression may evaluate to. It is 24 bytes (a
// module is an id, not its key; the receiver and the container share a field): the
// evaluation results hold millions of them.
type value struct {
	kind  valueKind
	bound bool // a method reached through an instance (its first parameter is bound)
	// for container values: the list was sliced; off is the constant start of the slice,
	// -1 when unknown. For a function (vDef): a functools.partial of it, whose calls'
	// argument positions are unknown.
	sliced bool
	// off is, besides the slice start, a module's id (vModule: see resolver.moduleValue)
	off int32
	def *defInfo
	// ref is the container literal of vSeq (see lit), else the class of the instance a
	// bound method was looked up on, or vSuper's method class (see recv)
	ref unsafe.Pointer
}

// lit is the container literal (an eSeq or eDict expression) of a vSeq value.
func (v *value) lit() *expr {
	if v.kind != vSeq {
		return nil
	}
	return (*expr)(v.ref)
}

// recv is the class of the instance a bound method was looked up on, or the class whose
// method called super() (vSuper); nil for containers.
func (v *value) recv() *defInfo {
	if v.kind == vSeq {
		return nil
	}
	return (*defInfo)(v.ref)
}

// litRef and recvRef are the refs of values holding a container literal or a receiver.
func litRef(e *expr) unsafe.Pointer     { return unsafe.Pointer(e) }
func recvRef(d *defInfo) unsafe.Pointer { return unsafe.Pointer(d) }

// eachTransient calls fn with each expression of f's transient slabs (their
// unused capacity included: zero expressions).
func (f *fileInfo) eachTransient(fn func(*expr)) {
	for _, slab := range f.transient {
		for k := range slab[:cap(slab)] {
			fn(&slab[:cap(slab)][k])
		}
	}
	for _, slab := range f.transientX {
		for k := range slab[:cap(slab)] {
			fn(&slab[:cap(slab)][k].expr)
		}
	}
}
