package python

import (
	"cmp"
	"context"
	"fmt"
	"iter"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"unsafe"

	"github.com/faultline-dev/faultline/callgraph"
	"github.com/faultline-dev/faultline/task"
)

// Options configure the front end. The zero value resolves levels 1–5 and 7 of the
// package's resolution order (doc.go) and makes no guesses: a method call on a receiver of
// unknown value has no edge (GuessNone).
type Options struct {
	// Guess selects what a method call obj.m() on a receiver whose value is unknown
	// resolves to (level 6 of that order). The default, GuessNone, makes no edge:
	// only value flow decides which classes a receiver may be.
	Guess Guess
	// UniqueNameFallback is Guess: GuessUnique (kept for existing callers).
	UniqueNameFallback bool
	// WidenNameFallback is Guess: GuessAll (kept for existing callers).
	WidenNameFallback bool
	// NoValueFlow turns off level 7 (values flowing through parameters and returns,
	// instance attributes and container literals) and keeps levels 1–5 only: names bound
	// by definitions, imports, direct assignments and `x = C()` instances.
	NoValueFlow bool
	// Workers bounds the files parsed concurrently; 0 means GOMAXPROCS.
	Workers int
}

// Guess is how a method call on a receiver of unknown value is resolved.
type Guess uint8

const (
	// GuessNone makes no edge (the default): precision first.
	GuessNone Guess = iota
	// GuessUnique resolves obj.m() to the project's method named m when exactly one
	// method has that name (code2flow's rule).
	GuessUnique
	// GuessAll resolves obj.m() to every method of the project named m (name matching,
	// as simple call-graph tools do): recall first, at a large cost in precision.
	GuessAll
)

// Frontend is the Python front end. It is safe for concurrent use.
type Frontend struct {
	opts Options
}

// New returns a Python front end.
func New(opts Options) *Frontend {
	switch {
	case opts.WidenNameFallback:
		opts.Guess = max(opts.Guess, GuessAll)
	case opts.UniqueNameFallback:
		opts.Guess = max(opts.Guess, GuessUnique)
	}
	return &Frontend{opts: opts}
}

var _ callgraph.Language = (*Frontend)(nil)

// Name returns "python".
func (*Frontend) Name() string { return "python" }

// Match claims files ending in .py.
func (*Frontend) Match(path string) bool { return strings.HasSuffix(path, ".py") }

// Analyze parses all files, finds their definitions and resolves their call sites. Files
// are reported in path order. It fails only when ctx is cancelled.
func (fe *Frontend) Analyze(ctx context.Context, files []callgraph.SourceFile) (*callgraph.Analysis, error) {
	sorted := append([]callgraph.SourceFile(nil), files...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Path < sorted[j].Path })
	infos, err := fe.parseAll(ctx, sorted, scanNames(sorted))
	if err != nil {
		return nil, err
	}
	trimCHeap()
	phaseDone("collected")
	implicit, err := fe.resolve(ctx, newResolver(infos))
	if err != nil {
		return nil, err
	}
	phaseDone("resolved")
	for _, f := range infos {
		f.release()
	}
	results := resolutions{infos, implicit}
	for _, rs := range results.all() {
		for _, d := range rs.targets() {
			if d.lambda {
				d.release() // lambdas and generated __init__s are not in their file's defs
			}
		}
	}
	a := fe.report(infos, results)
	phaseDone("reported")
	return a, nil
}

// phaseDone is called after each phase of Analyze (collected; inside resolve, with the
// resolver's memos still live, rounds and implicit; resolved, reported); the benchmarks
// replace it to measure the live heap at those points.
var phaseDone = func(string) {}

// release drops the facts of f that only resolution reads (scopes, the calls of its
// sites, symbolic expressions and the values found for them), keeping what the report
// needs of its definitions and sites: the report then runs in the memory of the graph
// alone.
func (f *fileInfo) release() {
	f.scope, f.stores, f.attrStores, f.lazy, f.lazyCallers, f.all = nil, nil, nil, nil, nil, nil
	for k := range f.calls {
		f.calls[k].call = nil
	}
	for _, d := range f.defs {
		d.release()
	}
}

