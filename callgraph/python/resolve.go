package python

import (
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unsafe"
)

// maxValues bounds the abstract values kept per expression (precision over recall: a
// larger set is almost always a sign of lost precision), except that functions may fill
// up to maxFunctions: a dispatch table (a dict of keyword → validator function) holds
// dozens of them legitimately.
const (
	maxValues    = 32
	maxFunctions = 64
)

// maxRounds bounds the parameter-flow fixpoint iterations.
const maxRounds = 4

// resolver evaluates symbolic expressions over all files of one analysis.
type resolver struct {
	files []*fileInfo
	byKey map[string]*fileInfo // module key → file
	dirs  map[string]bool      // keys of directories holding Python files (packages)
	names map[string]string    // dotted module name → key
	round int32                // the memo epoch: memos of other epochs are stale unless stable
	acc   accBufs              // scratch buffers of unions being built (see accum)
	// memos holds the memo slots of evaluated expressions (expr.memo), in pages of
	// memoPage; nmemo counts the slots given out
	memos [][]memoSlot
	nmemo int32
	// freeMemos holds the numbers of slots given back (see noValues)
	freeMemos []int32
	// bigMemo holds the memo numbers that do not fit expr.memo
	bigMemo map[*expr]int32
	// sets holds one copy of each value set the memos keep (see valueSets)
	sets    valueSets
	methods map[string][]*defInfo // simple name → methods, for the name fallback
	// hasSpecialSubs: a class with a project subclass defines a special method (escapes)
	hasSpecialSubs bool
	props          map[string]bool // names of property accessors (decorated, or name = property(...))
	// protoMemo holds protoMethods' results
	protoMemo map[protoKey][]value
	depth     int
	noFlow    bool // level 7 off
	// low is the smallest depth of the evaluations still in progress that the current
	// evaluation ran into (a cycle cut short: see eval); partial holds the expressions
	// whose values of this epoch were cut short so, until the head of their cycle
	// finishes
	low     int
	partial []*expr
	// per-round memo of module attribute and star-import lookups (nil while computing,
	// which cuts import cycles)
	attrMemo map[attrKey]memoEntry
	starMemo map[attrKey]memoEntry
	// unstable counts evaluations whose result may change in a later round (a parameter's
	// flows, or a cycle cut short); an expression is stable when its evaluation did not
	// increase it, and then keeps its memo across rounds.
	unstable int
	// rest holds, per call site and callee, the tuple of the extra positional arguments
	// that flow into the callee's *args
	rest map[restKey]*expr
	// pending holds the tuples of *args parameters not made yet (see deferRest)
	pending map[*param]*pendingRest
	// dynNames holds the attribute names assigned from outside a class somewhere
	// (obj.x = v): class attribute lookups of these names may change between rounds
	dynNames map[string]bool
	// descrNames holds the attribute names of the descriptor sites (eDescr): names that
	// may be class attributes holding descriptors (projectNames.descrs); descrGets those
	// of the sites that read (their descriptors may have __get__, which decides what
	// reading the attribute gives)
	descrNames, descrGets map[string]bool
	// outsideStores holds, by "module.attr", the values the project assigns to
	// attributes of modules outside it (oslo.i18n's `gettext.find = cached_find`)
	outsideStores map[string][]attrStore
	// sysModules holds the project's stores into sys.modules[key] (zope.deprecation's
	// `sys.modules[modname] = DeprecationProxy(...)`)
	sysModules []store
	// substs holds, per call site, callee return expression and binding, that return
	// expression with the parameters it names replaced by the site's arguments (nil when
	// nothing is replaced; see substReturn); substCalls marks the calls such copies hold,
	// whose own results are not specialised again
	substs     map[substKey]*expr
	substCalls map[*expr]bool
	substOK    map[defExpr]bool // see substitutable
	// modKeys holds the keys of the modules and packages values refer to, by id (see
	// value.off); modIDs maps them back, modVals holds each one's shared value
	modKeys []string
	modIDs  map[string]int32
	modVals [][]value
}

// substKey identifies a return expression specialised to one call site.
type substKey struct {
	call, ret *expr
	bound     bool
}

// memoSlot is the memo of one evaluated expression: 16 bytes (sympy keeps ≈1.7M).
type memoSlot struct {
	// vals and n are the values (see values): a slice without its capacity
	vals *value
	n    uint32
	// round is the epoch of the values (resolver.round: a few per round of flow, so
	// 16 bits are plenty)
	round  uint16
	busy   bool // being evaluated (a cycle evaluates to nothing)
	stable bool // the values hold for every later epoch (see resolver.unstable)
}

// values returns the memo's values (len == cap: appending to them copies).
func (m *memoSlot) values() []value {
	if m.n == 0 {
		return nil
	}
	return unsafe.Slice(m.vals, m.n)
}

// setValues sets the memo's values.
func (m *memoSlot) setValues(vs []value) {
	m.vals, m.n = nil, uint32(len(vs))
	if len(vs) > 0 {
		m.vals = &vs[0]
	}
}

// valueSets interns the value sets evaluations give: sympy's memos held 1.8M values in
// 335k sets, of which 213k distinct holding 381k values (a set read through many names
// and attributes is recomputed for each). It is an open-addressing table of the
// distinct sets, at most three quarters full.
type valueSets struct {
	slots []setRef
	n     int
}

// setRef is an interned set: its values (len == cap) and its hash's low bits.
type setRef struct {
	vals *value
	n    uint32
	h    uint32
}

// intern returns the interned set holding the values of vs (in order), adding a clipped
// copy of vs when it is new; vs itself when empty.
func (t *valueSets) intern(vs []value) []value {
	if len(vs) == 0 {
		return vs
	}
	if (t.n+1)*4 > len(t.slots)*3 {
		old := t.slots
		t.slots, t.n = make([]setRef, max(1024, 2*len(old))), 0
		for _, s := range old {
			if s.n > 0 {
				t.insert(s, hashValues(unsafe.Slice(s.vals, s.n)))
			}
		}
	}
	h := hashValues(vs)
	mask := uint64(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.n == 0 {
			c := slices.Clone(vs)
			*s = setRef{vals: &c[0], n: uint32(len(c)), h: uint32(h)}
			t.n++
			return c
		}
		if s.h == uint32(h) && int(s.n) == len(vs) {
			if old := unsafe.Slice(s.vals, s.n); slices.Equal(old, vs) {
				return old
			}
		}
	}
}

// insert adds set s with hash h while the table grows.
func (t *valueSets) insert(s setRef, h uint64) {
	mask := uint64(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		if t.slots[i].n == 0 {
			t.slots[i] = s
			t.n++
			return
		}
	}
}

// hashValues hashes the values of vs in order.
func hashValues(vs []value) uint64 {
	h := uint64(len(vs))
	mix := func(x uint64) {
		h ^= x
		h *= 0x9E3779B97F4A7C15
		h ^= h >> 32
	}
	for k := range vs {
		v := &vs[k]
		flags := uint64(v.kind) | uint64(b2u(v.bound))<<8 | uint64(b2u(v.sliced))<<9 | uint64(uint32(v.off))<<32
		mix(flags)
		mix(uint64(uintptr(unsafe.Pointer(v.def))))
		mix(uint64(uintptr(v.ref)))
	}
	return h
}

