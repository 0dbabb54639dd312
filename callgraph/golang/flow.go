package golang

import (
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/faultline-dev/faultline/callgraph"
)

// Type flow (Options.Interfaces = InterfacesTypeFlow).
//
// The analysis is a syntactic take on variable type analysis (VTA, Sundaresan et al.; the
// reference is golang.org/x/tools/go/callgraph/vta). It builds one directed graph over
// abstract locations and labels each location with the set of the module's concrete named
// types whose values may be stored there:
//
//   - a local variable (one location per declaration, not per assignment);
//   - parameter i and result i of a declared function or method;
//   - a struct field, per declaring type and field name (all values of the type share it);
//   - a package-level variable;
//   - the elements of every slice, array and channel, and the values and the keys of every
//     map, of one element type (all containers of that element type share it, as in VTA);
//     when the element type is not known syntactically, the container's own location
//     stands for its elements.
//
// An expression whose syntactic type is a concrete named type of the module (or a pointer
// to one) seeds its type; other expressions carry the locations they read. Assignments,
// short variable declarations, var declarations, range clauses, channel sends, returns,
// composite-literal elements, type switches and assertions, conversions, append, and
// arguments of calls (into the parameters of every callee) add edges; a call's value reads
// the callees' results. The callees that establish interprocedural flow are the static
// callees plus, for a call through an interface, the class-hierarchy candidates (as VTA
// does when seeded with CHA). After propagation to a fixed point, a call x.M() through an
// interface resolves to method M of each labelled type of x whose method set covers the
// interface; a type that gets M from an embedded interface field dispatches again on the
// types of that field.
//
// Functions, method values and function literals are labels too: a call through a value
// of function type reaches the functions that reach it, and is linked to them (arguments
// into their parameters, results into the call's value) between rounds of propagation
// until nothing changes.

// loc is a location of the type-flow graph; 0 is no location.
type loc int32

type locKind byte

const (
	lkParam locKind = iota + 1
	lkResult
	lkField
	lkGlobal
	lkElem
	lkKey
	lkCall // the value of a call through a function value
	lkLitParam
	lkLitResult
	lkBound // a method value x.M on an interface-typed x
)

// boundMethod is a method value x.M whose receiver has an interface type: its location
// receives the methods the call x.M() would dispatch to.
type boundMethod struct {
	at   loc
	site *ifaceSite
	seen map[*fn]bool
}

// litInfo is a function literal that flows as a value: calls through the values it reaches
// pass their arguments to its parameters and take its results (it has no node: its code
// is folded into the enclosing definition, and such calls have no edge).
type litInfo struct {
	key      nodeKey
	params   []*typ // by position, as paramTypes lists them
	variadic bool
	nparams  int // countParams of its parameter list
	nresults int
}

type locKey struct {
	kind locKind
	g    *fn
	d    *typeDecl
	v    *varDecl
	n    nodeKey
	s    string
	i    int
}

// flowGraph is the type-flow graph of one Analyze call.
type flowGraph struct {
	ntypes  int // label bits [0, ntypes) are analyzer.named, then analyzer.fns, then lits
	nfns    int
	lits    []litInfo
	bounds  []*boundMethod
	locs    locKeys  // the locations that have a key, but for:
	fnLocs  []fnLocs // by analyzer.fns
	globals []loc    // by analyzer.vars
	succ    [][]loc
	edges   map[[2]loc]bool // the edges of the locations with more than smallSucc successors
	label   []label         // each location's label (a set of label bits: see ntypes)
	sets    *labelSets      // the label sets
	// dirty lists the locations whose labels grew or that gained successors since the
	// last propagate (marked by isDirty): the only places the next propagate starts
	// from, as every other edge already carries its source's whole label.
	dirty   []loc
	isDirty []bool
	pending []pendingCall
}

// chaKey identifies an interface method: the interface type (a module declaration's
// underlying type, or a literal) or the name of a standard-library interface.
type chaKey struct {
	it   *typ
	ext  string
	name string
}

// pendingCall is a call through an interface or a function value, resolved after
// propagation.
type pendingCall struct {
	pos    int // index in Analysis.Calls where its edges go
	caller string
	file   string // the caller's file
	line   int
	site   *ifaceSite
	dyn    *dynCall
	// counted: the call site is already counted as resolved (a folded literal call).
	counted bool
}

// dynCall is a call through a value of function type.
type dynCall struct {
	call   nodeKey
	recv   flow   // what the called expression holds
	args   []flow // what each argument holds
	spread bool   // the last argument is passed with ...
	linked map[*fn]bool
	// litLinked are the function literals linked so far.
	litLinked map[int]bool
}

// ifaceSite describes a call x.M() through an interface.
type ifaceSite struct {
	name string
	req  []string         // methods the receiver's type must have; [name] when unknown
	ar   map[string]arity // parameter and result counts of the methods of req, when known
	cha  bool             // req is the interface's full method set (CHA candidates exist)
	key  chaKey
	recv flow
}

// flow is what an expression may hold: the locations it reads and the concrete types it
// is known to have.
type flow struct {
	locs  []loc
	types []*typeDecl
	fns   []*fn // functions and methods named as values
	lits  []int // function literals (indices into flowGraph.lits)
}

func (f flow) empty() bool {
	return len(f.locs) == 0 && len(f.types) == 0 && len(f.fns) == 0 && len(f.lits) == 0
}

func (f flow) union(g flow) flow {
	if f.empty() {
		return g
	}
	if g.empty() {
		return f
	}
	return flow{locs: append(append([]loc(nil), f.locs...), g.locs...),
		types: append(append([]*typeDecl(nil), f.types...), g.types...),
		fns:   append(append([]*fn(nil), f.fns...), g.fns...),
		lits:  append(append([]int(nil), f.lits...), g.lits...)}
}

func newFlowGraph(ntypes, nfns int) *flowGraph {
	return &flowGraph{
		ntypes: ntypes, nfns: nfns, fnLocs: make([]fnLocs, nfns), succ: make([][]loc, 1),
		label: make([]label, 1), sets: newLabelSets(), isDirty: make([]bool, 1), edges: map[[2]loc]bool{},
	}
}