// release drops the facts of d that only resolution reads.
func (d *defInfo) release() {
	*d = defInfo{fn: d.fn, metrics: d.metrics, file: d.file, order: d.order, qual: d.qual, parent: d.parent, lambda: d.lambda}
}

// parseAll parses and collects the files on a pool of workers, each owning one parser.
func (fe *Frontend) parseAll(ctx context.Context, files []callgraph.SourceFile, names *projectNames) ([]*fileInfo, error) {
	infos := make([]*fileInfo, len(files))
	workers := fe.opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = max(1, min(workers, len(files)))
	next := make(chan int)
	var wg sync.WaitGroup
	var perr error
	var once sync.Once
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p, err := newParser()
			if err != nil {
				once.Do(func() { perr = err })
				for range next {
				}
				return
			}
			defer p.close()
			sc := scratch{names: names}
			for i := range next {
				if ctx.Err() != nil {
					continue
				}
				t := p.parseTree(files[i].Src, &sc)
				infos[i] = collectTree(files[i].Path, files[i].Src, t, &sc)
			}
		}()
	}
	for i := range files {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("python: analyze: %w", err)
	}
	if perr != nil {
		return nil, perr
	}
	return infos, nil
}

// resolution is the outcome for one implicit site that reaches project code: what the
// report needs of it, its caller and its outcome (24 bytes). The files' call sites
// keep their outcomes themselves, their callers apart (see fileInfo.callCallers).
type resolution struct {
	caller *defInfo
	outcome
}

// outcome is what the report needs of a call site besides its caller: its line,
// implicitness and targets, so that the site's expressions can go once resolution is
// over. It is 16 bytes: most sites have at most one target, which the outcome holds
// itself (see targets).
type outcome struct {
	// tg is the only target, or the first of an array of them (see targets)
	tg   unsafe.Pointer
	line int32
	// meta holds the number of targets, and implicitBit
	meta uint32
}

// implicitBit marks a call the syntax makes without call parentheses (iteration, with,
// raise): it counts as a call site only when it resolves.
const implicitBit = 1 << 31

// implicit reports whether the site is implicit (see implicitBit).
func (rs *outcome) implicit() bool { return rs.meta&implicitBit != 0 }

// targets returns the definitions the site calls (not to be modified: see setTargets).
func (rs *outcome) targets() []*defInfo {
	switch n := rs.meta &^ implicitBit; n {
	case 0:
		return nil
	case 1:
		return unsafe.Slice((**defInfo)(unsafe.Pointer(&rs.tg)), 1)
	default:
		return unsafe.Slice((**defInfo)(rs.tg), n)
	}
}

// setTargets sets the targets to (a copy of) ds.
func (rs *outcome) setTargets(ds []*defInfo) {
	rs.meta = rs.meta&implicitBit | uint32(len(ds))
	switch len(ds) {
	case 0:
		rs.tg = nil
	case 1:
		rs.tg = unsafe.Pointer(ds[0])
	default:
		c := slices.Clone(ds)
		rs.tg = unsafe.Pointer(&c[0])
	}
}

// resolutions are the resolutions of an analysis: those of the files' call sites, then
// those of the implicit sites that reach project code (see resolve).
type resolutions struct {
	files    []*fileInfo
	implicit [][]resolution // file by file (the files reaching project code)
}

// all yields every outcome with its caller, the call sites' file after file, then the
// implicit ones.
func (rs resolutions) all() iter.Seq2[*defInfo, *outcome] {
	return func(yield func(*defInfo, *outcome) bool) {
		for _, f := range rs.files {
			run := -1 // the run of f.callCallers site k belongs to
			for k := range f.calls {
				for run+1 < len(f.callCallers) && int(f.callCallers[run+1].start) <= k {
					run++
				}
				if !yield(f.callCallers[run].caller, &f.calls[k].outcome) {
					return
				}
			}
		}
		for _, chunk := range rs.implicit {
			for k := range chunk {
				if !yield(chunk[k].caller, &chunk[k].outcome) {
					return
				}
			}
		}
	}
}