func b2u(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

// memoPage is the number of memo slots allocated at once.
const memoPage = 4096

// noValues is the memo number of an expression whose evaluation gave nothing and is
// stable: it needs no slot (over a million such on sympy, constants among them).
const noValues = -1

// memoOf returns e's memo number: 0 while never evaluated, noValues, or its slot's
// number (those past the 24 bits of expr.memo are kept in bigMemo).
func (r *resolver) memoOf(e *expr) int32 {
	switch m := e.memo24(); m {
	case memoLimit:
		return noValues
	case memoLimit - 1:
		return r.bigMemo[e]
	default:
		return int32(m)
	}
}

// setMemo sets e's memo number (see memoOf).
func (r *resolver) setMemo(e *expr, n int32) {
	if e.memo24() == memoLimit-1 {
		delete(r.bigMemo, e)
	}
	switch {
	case n == noValues:
		e.setMemo24(memoLimit)
	case n < memoLimit-1:
		e.setMemo24(uint32(n))
	default:
		if r.bigMemo == nil {
			r.bigMemo = map[*expr]int32{}
		}
		r.bigMemo[e] = n
		e.setMemo24(memoLimit - 1)
	}
}

// slot returns e's memo slot, giving it one on its first evaluation (a freed one first:
// see eval).
func (r *resolver) slot(e *expr) *memoSlot {
	n := r.memoOf(e)
	if n == 0 {
		if k := len(r.freeMemos); k > 0 {
			n = r.freeMemos[k-1]
			r.freeMemos = r.freeMemos[:k-1]
		} else {
			if r.nmemo%memoPage == 0 {
				r.memos = append(r.memos, make([]memoSlot, memoPage))
			}
			r.nmemo++
			n = r.nmemo
		}
		r.setMemo(e, n)
	}
	i := n - 1
	return &r.memos[i/memoPage][i%memoPage]
}

// freeSlot gives e's memo slot back, e's memo becoming n (0 or noValues).
func (r *resolver) freeSlot(e *expr, n int32) {
	m := r.memoOf(e)
	r.memos[(m-1)/memoPage][(m-1)%memoPage] = memoSlot{}
	r.freeMemos = append(r.freeMemos, m)
	r.setMemo(e, n)
}

// isStable reports whether e was evaluated and its memo holds in every later epoch.
func (r *resolver) isStable(e *expr) bool {
	n := r.memoOf(e)
	return n == noValues || n != 0 && r.slot(e).stable
}

type memoEntry struct {
	vals     []value
	unstable bool
}

type attrKey struct{ key, name string }

func newResolver(files []*fileInfo) *resolver {
	r := &resolver{files: files, byKey: map[string]*fileInfo{}, dirs: map[string]bool{}, names: map[string]string{}}
	for _, f := range files {
		if _, dup := r.byKey[f.key]; !dup || f.isInit {
			r.byKey[f.key] = f
		}
		for d := dirOf(f.path); d != ""; d = dirOf(d) {
			r.dirs[d] = true
		}
	}
	// Dotted names: the package chain (directories with __init__.py) gives the primary
	// name; the full path from the root and the path below a src/ or lib/ directory are
	// fallbacks for namespace packages and scripts. Earlier kinds win.
	type cand struct {
		name, key string
		rank      int
	}
	var cands []cand
	addKey := func(key string, isPkg bool) {
		dotted := strings.ReplaceAll(key, "/", ".")
		cands = append(cands, cand{dotted, key, 1})
		for _, p := range []string{"src/", "lib/"} {
			if strings.HasPrefix(key, p) {
				cands = append(cands, cand{strings.ReplaceAll(key[len(p):], "/", "."), key, 2})
			}
		}
		// primary: strip leading directories that are not packages
		parts := strings.Split(key, "/")
		k := len(parts) - 1
		if isPkg {
			k = len(parts)
		}
		for k > 0 {
			if _, ok := r.byKey[strings.Join(parts[:k], "/")]; !ok || !r.byKey[strings.Join(parts[:k], "/")].isInit {
				break
			}
			k--
		}
		if k > 0 {
			cands = append(cands, cand{strings.Join(parts[k:], "."), key, 0})
			if isPkg && k == len(parts) {
				cands = cands[:len(cands)-1]
			}
		}
	}
	for _, f := range files {
		if f.key != "" {
			addKey(f.key, f.isInit)
		}
	}
	dirKeys := make([]string, 0, len(r.dirs))
	for d := range r.dirs {
		dirKeys = append(dirKeys, d)
	}
	sort.Strings(dirKeys)
	for _, d := range dirKeys {
		if _, ok := r.byKey[d]; !ok {
			addKey(d, true)
		}
	}
	sort.SliceStable(cands, func(i, j int) bool {
		if cands[i].rank != cands[j].rank {
			return cands[i].rank < cands[j].rank
		}
		if len(cands[i].key) != len(cands[j].key) {
			return len(cands[i].key) < len(cands[j].key)
		}
		return cands[i].key < cands[j].key
	})
	for _, c := range cands {
		if c.name == "" {
			continue
		}
		if _, ok := r.names[c.name]; !ok {
			r.names[c.name] = c.key
		}
	}
	r.dynNames = map[string]bool{}
	for _, f := range files {
		for _, st := range f.attrStores {
			r.dynNames[st.name] = true
			if m := r.outsideModuleName(st.obj); m != "" && st.val.op != eUnknown && st.val.op != eConst {
				if r.outsideStores == nil {
					r.outsideStores = map[string][]attrStore{}
				}
				k := m + "." + st.name
				r.outsideStores[k] = append(r.outsideStores[k], st)
			}
		}
	}
	for _, f := range files {
		for _, st := range f.stores {
			if st.x.op == eAttr && st.x.name() == "modules" && st.val.op != eUnknown && st.val.op != eConst && r.outsideModuleName(st.x.sub()) == "sys" {
				r.sysModules = append(r.sysModules, st)
			}
		}
	}
	r.descrNames, r.descrGets = map[string]bool{}, map[string]bool{}
	for _, f := range files {
		for _, cs := range f.calls {
			if x := cs.call.sub(); x != nil && x.op == eDescr && x.nameRef() == nil {
				// setattr(obj, NAME, v): the string constants NAME holds
				for _, name := range r.descrKeyNames(x) {
					r.descrNames[name] = true
				}
			} else if x != nil && x.op == eDescr {
				r.descrNames[x.name()] = true
				if x.idx() == 0 {
					r.descrGets[x.name()] = true
				}
			}
		}
	}
	r.methods = map[string][]*defInfo{}
	r.props = map[string]bool{}
	for _, f := range files {
		for _, d := range f.defs {
			if d.class != nil {
				r.methods[d.simple] = append(r.methods[d.simple], d)
				if d.property || d.accessor {
					r.props[d.simple] = true
				}
			}
		}
	}
	r.props = r.classicProperties(r.props)
	return r
}

func dirOf(p string) string {
	if k := strings.LastIndexByte(p, '/'); k >= 0 {
		return p[:k]
	}
	return ""
}

// moduleExists reports whether key names a module file or a package directory.
func (r *resolver) moduleExists(key string) bool {
	if _, ok := r.byKey[key]; ok {
		return true
	}
	return r.dirs[key]
}

// absModule maps an absolute dotted module name to its key, "" if not in the project.
func (r *resolver) absModule(name string) string {
	if k, ok := r.names[name]; ok {
		return k
	}
	return ""
}

// relModule maps a relative import (level dots, then name) in file f to a module key.
func (r *resolver) relModule(f *fileInfo, level int, name string) (string, bool) {
	if level == 0 {
		k := r.absModule(name)
		return k, k != ""
	}
	base := dirOf(f.path)
	for l := 1; l < level; l++ {
		if base == "" {
			return "", false
		}
		base = dirOf(base)
	}
	key := base
	if name != "" {
		if key != "" {
			key += "/"
		}
		key += strings.ReplaceAll(name, ".", "/")
	}
	if key == "" || r.moduleExists(key) {
		return key, true
	}
	return "", false
}

// newEpoch invalidates every memo that is not stable. There are at most two epochs per
// round of flow and one before them (memoSlot.round keeps 16 bits).
func (r *resolver) newEpoch() {
	r.round++
	r.attrMemo, r.starMemo = map[attrKey]memoEntry{}, map[attrKey]memoEntry{}
}

// reviseBody drops the memos of this epoch of the expressions of d's body among
// partial: the head of a cycle, an expression of d's body, finished, and they were cut
// short by that cycle, evaluated while it was in progress. networkx's contracted_nodes
// returns `H = G.copy()` (or G), and contracted_edge returns its result, which
// random_spanning_tree's nested function passes back into contracted_edge: evaluating
// one name G of contracted_nodes evaluated its parameter, whose flows led around that
// cycle to the `G.copy()` of the same body, which got nothing, and so did H, at every
// later site of the body. They are evaluated afresh when next asked for, now that the
// head's values are known. Expressions of other functions keep what they got: dropping
// theirs too exposed merges of values across call sites that the cut had hidden (the
// precision of ecdsa, hyperlink and voluptuous fell).
func (r *resolver) reviseBody(d *defInfo, partial []*expr) {
	for _, x := range partial {
		if ownerDef(x) == d && r.memoOf(x) > 0 {
			r.slot(x).round = 0
		}
	}
}

// ownerDef returns the definition whose body holds x, as far as the names and
// parameters at the root of x tell (nil for the other expressions).
func ownerDef(x *expr) *defInfo {
	for ; x != nil; x = x.sub() {
		switch x.op {
		case eName:
			return x.scope().def
		case eParam, eSelf, eClass, eSuper:
			return x.def()
		}
	}
	return nil
}

// eval evaluates e in the current round, with memoisation and a recursion guard (a
// cycle evaluates to nothing; see reviseBody).
func (r *resolver) eval(e *expr) []value {
	if e == nil || e.op == eUnknown || e.op == eAffix || e.memo24() == memoLimit {
		return nil
	}
	m := r.slot(e)
	if int32(m.round) == r.round || (m.round > 0 && m.stable) {
		if m.busy {
			r.unstable++
			r.low = min(r.low, int(m.n)) // the depth of e's evaluation (below)
			return nil
		}
		if !m.stable {
			r.unstable++
		}
		return m.values()
	}
	if r.depth > 200 {
		r.unstable++
		return nil
	}
	// while busy, the slot's count holds the depth of this evaluation (its values are
	// not read meanwhile): an evaluation inside it that runs into e again records how
	// far up the cycle it cuts reaches
	m.round, m.busy, m.n = uint16(r.round), true, uint32(r.depth)
	before := r.unstable
	depth, outerLow, mark := r.depth, r.low, len(r.partial)
	r.low = math.MaxInt
	r.depth++
	v := r.evalOp(e)
	r.depth--
	// m is still e's slot: pages never move when later ones are added
	v = r.internResult(v)
	m.setValues(v)
	m.busy = false
	m.stable = r.unstable == before
	if r.low < depth {
		r.partial = append(r.partial, e) // cut short by a cycle through an evaluation above
	} else if len(r.partial) > mark {
		if d := ownerDef(e); d != nil {
			r.reviseBody(d, r.partial[mark:])
		}
		r.partial = r.partial[:mark]
	}
	r.low = min(outerLow, r.low)
	if !m.stable {
		r.unstable++ // propagate to the callers
	} else if len(v) == 0 {
		// nothing, for good: the slot goes back for another expression
		r.freeSlot(e, noValues)
	}
	return v
}

func (r *resolver) evalOp(e *expr) []value {
	switch e.op {
	case eName:
		return r.lookup(e.scope(), e.name(), e.pos)
	case eAttr:
		var acc accum
		for _, v := range r.eval(e.sub()) {
			r.add(&acc, r.attr(v, e.name()))
		}
		if len(r.outsideStores) > 0 && !r.noFlow {
			if m := r.outsideModuleName(e.sub()); m != "" {
				for _, st := range r.outsideStores[m+"."+e.name()] {
					// module-level code of the storing module reads the original before
					// the store (`_original_find = gettext.find` above it)
					if sc := st.obj.scope(); sc != nil && sc.kind == scopeModule && e.sub().scope() == sc && e.sub().pos < st.obj.pos {
						continue
					}
					r.add(&acc, r.eval(st.val))
				}
			}
		}
		if len(acc.out) == 0 && !r.noFlow {
			if m := selfMethod(e.sub()); m != nil {
				return r.abstractAttr(m.class, e.name())
			}
		}
		return r.result(&acc)
	case eCall:
		out := r.globalsCall(e)
		for _, v := range r.eval(e.sub()) {
			out = union(out, r.callResultAt(v, e))
		}
		if e.sub().op == eProto && (e.sub().name() == "__enter__" || e.sub().name() == "__aenter__") && !r.noFlow {
			// with g() as x, g a generator function under a context-manager decorator
			// (@contextmanager: a bare generator has no __enter__): x is what g yields
			for _, v := range r.eval(e.sub().sub()) {
				if v.kind == vGen {
					for _, y := range v.def.yieldVals {
						out = union(out, r.eval(y))
					}
				}
			}
		}
		if e.lit().builtinOf() != nil && !r.noFlow {
			// a builtin function (not rebound), or a method of a container literal
			if e.lit().extBuiltin && r.outside(e.sub()) || !e.lit().extBuiltin && (e.sub().op == eName && r.isBuiltin(e.sub().scope(), e.sub().name()) || e.sub().op == eAttr && (r.isContainer(e.sub().sub()) || isKwargs(e.sub().sub()) || r.superOutside(e.sub().sub(), e.sub().name()))) {
				out = union(out, r.eval(e.lit().builtin))
			}
		}
		return out
	case eBuiltinArg:
		if e.name() == "list.sort" {
			// only when the receiver is not a project object (whose sort is its own)
			for _, v := range r.eval(e.lit().elems()[0]) {
				if v.kind != vSeq {
					return nil
				}
			}
			return r.eval(e.sub())
		}
		if len(e.lit().elems()) > 0 {
			if !r.outside(e.lit().elems()[0]) {
				return nil
			}
		} else if !r.isBuiltin(e.scope(), e.name()) {
			return nil
		}
		return r.eval(e.sub())
	case eNarrow:
		return r.narrow(e)
	case ePartial:
		var out []value
		for _, v := range r.eval(e.sub()) {
			if v.kind == vDef && v.def.fn.Kind != "class" {
				v.sliced = true
			}
			out = addValues(out, v)
		}
		return out
	case eDef:
		if e.def().libWrap != nil && !e.raw() && r.outside(e.def().libWrap) {
			// the name holds the library's object; the library runs the body, not the caller
			if e.def().libCaller {
				// a decorator factory: the value keeps the function whose first
				// parameter receives what the factory is applied to (see libApply)
				return []value{{kind: vExternal, def: e.def()}}
			}
			return externalValue
		}
		out := e.def().defValue()
		// A decorated function's name is bound to what its decorators return. When the
		// decorators are project functions returning project functions (a wrapper, which
		// calls the original through its parameter, or the function itself handed back)
		// the name evaluates to those alone; otherwise (a decorator outside the project,
		// a project class or instance whose dispatch is opaque) the definition is kept,
		// with any project functions among the results.
		if e.def().decCall != nil && e.def().fn.Kind != "class" && !r.noFlow && !e.raw() {
			res := r.eval(e.def().decCall)
			known := len(res) > 0 && r.functionDecorators(e.def())
			for _, v := range res {
				if v.kind != vDef || v.def.fn.Kind == "class" {
					known = false
				}
			}
			if known {
				return res
			}
			for _, v := range res {
				if v.kind == vDef {
					out = addValues(out, v)
				}
			}
		}
		return out
	case eModule:
		if k := r.absModule(e.name()); k != "" {
			return r.moduleValue(k)
		}
		if strings.IndexByte(e.name(), 0) >= 0 {
			return r.affixModules(e.name())
		}
		return externalValue
	case eFrom:
		key, ok := r.relModule(e.scope().file, int(e.idx()), e.sub().name())
		if !ok {
			return externalValue
		}
		return r.moduleAttr(key, e.name())
	case eParam:
		r.unstable++
		p := &e.def().params[e.idx()]
		p.read = true
		if p.varPos {
			r.makeRest(e.def(), int(e.idx()))
		}
		var acc accum
		if p.dflt != nil {
			r.add(&acc, r.eval(p.dflt))
		}
		for _, a := range p.flows {
			r.add(&acc, r.eval(a))
		}
		return r.result(&acc)
	case eSelf:
		if !e.def().class.hasSub || r.noFlow {
			return e.def().class.instValue()
		}
		var out []value
		for _, c := range r.selfClasses(e.def()) {
			out = addValues(out, value{kind: vInst, def: c})
		}
		return out
	case eClass:
		d := e.def()
		out := d.class.defValue()
		if d.class.hasSub && !r.noFlow {
			r.unstable++ // subclasses may still flow in
			d.selfRead = true
			for _, k := range d.selfFlows {
				out = addValues(out, value{kind: vDef, def: k})
			}
		}
		return out
	case eSuper:
		// the lookup continues after the method's class in the order of the class of
		// the instance: a mixin's super() reaches the next class of the subclass's order
		var out []value
		for _, v := range r.selfClasses(e.def()) {
			out = addValues(out, value{kind: vSuper, def: v, ref: recvRef(e.def().class)})
		}
		return out
	case eSeq, eDict:
		return []value{{kind: vSeq, ref: litRef(e)}}
	case eSubscript:
		if r.noFlow {
			return nil
		}
		var acc accum
		// the constant keys selecting elements: the literal key, or the constants a
		// name used as key holds
		var keys []string
		var one [1]string
		if e.keyOK() {
			one[0] = e.name()
			keys = one[:]
		} else if e.lit() != nil {
			if ks, ok := r.constKeys(e.lit().elems()[0], 0); ok {
				keys = ks
			}
		}
		if len(r.sysModules) > 0 && !e.slice() && e.sub().op == eAttr && e.sub().name() == "modules" && r.outsideModuleName(e.sub().sub()) == "sys" {
			// sys.modules[key]: what the same function (or module body) stored there
			// under the same key
			for _, st := range r.sysModules {
				if sameKey(st.sub, e, e.sub().sub().scope()) {
					r.add(&acc, r.eval(st.val))
				}
			}
		}
		for _, v := range r.eval(e.sub()) {
			if v.kind == vModule && v.sliced && !e.slice() {
				var k *expr
				if e.lit() != nil {
					k = e.lit().elems()[0]
				}
				r.add(&acc, r.globalsItems(v, k, keys))
				continue
			}
			if v.kind == vInst && !e.slice() {
				// an instance of a project class whose order defines __getitem__: what
				// that method returns (lazr.config's `self.schema[master_name]`, a
				// ConfigSchema returning a value of its _section_schemas dict)
				for _, m := range r.protoMethods(v.def, "__getitem__") {
					r.add(&acc, r.callResult(m))
				}
				continue
			}
			if v.kind != vSeq {
				continue
			}
			if e.slice() {
				sv := v
				switch {
				case !v.sliced:
					sv.sliced, sv.off = true, e.idx()
				case v.off >= 0 && e.idx() >= 0:
					sv.off = v.off + e.idx()
				default:
					sv.off = -1
				}
				r.addOne(&acc, sv)
				continue
			}
			r.unstable++ // containers gain stored values from round to round
			lit := v.lit()
			lit.setFlag(readBit)
			for k, el := range lit.lit().elems() {
				pos := k
				if v.sliced {
					pos = k - int(v.off)
				}
				switch {
				case lit.op == eDict && len(keys) > 0 && lit.lit().keyList()[k] != "" && !slices.Contains(keys, lit.lit().keyList()[k]):
					continue
				case lit.op == eSeq && v.sliced && v.off >= 0 && pos < 0:
					continue
				case lit.op == eSeq && len(keys) > 0 && allIndices(keys) && (!v.sliced || v.off >= 0) && !slices.Contains(keys, "i"+strconv.Itoa(pos)):
					continue
				}
				r.add(&acc, r.eval(el))
			}
			if lit.lit().litExtra == nil {
				continue
			}
			for k, el := range lit.lit().extraVals {
				// stored values: a constant key must match a dict's; list positions of
				// appended values are unknown
				if lit.op == eDict && len(keys) > 0 && lit.lit().extraKeys[k] != "" && !slices.Contains(keys, lit.lit().extraKeys[k]) {
					continue
				}
				r.add(&acc, r.eval(el))
			}
		}
		return r.result(&acc)
	case eIter:
		if r.noFlow {
			return nil
		}
		var acc accum
		for _, v := range r.eval(e.sub()) {
			switch {
			case v.kind == vSeq && v.lit().op == eSeq:
				r.unstable++ // containers gain stored values from round to round
				v.lit().setFlag(readBit)
				for _, el := range v.lit().lit().elems() {
					r.add(&acc, r.eval(el))
				}
				if v.lit().lit().litExtra == nil {
					continue
				}
				for _, el := range v.lit().lit().extraVals {
					r.add(&acc, r.eval(el))
				}
			case v.kind == vGen:
				for _, y := range v.def.yieldVals {
					r.add(&acc, r.eval(y))
				}
			case v.kind == vInst:
				r.add(&acc, r.iterInstance(v.def))
			}
		}
		return r.result(&acc)
	case eFirst:
		for _, el := range e.lit().elems() {
			if vs := r.eval(el); len(vs) > 0 {
				return vs
			}
		}
		return nil
	case eUnion:
		var acc accum
		for _, el := range e.lit().elems() {
			r.add(&acc, r.eval(el))
		}
		return r.result(&acc)
	case eProto:
		return r.evalProto(e)
	case eGetattr:
		if r.noFlow {
			return nil
		}
		var out []value
		if len(e.lit().elems()) > 1 {
			out = union(out, r.eval(e.lit().elems()[1]))
		}
		keys, ok := r.constKeys(e.lit().elems()[0], 0)
		if !ok {
			// a name built around unknown parts (sievelib's `getattr(self,
			// "_%s_authentication" % mech)`): the attributes of that prefix and
			// suffix the classes of the values bind
			pats, all := r.keyPatterns(e.lit().elems()[0])
			if all {
				return out
			}
			recv := r.eval(e.sub())
			if x := e.sub(); x.op == eAttr && x.name() == "__class__" && len(recv) == 0 {
				// getattr(obj.__class__, name): the classes of obj's instances
				// (fastimport's `getattr(self.__class__, name)` handler dispatch)
				for _, v := range r.eval(x.sub()) {
					if v.kind == vInst {
						recv = addValues(recv, value{kind: vDef, def: v.def})
					}
				}
			}
			for _, v := range recv {
				if v.kind != vInst && (v.kind != vDef || v.def.fn.Kind != "class") {
					continue
				}
				var names []string
				for _, k := range r.mro(v.def) {
					if k.scope.names == nil {
						continue
					}
					for _, name := range k.scope.names.keys {
						if matchesAny(name, pats) && !slices.Contains(names, name) {
							names = append(names, name)
						}
					}
				}
				for _, name := range names {
					for _, a := range r.attr(v, name) {
						// an abstract step (its body raises NotImplementedError) is
						// not a handler the dispatch runs: the subclasses' are
						// (fastimport's CommitHandler.modify_handler and the rest)
						if defs, _ := r.targets(a); len(defs) > 0 && !slices.ContainsFunc(defs, func(d *defInfo) bool { return !d.abstract }) {
							continue
						}
						out = addValues(out, a)
					}
				}
			}
			return out
		}
		for _, v := range r.eval(e.sub()) {
			for _, k := range keys {
				if name, isStr := strings.CutPrefix(k, "s"); isStr {
					out = union(out, r.attr(v, name))
				}
			}
		}
		return out
	case eTypeOf:
		if e.sub().op == eSelf {
			// self.__class__ in method d: d's class when something else instantiates it,
			// and the subclasses whose instances are seen flowing into d's self, or, when
			// neither, the subclasses the project instantiates. d's class is not
			// taken merely because d is its method: constructing it here would make it
			// instantiated (statsd's PipelineBase, whose pipeline() builds
			// self.__class__(self), is only ever a base of Pipeline and StreamPipeline).
			d := e.sub().def()
			if !d.class.hasSub || r.noFlow {
				return d.class.defValue()
			}
			r.unstable++
			d.selfRead = true
			var out []value
			if d.class.instantiated {
				out = d.class.defValue()
			}
			flows := d.selfFlows
			if len(flows) == 0 && !d.class.instantiated {
				for _, k := range d.class.cfacts().subs {
					if k.instantiated {
						flows = append(flows, k)
					}
				}
			}
			for _, k := range flows {
				out = addValues(out, value{kind: vDef, def: k})
			}
			return out
		}
		var out []value
		for _, v := range r.eval(e.sub()) {
			if e.raw() {
				// raw: the project metaclass of the classes x evaluates to (the
				// metaclass a class statement inherits from its bases, see
				// collector.class)
				if v.kind == vDef && v.def.fn.Kind == "class" {
					if m := r.metaclass(v.def); m != nil {
						out = addValues(out, value{kind: vDef, def: m})
					}
				}
				continue
			}
			if v.kind == vInst {
				out = addValues(out, value{kind: vDef, def: v.def})
			}
		}
		return out
	case eInstances:
		var classes []*defInfo
		if e.raw() {
			// a comprehension's element call (see compElems): only the instances of
			// the classes its callee evaluates to, not what a function returns
			for _, v := range r.eval(e.sub().sub()) {
				if v.kind == vDef && v.def.fn.Kind == "class" {
					classes = append(classes, v.def)
				}
			}
			if len(classes) == 0 {
				return nil
			}
		}
		var out []value
		for _, v := range r.eval(e.sub()) {
			if v.kind == vInst && (!e.raw() || slices.Contains(classes, v.def)) {
				out = addValues(out, v)
			}
		}
		return out
	case eDescr:
		return r.evalDescr(e)
	case eClassOf:
		var out []value
		for _, v := range r.eval(e.sub()) {
			if v.kind == vDef && v.def.fn.Kind == "class" {
				out = addValues(out, v)
				if e.keyOK() && !r.noFlow && len(v.def.cfacts().subs) > 0 {
					// an except clause naming a class the project never instantiates
					// (a base of its errors) catches the subclasses it instantiates
					// (sievelib's `except (ParseError, CommandError) as e:` then
					// `str(e)` reaching BadArgument.__str__). A class instantiated
					// itself is left alone: voluptuous's `except Invalid as e:` sites
					// would also reach MultipleInvalid's properties where the tests
					// never raise it
					r.unstable++ // instantiations are found round after round
					if v.def.instantiated {
						continue
					}
					for _, k := range v.def.cfacts().subs {
						if k.instantiated {
							out = addValues(out, value{kind: vDef, def: k})
						}
					}
				}
			}
		}
		return out
	}
	return nil
}

// narrow evaluates an isinstance narrowing: the values of e.sub() that are (e.keyOK) or are
// not (otherwise) instances of the classes e.elems evaluate to. A class outside the
// project keeps, when testing positively, only what may be an instance of it: values
// outside the project, containers, generators, and instances of classes with a base
// outside the project.
func (r *resolver) narrow(e *expr) []value {
	if e.raw() && e.slice() {
		return r.narrowClassName(e)
	}
	if e.raw() {
		return r.narrowFlag(e)
	}
	if e.name() != "" {
		return r.narrowHasattr(e)
	}
	if e.slice() {
		return r.narrowIdentity(e)
	}
	var classes []*defInfo
	outsideClass := false
	// known: the classes outside the project the test names, when all are sequence or
	// mapping classes whose instances inheritance decides (see knownIsinstance)
	var known []string
	knownOnly := true
	for _, c := range e.lit().elems() {
		vs := r.eval(c)
		if len(vs) == 0 {
			outsideClass = true
			if n := r.knownClassName(c); n != "" {
				known = append(known, n)
			} else {
				knownOnly = false
			}
		}
		for _, v := range vs {
			switch {
			case v.kind == vDef && v.def.fn.Kind == "class":
				classes = appendDef(classes, v.def)
			case v.kind == vSeq && v.lit().op == eSeq:
				// a tuple of classes held by a name
				for _, el := range v.lit().lit().elems() {
					for _, w := range r.eval(el) {
						if w.kind == vDef && w.def.fn.Kind == "class" {
							classes = appendDef(classes, w.def)
						}
					}
				}
			default:
				outsideClass = true
			}
		}
	}
	var out []value
	xs := r.eval(e.sub())
	if len(xs) == 0 && e.keyOK() && !outsideClass && !r.noFlow && !isParamName(e.sub()) {
		// Nothing is known of x, a local name (not a parameter: those of special methods
		// take no arguments from the implicit calls, and their callers' values are
		// what the test sorts), but where the test holds x is an instance of one of the
		// classes (h11's `except BaseException as exc:` then `if isinstance(exc,
		// LocalProtocolError): exc._reraise_as_remote_protocol_error()`): the classes
		// the project instantiates, among them and their subclasses.
		r.unstable++ // instantiations are found round after round
		for _, c := range classes {
			if c.instantiated || len(c.cfacts().subs) == 0 {
				out = addValues(out, value{kind: vInst, def: c})
			}
			for _, k := range c.cfacts().subs {
				if k.instantiated {
					out = addValues(out, value{kind: vInst, def: k})
				}
			}
		}
		return out
	}
	for _, v := range xs {
		is := false
		if v.kind == vInst {
			for _, k := range r.mro(v.def) {
				if slices.Contains(classes, k) {
					is = true
					break
				}
			}
		}
		if !is && v.kind == vInst && len(known) > 0 && knownOnly && r.outsideBase(v.def) {
			// isinstance(obj, abc.Sequence) on an abc.MutableMapping's instance
			if k, decided := r.knownIsinstance(v.def, known); decided && k != e.keyOK() {
				continue
			}
		}
		switch {
		case e.keyOK() && is, !e.keyOK() && !is:
		case e.keyOK() && outsideClass && (v.kind != vInst || r.outsideBase(v.def)) && v.kind != vDef && v.kind != vModule:
		default:
			continue
		}
		out = addValues(out, v)
	}
	return out
}

// narrowClassName evaluates x where `x.__class__.__name__ == e.name()` holds: an
// instance of each project class of that name. The test names the class exactly, so
// what flowed into x does not matter; a name no project class bears gives nothing.
func (r *resolver) narrowClassName(e *expr) []value {
	var out []value
	for _, f := range r.files {
		for _, d := range f.defs {
			if d.fn.Kind == "class" && d.simple == e.name() {
				out = addValues(out, value{kind: vInst, def: d})
			}
		}
	}
	return out
}

// narrowFlag evaluates x narrowed by the truth test `x.name` (e.keyOK: where it holds):
// an instance whose class's order binds name to a constant (True, False, None, a number
// or a string literal) in a class body, and which no instance or outside assignment can
// change, stays only where the constant's truth agrees; other values stay. qrcode's
// QRCode.make_image calls `im.drawrect_context(...)` under `if im.needs_context:` and
// `im.drawrect(...)` in the elif, where the image classes set needs_context = True or
// False in their bodies.
func (r *resolver) narrowFlag(e *expr) []value {
	if e.name() == "" {
		return r.narrowTruth(e)
	}
	var out []value
	for _, v := range r.eval(e.sub()) {
		if v.kind == vInst {
			if truth, known := r.classFlag(v.def, e.name()); known && truth != e.keyOK() {
				continue
			}
		}
		out = addValues(out, v)
	}
	return out
}

// narrowTruth evaluates x narrowed by the truth test `x` (e.keyOK: where it holds).
// Where it fails, x holds none of the values that are always true: functions, modules,
// classes without a project metaclass, and instances of classes whose order is all
// project classes (no base outside the project but object) none of which binds
// __bool__ or __len__. websocket's _wsdump `if not frame: raise
// WebSocketException("Not a valid frame %s" % frame)` formats no ABNF there.
func (r *resolver) narrowTruth(e *expr) []value {
	xs := r.eval(e.sub())
	if e.keyOK() {
		return xs
	}
	var out []value
	for _, v := range xs {
		if !r.alwaysTrue(v) {
			out = addValues(out, v)
		}
	}
	return out
}

// alwaysTrue reports whether value v is true under every truth test.
func (r *resolver) alwaysTrue(v value) bool {
	switch v.kind {
	case vModule:
		return !v.sliced
	case vDef:
		if v.def.fn.Kind != "class" {
			return true
		}
		return r.metaclass(v.def) == nil
	case vInst:
		for _, k := range r.mro(v.def) {
			if k.extBase || len(k.scope.bindings("__bool__")) > 0 || len(k.scope.bindings("__len__")) > 0 {
				return false
			}
		}
		return true
	}
	return false
}

// classFlag returns the truth of attribute name on instances of class c when the first
// class of c's order binding it does so only to constants and nothing else may set it
// (an instance attribute, an assignment from outside, a base outside the project).
func (r *resolver) classFlag(c *defInfo, name string) (truth, known bool) {
	if r.dynNames[name] {
		return false, false
	}
	mro := r.mro(c)
	for _, k := range mro {
		if len(k.cfacts().instAttrs[name]) > 0 || k.extBase {
			return false, false
		}
	}
	for _, k := range mro {
		bs := k.scope.bindings(name)
		if len(bs) == 0 {
			continue
		}
		for i, b := range bs {
			if b.val.op != eConst {
				return false, false
			}
			t := constTruth(b.val.name())
			if i > 0 && t != truth {
				return false, false
			}
			truth = t
		}
		return truth, true
	}
	return false, false
}

// constTruth is the truth of a constant in constKey's form (and "bTrue", "bFalse", "n").
func constTruth(k string) bool {
	switch k {
	case "bFalse", "n", "i0", "s":
		return false
	}
	return true
}

// narrowIdentity evaluates x narrowed by an identity or membership test against the
// values of e.elems: a class or function (compared by identity: a project metaclass
// defining __eq__ leaves it alone) that is (e.keyOK) or is not among those values stays,
// every other value stays whatever the test (an instance's __eq__ may say anything).
// h11's Connection.__init__ raises `ValueError("... {!r}".format(our_role))` under `if
// our_role not in (CLIENT, SERVER):`, where our_role holds no other class.
func (r *resolver) narrowIdentity(e *expr) []value {
	var among []value
	for _, c := range e.lit().elems() {
		for _, v := range r.eval(c) {
			if v.kind == vDef {
				among = addValues(among, v)
			}
		}
	}
	var out []value
	for _, v := range r.eval(e.sub()) {
		if v.kind == vDef && (v.def.fn.Kind != "class" || r.metaclass(v.def) == nil || len(r.protoMethods(r.metaclass(v.def), "__eq__")) == 0) {
			in := false
			for _, a := range among {
				if a.def == v.def {
					in = true
					break
				}
			}
			if in != e.keyOK() {
				continue
			}
		}
		out = addValues(out, v)
	}
	return out
}

// narrowHasattr evaluates x narrowed by hasattr(x, e.name): where the test holds
// (keyOK), the project instances and classes that have no such attribute are dropped;
// where it fails, those that have it. An instance has the attribute when a class of its
// order binds the name or its __init__ always sets it; one that other methods or outside
// code may set (a lazily computed cache) may or may not have it, and so may a value
// whose attributes are not all known (a class with a base outside the project or with
// __getattr__, a value from outside the project): those are kept on both sides.
func (r *resolver) narrowHasattr(e *expr) []value {
	var out []value
	for _, v := range r.eval(e.sub()) {
		if has, known := r.hasAttr(v, e.name()); known && has != e.keyOK() {
			continue
		}
		out = addValues(out, v)
	}
	return out
}

// hasAttr reports whether value v (a project instance or class) has attribute name, and
// whether that is known.
func (r *resolver) hasAttr(v value, name string) (has, known bool) {
	inst := v.kind == vInst
	if !inst && !(v.kind == vDef && v.def.fn.Kind == "class") {
		return false, false
	}
	c := v.def
	if r.opaqueOrder(c) || r.definesMethod(c, "__getattr__") {
		return false, false
	}
	maybe := false
	for _, k := range r.mro(c) {
		if len(k.scope.bindings(name)) > 0 || inst && k.cfacts().initAttrs[name] {
			return true, true
		}
		if len(k.dynOf().classAttrs[name]) > 0 || inst && (len(k.cfacts().instAttrs[name]) > 0 || len(k.dynOf().attrs[name]) > 0) {
			maybe = true
		}
	}
	return false, !maybe
}

// outside reports whether e evaluates to something outside the project only: a name
// imported from another package, or an attribute of such a module.
func (r *resolver) outside(e *expr) bool {
	vs := r.eval(e)
	if len(vs) == 0 && e.op == eAttr {
		vs = r.eval(e.sub())
	}
	if len(vs) == 0 {
		return false
	}
	for _, v := range vs {
		if v.kind != vExternal {
			return false
		}
	}
	return true
}

// superOutside reports whether method name of super() (every value of e) continues
// outside the project: in a subclass of dict, super().get(k, default) is dict's get.
func (r *resolver) superOutside(e *expr, name string) bool {
	if e.op != eSuper {
		return false
	}
	vs := r.eval(e)
	if len(vs) == 0 {
		return false
	}
	for _, v := range vs {
		if v.kind != vSuper || !r.outsideBase(v.def) || len(r.attr(v, name)) > 0 {
			return false
		}
	}
	return true
}

// isContainer reports whether e may evaluate to a container literal.
func (r *resolver) isContainer(e *expr) bool {
	for _, v := range r.eval(e) {
		if v.kind == vSeq {
			return true
		}
	}
	return false
}

// selfClasses returns the classes of the instances method d's self may be: its class,
// and, with value flow, the subclasses it was called on (the class itself only when it
// is instantiated in the project or nothing else flows in).
func (r *resolver) selfClasses(d *defInfo) []*defInfo {
	if !d.class.hasSub || r.noFlow {
		return []*defInfo{d.class}
	}
	r.unstable++ // subclass instances may still flow in
	d.selfRead = true
	var out []*defInfo
	if d.class.instantiated || len(d.selfFlows) == 0 {
		out = append(out, d.class)
	}
	for _, k := range d.selfFlows {
		out = appendDef(out, k)
	}
	if isSpecial(d.simple) {
		// the interpreter calls a special method on instances of the subclasses that
		// inherit it (str(model), len(x), iteration), and those implicit calls pass no
		// receiver (see resolve): oslo.reports's ReportModel.__str__ calls
		// self.attached_view(...), which only its subclass ModelWithDefaultViews sets.
		// When calls name the method on some subclass instances, those receivers stand,
		// plus the instances that reach library code (escapes): a WSGI middleware
		// subclass handed to webob (req.get_response(app)) is called there, running the
		// __call__ it inherits
		subs := 0
		for _, k := range d.class.cfacts().subs {
			if k.instantiated && (len(d.selfFlows) == 0 || k.escaped) && r.inherits(k, d) {
				out = appendDef(out, k)
				subs++
			}
		}
		if subs > 0 && !d.class.instantiated && len(d.selfFlows) == 0 && len(out) > 0 && out[0] == d.class {
			// a base the project never constructs whose special method its instantiated
			// subclasses inherit: the interpreter runs the method on their instances
			// only, so self is not the base itself (fastimport's ImportCommand.__repr__
			// calls bytes(self): the subclasses' __bytes__, not the base's, which
			// raises NotImplementedError)
			out = out[1:]
		}
	}
	return out
}

// madeOutside reports whether e's values come from outside the project: it evaluates to
// objects outside the project only, or to nothing while it is a call of something outside
// (`req = webob.Request.blank(path)`), an attribute of such a value, or a name whose every
// reaching binding is one.
func (r *resolver) madeOutside(e *expr, depth int) bool {
	if e == nil || depth > 4 {
		return false
	}
	if vs := r.eval(e); len(vs) > 0 {
		for _, v := range vs {
			if v.kind != vExternal {
				return false
			}
		}
		return true
	}
	switch e.op {
	case eCall, eAttr:
		return r.madeOutside(e.sub(), depth+1)
	case eName:
		s, pos := bindingScope(e.scope(), e.name(), e.pos)
		if s == nil {
			return false
		}
		bs := reaching(s.bindings(e.name()), pos)
		for _, b := range bs {
			if b.val == nil || !r.madeOutside(b.val, depth+1) {
				return false
			}
		}
		return len(bs) > 0
	}
	return false
}

// escapes marks the classes of the project instances passed as arguments to call site
// cs when its callee is a method of an object outside the project (webob's
// req.get_response(app), not a builtin function): the library may call their special
// methods (selfClasses). It reports whether a class was newly marked.
func (r *resolver) escapes(cs *callSite) bool {
	c := cs.callee()
	if c == nil || c.op != eAttr || len(cs.args()) == 0 || !r.hasSpecialSubs {
		return false
	}
	if !r.madeOutside(c.sub(), 0) {
		return false
	}
	changed := false
	for _, a := range cs.args() {
		for _, v := range r.eval(a) {
			if v.kind == vInst && !v.def.escaped {
				v.def.escaped = true
				changed = true
			}
		}
	}
	return changed
}

// isSpecial reports whether name is a special method's that the interpreter calls on
// an instance (not __init__ or __new__, which run on construction and get their
// receiver from it).
func isSpecial(name string) bool {
	return len(name) > 4 && strings.HasPrefix(name, "__") && strings.HasSuffix(name, "__") && name != "__init__" && name != "__new__" && name != "__init_subclass__" && name != "__class_getitem__"
}

// inherits reports whether class k's order resolves d's name to d.
func (r *resolver) inherits(k, d *defInfo) bool {
	for _, c := range r.mro(k) {
		for _, b := range c.scope.bindings(d.simple) {
			if b.val.op == eDef {
				return b.val.def() == d
			}
		}
		if len(c.scope.bindings(d.simple)) > 0 {
			return false
		}
	}
	return false
}

// abstractStep resolves again, after the rounds of value flow (when every
// instantiation has been seen), a call self.m() in method d whose every target is an
// abstract step (a method whose body raises NotImplementedError): when d's class is
// never constructed in the analysed files and no subclass instance is seen flowing into
// d, self is an instance of a subclass, and the call reaches m as each subclass resolves
// it (the instantiated subclasses, when some are). qrcode's QRColorMask.apply_mask calls
// self.get_fg_pixel on a color mask that reached the image through **kwargs. It returns
// nil when the rule does not apply.
func (r *resolver) abstractStep(d *defInfo, name string, targets []*defInfo) []*defInfo {
	c := d.class
	if c == nil || !c.hasSub || c.instantiated || len(d.selfFlows) > 0 || len(targets) == 0 {
		return nil
	}
	for _, t := range targets {
		if !t.abstract {
			return nil
		}
	}
	var out []*defInfo
	for _, k := range r.concreteSubs(c) {
		for _, v := range r.classAttr(k, name, true, 0) {
			defs, _ := r.targets(v)
			for _, t := range defs {
				if !t.abstract {
					out = appendDef(out, t)
				}
			}
		}
	}
	return out
}

// stubHook resolves again, after the rounds of value flow, a call self.m() in method d
// whose every target is a stub (a method whose body does nothing: a hook) when d's
// class has project subclasses and no subclass instance is seen flowing into d: self
// may then be an instance of a subclass built elsewhere (by a library), and the call
// reaches, besides the stub, m as each subclass resolves it. Unlike abstractStep, the
// class may be constructed (calling a do-nothing hook on it is its default) and every
// subclass counts, instantiated or not (what the project is seen to construct is
// partial when a library builds the objects). blazarclient's
// OpenStackCommand.take_action calls self.get_data, a `pass` that CreateCommand,
// ListCommand, ShowCommand and ShowPropertyCommand override, and CreateCommand.get_data
// calls self.args2body, BlazarCommand's `return {}` that the create commands override;
// cliff builds the commands.
// It returns nil when the rule does not apply.
func (r *resolver) stubHook(d *defInfo, name string, targets []*defInfo) []*defInfo {
	c := d.class
	if c == nil || !c.hasSub || len(d.selfFlows) > 0 || len(targets) == 0 {
		return nil
	}
	for _, t := range targets {
		if !t.stub {
			return nil
		}
	}
	out := slices.Clone(targets)
	for _, k := range c.cfacts().subs {
		for _, v := range r.classAttr(k, name, true, 0) {
			defs, _ := r.targets(v)
			for _, t := range defs {
				if !t.stub && !t.abstract && t.class != nil {
					out = appendDef(out, t)
				}
			}
		}
	}
	if len(out) == len(targets) {
		return nil
	}
	return out
}

// dropAbstractDecl removes, once the rounds are done, the methods declared abstract
// (@abc.abstractmethod) from the targets of the calls that reach them through an
// instance: an instance whose class resolves the name to such a method is of a class
// that is never instantiated (ABCMeta refuses to, and the project's subclasses override
// it), so the call runs an override. oslo.policy's _check calls `rule(...)`, whose values
// include BaseCheck's subclasses; BaseCheck.__call__ is abstract. A call naming the
// method on super() or on a class (`Base.m(self)`) keeps it.
func (r *resolver) dropAbstractDecl() {
	var keep []*defInfo
	for cs := range r.sites() {
		ts := cs.targets()
		if !slices.ContainsFunc(ts, func(d *defInfo) bool { return d.abstractDecl }) || r.explicitCall(cs.callee()) {
			continue
		}
		keep = keep[:0]
		for _, d := range ts {
			if !d.abstractDecl {
				keep = append(keep, d)
			}
		}
		cs.setTargets(keep)
	}
}

// explicitCall reports whether callee c names a method on super() or on a class.
func (r *resolver) explicitCall(c *expr) bool {
	if c == nil || c.op != eAttr {
		return false
	}
	if c.sub().op == eSuper {
		return true
	}
	for _, v := range r.eval(c.sub()) {
		if v.kind == vDef && v.def.fn.Kind == "class" {
			return true
		}
	}
	return false
}

// concreteSubs returns the project subclasses of c (direct or not, in file order) that
// are instantiated in the analysed files, or all of them when none is.
func (r *resolver) concreteSubs(c *defInfo) []*defInfo {
	var out []*defInfo
	for _, k := range c.cfacts().subs {
		if k.instantiated {
			out = append(out, k)
		}
	}
	if len(out) == 0 {
		return c.cfacts().subs
	}
	return out
}

// after returns how many classes of c's order come up to and including class k (the
// number to skip for super() in a method of k on an instance of c).
func (r *resolver) after(c, k *defInfo) int {
	for i, m := range r.mro(c) {
		if m == k {
			return i + 1
		}
	}
	return len(r.mro(c)) + 1
}

// allIndices reports whether every key is an integer constant (a list index).
func allIndices(keys []string) bool {
	for _, k := range keys {
		if !strings.HasPrefix(k, "i") {
			return false
		}
	}
	return true
}

// constKeys returns the constant keys (constKey's form) expression e may hold: an integer
// or string literal, or a name or an imported name all of whose bindings are such
// constants. ok is false when some value is not a constant or comes from a parameter.
func (r *resolver) constKeys(e *expr, depth int) (keys []string, ok bool) {
	if e == nil || depth > 8 {
		return nil, false
	}
	// addExpr adds x's keys, reporting whether x has constant keys.
	addExpr := func(x *expr) bool {
		ks, ok := r.constKeys(x, depth+1)
		if !ok {
			return false
		}
		for _, k := range ks {
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
		return true
	}
	add := func(bs []bound) bool {
		if len(bs) == 0 {
			return false
		}
		for _, b := range bs {
			if !addExpr(b.val) {
				return false
			}
		}
		return true
	}
	switch e.op {
	case eConst:
		return []string{e.name()}, true
	case eFirst:
		// a call's argument for a parameter (substReturn): its constants
		if len(e.lit().elems()) > 0 {
			return r.constKeys(e.lit().elems()[0], depth+1)
		}
		return nil, false
	case eIter:
		// a loop variable over a literal list, tuple or set of constants
		if e.sub().op != eSeq || len(e.sub().lit().elems()) == 0 {
			return nil, false
		}
		for _, el := range e.sub().lit().elems() {
			if !addExpr(el) {
				return nil, false
			}
		}
		return keys, true
	case eSubscript:
		// an item taken by position from a literal, or from each element of a literal
		// iterated over: the loop target `name` of `for name, label in (("a", "A"), ...)`
		n, err := strconv.Atoi(strings.TrimPrefix(e.name(), "i"))
		if !e.keyOK() || !strings.HasPrefix(e.name(), "i") || err != nil || n < 0 {
			return nil, false
		}
		var seqs []*expr
		switch {
		case e.sub().op == eSeq:
			seqs = []*expr{e.sub()}
		case e.sub().op == eIter && e.sub().sub().op == eSeq && e.sub().sub().lit().litExtra == nil:
			seqs = e.sub().sub().lit().elems()
		}
		if len(seqs) == 0 {
			return nil, false
		}
		for _, sq := range seqs {
			if sq.op != eSeq || sq.lit().litExtra != nil || n >= len(sq.lit().elems()) || !addExpr(sq.lit().elems()[n]) {
				return nil, false
			}
		}
		return keys, true
	case eName:
		if s, pos := bindingScope(e.scope(), e.name(), e.pos); s != nil && len(s.bindings(e.name())) > 0 {
			return keys, add(reaching(s.bindings(e.name()), pos))
		}
	case eFrom:
		key, ok := r.relModule(e.scope().file, int(e.idx()), e.sub().name())
		if !ok {
			return nil, false
		}
		if f := r.byKey[key]; f != nil {
			return keys, add(reaching(f.scope.bindings(e.name()), ^uint32(0)))
		}
	}
	// parameters are not narrowed: callers outside the project pass other constants
	return nil, false
}

// functionDecorators reports whether every decorator of d evaluates to project functions
// only (not classes, instances or outside code).
func (r *resolver) functionDecorators(d *defInfo) bool {
	for _, dec := range d.decorators {
		vs := r.eval(dec)
		if len(vs) == 0 {
			return false
		}
		for _, v := range vs {
			if v.kind != vDef || v.def.fn.Kind == "class" {
				return false
			}
		}
	}
	return true
}

// isBuiltin reports whether name, looked up from scope sc, is Python's builtin: no
// enclosing function or module scope binds it (nor the class body, for code of the body
// itself; the class bodies around a method are not its enclosing scopes), nor does a
// star import of the project.
func (r *resolver) isBuiltin(sc *scope, name string) bool {
	for s := sc; s != nil; s = s.parent {
		if s.kind == scopeClass && s != sc {
			continue // a method named set does not hide the builtin (zake's FakeStorage)
		}
		if bs := s.bindings(name); len(bs) > 0 {
			// a parameter whose default is the builtin (`def fold(..., map=map)`) may be it
			if len(bs) == 1 && bs[0].val.op == eParam {
				if p := bs[0].val.def().params[bs[0].val.idx()]; p.dflt != nil && p.dflt.op == eName && p.dflt.name() == name && p.dflt.scope() != s {
					return r.isBuiltin(p.dflt.scope(), name)
				}
			}
			return false
		}
		if s.kind == scopeModule && s.file != nil && s == s.file.scope && len(s.file.stars) > 0 && len(r.starLookup(s.file, name)) > 0 {
			return false
		}
	}
	return true
}

// protoMethods returns the methods named name (a dunder the syntax calls implicitly)
// that instances of class c have, bound to the instance.
//
// Python looks special methods up on the type, so only the class bodies of c's order
// count (not instance attributes); class bodies do not change while resolving, so the
// result is computed once per class and name.
func (r *resolver) protoMethods(c *defInfo, name string) []value {
	k := protoKey{c, name}
	if out, ok := r.protoMemo[k]; ok {
		return out
	}
	var out []value
	for _, cl := range r.mro(c) {
		bs := cl.scope.bindings(name)
		if len(bs) == 0 {
			continue
		}
		for _, b := range reaching(bs, ^uint32(0)) {
			switch b.val.op {
			case eDef:
				d := b.val.def()
				if d.fn.Kind == "method" && d.class == cl {
					out = addValues(out, value{kind: vDef, def: d, bound: !d.static, ref: recvRef(c)})
				}
			case eName:
				// an alias in the class body (__str__ = to_text, or a module function):
				// the functions it names, bound to the instance
				for _, v := range r.eval(b.val) {
					if d := v.def; v.kind == vDef && d.fn.Kind != "class" && !d.lambda {
						out = addValues(out, value{kind: vDef, def: d, bound: !d.static, ref: recvRef(c)})
					}
				}
			}
		}
		break
	}
	if r.protoMemo == nil {
		r.protoMemo = map[protoKey][]value{}
	}
	r.protoMemo[k] = out
	return out
}

type protoKey struct {
	c    *defInfo
	name string
}

// iterInstance returns the elements of iterating over an instance of class c: the
// values __next__ returns on what __iter__ returns, or the yielded values when __iter__
// is a generator.
func (r *resolver) iterInstance(c *defInfo) []value {
	var out []value
	for _, m := range r.protoMethods(c, "__iter__") {
		for _, it := range r.callResult(m) {
			switch it.kind {
			case vGen:
				for _, y := range it.def.yieldVals {
					out = union(out, r.eval(y))
				}
			case vInst:
				for _, n := range r.protoMethods(it.def, "__next__") {
					out = union(out, r.callResult(n))
				}
			}
		}
	}
	return out
}

// applyStores adds the values stored into container literals (x[k] = v, x.append(v),
// x.update(...)) to the containers x may evaluate to, and the attributes assigned from
// outside classes to the classes of the objects. It reports whether anything was added,
// and whether something already read changed (another round is needed).
func (r *resolver) applyStores() (added, changed bool) {
	add := func(lit *expr, key string, v *expr) {
		if v == nil || v.op == eUnknown {
			return
		}
		lit.lit().extra()
		var ok bool
		if lit.lit().extraVals, ok = addOnce(lit.lit().extraVals, &lit.lit().extraSeen, v); !ok {
			return
		}
		lit.lit().extraKeys = append(lit.lit().extraKeys, key)
		added = true
		if lit.read() {
			changed = true
		}
	}
	addAttr := func(c *defInfo, m *map[string][]*expr, name string, v *expr) {
		if *m == nil {
			*m = map[string][]*expr{}
		}
		for _, o := range (*m)[name] {
			if o == v {
				return
			}
		}
		(*m)[name] = append((*m)[name], v)
		added = true
		if c.dynOf().read[name] {
			changed = true
		}
	}
	for _, f := range r.files {
		for _, st := range f.attrStores {
			if st.val.op == eUnknown || st.val.op == eConst {
				continue // no value a call could reach
			}
			for _, o := range r.eval(st.obj) {
				if (o.kind == vInst || o.kind == vDef) && r.definesMethod(o.def, st.name) {
					// replacing a method on an object (freezing, mocking) is left out: it
					// would redirect every call of the method on every instance
					continue
				}
				switch {
				case o.kind == vInst:
					addAttr(o.def, &o.def.dynFor().attrs, st.name, st.val)
				case o.kind == vDef && o.def.fn.Kind == "class":
					addAttr(o.def, &o.def.dynFor().classAttrs, st.name, st.val)
				}
			}
		}
	}
	for _, f := range r.files {
		for _, st := range f.stores {
			for _, c := range r.eval(st.x) {
				if c.kind != vSeq {
					continue
				}
				if !st.spread {
					key := ""
					if st.keyOK && c.lit().op == eDict {
						key = st.key
					}
					add(c.lit(), key, st.val)
					continue
				}
				for _, src := range r.eval(st.val) {
					if src.kind != vSeq {
						continue
					}
					for k, el := range src.lit().lit().elems() {
						key := ""
						if src.lit().op == eDict && c.lit().op == eDict {
							key = src.lit().lit().keyList()[k]
						}
						add(c.lit(), key, el)
					}
				}
			}
		}
	}
	return added, changed
}

// markSubclassed computes every class's order, marks the classes with a subclass in
// the project and lists each class's subclasses (direct or not, in file order).
func (r *resolver) markSubclassed() {
	for _, f := range r.files {
		for _, d := range f.defs {
			if d.fn.Kind == "class" {
				for _, b := range r.mro(d)[1:] {
					b.hasSub = true
					cf := b.cfactsFor()
					cf.subs = append(cf.subs, d)
				}
			}
		}
	}
	for name, ms := range r.methods {
		for _, m := range ms {
			if m.class != nil && m.class.hasSub && isSpecial(name) {
				r.hasSpecialSubs = true // escapes has classes to mark for
			}
		}
	}
}

// abstractAttr resolves self.name in a method of class c when neither c nor a class of
// its order binds name (an abstract method or attribute the base leaves to its
// subclasses, as in `self._exec(...)` of a template method whose subclasses each define
// _exec): the lookup continues in each subclass that binds it, as if self were an
// instance of that subclass. Nothing is found when a class of c's order has a base outside
// the project other than object and abc.ABC, which may provide the name itself.
func (r *resolver) abstractAttr(c *defInfo, name string) []value {
	if c == nil || len(c.cfacts().subs) == 0 || r.opaqueOrder(c) {
		return nil
	}
	var out []value
	for _, k := range c.cfacts().subs {
		if r.definesMethod(k, name) {
			out = union(out, r.classAttr(k, name, true, 0))
		}
	}
	return out
}

// selfMethod returns the method whose self parameter e is (the parameter itself, or a
// name all of whose bindings reaching e are it), else nil.
func selfMethod(e *expr) *defInfo {
	switch e.op {
	case eSelf:
		return e.def()
	case eName:
		s, pos := bindingScope(e.scope(), e.name(), e.pos)
		if s == nil {
			return nil
		}
		var d *defInfo
		for _, b := range reaching(s.bindings(e.name()), pos) {
			if b.val.op != eSelf || d != nil && b.val.def() != d {
				return nil
			}
			d = b.val.def()
		}
		return d
	}
	return nil
}

// opaqueOrder reports whether a class of c's order has a base outside the project other
// than object and abc.ABC (which define no method a subclass would call through self).
func (r *resolver) opaqueOrder(c *defInfo) bool {
	for _, k := range r.mro(c) {
		if !k.extBase {
			continue
		}
		for _, b := range k.cfacts().bases {
			if b.op == eName && (b.name() == "object" || b.name() == "ABC") || b.op == eAttr && b.name() == "ABC" {
				continue
			}
			inProject := false
			for _, v := range r.eval(b) {
				if v.kind == vDef && v.def.fn.Kind == "class" {
					inProject = true
				}
			}
			if !inProject {
				return true
			}
		}
	}
	return false
}

// flowSelf records that method d was called on an instance of class recv. It reports
// whether that is new to a method whose self has been read.
func flowSelf(d *defInfo, recv *defInfo) bool {
	if recv == nil || d.class == nil || recv == d.class || !d.class.hasSub {
		return false
	}
	for _, k := range d.selfFlows {
		if k == recv {
			return false
		}
	}
	d.selfFlows = append(d.selfFlows, recv)
	return d.selfRead
}

// definesMethod reports whether class c or a class in its order defines a method name.
func (r *resolver) definesMethod(c *defInfo, name string) bool {
	if c.fn.Kind != "class" {
		return false
	}
	for _, k := range r.mro(c) {
		for _, b := range k.scope.bindings(name) {
			if b.val.op == eDef && b.val.def().fn.Kind == "method" {
				return true
			}
		}
	}
	return false
}

// reaching returns the bindings of a name that may be live at pos: the last unconditional
// binding at or before pos and every conditional one after it (all bindings if none is
// before pos).
func reaching(bs []bound, pos uint32) []bound {
	lastU := -1
	any := false
	for k := range bs {
		b := &bs[k]
		if b.pos > pos || b.until() != 0 && pos >= b.until() {
			continue
		}
		any = true
		if !b.cond() && (lastU < 0 || b.pos >= bs[lastU].pos) {
			lastU = k
		}
	}
	if !any {
		return bs
	}
	// the bindings that reach, in order: when they are one run of bs (most often a
	// single binding), the run itself, clipped so that appending to it copies
	first, last, n := -1, -1, 0
	for k := range bs {
		if reachingAt(bs, k, lastU, pos) {
			if first < 0 {
				first = k
			}
			last = k
			n++
		}
	}
	if n == 0 || n == last-first+1 {
		if n == 0 {
			return nil
		}
		return bs[first : last+1 : last+1]
	}
	out := make([]bound, 0, n)
	for k := range bs {
		if reachingAt(bs, k, lastU, pos) {
			out = append(out, bs[k])
		}
	}
	return out
}

// reachingAt reports whether bs[k] is one of the bindings reaching returns, given the
// index lastU of the last unconditional binding before pos (-1 if none).
func reachingAt(bs []bound, k, lastU int, pos uint32) bool {
	b := &bs[k]
	if b.pos > pos || b.until() != 0 && pos >= b.until() {
		return false
	}
	return k == lastU || (b.cond() && (lastU < 0 || b.pos >= bs[lastU].pos))
}

// lookup resolves a name referenced at pos in scope sc by Python's scoping rules (local,
// enclosing functions, module, builtins; class bodies are not enclosing scopes).
func (r *resolver) lookup(sc *scope, name string, pos uint32) []value {
	s, pos := bindingScope(sc, name, pos)
	if s == nil {
		return nil
	}
	bs := s.bindings(name)
	if len(bs) == 0 {
		return r.starLookup(s.file, name) // the module scope, which does not bind it
	}
	var acc accum
	for _, b := range reaching(bs, pos) {
		r.add(&acc, r.eval(b.val))
	}
	return r.result(&acc)
}

// bindingScope finds the scope whose bindings of name a reference at pos in scope sc
// sees (global declarations lead to the module; class bodies are not enclosing scopes)
// and the position to filter those bindings by. When no scope binds name it returns the
// module scope reached (whose star imports may), or nil.
func bindingScope(sc *scope, name string, pos uint32) (*scope, uint32) {
	for s := sc; s != nil; {
		if s.kind == scopeFunction && s.global[name] {
			s, pos = s.file.scope, ^uint32(0)
			continue
		}
		if len(s.bindings(name)) > 0 || s.kind == scopeModule {
			return s, pos
		}
		s = s.parent
		for s != nil && s.kind == scopeClass {
			s = s.parent
		}
		pos = ^uint32(0)
	}
	return nil, 0
}

// starLookup resolves a module-level name through the module's `import *` statements.
func (r *resolver) starLookup(f *fileInfo, name string) []value {
	if len(f.stars) == 0 {
		return nil
	}
	k := attrKey{f.path, name}
	if m, ok := r.starMemo[k]; ok {
		if m.unstable {
			r.unstable++
		}
		return m.vals
	}
	r.starMemo[k] = memoEntry{unstable: true}
	before := r.unstable
	v := r.starLookupNoMemo(f, name)
	r.starMemo[k] = memoEntry{vals: v, unstable: r.unstable != before}
	return v
}

func (r *resolver) starLookupNoMemo(f *fileInfo, name string) []value {
	if r.depth > 200 {
		return nil
	}
	for k := len(f.stars) - 1; k >= 0; k-- {
		st := &f.stars[k]
		if !st.resolved {
			st.key, st.ok = r.relModule(f, st.level, st.mod)
			st.resolved = true
		}
		key, ok := st.key, st.ok
		if !ok {
			continue
		}
		src, ok := r.byKey[key]
		if !ok || src == f {
			continue
		}
		if !exports(src, name) {
			continue
		}
		r.depth++
		v := r.moduleAttr(key, name)
		r.depth--
		if len(v) > 0 {
			return v
		}
	}
	return nil
}

// exports reports whether `from f import *` binds name: listed in __all__ if f defines
// it, else public.
func exports(f *fileInfo, name string) bool {
	if f.hasAll {
		for _, a := range f.all {
			if a == name {
				return true
			}
		}
		return false
	}
	return !strings.HasPrefix(name, "_")
}

// moduleAttr resolves attribute name of the module or package with the given key.
func (r *resolver) moduleAttr(key, name string) []value {
	k := attrKey{key, name}
	if m, ok := r.attrMemo[k]; ok {
		if m.unstable {
			r.unstable++
		}
		return m.vals
	}
	r.attrMemo[k] = memoEntry{unstable: true}
	before := r.unstable
	v := r.moduleAttrNoMemo(key, name)
	r.attrMemo[k] = memoEntry{vals: v, unstable: r.unstable != before}
	return v
}

func (r *resolver) moduleAttrNoMemo(key, name string) []value {
	if f, ok := r.byKey[key]; ok {
		if bs := f.scope.bindings(name); len(bs) > 0 {
			var out []value
			for _, b := range reaching(bs, ^uint32(0)) {
				out = union(out, r.eval(b.val))
			}
			if len(out) > 0 {
				return out
			}
		}
		if v := r.starLookup(f, name); len(v) > 0 {
			return v
		}
	}
	sub := name
	if key != "" {
		sub = key + "/" + name
	}
	if r.moduleExists(sub) {
		return r.moduleValue(sub)
	}
	return nil
}

// affixModules evaluates an eModule whose name is `prefix NUL suffix` (a module
// importlib.import_module imports by a name built at run time, collector.importedModule):
// the project's modules whose dotted names have that prefix and suffix and, between
// them, one component (no dot), in the order of their names. The prefix ends at a
// package boundary, so these are modules of that package; none when the package is not
// the project's.
func (r *resolver) affixModules(name string) []value {
	pre, suf, _ := strings.Cut(name, "\x00")
	var names []string
	for n := range r.names {
		mid, ok := strings.CutPrefix(n, pre)
		if !ok {
			continue
		}
		if mid, ok = strings.CutSuffix(mid, suf); ok && mid != "" && !strings.Contains(mid, ".") {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	var out []value
	for _, n := range names {
		out = addValues(out, r.moduleValue(r.names[n])...)
	}
	return out
}

// moduleValue returns the shared one-value slice holding the module or package with
// the given key (its id, see value.off, is given on first use).
func (r *resolver) moduleValue(key string) []value {
	id, ok := r.modIDs[key]
	if !ok {
		if r.modIDs == nil {
			r.modIDs = map[string]int32{}
		}
		id = int32(len(r.modKeys))
		r.modIDs[key] = id
		r.modKeys = append(r.modKeys, key)
		r.modVals = append(r.modVals, []value{{kind: vModule, off: id}})
	}
	return r.modVals[id]
}

// attr resolves attribute name of an abstract value.
func (r *resolver) attr(v value, name string) []value {
	switch v.kind {
	case vModule:
		if v.sliced {
			return nil // a module's globals() dict (see globalsCall)
		}
		return r.moduleAttr(r.modKeys[v.off], name)
	case vDef:
		if v.def.fn.Kind == "class" {
			return r.classAttr(v.def, name, false, 0)
		}
	case vInst:
		return r.classAttr(v.def, name, true, 0)
	case vSuper:
		return r.classAttr(v.def, name, true, r.after(v.def, v.recv()))
	}
	return nil
}

// classAttr looks name up through the MRO of class c (skipping the first skip classes):
// instance attributes assigned through self (when inst) and the first class whose body
// binds the name. Methods reached through an instance are bound.
func (r *resolver) classAttr(c *defInfo, name string, inst bool, skip int) []value {
	mro := r.mro(c)
	if skip > len(mro) {
		return nil
	}
	if r.dynNames[name] && !r.noFlow {
		r.unstable++ // attributes of this name are assigned from outside classes
		for _, k := range mro[skip:] {
			dyn := k.dynFor()
			if dyn.read == nil {
				dyn.read = map[string]bool{}
			}
			dyn.read[name] = true
		}
	}
	var acc accum
	dataDescr := inst && !r.noFlow && r.descrGets[name] && r.dataDescriptor(mro[skip:], name)
	if inst && !r.noFlow && !hasSetter(mro[skip:], name) && !dataDescr {
		for _, k := range mro[skip:] {
			for _, e := range k.cfacts().instAttrs[name] {
				r.add(&acc, r.eval(e))
			}
			if k.dyn != nil {
				for _, e := range k.dyn.attrs[name] {
					r.add(&acc, r.eval(e))
				}
			}
		}
	}
	if inst && !r.noFlow && !hasSetter(mro[skip:], name) && !dataDescr {
		for _, k := range mro[skip:] {
			if k.cfacts().initAttrs[name] {
				return r.result(&acc) // an attribute __init__ always sets shadows the class's
			}
		}
	}
	for _, k := range mro[skip:] {
		if k.dyn != nil && !r.noFlow {
			for _, e := range k.dyn.classAttrs[name] {
				r.add(&acc, r.descrRead(r.eval(e), name))
			}
		}
		bs := k.scope.bindings(name)
		if len(bs) == 0 {
			continue
		}
		for _, b := range reaching(bs, ^uint32(0)) {
			if b.val.op == eDef && b.val.def().accessor {
				// a property's setter or deleter rebinds the name: the getter reads it
				for _, g := range bs {
					if g.val.op == eDef && g.val.def().property {
						b = g
					}
				}
			}
			for _, v := range r.eval(b.val) {
				if v.kind == vDef && v.def.class != nil && v.def.fn.Kind == "method" {
					v.bound = (inst || v.def.classMethod) && !v.def.static
					if v.bound {
						v.ref = recvRef(c) // the instance's class, or the class a class method is called on
					}
					if inst && v.def.property && !r.noFlow {
						// reading a property on an instance gives what its getter returns
						r.add(&acc, r.callResult(v))
						continue
					}
				}
				if v.kind == vInst && r.descrGets[name] && !r.noFlow {
					r.add(&acc, r.descrRead([]value{v}, name))
					continue
				}
				r.addOne(&acc, v)
			}
		}
		break
	}
	return r.result(&acc)
}

// descrRead returns what reading a class attribute name holding vs gives: for a
// descriptor (an instance of a class with __get__), what its __get__ returns, for the
// other values the values themselves.
func (r *resolver) descrRead(vs []value, name string) []value {
	if !r.descrGets[name] {
		return vs
	}
	var out []value
	for _, v := range vs {
		if v.kind == vInst {
			if gets := r.protoMethods(v.def, "__get__"); len(gets) > 0 {
				for _, g := range gets {
					out = union(out, r.callResult(g))
				}
				continue
			}
		}
		out = addValues(out, v)
	}
	return out
}

// descriptors returns the descriptors (instances of classes defining __get__, __set__ or
// __delete__) that class attribute name holds in the first class of order binding it in
// its body, or assigned to it from outside (C.name = D(...)) on the way there.
func (r *resolver) descriptors(order []*defInfo, name string) []value {
	if !r.descrNames[name] || r.noFlow {
		return nil
	}
	if r.dynNames[name] {
		r.unstable++ // attributes of this name are assigned from outside classes
		for _, k := range order {
			dyn := k.dynFor()
			if dyn.read == nil {
				dyn.read = map[string]bool{}
			}
			dyn.read[name] = true
		}
	}
	var out []value
	add := func(vs []value) {
		for _, v := range vs {
			if v.kind == vInst && r.isDescriptor(v.def) {
				out = addValues(out, v)
			}
		}
	}
	for _, k := range order {
		if k.dyn != nil {
			for _, e := range k.dyn.classAttrs[name] {
				add(r.eval(e))
			}
		}
		bs := k.scope.bindings(name)
		if len(bs) == 0 {
			continue
		}
		for _, b := range reaching(bs, ^uint32(0)) {
			add(r.eval(b.val))
			if b.val.op == eDef && b.val.def().decCall != nil {
				// a method decorated by a project function returning a descriptor (toolz's
				// @instanceproperty): the name holds what the decorators return
				add(r.eval(b.val.def().decCall))
			}
		}
		break
	}
	return out
}

// isDescriptor reports whether instances of class c are descriptors.
func (r *resolver) isDescriptor(c *defInfo) bool {
	return len(r.protoMethods(c, "__get__")) > 0 || r.isDataDescriptor(c)
}

// isDataDescriptor reports whether instances of class c are data descriptors (with
// __set__ or __delete__), which take precedence over the instance's own attributes.
func (r *resolver) isDataDescriptor(c *defInfo) bool {
	return len(r.protoMethods(c, "__set__")) > 0 || len(r.protoMethods(c, "__delete__")) > 0
}

// dataDescriptor reports whether class attribute name, looked up through order, holds a
// data descriptor with __get__: then reading self.name calls that __get__ whatever the
// instance's __dict__ holds, so what `self.name = v` assigns (through __set__) is not
// what reads see. A data descriptor without __get__ (networkx's
// _CachedPropertyResetterAdj, whose __set__ stores into obj.__dict__) leaves reads to
// the instance's attributes.
func (r *resolver) dataDescriptor(order []*defInfo, name string) bool {
	for _, v := range r.descriptors(order, name) {
		if r.isDataDescriptor(v.def) && len(r.protoMethods(v.def, "__get__")) > 0 {
			return true
		}
	}
	return false
}

// evalDescr evaluates eDescr: the descriptor methods reading (e.idx() 0), assigning (1) or
// deleting (2) attribute e.name() of e.sub()'s values calls. On a class only reading calls
// one (assigning or deleting a class attribute replaces the descriptor); a descriptor
// without __set__ or __delete__ (a non-data one) loses to an instance attribute that
// __init__ always sets.
func (r *resolver) evalDescr(e *expr) []value {
	method := [...]string{"__get__", "__set__", "__delete__"}[e.idx()]
	names := []string{e.name()}
	if e.nameRef() == nil {
		names = r.descrKeyNames(e)
	}
	var out []value
	for _, name := range names {
		out = union(out, r.evalDescrName(e, method, name))
	}
	return out
}

// outsideModuleName returns the dotted name of the module outside the project that e
// names: an import of it (`import gettext`), or a name every binding of which, where e
// reads it, is such an import; "" otherwise. Attribute stores into such a module
// (`gettext.find = cached_find` at module level) replace what the project's own reads
// of the attribute through an import of the module find (`gettext.find(...)`).
func (r *resolver) outsideModuleName(e *expr) string {
	switch e.op {
	case eModule:
		if r.absModule(e.name()) == "" {
			return e.name()
		}
	case eName:
		s, pos := bindingScope(e.scope(), e.name(), e.pos)
		if s == nil {
			return ""
		}
		name := ""
		for _, b := range reaching(s.bindings(e.name()), pos) {
			if b.val == nil || b.val.op != eModule || r.absModule(b.val.name()) != "" || name != "" && b.val.name() != name {
				return ""
			}
			name = b.val.name()
		}
		return name
	}
	return ""
}

// sameKey reports whether subscripts a and b, both of an attribute (sys.modules) of a
// name read in scope sc, have the same key there: the same constant, or the same name
// (`sys.modules[modname] = ...` then `sys.modules[modname].deprecate(...)` in one
// function).
func sameKey(a, b *expr, sc *scope) bool {
	if a == nil || b == nil || a.op != eSubscript || b.op != eSubscript || a.slice() || b.slice() {
		return false
	}
	if a.sub().op != eAttr || b.sub().op != eAttr || a.sub().sub().scope() != sc || b.sub().sub().scope() != sc {
		return false
	}
	if a.keyOK() || b.keyOK() {
		return a.keyOK() && b.keyOK() && a.name() == b.name()
	}
	if a.lit() == nil || b.lit() == nil || len(a.lit().elems()) == 0 || len(b.lit().elems()) == 0 {
		return false
	}
	ka, kb := a.lit().elems()[0], b.lit().elems()[0]
	return ka.op == eName && kb.op == eName && ka.name() == kb.name() && ka.scope() == sc && kb.scope() == sc
}

// descrKeyNames returns the attribute names of a descriptor site made by a call of the
// builtin setattr(obj, NAME, v) (an eDescr whose elems[0] is NAME): the string
// constants NAME holds, none when it may hold anything else or setattr is not the
// builtin there.
func (r *resolver) descrKeyNames(e *expr) []string {
	if e.lit() == nil || len(e.lit().elems()) == 0 || !r.isBuiltin(e.scope(), "setattr") {
		return nil
	}
	keys, ok := r.constKeys(e.lit().elems()[0], 0)
	if !ok {
		return nil
	}
	var names []string
	for _, k := range keys {
		if name, isStr := strings.CutPrefix(k, "s"); isStr {
			names = append(names, name)
		}
	}
	return names
}

// evalDescrName evaluates eDescr e for attribute name, calling method.
func (r *resolver) evalDescrName(e *expr, method, name string) []value {
	var out []value
	for _, v := range r.eval(e.sub()) {
		skip, inst := 0, true
		switch v.kind {
		case vInst:
		case vSuper:
			skip = r.after(v.def, v.recv())
		case vDef:
			if v.def.fn.Kind != "class" || e.idx() != 0 {
				continue
			}
			inst = false
		default:
			continue
		}
		mro := r.mro(v.def)
		if skip > len(mro) {
			continue
		}
		for _, dv := range r.descriptors(mro[skip:], name) {
			if inst && e.idx() == 0 && !r.isDataDescriptor(dv.def) && initSets(mro[skip:], name) {
				continue
			}
			out = union(out, r.protoMethods(dv.def, method))
		}
	}
	return out
}

// initSets reports whether the __init__ of a class of order always sets attribute name.
func initSets(order []*defInfo, name string) bool {
	for _, k := range order {
		if k.cfacts().initAttrs[name] {
			return true
		}
	}
	return false
}

// hasSetter reports whether the first class of order that binds name binds it to a
// property with a setter: a data descriptor, which takes precedence over the instance's
// attributes, so `self.x = v` calls the setter and stores nothing under x (cerberus's
// Validator.__init__ assigns self.schema, whose setter wraps the value in a
// DefinitionSchema kept in self._schema, and the getter returns that).
func hasSetter(order []*defInfo, name string) bool {
	for _, k := range order {
		bs := k.scope.bindings(name)
		if len(bs) == 0 {
			continue
		}
		for _, b := range bs {
			if b.val.op == eDef && b.val.def().setter {
				return true
			}
		}
		return false
	}
	return false
}

// mro returns the C3 linearisation of class c over the project's classes (bases outside
// the project are left out); if C3 fails, a left-to-right depth-first order without
// duplicates.
func (r *resolver) mro(c *defInfo) []*defInfo {
	switch c.mroState {
	case 2:
		return c.cfacts().mro
	case 1:
		return []*defInfo{c} // inheritance cycle
	}
	c.mroState = 1
	var seqs [][]*defInfo
	var bases []*defInfo
	for _, b := range c.cfacts().bases {
		found := false
		for _, v := range r.eval(b) {
			if v.kind == vDef && v.def.fn.Kind == "class" && v.def != c {
				bases = append(bases, v.def)
				found = true
				break
			}
		}
		if !found && !(b.op == eName && b.name() == "object") {
			c.extBase = true
		}
	}
	for _, b := range bases {
		seqs = append(seqs, append([]*defInfo(nil), r.mro(b)...))
	}
	seqs = append(seqs, append([]*defInfo(nil), bases...))
	out := []*defInfo{c}
	if merged, ok := c3merge(seqs); ok {
		out = append(out, merged...)
	} else {
		seen := map[*defInfo]bool{c: true}
		for _, s := range seqs {
			for _, d := range s {
				if !seen[d] {
					seen[d] = true
					out = append(out, d)
				}
			}
		}
	}
	c.cfactsFor().mro, c.mroState = out, 2
	return out
}

func c3merge(seqs [][]*defInfo) ([]*defInfo, bool) {
	var out []*defInfo
	for {
		nonEmpty := false
		for _, s := range seqs {
			if len(s) > 0 {
				nonEmpty = true
			}
		}
		if !nonEmpty {
			return out, true
		}
		var pick *defInfo
		for _, s := range seqs {
			if len(s) == 0 {
				continue
			}
			cand := s[0]
			inTail := false
			for _, o := range seqs {
				for _, d := range o[min(1, len(o)):] {
					if d == cand {
						inTail = true
					}
				}
			}
			if !inTail {
				pick = cand
				break
			}
		}
		if pick == nil {
			return nil, false
		}
		out = append(out, pick)
		for k, s := range seqs {
			if len(s) > 0 && s[0] == pick {
				seqs[k] = s[1:]
			}
		}
	}
}

// callResultAt is what the call e of v returns. A function returning one of its own
// parameters unchanged returns this call's argument for it (or the default), not every
// value ever passed (one level of call-site sensitivity, which keeps identity-like
// functions and decorators precise).
func (r *resolver) callResultAt(v value, e *expr) []value {
	if v.kind != vDef || v.def.fn.Kind == "class" || v.def.yields || r.noFlow || e.lit() == nil || v.sliced {
		return r.callResult(v)
	}
	d := v.def
	var out accum
	for _, ret := range d.returns {
		j := paramReturned(d, ret)
		if j < 0 {
			j = r.superDefaultReturned(d, ret)
		}
		if j < 0 {
			if s := r.substReturn(d, v.bound, e, ret); s != nil {
				r.add(&out, r.eval(s))
			} else {
				r.add(&out, r.eval(ret))
			}
			continue
		}
		if a := argFor(d, v.bound, e.lit().elems(), e.lit().keyList(), e.slice(), j); a != nil {
			r.add(&out, r.eval(a))
		} else if dflt := d.params[j].dflt; dflt != nil {
			r.add(&out, r.eval(dflt))
		} else if e.slice() {
			r.add(&out, r.eval(ret)) // the argument may come from *args
		}
	}
	return r.result(&out)
}

// isKwargs reports whether e names a **kwargs parameter of its function that is never
// rebound there: a dict whatever the call passes, so kwargs.get(k, default) and
// kwargs.pop(k, default) may give their default (the keyword arguments themselves are
// not followed). cerberus's `kwargs.pop('error_handler', errors.BasicErrorHandler)`
// and qrcode's `kwargs.get("color_mask", SolidFillColorMask())`.
func isKwargs(e *expr) bool {
	if e.op != eName || e.scope() == nil || e.scope().def == nil {
		return false
	}
	bs := e.scope().bindings(e.name())
	if len(bs) != 1 || bs[0].val.op != eParam || bs[0].val.def() != e.scope().def {
		return false
	}
	p := e.scope().def.params[bs[0].val.idx()]
	return p.star && !p.varPos
}

// paramReturned returns the index of the parameter of d that return expression ret names
// when that parameter is never rebound in d, else -1.
func paramReturned(d *defInfo, ret *expr) int {
	if ret.op != eName || ret.scope() != d.scope {
		return -1
	}
	bs := d.scope.bindings(ret.name())
	if len(bs) != 1 || bs[0].val.op != eParam || bs[0].val.def() != d {
		return -1
	}
	if d.params[bs[0].val.idx()].star {
		return -1
	}
	return int(bs[0].val.idx())
}

// superDefaultReturned returns the index of the parameter of d that return expression
// ret hands to a dict method outside the project as its default, in a dict subclass's
// override `return super().get(key, default)` (also pop, setdefault), else -1: what
// the override returns, besides the dict's items, is that call's argument.
func (r *resolver) superDefaultReturned(d *defInfo, ret *expr) int {
	if ret.op != eCall || ret.lit().builtinOf() == nil || ret.sub().op != eAttr || len(ret.lit().elems()) != 2 {
		return -1
	}
	switch ret.sub().name() {
	case "get", "pop", "setdefault":
	default:
		return -1
	}
	if keyAt(ret.lit().keyList(), 0) != "" || keyAt(ret.lit().keyList(), 1) != "" || !r.superOutside(ret.sub().sub(), ret.sub().name()) {
		return -1
	}
	return paramReturned(d, ret.lit().elems()[1])
}

// argFor returns the argument expression a call passes for parameter j of d (bound: the
// receiver fills the first parameter), or nil.
func argFor(d *defInfo, bound bool, args []*expr, kws []string, star bool, j int) *expr {
	off := 0
	if bound && d.class != nil && !d.static {
		off = 1
	}
	name := d.params[j].name
	pos := 0
	for k, a := range args {
		if kw := keyAt(kws, k); kw != "" {
			if kw == name {
				return a
			}
			continue
		}
		if pos+off == j && !d.params[j].kwOnly {
			return a
		}
		pos++
	}
	return nil
}

// callResult is what calling v returns: an instance for a class, the return values for a
// function (none for generators).
func (r *resolver) callResult(v value) []value {
	if v.kind == vInst {
		var out []value
		for _, m := range r.classAttr(v.def, "__call__", true, 0) {
			out = union(out, r.callResult(m))
		}
		return out
	}
	if v.kind != vDef {
		return nil
	}
	d := v.def
	if d.fn.Kind == "class" {
		return d.instValue()
	}
	if r.noFlow {
		return nil
	}
	if d.yields {
		return []value{{kind: vGen, def: d}}
	}
	var out accum
	for _, e := range d.returns {
		r.add(&out, r.eval(e))
	}
	return r.result(&out)
}

// targets returns the definitions a call of v reaches, and whether the callee's first
// parameter is bound (so arguments shift by one).
func (r *resolver) targets(v value) (defs []*defInfo, bound bool) {
	switch v.kind {
	case vDef:
		if v.def.fn.Kind != "class" {
			d := v.def
			d.self1[0] = d
			return d.self1[:], v.bound
		}
		return r.constructors(v.def), true
	case vInst:
		for _, m := range r.classAttr(v.def, "__call__", true, 0) {
			if m.kind == vDef && m.def.fn.Kind != "class" {
				defs = append(defs, m.def)
			}
		}
		return defs, true
	}
	return nil, false
}

// externalValue is the shared result of something outside the project. Shared value
// slices have len == cap, so appending to them copies.
var externalValue = []value{{kind: vExternal}}

// defValue returns the shared one-value slice holding definition d.
func (d *defInfo) defValue() []value {
	if d.asDef == nil {
		d.asDef = &[1]value{{kind: vDef, def: d}}
	}
	return d.asDef[:]
}

// instValue returns the shared one-value slice holding an instance of class d.
func (d *defInfo) instValue() []value {
	if d.asInst == nil {
		d.asInst = &[1]value{{kind: vInst, def: d}}
	}
	return d.asInst[:]
}

// union adds the values of vs (an evaluation result: duplicate-free) to out; when out is
// empty it returns vs itself, clipped so that appending to it copies.
func union(out, vs []value) []value {
	if len(out) == 0 {
		return vs[:len(vs):len(vs)]
	}
	return addValues(out, vs...)
}

// linearSet is the length up to which addOnce finds an expression by scanning its list:
// most lists stay that short, and a set per list would cost more than the list.
const linearSet = 16

// addOnce appends e to list unless it holds it already, reporting whether it did; index
// is the set of list's expressions, built once the list outgrows linearSet.
func addOnce(list []*expr, index **exprSet, e *expr) ([]*expr, bool) {
	if *index != nil {
		if !(*index).add(e) {
			return list, false
		}
		if len(list) == cap(list) && len(list) >= 256 {
			// doubled, not grown by a quarter as append does past 256: the copies of
			// sympy's long flow lists came to ≈4× their final size (≈24 MB), garbage
			// made during the rounds, when the heap is at its largest
			list = append(make([]*expr, 0, 2*len(list)), list...)
		}
		return append(list, e), true
	}
	if slices.Contains(list, e) {
		return list, false
	}
	list = append(list, e)
	if len(list) > linearSet {
		s := &exprSet{}
		for _, x := range list {
			s.add(x)
		}
		*index = s
	}
	return list, true
}

// exprSet is a set of expressions by identity (see ptrSet).
type exprSet = ptrSet[expr]

// ptrSet is a set of pointers: open addressing over a power-of-two table, at most three
// quarters full. It takes 11–21 bytes per member, where a Go map took ≈32 (sympy's
// parameters receive ≈1M flows through such sets).
type ptrSet[T any] struct {
	slots []*T
	n     int
}

// add adds e, reporting whether it was not a member yet.
func (s *ptrSet[T]) add(e *T) bool {
	if (s.n+1)*4 > len(s.slots)*3 {
		old := s.slots
		s.slots, s.n = make([]*T, max(32, 2*len(old))), 0
		for _, x := range old {
			if x != nil {
				s.add(x)
			}
		}
	}
	mask := uint64(len(s.slots) - 1)
	// Fibonacci hashing of the address: the collector does not move objects
	h := uint64(uintptr(unsafe.Pointer(e))) * 0x9E3779B97F4A7C15
	for i := (h ^ h>>29) & mask; ; i = (i + 1) & mask {
		switch s.slots[i] {
		case nil:
			s.slots[i] = e
			s.n++
			return true
		case e:
			return false
		}
	}
}

func addValues(out []value, vs ...value) []value {
outer:
	for _, v := range vs {
		for k := range out {
			// the pointers first: they tell most values apart
			if o := &out[k]; o.def == v.def && o.ref == v.ref && o.kind == v.kind &&
				o.bound == v.bound && o.sliced == v.sliced && o.off == v.off {
				continue outer
			}
		}
		if len(out) >= maxValues && (v.kind != vDef || len(out) >= maxFunctions) {
			if v.kind == vDef && len(out) < maxFunctions {
				out = append(out, v)
			}
			continue
		}
		out = append(out, v)
	}
	return out
}

// maxSubstNodes bounds the size of a return expression substReturn copies.
const maxSubstNodes = 64

// substReturn returns return expression ret of d specialised to call e: a copy in which
// each name of d's own scope bound only to one of d's parameters (not *args or
// **kwargs, never rebound) is replaced by the argument e passes for it, or by its
// default. What the function returns then depends on this call's arguments, not on
// every value ever passed: one level of call-site sensitivity, for results computed
// from parameters (h11's `_get_io_object(role, event, io_dict)` returns
// `io_dict.get((role, state))`, called with the READERS table for the reader and the
// WRITERS table for the writer). It returns nil when ret names no parameter, when e
// is itself part of such a copy (no deeper contexts), or when ret is larger than
// maxSubstNodes.
func (r *resolver) substReturn(d *defInfo, bound bool, e, ret *expr) *expr {
	if r.substCalls[e] || !r.substitutable(d, ret) {
		return nil
	}
	k := substKey{call: e, ret: ret, bound: bound}
	if s, ok := r.substs[k]; ok {
		return s
	}
	if r.substs == nil {
		r.substs, r.substCalls = map[substKey]*expr{}, map[*expr]bool{}
	}
	r.substs[k] = nil // while copying: a cycle through e gets the unspecialised result
	var calls []*expr
	nodes := 0
	copied := map[*expr]*expr{}
	var cp func(x *expr) (*expr, bool)
	cp = func(x *expr) (*expr, bool) {
		if x == nil {
			return nil, true
		}
		if c, ok := copied[x]; ok {
			return c, true
		}
		nodes++
		if nodes > maxSubstNodes {
			return nil, false
		}
		if x.op == eName && x.scope() == d.scope {
			if j := paramNamed(d, x); j >= 0 {
				a := argFor(d, bound, e.lit().elems(), e.lit().keyList(), e.slice(), j)
				if a == nil && !e.slice() {
					a = d.params[j].dflt
				}
				if a != nil {
					// the argument, or what flows into the parameter from every call
					// when nothing is known of the argument
					f := mkExpr(exprSpec{op: eFirst, ref: withLit(litOf([]*expr{a, x}))})
					copied[x] = f
					return f, true
				}
			}
			if j, bs := reboundParam(d, x); j >= 0 {
				// a parameter the body rebinds (`func = registry.checks(name)(func)` in
				// jsonschema's _checks_drafts): the argument, or the parameter's merged
				// flows, and the copies of the rebinding values that reach x, which may
				// name x again (the union stands for it while they are copied)
				a := argFor(d, bound, e.lit().elems(), e.lit().keyList(), e.slice(), j)
				if a == nil && !e.slice() {
					a = d.params[j].dflt
				}
				l := litOf(make([]*expr, 0, len(bs)))
				u := mkExpr(exprSpec{op: eUnion, ref: withLit(l)})
				copied[x] = u
				for _, b := range bs {
					if b.val.op == eParam {
						if a != nil {
							l.appendElems(mkExpr(exprSpec{op: eFirst, ref: withLit(litOf([]*expr{a, b.val}))}))
						} else {
							l.appendElems(b.val)
						}
						continue
					}
					c, ok := cp(b.val)
					if !ok {
						return nil, false
					}
					l.appendElems(c)
				}
				return u, true
			}
			if v := getattrLocal(d, x, false); v != nil {
				c, ok := cp(v)
				copied[x] = c
				return c, ok
			}
			copied[x] = x
			return x, true
		}
		switch x.op {
		case eDef, eParam, eSelf, eClass, eSuper, eModule, eFrom, eConst, eAffix, eUnknown, eName:
			copied[x] = x
			return x, true
		}
		if k := getattrKey(d, x); k != nil {
			// the key's local expanded, to be copied with the rest
			g := x.clone()
			g.setMemo24(0)
			l := *x.lit()
			l.setElems(slices.Clone(l.elems()))
			l.elems()[0] = k
			g.setLit(&l)
			x = g
		}
		nx, ok := cp(x.sub())
		if !ok {
			return nil, false
		}
		changed := nx != x.sub()
		var nl *litData
		if x.lit() != nil {
			elems := x.lit().elems()
			for i, el := range x.lit().elems() {
				ne, ok := cp(el)
				if !ok {
					return nil, false
				}
				if ne != el {
					if &elems[0] == &x.lit().elems()[0] {
						elems = slices.Clone(x.lit().elems())
					}
					elems[i] = ne
				}
			}
			var nb *expr
			if b := x.lit().builtinOf(); b != nil {
				if nb, ok = cp(b); !ok {
					return nil, false
				}
			}
			if len(elems) > 0 && &elems[0] != &x.lit().elems()[0] || nb != x.lit().builtinOf() {
				l := *x.lit()
				l.setElems(elems)
				if l.litExtra != nil {
					xe := *l.litExtra
					xe.builtin = nb
					xe.extraKeys, xe.extraVals, xe.extraSeen = slices.Clone(xe.extraKeys), slices.Clone(xe.extraVals), nil
					l.litExtra = &xe
				}
				nl = &l
				changed = true
			}
		}
		if !changed {
			copied[x] = x
			return x, true
		}
		c := x.clone()
		c.setMemo24(0)
		c.setSub(nx)
		if nl != nil {
			c.setLit(nl)
		}
		if c.op == eCall {
			calls = append(calls, c)
		}
		copied[x] = c
		return c, true
	}
	s, ok := cp(ret)
	if !ok || s == ret {
		return nil
	}
	for _, c := range calls {
		r.substCalls[c] = true
	}
	r.substs[k] = s
	return s
}

// substitutable reports whether return expression ret of d may be specialised to some
// call (see substReturn): it names a parameter of d within maxSubstNodes nodes, which
// depends on neither the call nor the round. Most returns do not, and checking once
// spares an entry of resolver.substs per call site and return (≈200k on sympy).
func (r *resolver) substitutable(d *defInfo, ret *expr) bool {
	k := defExpr{d, ret}
	if ok, known := r.substOK[k]; known {
		return ok
	}
	// walk the nodes substReturn's copy visits, in its order, counting them as it does
	nodes, names := 0, false
	seen := map[*expr]bool{}
	var walk func(x *expr) bool
	walk = func(x *expr) bool {
		if x == nil || seen[x] {
			return true
		}
		seen[x] = true
		nodes++
		if nodes > maxSubstNodes {
			return false
		}
		if x.op == eName && x.scope() == d.scope {
			if paramNamed(d, x) >= 0 {
				names = true
			} else if j, bs := reboundParam(d, x); j >= 0 {
				names = true
				for _, b := range bs {
					if b.val.op != eParam && !walk(b.val) {
						return false
					}
				}
			} else if v := getattrLocal(d, x, false); v != nil {
				return walk(v)
			}
			return true
		}
		switch x.op {
		case eDef, eParam, eSelf, eClass, eSuper, eModule, eFrom, eConst, eAffix, eUnknown, eName:
			return true
		}
		if !walk(x.sub()) {
			return false
		}
		if x.lit() != nil {
			for i, el := range x.lit().elems() {
				if k := getattrKey(d, x); i == 0 && k != nil {
					el = k
				}
				if !walk(el) {
					return false
				}
			}
			if b := x.lit().builtinOf(); b != nil && !walk(b) {
				return false
			}
		}
		return true
	}
	ok := walk(ret) && names
	if r.substOK == nil {
		r.substOK = map[defExpr]bool{}
	}
	r.substOK[k] = ok
	return ok
}

// defExpr is an expression of a definition (a return expression).
type defExpr struct {
	d *defInfo
	e *expr
}

// isParamName reports whether name x, where it is read, holds a parameter of its
// function (every binding reaching it is the parameter).
func isParamName(x *expr) bool {
	if x.op != eName || x.scope() == nil || x.scope().def == nil || x.scope() != x.scope().def.scope {
		return false
	}
	bs := reaching(x.scope().bindings(x.name()), x.pos)
	for _, b := range bs {
		if b.val.op != eParam || b.val.def() != x.scope().def {
			return false
		}
	}
	return len(bs) > 0
}

// paramNamed returns the index of the parameter of d that name expression x (of d's
// own scope) is bound to, when it is bound only to that parameter (not *args or
// **kwargs), else -1.
// reboundParam returns, for name x of d's body that is a parameter of d also rebound
// there, the parameter's index and the bindings that reach x (the parameter's among
// them); else -1.
func reboundParam(d *defInfo, x *expr) (int, []bound) {
	bs := d.scope.bindings(x.name())
	if len(bs) < 2 {
		return -1, nil
	}
	j := -1
	for _, b := range bs {
		if b.val.op == eParam && b.val.def() == d && !d.params[b.val.idx()].star {
			j = int(b.val.idx())
		}
	}
	if j < 0 {
		return -1, nil
	}
	rs := reaching(bs, x.pos)
	for _, b := range rs {
		if b.val.op == eParam && int(b.val.idx()) == j {
			return j, rs
		}
	}
	return -1, nil
}

func paramNamed(d *defInfo, x *expr) int {
	bs := d.scope.bindings(x.name())
	if len(bs) != 1 || bs[0].val.op != eParam || bs[0].val.def() != d || d.params[bs[0].val.idx()].star {
		return -1
	}
	return int(bs[0].val.idx())
}

// globalsCall evaluates `globals()` (the builtin, not rebound, called without
// arguments) to its module's dict, a module value marked sliced, and
// `globals().get(key[, default])` on such a dict to globalsItems (with the default);
// other calls to nothing.
func (r *resolver) globalsCall(e *expr) []value {
	if r.noFlow || e.lit() == nil {
		return nil
	}
	args := e.lit().elems()
	switch {
	case e.sub().op == eName && e.sub().name() == "globals" && len(args) == 0 && !e.slice():
		if !r.isBuiltin(e.sub().scope(), "globals") {
			return nil
		}
		m := r.moduleValue(e.sub().scope().file.key)[0]
		m.sliced = true
		return []value{m}
	case e.sub().op == eAttr && e.sub().name() == "get" && len(args) >= 1 && len(args) <= 2 && !e.slice() && len(e.lit().keyList()) == 0:
		var out []value
		found := false
		for _, v := range r.eval(e.sub().sub()) {
			if v.kind != vModule || !v.sliced {
				continue
			}
			found = true
			keys, _ := r.constKeys(args[0], 0)
			out = union(out, r.globalsItems(v, args[0], keys))
		}
		if found && len(args) == 2 {
			out = union(out, r.eval(args[1]))
		}
		return out
	}
	return nil
}

// globalsItems evaluates a subscript of g, the globals() dict of a module: with
// constant string keys, the module's names of those keys; otherwise the classes and
// functions the module's names hold (defined or imported there), among the names
// whose prefix and suffix match those of the strings key may hold (sievelib's
// `cname = "%sCommand" % name.lower().capitalize()` then `globals()[cname](parent)`).
// Other values of its names (constants, instances, modules) are left out, and a key of
// which nothing is known selects nothing: every function of the module would be a
// guess (`globals()[name](parent)` reached the function doing the lookup).
func (r *resolver) globalsItems(g value, key *expr, keys []string) []value {
	mod := r.modKeys[g.off]
	var out []value
	if len(keys) > 0 {
		for _, k := range keys {
			if name, ok := strings.CutPrefix(k, "s"); ok {
				out = union(out, r.moduleAttr(mod, name))
			}
		}
		return out
	}
	f, ok := r.byKey[mod]
	if !ok || f.scope.names == nil {
		return nil
	}
	pats, all := r.keyPatterns(key)
	if all {
		return nil
	}
	for _, name := range f.scope.names.keys {
		if !all && !matchesAny(name, pats) {
			continue
		}
		for _, v := range r.moduleAttr(mod, name) {
			if v.kind == vDef {
				out = addValues(out, v)
			}
		}
	}
	return out
}

// affixPattern is the constant prefix and suffix of a string built around unknown parts
// (see eAffix).
type affixPattern struct{ pre, suf string }

// keyPatterns returns the patterns of the strings key may hold, when it is such a string
// or a name bound (in its own scope) only to such strings; all is set otherwise.
func (r *resolver) keyPatterns(key *expr) (pats []affixPattern, all bool) {
	add := func(x *expr) {
		switch {
		case x != nil && x.op == eAffix && !strings.HasPrefix(x.name(), bytesAffix):
			pre, suf, _ := strings.Cut(x.name(), "\x00")
			pats = append(pats, affixPattern{pre, suf})
		case x != nil && x.op == eCall:
			if p, ok := r.formatPattern(x); ok {
				pats = append(pats, p)
				return
			}
			if f := x.sub(); f != nil && f.op == eAttr && (f.name() == "decode" || f.name() == "encode") && f.sub() != nil && f.sub().op == eAffix {
				// (prefix + b"_suffix").decode(...): the text keeps the affix
				// (fastimport's ImportProcessor dispatches on `(cmd.name +
				// b'_handler').decode('utf8')`)
				pre, suf, _ := strings.Cut(strings.TrimPrefix(f.sub().name(), bytesAffix), "\x00")
				pats = append(pats, affixPattern{pre, suf})
				return
			}
			all = true
		default:
			all = true
		}
	}
	switch {
	case key == nil:
		all = true
	case key.op == eName:
		bs := key.scope().bindings(key.name())
		if len(bs) == 0 {
			all = true
		}
		for _, b := range bs {
			add(b.val)
		}
	default:
		add(key)
	}
	return pats, all
}

// matchesAny reports whether name has the prefix and suffix of one of pats.
func matchesAny(name string, pats []affixPattern) bool {
	for _, p := range pats {
		if len(name) >= len(p.pre)+len(p.suf) && strings.HasPrefix(name, p.pre) && strings.HasSuffix(name, p.suf) {
			return true
		}
	}
	return false
}

// getattrLocal returns the value of x, a local name of d bound once, unconditionally
// (narrowings aside), when that value is a getattr (or, with any, whatever it is); nil otherwise. substReturn
// copies it in place of the name: a function returning `result = getattr(self,
// methodname)` is specialised at each call like one returning the getattr itself.
func getattrLocal(d *defInfo, x *expr, any bool) *expr {
	if x == nil || x.op != eName || x.scope() != d.scope {
		return nil
	}
	// narrowings of the name (`if result is None: raise ...`) are looked through
	var v *expr
	for _, b := range d.scope.bindings(x.name()) {
		if b.val != nil && b.val.op == eNarrow {
			continue
		}
		if v != nil || b.cond() || b.until() != 0 || b.pos > x.pos || b.val == nil {
			return nil
		}
		v = b.val
	}
	if v == nil || v.op == eParam || !any && (v.op != eCall || v.lit() == nil || v.lit().builtinOf() == nil || v.lit().builtinOf().op != eGetattr) {
		return nil
	}
	return v
}

// getattrKey returns, for a getattr of d whose name is a local of d bound once (cerberus's
// `methodname = '_{0}_{1}'.format(domain, rule)` then `getattr(self, methodname,
// None)`), that local's value; nil otherwise.
func getattrKey(d *defInfo, x *expr) *expr {
	if x.op != eGetattr || x.lit() == nil || len(x.lit().elems()) == 0 {
		return nil
	}
	return getattrLocal(d, x.lit().elems()[0], true)
}

// formatPattern returns the pattern of `"literal".format(args...)` (positional fields
// only): the fields whose argument holds one string constant are filled in, the text
// before the first other field is the prefix, the text after the last the suffix. ok is
// false for other calls, for fields with a conversion, a format spec, an attribute or an
// index, and when an argument for a field is a parameter (whose value each call gives:
// substReturn replaces it by the call's argument) or nothing constant is left.
func (r *resolver) formatPattern(e *expr) (affixPattern, bool) {
	f := e.sub()
	if f == nil || f.op != eAttr || f.name() != "format" || f.sub() == nil || f.sub().op != eConst || e.lit() == nil || e.slice() || len(e.lit().keyList()) > 0 {
		return affixPattern{}, false
	}
	tmpl, isStr := strings.CutPrefix(f.sub().name(), "s")
	if !isStr {
		return affixPattern{}, false
	}
	args := e.lit().elems()
	var sb strings.Builder
	pre, unknown, auto := "", false, 0
	for i := 0; i < len(tmpl); i++ {
		ch := tmpl[i]
		if ch == '}' {
			if i+1 < len(tmpl) && tmpl[i+1] == '}' {
				i++
			}
			sb.WriteByte('}')
			continue
		}
		if ch != '{' {
			sb.WriteByte(ch)
			continue
		}
		if i+1 < len(tmpl) && tmpl[i+1] == '{' {
			i++
			sb.WriteByte('{')
			continue
		}
		end := strings.IndexByte(tmpl[i:], '}')
		if end < 0 {
			return affixPattern{}, false
		}
		field := tmpl[i+1 : i+end]
		i += end
		n := auto
		if field == "" {
			auto++
		} else {
			v, err := strconv.Atoi(field)
			if err != nil || v < 0 {
				return affixPattern{}, false
			}
			n = v
		}
		if n >= len(args) {
			return affixPattern{}, false
		}
		a := args[n]
		if a.op == eParam || a.op == eName && a.scope() != nil && a.scope().def != nil && paramNamed(a.scope().def, a) >= 0 {
			return affixPattern{}, false
		}
		if ks, ok := r.constKeys(a, 0); ok && len(ks) == 1 && strings.HasPrefix(ks[0], "s") {
			sb.WriteString(ks[0][1:])
			continue
		}
		if !unknown {
			pre, unknown = sb.String(), true
		}
		sb.Reset()
	}
	if !unknown {
		return affixPattern{}, false // a constant: left to constKeys
	}
	p := affixPattern{pre, sb.String()}
	if p.pre == "" && p.suf == "" {
		return affixPattern{}, false
	}
	return p, true
}