func (fg *flowGraph) newLoc() loc {
	fg.succ = append(fg.succ, nil)
	fg.label = append(fg.label, 0)
	fg.isDirty = append(fg.isDirty, false)
	return loc(len(fg.succ) - 1)
}

// at returns the location of k, creating it on first use.
func (fg *flowGraph) at(k locKey) loc {
	var s *[]loc // the parameters or results of a function, the variables: by number
	i := k.i
	switch k.kind {
	case lkParam:
		s = &fg.fnLocs[k.g.idx].params
	case lkResult:
		s = &fg.fnLocs[k.g.idx].results
	case lkGlobal:
		s, i = &fg.globals, k.v.idx
	}
	if s == nil || i < 0 {
		return fg.locs.find(k, fg.newLoc)
	}
	if i >= len(*s) {
		*s = append(*s, make([]loc, i+1-len(*s))...)
	}
	if (*s)[i] == 0 {
		(*s)[i] = fg.newLoc()
	}
	return (*s)[i]
}

// fnLocs are the locations of a function's parameters and results, by position (0
// until created).
type fnLocs struct{ params, results []loc }

// locKeys finds locations by key. The kinds are kept in maps of their own with small
// keys, as looking locations up is much of resolution's work.
type locKeys struct {
	keys       map[locKey]loc // fields, elements and keys; the other kinds are in:
	fnKeys     map[fnLocKey]loc
	nodeKeys   map[nodeLocKey]loc
	globalKeys map[*varDecl]loc
}

// find returns the location of k, from create the first time k is asked for.
func (t *locKeys) find(k locKey, create func() loc) loc {
	switch k.kind {
	case lkParam, lkResult:
		return findLoc(&t.fnKeys, fnLocKey{g: k.g, i: int32(k.i), kind: k.kind}, create)
	case lkCall, lkLitParam, lkLitResult, lkBound:
		return findLoc(&t.nodeKeys, nodeLocKey{n: k.n, i: int32(k.i), kind: k.kind}, create)
	case lkGlobal:
		return findLoc(&t.globalKeys, k.v, create)
	}
	return findLoc(&t.keys, k, create)
}

func findLoc[K comparable](m *map[K]loc, k K, create func() loc) loc {
	if l, ok := (*m)[k]; ok {
		return l
	}
	if *m == nil {
		*m = map[K]loc{}
	}
	l := create()
	(*m)[k] = l
	return l
}

// fnLocKey and nodeLocKey are the locKeys of the kinds that name a function's parameter
// or result, and a node's value, parameter or result.
type (
	fnLocKey struct {
		g    *fn
		i    int32
		kind locKind
	}
	nodeLocKey struct {
		n    nodeKey
		i    int32
		kind locKind
	}
)

func (fg *flowGraph) seedType(l loc, d *typeDecl) { fg.seedBit(l, d.idx) }

func (fg *flowGraph) seedFn(l loc, g *fn) { fg.seedBit(l, fg.ntypes+g.idx) }

func (fg *flowGraph) seedLit(l loc, i int) { fg.seedBit(l, fg.litBit(i)) }

func (fg *flowGraph) seedBit(l loc, i int) {
	if u := fg.sets.union(fg.label[l], fg.sets.bit(i)); u != fg.label[l] {
		fg.label[l] = u
		fg.touch(l)
	}
}

// touch marks l for the next propagate.
func (fg *flowGraph) touch(l loc) {
	if !fg.isDirty[l] {
		fg.isDirty[l] = true
		fg.dirty = append(fg.dirty, l)
	}
}

// flowSink takes the facts the type flow is built from: the flowGraph itself, or the
// flowRec of one file's walk, which records them to be replayed into the graph in file
// order (see flowRec).
type flowSink interface {
	at(k locKey) loc // the location of k, created on first use
	addEdge(from, to loc)
	seedType(l loc, d *typeDecl)
	seedFn(l loc, g *fn)
	seedLit(l loc, i int) // function literal i (see walker.lit)
}

// sink builds type-flow facts into a flowSink.
type sink struct{ flowSink }

func (s sink) param(g *fn, i int) loc  { return s.at(locKey{kind: lkParam, g: g, i: i}) }
func (s sink) result(g *fn, i int) loc { return s.at(locKey{kind: lkResult, g: g, i: i}) }
func (s sink) field(d *typeDecl, name string) loc {
	return s.at(locKey{kind: lkField, d: d, s: name})
}
func (s sink) global(v *varDecl) loc { return s.at(locKey{kind: lkGlobal, v: v}) }
func (s sink) elem(key string, mapKey bool) loc {
	if mapKey {
		return s.at(locKey{kind: lkKey, s: key})
	}
	return s.at(locKey{kind: lkElem, s: key})
}

func (s sink) callValue(call nodeKey, i int) loc {
	return s.at(locKey{kind: lkCall, n: call, i: i})
}

func (s sink) litParam(n nodeKey, i int) loc {
	return s.at(locKey{kind: lkLitParam, n: n, i: i})
}

func (s sink) litResult(n nodeKey, i int) loc {
	return s.at(locKey{kind: lkLitResult, n: n, i: i})
}

// lit returns the number of a function literal, registering it: its index in
// flowGraph.lits once the file's record is replayed (see flowRec.litIdx).
func (w *walker) lit(n *node) int {
	r := w.rec
	k := w.f.key(n)
	if i, ok := r.litIdx[k]; ok {
		return i
	}
	if r.litIdx == nil {
		r.litIdx = map[nodeKey]int{}
	}
	i := -1 - len(r.lits)
	r.litIdx[k] = i
	params, variadic := w.f.params(n.Child("parameters"), w.tparams)
	r.lits = append(r.lits, litInfo{key: k, params: params, variadic: variadic,
		nparams: countParams(n.Child("parameters")), nresults: len(w.f.resultTypes(n.Child("result"), w.tparams))})
	return i
}

func (fg *flowGraph) litBit(i int) int { return fg.ntypes + fg.nfns + i }

// smallSucc is the number of successors up to which addEdge finds a duplicate by
// scanning them; a location with more keeps them in fg.edges too.
const smallSucc = 16