// sites yields every call site, file after file.
func (r *resolver) sites() iter.Seq[*callSite] {
	return func(yield func(*callSite) bool) {
		for _, f := range r.files {
			for k := range f.calls {
				if !yield(&f.calls[k]) {
					return
				}
			}
		}
	}
}

// resolve evaluates every call site; with value flow on, arguments of resolved calls
// flow into the callees' parameters and the evaluation repeats until nothing new flows
// (at most maxRounds rounds).
//
// It records the targets of each call site in the site, and returns the resolutions of
// the implicit sites that reach project code, file by file.
func (fe *Frontend) resolve(ctx context.Context, r *resolver) (implicit [][]resolution, err error) {
	rounds := maxRounds
	if fe.opts.NoValueFlow {
		rounds = 1
		r.noFlow = true
	}
	if !r.noFlow {
		r.newEpoch()
		r.markSubclassed()
	}
	var ts []*defInfo // the targets of the site being resolved
	for round := 1; round <= rounds; round++ {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("python: analyze: %w", err)
		}
		r.newEpoch()
		changed := false
		if !r.noFlow && round < rounds {
			added, ch := r.applyStores()
			if added {
				r.newEpoch() // the stored values invalidate the memos computed meanwhile
			}
			changed = ch
		}
		for cs := range r.sites() {
			if round < rounds && !r.noFlow && r.escapes(cs) {
				changed = true // (before the skip: the arguments may have grown)
			}
			if round > 1 && r.isStable(cs.callee()) {
				continue // same targets as before; its arguments already flowed
			}
			ts = ts[:0]
			for _, v := range r.eval(cs.callee()) {
				if v.kind == vExternal && v.def != nil {
					if round < rounds && r.libApply(cs, v.def) {
						changed = true
					}
					continue
				}
				if v.kind == vDef && v.def.fn.Kind == task.KindClass && !v.def.instantiated {
					v.def.instantiated = true
					// a subclass's instances reach its bases' special methods too
					// (selfClasses)
					if v.def.hasSub || len(r.mro(v.def)) > 1 {
						changed = true
					}
				}
				defs, bound := r.targets(v)
				recv := v.recv()
				if v.kind == vInst || v.kind == vDef && v.def.fn.Kind == task.KindClass {
					recv = v.def // __init__ or __call__ runs on an instance of this class
				}
				for _, d := range defs {
					// a constructor call passes its arguments to __init__ and __new__ only
					ctorHook := v.kind == vDef && v.def.fn.Kind == task.KindClass && d.simple != "__init__" && d.simple != "__new__"
					if !ctorHook && (!acceptsKeywords(cs, d) || !(v.kind == vDef && v.sliced) && !acceptsArity(cs, d, bound)) {
						continue
					}
					ts = appendDef(ts, d)
					if round < rounds && !(v.kind == vDef && v.sliced) && r.bindArgs(cs, d, bound) {
						changed = true
					}
					if round < rounds && bound && flowSelf(d, recv) {
						changed = true
					}
				}
			}
			cs.setTargets(ts)
		}
		if !changed {
			break
		}
	}
	if !r.noFlow {
		// calls of an abstract step through self (abstractStep): decided once every
		// instantiation has been seen
		for cs := range r.sites() {
			c := cs.callee()
			if c == nil || c.op != eAttr {
				continue
			}
			if m := selfMethod(c.sub()); m != nil {
				if ts := r.abstractStep(m, c.name(), cs.targets()); len(ts) > 0 {
					cs.setTargets(ts)
				} else if ts := r.stubHook(m, c.name(), cs.targets()); len(ts) > 0 {
					cs.setTargets(ts)
				}
			}
		}
	}
	if !r.noFlow {
		r.dropAbstractDecl()
	}
	phaseDone("rounds")
	r.roundsDone()
	// The implicit calls of operators, conversions, subscripts and property accesses are
	// resolved once, over the values the rounds above found: their arguments do not flow
	// back (a special method's parameters take no values from them), which keeps their
	// cost to one evaluation each.
	// Each file's go to one buffer and the file keeps an exact copy: one slice grown
	// over every file left ≈60 MB of garbage on sympy.
	var buf []resolution
	for _, f := range r.files {
		if buf = r.resolveLazy(f, buf[:0]); len(buf) > 0 {
			implicit = append(implicit, slices.Clone(buf))
		}
	}
	phaseDone("implicit")
	if fe.opts.Guess != GuessNone {
		for cs := range r.sites() {
			if len(cs.targets()) > 0 || cs.callee() == nil || cs.callee().op != eAttr || len(r.eval(cs.callee().sub())) > 0 {
				continue
			}
			cands := r.methods[cs.callee().name()]
			if len(cands) == 1 || (fe.opts.Guess == GuessAll && len(cands) > 1) {
				var ts []*defInfo
				for _, d := range cands {
					ts = appendDef(ts, d)
				}
				cs.setTargets(ts)
			}
		}
	}
	return implicit, nil
}