func (fg *flowGraph) addEdge(from, to loc) {
	if from == 0 || to == 0 || from == to {
		return
	}
	succ := fg.succ[from]
	if len(succ) <= smallSucc {
		if slices.Contains(succ, to) {
			return
		}
		if len(succ) == smallSucc {
			for _, s := range succ {
				fg.edges[[2]loc{from, s}] = true
			}
			fg.edges[[2]loc{from, to}] = true
		}
	} else {
		if fg.edges[[2]loc{from, to}] {
			return
		}
		fg.edges[[2]loc{from, to}] = true
	}
	fg.succ[from] = append(succ, to)
	fg.touch(from)
}

// flowTo adds edges from what f holds to every location of dst.
func (s sink) flowTo(dst []loc, f flow) {
	for _, d := range dst {
		if d == 0 {
			continue
		}
		for _, l := range f.locs {
			s.addEdge(l, d)
		}
		for _, t := range f.types {
			s.seedType(d, t)
		}
		for _, g := range f.fns {
			s.seedFn(d, g)
		}
		for _, i := range f.lits {
			s.seedLit(d, i)
		}
	}
}

// propagate labels every location with the union of the labels of its predecessors, to a
// fixed point. The result does not depend on the order of the work list. It starts from
// the locations touched since the last call (seeded, or given a successor): after a
// propagate every edge's target holds its source's label, so only those can break that.
func (fg *flowGraph) propagate() {
	work := fg.dirty[:0:0]
	queued := make([]bool, len(fg.succ))
	for _, l := range fg.dirty {
		fg.isDirty[l] = false
		if fg.label[l] != 0 && len(fg.succ[l]) > 0 {
			work = append(work, l)
			queued[l] = true
		}
	}
	fg.dirty = fg.dirty[:0]
	h := locHeap(work)
	h.init()
	for len(h) > 0 {
		l := h.pop()
		queued[l] = false
		src := fg.label[l]
		for _, d := range fg.succ[l] {
			u := fg.sets.union(fg.label[d], src)
			if u == fg.label[d] {
				continue
			}
			fg.label[d] = u
			if !queued[d] && len(fg.succ[d]) > 0 {
				h.push(d)
				queued[d] = true
			}
		}
	}
}

// locHeap is a max-heap of locations: propagate passes labels on from the highest
// location first.
type locHeap []loc

func (h locHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h *locHeap) push(l loc) {
	*h = append(*h, l)
	s := *h
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if s[p] >= s[i] {
			break
		}
		s[p], s[i] = s[i], s[p]
		i = p
	}
}

func (h *locHeap) pop() loc {
	s := *h
	top := s[0]
	s[0] = s[len(s)-1]
	*h = s[:len(s)-1]
	h.down(0)
	return top
}