// roundsDone drops what only the rounds of value flow read: the stores (applied at the
// start of each round), the *args tuples by site (made again only for parameters first
// read later, whose sites were deferred) and the indexes of the definitions' long flow
// lists (addOnce rebuilds one where a flow still comes: a *args parameter read late).
func (r *resolver) roundsDone() {
	r.rest = nil
	for _, f := range r.files {
		f.stores, f.attrStores = nil, nil
		for _, d := range f.defs {
			for j := range d.params {
				d.params[j].flowsSeen = nil
			}
		}
	}
}

// acceptsKeywords reports whether d can take every keyword argument of cs: a keyword
// that names none of its parameters, when it has no **kwargs, raises TypeError before
// d's body runs (fixtures' Fixture.setUp calls self.cleanUp(raise_first=False), which
// MethodFixture's cleanUp(self) cannot take). Decorated definitions and lambdas are
// taken as accepting anything: what is called may be a wrapper, or a synthesized
// __init__ whose parameters are not all recorded.
func acceptsKeywords(cs *callSite, d *defInfo) bool {
	if cs.call.lit() == nil || len(cs.call.lit().keyList()) == 0 || d.lambda || len(d.decorators) > 0 {
		return true
	}
	for k := range cs.call.lit().elems() {
		kw := keyAt(cs.call.lit().keyList(), k)
		if kw == "" {
			continue
		}
		ok := false
		for _, p := range d.params {
			if p.star && !p.varPos {
				return true // **kwargs
			}
			if !p.star && p.name == kw {
				ok = true
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// acceptsArity reports whether d can take the arguments of cs by number: more
// positional arguments than d has positional parameters (without *args), or a
// parameter without default that neither a positional argument nor a keyword fills,
// raise TypeError before d's body runs (networkx's generators calling G.add_edge(u, v)
// cannot reach MultiDiGraph_EdgeKey.add_edge(self, u, v, key)). A call with *args or
// **kwargs, an implicit call (whose arguments are not all recorded), a lambda (a
// generated __init__ among them) and a decorated definition (what is called may be a
// wrapper) are taken as fitting.
func acceptsArity(cs *callSite, d *defInfo, bound bool) bool {
	if cs.implicit() || cs.star() || d.lambda || len(d.decorators) > 0 {
		return true
	}
	if d.class == nil && !bound && cs.callee().op == eAttr {
		// a function reached through an attribute may be a class attribute's alias of a
		// module function (`semantic_feasibility = _semantic_feasibility`), bound to
		// the instance it is read on
		return true
	}
	off := 0
	if bound && d.class != nil && !d.static {
		off = 1
	}
	npos := 0
	for k := range cs.args() {
		if cs.kw(k) == "" {
			npos++
		}
	}
	npos += off
	positional, varPos := 0, false
	for j := range d.params {
		p := &d.params[j]
		switch {
		case p.varPos:
			varPos = true
		case p.star, p.kwOnly:
		default:
			positional++
		}
	}
	if npos > positional && !varPos {
		return false
	}
	pos := 0
	for j := range d.params {
		p := &d.params[j]
		if p.star {
			continue
		}
		filled := false
		if !p.kwOnly {
			filled = pos < npos
			pos++
		}
		if filled || p.dflt != nil {
			continue
		}
		named := false
		for k := range cs.args() {
			if cs.kw(k) == p.name {
				named = true
				break
			}
		}
		if !named {
			return false
		}
	}
	return true
}

func appendDef(ds []*defInfo, d *defInfo) []*defInfo {
	for _, o := range ds {
		if o == d {
			return ds
		}
	}
	return append(ds, d)
}

// libApply records, for a call cs of the library object a decorator factory made of
// d (the decorator package's `@decorator.decorator def wrapper(func, *args, **kwargs)`,
// wrapt's `@wrapt.decorator def wrapper(wrapped, instance, args, kwargs)`), cs's first
// positional argument as a value flowing into d's first parameter: `wrapper(f)` (or
// `@wrapper` over f) returns a proxy whose calls run d's body with f there. The
// application itself runs no line of d, so it makes no edge. magnumclient's
// `@utils.deprecated(MSG) def do_bay_list(cs, args)`: deprecated returns such a
// wrapper, whose `func(*args, **kwargs)` calls do_bay_list. It reports whether a
// parameter that some expression reads received a new value.
func (r *resolver) libApply(cs *callSite, d *defInfo) bool {
	args := cs.args()
	if len(args) == 0 || cs.kw(0) != "" || len(d.params) == 0 {
		return false
	}
	p := &d.params[0]
	a := args[0]
	if p.star || a == nil || a.op == eUnknown {
		return false
	}
	var added bool
	p.flows, added = addOnce(p.flows, &p.flowsSeen, a)
	return added && p.read
}

// bindArgs records the argument expressions of cs as values flowing into d's parameters;
// bound means d's first parameter is the receiver. The positional arguments beyond d's
// positional parameters flow into its *args parameter as one tuple per call site (see
// restArgs; deferred while nothing reads that parameter). It reports whether a
// parameter that some expression reads received a new value (flows into parameters
// nobody reads cannot change any result).
func (r *resolver) bindArgs(cs *callSite, d *defInfo, bound bool) bool {
	off := 0
	if bound && d.class != nil && !d.static {
		off = 1
	}
	changed := false
	add := func(p *param, a *expr) {
		if a == nil || a.op == eUnknown || p.star && !(p.varPos && a.op == eSeq) {
			return
		}
		var added bool
		if p.flows, added = addOnce(p.flows, &p.flowsSeen, a); added {
			if p.read {
				changed = true
			}
		}
	}
	pos := 0
	rest := false
	vp := varPosParam(d)
	for k, a := range cs.args() {
		if kw := cs.kw(k); kw != "" {
			for j := range d.params {
				if d.params[j].name == kw {
					add(&d.params[j], a)
					break
				}
			}
			continue
		}
		j := pos + off
		pos++
		if j < len(d.params) && !d.params[j].kwOnly && !d.params[j].star {
			add(&d.params[j], a)
			continue
		}
		if vp >= 0 && j >= vp {
			rest = true
		}
	}
	if rest {
		if p := &d.params[vp]; p.read {
			if r.restArgs(cs, d, off, vp) {
				changed = true
			}
		} else {
			r.deferRest(p, cs, off)
		}
	}
	return changed
}

// restArgs adds the positional arguments of cs from d's *args parameter (index vp) on,
// off the shift of a bound receiver, to the tuple cs passes to d (made on first use),
// and the tuple to the parameter's flows. An argument joins the tuple at its position
// only (a site bound again with the same shift adds nothing). It reports whether the
// tuple was new to the flows.
func (r *resolver) restArgs(cs *callSite, d *defInfo, off, vp int) (added bool) {
	p := &d.params[vp]
	pos := 0
	for k, a := range cs.args() {
		if cs.kw(k) != "" {
			continue
		}
		j := pos + off
		pos++
		if j < vp {
			continue
		}
		key := restKey{cs, d}
		t := r.rest[key]
		if t == nil {
			t = mkExpr(exprSpec{op: eSeq, ref: withLit(&litData{})})
			if r.rest == nil {
				r.rest = map[restKey]*expr{}
			}
			r.rest[key] = t
		}
		if n := j - vp; n == len(t.lit().elems()) {
			t.lit().appendElems(a)
			var ok bool
			if p.flows, ok = addOnce(p.flows, &p.flowsSeen, t); ok {
				added = true
			}
		}
	}
	return added
}

// restBind is a call site binding arguments to a *args parameter with a receiver's
// shift of off, whose tuple is not made yet (see deferRest).
type restBind struct {
	cs  *callSite
	off int32
}

// pendingRest holds the deferred bindings of one *args parameter, in the order made,
// each once (seen indexes their sites by shift, once they are many): the chunks of full
// (restChunk each), then binds. The chunks are never copied: one slice grown by append
// copied itself to ≈4× its final size on sympy's long lists (26 MB for 6 MB of
// bindings), garbage made while the resolver's heap is at its largest.
type pendingRest struct {
	full  [][]restBind
	binds []restBind
	seen  [2]*ptrSet[callSite]
}

// restChunk is the length of pendingRest's full chunks.
const restChunk = 512

// add appends b.
func (pr *pendingRest) add(b restBind) {
	if len(pr.binds) == restChunk {
		pr.full = append(pr.full, pr.binds)
		pr.binds = make([]restBind, 0, restChunk)
	}
	pr.binds = append(pr.binds, b)
}

// deferRest records that cs binds arguments to *args parameter p with shift off while
// no expression reads p: its tuple is made when one does (makeRest), in the order the
// bindings came. Most *args parameters are never read (sympy: 249k of 385k tuples).
func (r *resolver) deferRest(p *param, cs *callSite, off int) {
	pr := r.pending[p]
	if pr == nil {
		pr = &pendingRest{}
		if r.pending == nil {
			r.pending = map[*param]*pendingRest{}
		}
		r.pending[p] = pr
	}
	b := restBind{cs, int32(off)}
	if pr.seen[0] != nil {
		if !pr.seen[off].add(cs) {
			return
		}
	} else if slices.Contains(pr.binds, b) {
		return
	}
	pr.add(b)
	if pr.seen[0] == nil && len(pr.binds) > linearSet { // (all in binds: linearSet < restChunk)
		pr.seen = [2]*ptrSet[callSite]{{}, {}}
		for _, x := range pr.binds {
			pr.seen[x.off].add(x.cs)
		}
	}
}

// makeRest makes the tuples deferred for *args parameter vp of d, now read.
func (r *resolver) makeRest(d *defInfo, vp int) {
	p := &d.params[vp]
	pr := r.pending[p]
	if pr == nil {
		return
	}
	delete(r.pending, p)
	for _, chunk := range pr.full {
		for _, b := range chunk {
			r.restArgs(b.cs, d, int(b.off), vp)
		}
	}
	for _, b := range pr.binds {
		r.restArgs(b.cs, d, int(b.off), vp)
	}
}

// restKey identifies the tuple of extra positional arguments a call site passes to a
// function's *args.
type restKey struct {
	cs *callSite
	d  *defInfo
}

// varPosParam returns the index of d's *args parameter, or -1.
func varPosParam(d *defInfo) int {
	for j := range d.params {
		if d.params[j].varPos {
			return j
		}
	}
	return -1
}

// edge is one call edge of the report.
type edge struct {
	caller, callee *defInfo
	line           int32
}

// fileEdges appends to buf the edges of the call sites of f and of its implicit sites
// (those reaching project code), sorted by caller (file, then definition order), line and
// callee ID, without duplicates (same caller, line and callee). Lambdas are no callees:
// their calls belong to their enclosing definition.
func fileEdges(buf []edge, f *fileInfo, implicit []resolution) []edge {
	// the buffer is grown once to the file's number of targets: grown by append, its
	// copies came to 50 MB on sympy (a rubi test file has 414k targets, 50k edges)
	n := 0
	for k := range f.calls {
		n += len(f.calls[k].targets())
	}
	for k := range implicit {
		n += len(implicit[k].targets())
	}
	buf = slices.Grow(buf, n)
	add := func(caller *defInfo, rs *outcome) {
		for _, d := range rs.targets() {
			if !d.lambda {
				buf = append(buf, edge{caller, d, rs.line})
			}
		}
	}
	run := -1 // the run of f.callCallers site k belongs to
	for k := range f.calls {
		for run+1 < len(f.callCallers) && int(f.callCallers[run+1].start) <= k {
			run++
		}
		add(f.callCallers[run].caller, &f.calls[k].outcome)
	}
	for k := range implicit {
		add(implicit[k].caller, &implicit[k].outcome)
	}
	slices.SortFunc(buf, func(a, b edge) int {
		if a.caller != b.caller {
			if c := cmp.Compare(a.caller.file.idx, b.caller.file.idx); c != 0 {
				return c
			}
			return cmp.Compare(a.caller.order, b.caller.order)
		}
		if c := cmp.Compare(a.line, b.line); c != 0 {
			return c
		}
		return strings.Compare(a.callee.fn.ID, b.callee.fn.ID)
	})
	return slices.CompactFunc(buf, func(a, b edge) bool {
		return a.caller == b.caller && a.line == b.line && a.callee.fn.ID == b.callee.fn.ID
	})
}

// report assigns identities and builds the Analysis.
func (fe *Frontend) report(infos []*fileInfo, res resolutions) *callgraph.Analysis {
	a := &callgraph.Analysis{}
	hasModuleCalls := map[*fileInfo]bool{}
	for caller, rs := range res.all() {
		if rs.implicit() && len(rs.targets()) == 0 {
			continue // an implicit protocol call that reaches no project code is not counted
		}
		a.AddSite(caller.file.path)
		if len(rs.targets()) > 0 {
			a.AddResolved(caller.file.path)
		}
		if caller.fn.Kind == task.KindModule {
			hasModuleCalls[caller.file] = true
		}
	}
	a.Unresolved = a.CallSites - a.Resolved
	ndefs := 0
	for _, f := range infos {
		ndefs += len(f.defs)
	}
	a.Definitions = make([]callgraph.Definition, 0, ndefs)
	for _, f := range infos {
		count := map[string]int{}
		for _, d := range f.defs {
			count[d.qual]++
		}
		used := map[string]int{}
		for _, d := range f.defs {
			d.fn.ID = task.MakeID(f.path, d.qual)
			if count[d.qual] > 1 && d.fn.Kind != task.KindModule {
				d.fn.ID = fmt.Sprintf("%s@%d", d.fn.ID, d.fn.Line)
				// two same-named definitions on one line only come from error recovery
				if used[d.fn.ID]++; used[d.fn.ID] > 1 {
					d.fn.ID = fmt.Sprintf("%s.%d", d.fn.ID, used[d.fn.ID])
				}
			}
		}
		for _, d := range f.defs {
			if d.fn.Kind == task.KindModule && !hasModuleCalls[f] {
				continue
			}
			a.Definitions = append(a.Definitions, callgraph.Definition{Function: d.function(), Metrics: d.metrics.metrics()})
		}
		if f.syntaxErr != nil {
			a.Errors = append(a.Errors, f.syntaxErr)
		}
	}
	// The edges are sorted, then duplicates (same caller, line and callee) dropped: they
	// are adjacent once sorted, which spares a set of every edge. A caller's edges all
	// come from its file's call and implicit sites, so this is done file by file in one
	// reused buffer, twice: once to count the edges left (a.Calls is allocated once, at
	// its size), once to make them. One array of every target (≈1.8M on sympy, 42 MB)
	// was garbage made at the end, when the heap is at its largest.
	var implicitOf map[*fileInfo][]resolution
	for _, chunk := range res.implicit {
		if implicitOf == nil {
			implicitOf = make(map[*fileInfo][]resolution, len(res.implicit))
		}
		implicitOf[chunk[0].caller.file] = chunk
	}
	for k, f := range infos {
		f.idx = k
	}
	var buf []edge
	nedges := 0
	for _, f := range infos {
		buf = fileEdges(buf[:0], f, implicitOf[f])
		nedges += len(buf)
	}
	a.Calls = make([]callgraph.Call, 0, nedges)
	for _, f := range infos {
		buf = fileEdges(buf[:0], f, implicitOf[f])
		for _, e := range buf {
			a.Calls = append(a.Calls, callgraph.Call{Caller: e.caller.fn.ID, Callee: e.callee.fn.ID, Line: int(e.line)})
		}
	}
	return a
}