func (h locHeap) down(i int) {
	for {
		c := 2*i + 1
		if c >= len(h) {
			return
		}
		if c+1 < len(h) && h[c+1] > h[c] {
			c++
		}
		if h[i] >= h[c] {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}

// typesOf returns the union of the labels of f as a bitset.
func (fg *flowGraph) typesOf(f flow) bitset {
	var out bitset
	for _, l := range f.locs {
		out.or(fg.sets.sets[fg.label[l]])
	}
	for _, t := range f.types {
		out.add(t.idx)
	}
	for _, g := range f.fns {
		out.add(fg.ntypes + g.idx)
	}
	for _, i := range f.lits {
		out.add(fg.litBit(i))
	}
	return out
}

// dispatch returns the methods a pending interface call reaches: method name of every
// labelled concrete type whose method set covers the site's requirements, in declaration
// order of the types.
func (a *analyzer) dispatch(s *ifaceSite) []*fn {
	return a.dispatchSet(s, a.flow.typesOf(s.recv))
}

// dispatchSet is dispatch for a receiver labelled with set.
func (a *analyzer) dispatchSet(s *ifaceSite, set bitset) []*fn {
	var out []*fn
	seen := map[*fn]bool{}
	var visit func(set bitset, depth int)
	visit = func(set bitset, depth int) {
		set.each(0, a.flow.ntypes, func(b int) {
			td := a.named[b]
			if td.isIface() || !td.covers(s.req, s.ar) {
				return
			}
			fns := td.methodSet()[s.name]
			if len(fns) == 0 && depth < 4 {
				// Promoted from an embedded interface field: dispatch on that field.
				if _, _, owner, fname := findMethodVia(named(td), s.name); owner != nil {
					visit(a.flow.typesOf(flow{locs: []loc{sink{a.flow}.field(owner, fname)}}), depth+1)
				}
				return
			}
			for _, g := range fns {
				if !seen[g] {
					seen[g] = true
					out = append(out, g)
				}
			}
		})
	}
	visit(set, 0)
	return out
}

// dispatchMemo remembers the final dispatches of finishFlow: many interface calls share
// their method, interface and receiver labels (every w.Write on an io.Writer holding the
// same types), and dispatch is a function of those alone once the labels are final.
type dispatchMemo map[dispatchKey]dispatchDone

type dispatchKey struct {
	key chaKey
	set string // the receiver's labels, see bitset.key
}

// dispatchDone is one remembered dispatch, with the requirements it was computed for: a
// site with the same key but other requirements is computed afresh.
type dispatchDone struct {
	req []string
	ar  map[string]arity
	fns []*fn
}

// finalDispatch is dispatch after the last propagation, through the memo. The result is
// shared between sites: callers must not modify it.
func (a *analyzer) finalDispatch(s *ifaceSite, memo dispatchMemo) []*fn {
	set := a.flow.typesOf(s.recv)
	k := dispatchKey{key: s.key, set: set.key()}
	if d, ok := memo[k]; ok && slices.Equal(d.req, s.req) && maps.Equal(d.ar, s.ar) {
		return d.fns
	}
	fns := a.dispatchSet(s, set)
	memo[k] = dispatchDone{req: s.req, ar: s.ar, fns: fns}
	return fns
}

// dynTargets returns the functions and methods that reach the called value of a call
// through a function value and accept its number of arguments, in definition order.
func (a *analyzer) dynTargets(d *dynCall) []*fn {
	var out []*fn
	set := a.flow.typesOf(d.recv)
	set.each(a.flow.ntypes, a.flow.ntypes+a.flow.nfns, func(i int) {
		g := a.fns[i-a.flow.ntypes]
		params, variadic := g.paramInfo()
		if len(d.args) == len(params) || variadic && len(d.args) >= len(params)-1 {
			out = append(out, g)
		}
	})
	return out
}

// finishFlow propagates the types, links the calls through function values to the
// functions that reach them (their arguments flow into those functions' parameters,
// their results into the call's value) and propagates again until nothing changes, then
// inserts the edges of the pending calls at their places in Analysis.Calls.
func (a *analyzer) finishFlow() {
	fg := a.flow
	fs := sink{fg}
	for round := 0; ; round++ {
		fg.propagate()
		if round == 16 { // a bound on the rounds; the labels are propagated as they stand
			break
		}
		changed := false
		for _, b := range fg.bounds {
			for _, g := range a.dispatch(b.site) {
				if b.seen[g] {
					continue
				}
				if b.seen == nil {
					b.seen = map[*fn]bool{}
				}
				b.seen[g], changed = true, true
				fg.seedFn(b.at, g)
			}
		}
		for _, p := range fg.pending {
			d := p.dyn
			if d == nil {
				continue
			}
			for _, g := range a.dynTargets(d) {
				if d.linked[g] {
					continue
				}
				if d.linked == nil {
					d.linked = map[*fn]bool{}
				}
				d.linked[g], changed = true, true
				fs.argsToParams(g, d.args, d.spread)
				for i := range g.resultTypes() {
					fg.addEdge(fs.result(g, i), fs.callValue(d.call, i))
				}
			}
			for _, li := range a.dynLits(d) {
				if d.litLinked[li] {
					continue
				}
				if d.litLinked == nil {
					d.litLinked = map[int]bool{}
				}
				d.litLinked[li], changed = true, true
				l := fg.lits[li]
				fs.argsInto(l.params, l.variadic, d.args, d.spread, func(i int) loc { return fs.litParam(l.key, i) })
				for i := range l.nresults {
					fg.addEdge(fs.litResult(l.key, i), fs.callValue(d.call, i))
				}
			}
		}
		if !changed {
			break
		}
	}
	if len(fg.pending) == 0 {
		return
	}
	calls := make([]callgraph.Call, 0, len(a.out.Calls)+len(fg.pending))
	memo := dispatchMemo{}
	next := 0
	for _, p := range fg.pending {
		calls = append(calls, a.out.Calls[next:p.pos]...)
		next = p.pos
		if p.counted {
			continue
		}
		var targets []*fn
		resolved := false
		if p.site != nil {
			targets = a.finalDispatch(p.site, memo)
			resolved = len(targets) > 0
		} else {
			targets = a.dynTargets(p.dyn)
			resolved = len(targets) > 0 || len(a.dynLits(p.dyn)) > 0
		}
		if resolved {
			a.out.AddResolved(p.file)
		}
		for _, g := range targets {
			calls = append(calls, callgraph.Call{Caller: p.caller, Callee: g.id, Line: p.line})
		}
	}
	a.out.Calls = append(calls, a.out.Calls[next:]...)
}

// concreteDecl returns the module's concrete named type of t (through one pointer), or nil.
func concreteDecl(t *typ) *typeDecl {
	t = deref(t)
	if t == nil || t.kind != tNamed || t.decl == nil || t.decl.isIface() {
		return nil
	}
	return t.decl
}

// typeKey is a canonical spelling of a syntactic type, "" when it is not fully known.
func typeKey(t *typ) string {
	if t == nil {
		return ""
	}
	join := func(prefix string, e *typ) string {
		k := typeKey(e)
		if k == "" {
			return ""
		}
		return prefix + k
	}
	switch t.kind {
	case tNamed:
		if t.decl != nil {
			return t.decl.pkg.dir + ":" + t.decl.pkg.name + "." + t.decl.name
		}
		switch t.ext { // predeclared aliases
		case "any":
			return "interface{}"
		case "byte":
			return "uint8"
		case "rune":
			return "int32"
		}
		return t.ext
	case tPtr:
		return join("*", t.elem)
	case tSlice:
		return join("[]", t.elem)
	case tChan:
		return join("chan ", t.elem)
	case tMap:
		k := typeKey(t.key)
		if k == "" {
			return ""
		}
		return join("map["+k+"]", t.elem)
	case tFunc:
		k := "func("
		for i, ts := range [][]*typ{t.params, t.results} {
			if i == 1 {
				k += ")("
			}
			for _, p := range ts {
				pk := typeKey(p)
				if pk == "" {
					return ""
				}
				k += pk + ","
			}
		}
		return k + ")"
	case tIface:
		parts := append([]string(nil), t.methods...)
		for _, e := range t.embeds {
			k := typeKey(e)
			if k == "" {
				return ""
			}
			parts = append(parts, k)
		}
		sort.Strings(parts)
		return "interface{" + strings.Join(parts, ";") + "}"
	}
	return ""
}

// fieldOwner returns the module type that declares field name of a value of type t
// (through embedding, shallowest first), or nil.
func fieldOwner(t *typ, name string) *typeDecl {
	var owner *typeDecl
	walkEmbedded(t, func(lt *typ) ([]field, bool) {
		if lt.kind != tNamed || lt.decl == nil {
			return nil, false
		}
		if len(lt.decl.methods[name]) > 0 {
			return nil, true
		}
		u := lt.decl.underlying()
		if u == nil || u.kind != tStruct {
			return nil, false
		}
		for _, fd := range u.fields {
			if fd.name == name {
				owner = lt.decl
				return nil, true
			}
		}
		return u.fields, false
	})
	return owner
}

// flowing reports whether the walker builds the type-flow graph.
func (w *walker) flowing() bool { return w.rec != nil }

// sink is where the walker adds type-flow facts: the record of its file.
func (w *walker) sink() sink { return sink{w.rec} }

// bindingLoc returns (creating) the location of a local variable.
func (w *walker) bindingLoc(b *binding) loc {
	if b.loc == 0 {
		b.loc = w.rec.newLoc()
	}
	return b.loc
}

func (w *walker) globalLocs(vs []*varDecl) []loc {
	out := make([]loc, 0, len(vs))
	for _, v := range vs {
		out = append(out, w.sink().global(v))
	}
	return out
}

// flowOf returns what expression e may hold.
func (w *walker) flowOf(e *node, sc *scope) flow {
	e = w.indexForm(stripParens(e), sc)
	if e == nil {
		return flow{}
	}
	if d := concreteDecl(w.typeOf(e, sc)); d != nil {
		if u := d.underlying(); u == nil || u.kind != tFunc {
			return flow{types: []*typeDecl{d}}
		}
		// A named function type: the value has the type (for its methods) and holds
		// function values.
		return flow{types: []*typeDecl{d}}.union(w.valueFlow(e, sc))
	}
	return w.valueFlow(e, sc)
}

// valueFlow is flowOf for expressions whose type is not a concrete named type.
func (w *walker) valueFlow(e *node, sc *scope) flow {
	fg := w.sink()
	switch e.Type {
	case "identifier":
		name := e.Text(w.f.src)
		if b := sc.lookup(name); b != nil {
			return flow{locs: []loc{w.bindingLoc(b)}}
		}
		if vs := w.f.pkg.vars[name]; len(vs) > 0 {
			return flow{locs: w.globalLocs(vs)}
		}
		for _, im := range w.f.dots {
			if im.pkg != nil && len(im.pkg.vars[name]) > 0 {
				return flow{locs: w.globalLocs(im.pkg.vars[name])}
			}
		}
		if fns := w.pkgFuncs(name); len(fns) > 0 {
			return flow{fns: fns}
		}
	case "selector_expression":
		name := e.Child("field").Text(w.f.src)
		op := stripParens(e.Child("operand"))
		if im := w.importOf(op, sc); im != nil {
			if im.pkg != nil && len(im.pkg.vars[name]) > 0 {
				return flow{locs: w.globalLocs(im.pkg.vars[name])}
			}
			if im.pkg != nil && len(im.pkg.funcs[name]) > 0 {
				return flow{fns: im.pkg.funcs[name]}
			}
			return flow{}
		}
		if t := w.typeNamed(op, sc); t != nil { // a method expression T.M
			return flow{fns: w.methodTargets(t, name)}
		}
		ot := w.typeOf(op, sc)
		if owner := fieldOwner(ot, name); owner != nil {
			return flow{locs: []loc{fg.field(owner, name)}}
		}
		if concreteDecl(ot) != nil { // a method value x.M
			return flow{fns: w.methodTargets(ot, name)}
		}
		k := w.f.key(e)
		if w.rec.bound[k] {
			return flow{locs: []loc{fg.at(locKey{kind: lkBound, n: k})}}
		}
		if s := w.ifaceCall(e, sc, true); s != nil { // a method value on an interface
			l := fg.at(locKey{kind: lkBound, n: k})
			if w.rec.bound == nil {
				w.rec.bound = map[nodeKey]bool{}
			}
			w.rec.bound[k] = true
			w.rec.bounds = append(w.rec.bounds, &boundMethod{at: l, site: s})
			return flow{locs: []loc{l}}
		}
	case "call_expression":
		return w.callFlow(e, sc, 0)
	case "index_expression":
		return w.elemFlow(e.Child("operand"), sc, false)
	case "slice_expression", "type_assertion_expression":
		return w.flowOf(e.Child("operand"), sc)
	case "unary_expression":
		op := e.Child("operator")
		if op == nil {
			return flow{}
		}
		switch op.Type {
		case "&", "*":
			return w.flowOf(e.Child("operand"), sc)
		case "<-":
			return w.elemFlow(e.Child("operand"), sc, false)
		}
	case "func_literal":
		return flow{lits: []int{w.lit(e)}}
	case "composite_literal":
		t := under(w.f.typeExpr(e.Child("type"), w.tparams))
		if t != nil && (t.kind == tSlice || t.kind == tMap) {
			if k := typeKey(t.elem); k != "" {
				return flow{locs: []loc{fg.elem(k, false)}}
			}
		}
	}
	return flow{}
}

// containerType returns the syntactic type of a container expression (a pointer to an
// array counts as the array).
func (w *walker) containerType(c *node, sc *scope) *typ {
	t := under(deref(w.typeOf(c, sc)))
	if t != nil && t.kind == tPtr {
		t = under(t.elem)
	}
	return t
}

// elemLoc returns the location of the elements (or map keys) of a container of type t, 0
// when the element type is not known.
func (s sink) elemLoc(t *typ, mapKey bool) loc {
	if t == nil {
		return 0
	}
	var et *typ
	switch t.kind {
	case tSlice, tChan:
		if mapKey {
			return 0
		}
		et = t.elem
	case tMap:
		et = t.elem
		if mapKey {
			et = t.key
		}
	default:
		return 0
	}
	if k := typeKey(et); k != "" {
		return s.elem(k, mapKey)
	}
	return 0
}

// elemFlow returns what an element (or a map key) of container c may hold.
func (w *walker) elemFlow(c *node, sc *scope, mapKey bool) flow {
	if l := w.sink().elemLoc(w.containerType(c, sc), mapKey); l != 0 {
		return flow{locs: []loc{l}}
	}
	return w.flowOf(c, sc)
}

// elemDst returns the locations a store into an element (or a map key) of c writes.
func (w *walker) elemDst(c *node, sc *scope, mapKey bool) []loc {
	if l := w.sink().elemLoc(w.containerType(c, sc), mapKey); l != 0 {
		return []loc{l}
	}
	return w.dstLocs(c, sc)
}

// dstLocs returns the locations an assignment to lhs writes.
func (w *walker) dstLocs(lhs *node, sc *scope) []loc {
	lhs = w.indexForm(stripParens(lhs), sc)
	if lhs == nil {
		return nil
	}
	switch lhs.Type {
	case "identifier":
		name := lhs.Text(w.f.src)
		if name == "_" {
			return nil
		}
		if b := sc.lookup(name); b != nil {
			return []loc{w.bindingLoc(b)}
		}
		if vs := w.f.pkg.vars[name]; len(vs) > 0 {
			return w.globalLocs(vs)
		}
	case "selector_expression":
		name := lhs.Child("field").Text(w.f.src)
		op := stripParens(lhs.Child("operand"))
		if im := w.importOf(op, sc); im != nil {
			if im.pkg != nil {
				return w.globalLocs(im.pkg.vars[name])
			}
			return nil
		}
		if owner := fieldOwner(w.typeOf(op, sc), name); owner != nil {
			return []loc{w.sink().field(owner, name)}
		}
	case "index_expression":
		return w.elemDst(lhs.Child("operand"), sc, false)
	case "unary_expression":
		if op := lhs.Child("operator"); op != nil && op.Type == "*" {
			return w.dstLocs(lhs.Child("operand"), sc)
		}
	}
	return nil
}

// callFlow returns what result i of a call may hold.
func (w *walker) callFlow(call *node, sc *scope, i int) flow {
	fx := stripParens(call.Child("function"))
	if fx == nil {
		return flow{}
	}
	args := exprList(firstArgList(call))
	if fx.Type == "identifier" && w.isBuiltin(fx, sc) {
		if fx.Text(w.f.src) == "append" && i == 0 && len(args) > 0 {
			f := w.flowOf(args[0], sc)
			if w.sink().elemLoc(w.containerType(args[0], sc), false) == 0 {
				for _, x := range args[1:] {
					f = f.union(w.flowOf(x, sc))
				}
			}
			return f
		}
		return flow{}
	}
	if t := w.typeNamed(fx, sc); t != nil { // a conversion
		if i == 0 && len(args) > 0 {
			return w.flowOf(args[0], sc)
		}
		return flow{}
	}
	var out flow
	fns := w.flowCallees(call, sc)
	for _, g := range fns {
		if i < len(g.resultTypes()) {
			out.locs = append(out.locs, w.sink().result(g, i))
		}
	}
	if len(fns) == 0 {
		if _, folded := w.callee(fx, sc); !folded {
			out.locs = append(out.locs, w.sink().callValue(w.f.key(call), i))
		}
	}
	return out
}

// dynamicCall describes a call whose called expression may hold function values (a
// variable, a field, an element, a call's result), or returns nil.
func (w *walker) dynamicCall(call *node, sc *scope) *dynCall {
	fx := stripParens(call.Child("function"))
	if fx == nil || fx.Type == "func_literal" || fx.Type == "identifier" && w.isBuiltin(fx, sc) || w.typeNamed(fx, sc) != nil {
		return nil
	}
	if fx.Type == "selector_expression" && w.importOf(stripParens(fx.Child("operand")), sc) != nil {
		return nil
	}
	recv := w.flowOf(fx, sc)
	if len(recv.locs) == 0 {
		return nil
	}
	d := &dynCall{call: w.f.key(call), recv: recv}
	args := exprList(firstArgList(call))
	if al := call.Child("arguments"); al != nil && al.FirstOfType("...") != nil {
		d.spread = true
	}
	for _, x := range args {
		d.args = append(d.args, w.flowOf(x, sc))
	}
	return d
}

// isBuiltin reports whether identifier fx names a predeclared function.
func (w *walker) isBuiltin(fx *node, sc *scope) bool {
	name := fx.Text(w.f.src)
	if sc.lookup(name) != nil || len(w.pkgFuncs(name)) > 0 || len(w.f.pkg.vars[name]) > 0 || w.f.pkg.types[name] != nil {
		return false
	}
	switch name {
	case "append", "new", "make", "len", "cap", "copy", "delete", "panic", "recover", "print",
		"println", "close", "clear", "min", "max", "complex", "real", "imag":
		return true
	}
	return false
}

// flowCallees returns the callees through which a call's arguments and results flow: the
// static callees, or the class-hierarchy candidates of a call through an interface.
func (w *walker) flowCallees(call *node, sc *scope) []*fn {
	memo := w.rec.callees
	if memo == nil {
		memo = map[nodeKey][]*fn{}
		w.rec.callees = memo
	}
	if fns, ok := memo[w.f.key(call)]; ok {
		return fns
	}
	fx := stripParens(call.Child("function"))
	fns, _ := w.callee(fx, sc)
	if len(fns) == 0 {
		if s := w.ifaceCall(fx, sc, false); s != nil && s.cha {
			fns = w.a.memo(&w.a.flowCHA, s.key, func() []*fn { return w.a.chaTargets(s.req, s.name, s.ar, false) })
		}
	}
	memo[w.f.key(call)] = fns
	return fns
}

// ifaceCall describes fx when it is a method selected from a value of interface type (or
// an interface promoted through an embedded field); withRecv also computes what the
// receiver holds.
func (w *walker) ifaceCall(fx *node, sc *scope, withRecv bool) *ifaceSite {
	fx = stripParens(fx)
	if fx == nil || fx.Type != "selector_expression" {
		return nil
	}
	op := stripParens(fx.Child("operand"))
	name := fx.Child("field").Text(w.f.src)
	if w.importOf(op, sc) != nil || w.typeNamed(op, sc) != nil {
		return nil
	}
	t := deref(w.typeOf(op, sc))
	if t == nil {
		return nil
	}
	var it *typ
	var owner *typeDecl
	var fname string
	switch {
	case t.kind == tIface:
		it = t
	case t.kind == tNamed && t.decl == nil:
		it = t
	case t.kind == tNamed && t.decl.isIface():
		it = t.decl.underlying()
	case t.kind == tNamed || t.kind == tStruct:
		var fns []*fn
		fns, it, owner, fname = findMethodVia(t, name)
		if len(fns) > 0 || it == nil {
			return nil
		}
		it = deref(it)
		if it.kind == tNamed && it.decl != nil {
			it = it.decl.underlying()
		}
	default:
		return nil
	}
	s := &ifaceSite{name: name, key: chaKey{it: it, name: name}}
	switch {
	case it.kind == tNamed && it.decl == nil:
		s.key = chaKey{ext: it.ext, name: name}
		if ms, ok := knownIfaces[it.ext]; ok {
			s.ar = map[string]arity{}
			for _, m := range ms {
				if k, ok := knownArity[m]; ok && m != "Value" {
					s.ar[m] = k
				}
			}
			s.req, s.cha = append([]string{name}, ms...), true
		} else {
			s.req = []string{name} // an interface (or type) declared outside the module
		}
	case it.kind == tIface:
		set := map[string]bool{name: true}
		s.ar = map[string]arity{}
		ifaceMethods(it, set, 0, s.ar)
		for m := range set {
			s.req = append(s.req, m)
		}
		sort.Strings(s.req)
		s.cha = true
	default:
		return nil
	}
	if withRecv {
		if owner != nil {
			s.recv = flow{locs: []loc{w.sink().field(owner, fname)}}
		} else {
			s.recv = w.flowOf(op, sc)
		}
	}
	return s
}

// paramInfo lists a function's parameter types by position (a variadic parameter is a
// slice of its element type) and whether the last one is variadic.
// The result is shared: callers must not modify it.
func (g *fn) paramInfo() ([]*typ, bool) {
	if !g.paramsOK {
		g.paramsOK = true
		g.params, g.variadic = g.file.params(g.decl.Child("parameters"), g.tparams)
	}
	return g.params, g.variadic
}

// callFlows adds the flows of a call: arguments into the callees' parameters, and the
// elements appended by append.
func (w *walker) callFlows(call *node, sc *scope) {
	fx := stripParens(call.Child("function"))
	if fx == nil {
		return
	}
	args := exprList(firstArgList(call))
	spread := false
	if al := call.Child("arguments"); al != nil && al.FirstOfType("...") != nil {
		spread = true
	}
	fg := w.sink()
	if fx.Type == "selector_expression" {
		if im := w.importOf(stripParens(fx.Child("operand")), sc); im != nil && im.pkg == nil {
			w.externalCallbackFlows(args, sc)
			return
		}
	}
	if fx.Type == "identifier" && w.isBuiltin(fx, sc) {
		if fx.Text(w.f.src) == "append" && len(args) > 1 {
			dst := w.elemDst(args[0], sc, false)
			if spread {
				fg.flowTo(dst, w.elemFlow(args[1], sc, false))
			} else {
				for _, x := range args[1:] {
					fg.flowTo(dst, w.flowOf(x, sc))
				}
			}
		}
		return
	}
	if w.typeNamed(fx, sc) != nil {
		return // a conversion
	}
	fns := w.flowCallees(call, sc)
	if len(fns) == 0 || len(args) == 0 {
		return
	}
	if fx.Type == "selector_expression" && w.typeNamed(fx.Child("operand"), sc) != nil {
		args = args[1:] // a method expression T.M(recv, args...)
	}
	flows := make([]flow, len(args))
	for i, x := range args {
		flows[i] = w.flowOf(x, sc)
	}
	for _, g := range fns {
		fg.argsToParams(g, flows, spread)
	}
}

// externalCallbackFlows handles a function literal passed to a function outside the
// module together with a slice or map (slices.SortFunc(s, func(a, b T) int {…}),
// slices.IndexFunc, sort.Slice…): the callee's code is not analysed, so each parameter of
// the literal whose type is the element type of such an argument receives the elements.
func (w *walker) externalCallbackFlows(args []*node, sc *scope) {
	fg := w.sink()
	for _, lit := range args {
		lit = stripParens(lit)
		if lit.Type != "func_literal" {
			continue
		}
		params := w.f.paramTypes(lit.Child("parameters"), w.tparams)
		for _, c := range args {
			if stripParens(c) == lit {
				continue
			}
			ct := w.containerType(c, sc)
			if ct == nil || ct.kind != tSlice && ct.kind != tMap {
				continue
			}
			ek := typeKey(ct.elem)
			if ek == "" {
				continue
			}
			for i, pt := range params {
				if typeKey(pt) == ek {
					fg.flowTo([]loc{fg.litParam(w.f.key(lit), i)}, w.elemFlow(c, sc, false))
				}
			}
		}
	}
}

// argsToParams adds the flows of a call's arguments into g's parameters (variadic
// arguments into the elements of the variadic parameter's type).
func (s sink) argsToParams(g *fn, flows []flow, spread bool) {
	params, variadic := g.paramInfo()
	s.argsInto(params, variadic, flows, spread, func(i int) loc { return s.param(g, i) })
}

// argsInto adds the flows of a call's arguments into parameters of the given types (as
// paramTypes lists them: a variadic parameter is a slice).
func (s sink) argsInto(params []*typ, variadic bool, flows []flow, spread bool, param func(int) loc) {
	n := len(params)
	for i, f := range flows {
		switch {
		case variadic && i >= n-1 && spread:
			s.flowTo([]loc{param(n - 1)}, f)
		case variadic && i >= n-1:
			if k := typeKey(params[n-1].elem); k != "" {
				s.flowTo([]loc{s.elem(k, false)}, f)
			} else {
				s.flowTo([]loc{param(n - 1)}, f)
			}
		case i < n:
			s.flowTo([]loc{param(i)}, f)
		}
	}
}

// dynLits returns the function literals that reach the called value of a call through a
// function value and accept its number of arguments.
func (a *analyzer) dynLits(d *dynCall) []int {
	var out []int
	set := a.flow.typesOf(d.recv)
	set.each(a.flow.litBit(0), a.flow.litBit(len(a.flow.lits)), func(b int) {
		i := b - a.flow.litBit(0)
		if a.flow.lits[i].nparams == len(d.args) {
			out = append(out, i)
		}
	})
	return out
}

// assignFlows adds the flows of lhs... = rhs... (assignments, := and var declarations);
// rhs are the flows computed before the left-hand names were declared.
func (w *walker) assignFlows(ls []*node, rhs []flow, sc *scope) {
	for i, l := range ls {
		if i < len(rhs) {
			w.sink().flowTo(w.dstLocs(l, sc), rhs[i])
		}
	}
}

// rhsFlows returns the flow into each of n left-hand sides from the right-hand side right.
func (w *walker) rhsFlows(n int, right *node, sc *scope) []flow {
	rs := exprList(right)
	out := make([]flow, n)
	switch {
	case len(rs) == n:
		for i, r := range rs {
			out[i] = w.flowOf(r, sc)
		}
	case len(rs) == 1:
		r := stripParens(rs[0])
		if r.Type == "call_expression" {
			for i := range out {
				out[i] = w.callFlow(r, sc, i)
			}
		} else if n > 0 {
			out[0] = w.flowOf(r, sc) // comma-ok forms
		}
	}
	return out
}

// mapKeyFlows adds the flows of the keys of m[k] = v assignments.
func (w *walker) mapKeyFlows(ls []*node, sc *scope) {
	for _, l := range ls {
		l = stripParens(l)
		if l.Type != "index_expression" {
			continue
		}
		if t := w.containerType(l.Child("operand"), sc); t != nil && t.kind == tMap {
			if k := w.sink().elemLoc(t, true); k != 0 {
				w.sink().flowTo([]loc{k}, w.flowOf(l.Child("index"), sc))
			}
		}
	}
}

// returnFlows adds the flows of a return statement into the results of the enclosing
// declared function (returns of function literals have no location).
func (w *walker) returnFlows(n *node, sc *scope) {
	g := w.cur
	if g == nil && w.curLit == nil {
		return
	}
	var list *node
	for _, k := range n.Kids {
		if k.Named && k.Type != "comment" {
			list = k
			break
		}
	}
	if list == nil {
		return
	}
	if g == nil { // in a function literal
		lit := w.curLit
		fl := w.rhsFlows(len(w.f.resultTypes(lit.Child("result"), w.tparams)), list, sc)
		for i, f := range fl {
			w.sink().flowTo([]loc{w.sink().litResult(w.f.key(lit), i)}, f)
		}
		return
	}
	nres := len(g.resultTypes())
	fl := w.rhsFlows(nres, list, sc)
	for i, f := range fl {
		w.sink().flowTo([]loc{w.sink().result(g, i)}, f)
	}
}

// literalFlows adds the flows of a composite literal's elements into its fields or its
// element locations; elided inner literals take the element type.
func (w *walker) literalFlows(body *node, t *typ, sc *scope, depth int) {
	if body == nil || depth > 8 {
		return
	}
	fg := w.sink()
	var fields []field
	var owner *typeDecl
	if d := concreteDecl(t); d != nil && deref(t).kind == tNamed {
		if u := d.underlying(); u != nil && u.kind == tStruct {
			fields, owner = u.fields, d
		}
	}
	u := under(deref(t))
	pos := 0
	for _, el := range body.NamedKids() {
		var key, val *node
		switch el.Type {
		case "keyed_element":
			kids := el.NamedKids()
			if len(kids) < 2 {
				continue
			}
			key, val = kids[0], kids[len(kids)-1]
		case "literal_element":
			val = el
		default:
			continue
		}
		pos++
		v := unwrapElement(val)
		if v == nil {
			continue
		}
		var dst []loc
		var vt *typ
		switch {
		case owner != nil:
			name := ""
			if key != nil {
				if k := unwrapElement(key); k != nil && k.Type == "identifier" {
					name = k.Text(w.f.src)
				}
			} else if pos-1 < len(fields) {
				name = fields[pos-1].name
			}
			for _, fd := range fields {
				if fd.name == name {
					vt = fd.t
					dst = []loc{fg.field(owner, name)}
					break
				}
			}
		case u != nil && (u.kind == tSlice || u.kind == tMap):
			vt = u.elem
			dst = []loc{fg.elemLoc(u, false)}
			if u.kind == tMap && key != nil {
				kv := unwrapElement(key)
				if kv != nil && kv.Type == "literal_value" {
					w.literalFlows(kv, u.key, sc, depth+1)
				} else if kv != nil {
					fg.flowTo([]loc{fg.elemLoc(u, true)}, w.flowOf(kv, sc))
				}
			}
		}
		if v.Type == "literal_value" {
			w.literalFlows(v, vt, sc, depth+1)
			if d := concreteDecl(vt); d != nil {
				fg.flowTo(dst, flow{types: []*typeDecl{d}})
			}
			continue
		}
		if len(dst) > 0 {
			fg.flowTo(dst, w.flowOf(v, sc))
		}
	}
}

// unwrapElement returns the expression or literal_value inside a literal_element.
func unwrapElement(n *node) *node {
	if n == nil {
		return nil
	}
	if n.Type != "literal_element" {
		return n
	}
	for _, k := range n.Kids {
		if k.Named && k.Type != "comment" {
			return k
		}
	}
	return nil
}

// rangeFlows returns what the key and the value of a range over r may hold.
func (w *walker) rangeFlows(r *node, sc *scope) (flow, flow) {
	t := w.containerType(r, sc)
	if t == nil {
		f := w.flowOf(r, sc)
		return f, f
	}
	switch t.kind {
	case tSlice:
		return flow{}, w.elemFlow(r, sc, false)
	case tMap:
		return w.elemFlow(r, sc, true), w.elemFlow(r, sc, false)
	case tChan:
		return w.elemFlow(r, sc, false), flow{}
	}
	return flow{}, flow{}
}

// globalFlows records in rec the flows of a file's package-level variable initialisers.
func (a *analyzer) globalFlows(f *file, rec *flowRec) {
	w := &walker{a: a, f: f, caller: -1, rec: rec}
	sc := newScope(nil)
	for _, d := range f.root.Kids {
		if d.Type != "var_declaration" {
			continue
		}
		specs, first := f.valueSpecs(a.fe.grammar, d)
		for k, s := range specs {
			names := s.Children("name")
			fl := w.rhsFlows(len(names), s.Child("value"), sc)
			for i, nm := range names {
				for _, v := range f.pkg.vars[nm.Text(f.src)] {
					if v.file == f && v.spec == first+k {
						w.sink().flowTo([]loc{w.sink().global(v)}, fl[i])
					}
				}
			}
		}
	}
}
