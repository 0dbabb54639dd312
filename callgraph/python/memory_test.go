package python

import (
	"context"
	"reflect"
	"slices"
	"testing"
)

// TestSharedEmptyFactsUntouched checks that analysing the fixtures writes nothing into
// the empty facts definitions without any share for reading (noClassFacts, noDyn: the
// writers go through cfactsFor and dynFor).
func TestSharedEmptyFactsUntouched(t *testing.T) {
	fe := New(Options{Workers: 1})
	for _, fx := range loadFixtures(t) {
		if _, err := fe.Analyze(context.Background(), fx.files); err != nil {
			t.Fatal(err)
		}
	}
	if !reflect.DeepEqual(noClassFacts, classFacts{}) || !reflect.DeepEqual(noDyn, dynFacts{}) {
		t.Fatalf("shared empty facts written: %+v, %+v", noClassFacts, noDyn)
	}
}

// TestAddOnce checks the flow lists' deduplication across the switch from scanning to
// the exprSet index: every expression is kept once, in the order first added.
func TestAddOnce(t *testing.T) {
	es := make([]expr, 1000)
	var list []*expr
	var index *exprSet
	for round := 0; round < 3; round++ {
		for k := range es {
			// each round adds every expression again, in a scrambled order
			e := &es[(k*7+round*13)%len(es)]
			var added bool
			list, added = addOnce(list, &index, e)
			if added != (round == 0) {
				t.Fatalf("round %d, expression %d: added %v", round, k, added)
			}
		}
	}
	if len(list) != len(es) || index == nil || index.n != len(es) {
		t.Fatalf("list %d, index %v: want %d members", len(list), index != nil, len(es))
	}
	for k, e := range list {
		if want := &es[(k*7)%len(es)]; e != want {
			t.Fatalf("list[%d] is not the expression added %dth", k, k)
		}
	}
}

// TestMemoNumbers checks the 24-bit memo field: small numbers in the expression, larger
// ones through the resolver's map, noValues and 0 back again.
func TestMemoNumbers(t *testing.T) {
	r := &resolver{}
	var e expr
	for _, n := range []int32{1, memoLimit - 2, memoLimit - 1, memoLimit, 1 << 30, noValues, 0, 7} {
		r.setMemo(&e, n)
		if got := r.memoOf(&e); got != n {
			t.Fatalf("memo %d read back as %d", n, got)
		}
	}
	if len(r.bigMemo) != 0 {
		t.Fatalf("bigMemo keeps %d entries after the expression's number went back into it", len(r.bigMemo))
	}
}

// TestIdxAndFlags checks that idx (sign-extended from 29 bits) and the flags sharing
// expr.pos do not disturb each other.
func TestIdxAndFlags(t *testing.T) {
	for _, i := range []int32{-1, 0, 3, 1 << 20} {
		e := expr{op: eSubscript, pos: flags(true, false, true)}
		e.setIdx(i)
		if e.idx() != i || !e.keyOK() || e.raw() || !e.slice() {
			t.Fatalf("idx %d: got idx %d, flags %v %v %v", i, e.idx(), e.keyOK(), e.raw(), e.slice())
		}
	}
	// an eName's pos is a position: its top bits are no flags
	n := expr{op: eName, pos: 1<<31 | 1<<30 | 1<<29}
	if n.keyOK() || n.raw() || n.slice() {
		t.Fatal("eName reports flags from its position's bits")
	}
}

// TestValueSets checks the interning of value sets: equal contents (in order) share one
// clipped copy, other contents and orders do not, across the table's growth.
func TestValueSets(t *testing.T) {
	defs := make([]defInfo, 3000)
	var sets valueSets
	first := map[int][]value{}
	for round := 0; round < 2; round++ {
		for k := range defs {
			vs := []value{{kind: vDef, def: &defs[k]}, {kind: vInst, def: &defs[(k+1)%len(defs)]}}
			got := sets.intern(append(make([]value, 0, 8), vs...))
			if !slices.Equal(got, vs) || cap(got) != len(got) {
				t.Fatalf("set %d: interned %v (cap %d), want %v clipped", k, got, cap(got), vs)
			}
			if round == 0 {
				first[k] = got
			} else if &got[0] != &first[k][0] {
				t.Fatalf("set %d: a second copy was interned", k)
			}
		}
	}
	if sets.n != len(defs) {
		t.Fatalf("%d sets interned, want %d", sets.n, len(defs))
	}
	swapped := sets.intern([]value{{kind: vInst, def: &defs[1]}, {kind: vDef, def: &defs[0]}})
	if &swapped[0] == &first[0][0] {
		t.Fatal("a set in another order shares the first's copy")
	}
}

// TestResolutionTargets checks the targets a resolution holds (none, one in the
// resolution itself, several in an array) and that its implicit mark survives them.
func TestResolutionTargets(t *testing.T) {
	defs := make([]defInfo, 3)
	all := []*defInfo{&defs[0], &defs[1], &defs[2]}
	for _, implicit := range []bool{false, true} {
		cs := newSite(7, implicit, nil)
		for _, n := range []int{1, 3, 0, 2} {
			buf := slices.Clone(all[:n])
			cs.setTargets(buf)
			clear(buf) // the resolution keeps its own copy
			if got := cs.targets(); !slices.Equal(got, all[:n]) {
				t.Fatalf("implicit %v, %d targets: got %v", implicit, n, got)
			}
			if cs.implicit() != implicit || cs.line != 7 {
				t.Fatalf("implicit %v, %d targets: implicit %v line %d", implicit, n, cs.implicit(), cs.line)
			}
		}
	}
}

// TestTransientExprsOnlyInLazySites checks the invariant the lazy-only slabs rely on
// (collector.transient): no fact of a file but its lazy sites reaches an expression
// of those slabs, which go, with their memos, once the lazy sites are resolved.
func TestTransientExprsOnlyInLazySites(t *testing.T) {
	transient, held := 0, 0
	for _, fx := range loadFixtures(t) {
		infos, err := New(Options{Workers: 1}).parseAll(context.Background(), fx.files, scanNames(fx.files))
		if err != nil {
			t.Fatal(err)
		}
		var w factWalk
		w.init()
		for _, f := range infos {
			w.scope(f.scope)
			for _, d := range f.defs {
				w.def(d)
			}
			for k := range f.calls {
				w.expr(f.calls[k].call)
			}
			for _, st := range f.stores {
				w.expr(st.x)
				w.expr(st.val)
			}
			for _, st := range f.attrStores {
				w.expr(st.obj)
				w.expr(st.val)
			}
		}
		for _, f := range infos {
			check := func(e *expr) {
				transient++
				if w.exprs[e] {
					t.Errorf("%s: %s: a transient expression (op %d, %q) is reached from the file's facts", fx.name, f.path, e.op, e.name())
				}
			}
			// the file keeps each slab as it was started (length 0): its unused
			// capacity is zero expressions
			for _, slab := range f.transient {
				for k, e := range slab[:cap(slab)] {
					if e != (expr{}) {
						check(&slab[:cap(slab)][k])
					}
				}
			}
			for _, slab := range f.transientX {
				for k, e := range slab[:cap(slab)] {
					if e != (exprX{}) {
						check(&slab[:cap(slab)][k].expr)
					}
				}
			}
			for _, s := range f.lazy {
				for _, e := range []*expr{s.x, s.y} {
					if e != nil && !w.exprs[e] {
						held++
					}
				}
			}
		}
	}
	if transient == 0 || held == 0 {
		t.Fatalf("the fixtures make %d transient expressions, %d held by lazy sites only: the check checks nothing", transient, held)
	}
}

// factWalk marks the expressions, scopes and definitions reachable from a file's facts.
type factWalk struct {
	exprs  map[*expr]bool
	scopes map[*scope]bool
	defs   map[*defInfo]bool
}

func (w *factWalk) init() {
	w.exprs, w.scopes, w.defs = map[*expr]bool{}, map[*scope]bool{}, map[*defInfo]bool{}
}

func (w *factWalk) expr(e *expr) {
	if e == nil || w.exprs[e] {
		return
	}
	w.exprs[e] = true
	w.expr(e.sub())
	if e.op.scoped() {
		w.scope(e.scope())
		w.def(e.def())
		return
	}
	if l := e.lit(); l != nil {
		for _, el := range l.elems() {
			w.expr(el)
		}
		if l.litExtra != nil {
			w.expr(l.builtin)
			for _, el := range l.extraVals {
				w.expr(el)
			}
			w.scope(l.sc)
		}
	}
}

func (w *factWalk) scope(s *scope) {
	if s == nil || w.scopes[s] {
		return
	}
	w.scopes[s] = true
	w.scope(s.parent)
	w.def(s.def)
	if s.selfName != "" {
		w.def(s.def.class) // the method's class
	}
	if s.names != nil {
		for _, b := range s.names.binds {
			w.expr(b.val)
		}
	}
}

func (w *factWalk) def(d *defInfo) {
	if d == nil || w.defs[d] {
		return
	}
	w.defs[d] = true
	for _, p := range d.params {
		w.expr(p.dflt)
	}
	for _, list := range [][]*expr{d.returns, d.yieldVals, d.decorators, d.cfacts().bases} {
		for _, e := range list {
			w.expr(e)
		}
	}
	for _, e := range []*expr{d.decCall, d.libWrap, d.cfacts().meta} {
		w.expr(e)
	}
	for _, vs := range d.cfacts().instAttrs {
		for _, e := range vs {
			w.expr(e)
		}
	}
	w.scope(d.scope)
	w.scope(d.outer)
	w.def(d.parent)
	w.def(d.class)
	w.def(d.cfacts().synthInit)
}

// TestPendingRestChunks checks that a long list of deferred *args bindings keeps its
// order across its chunks, none of them longer than restChunk.
func TestPendingRestChunks(t *testing.T) {
	sites := make([]callSite, 2*restChunk+7)
	var pr pendingRest
	for k := range sites {
		pr.add(restBind{&sites[k], int32(k % 2)})
	}
	var got []restBind
	for _, c := range append(pr.full, pr.binds) {
		if len(c) > restChunk {
			t.Fatalf("chunk of %d bindings, want at most %d", len(c), restChunk)
		}
		got = append(got, c...)
	}
	if len(got) != len(sites) {
		t.Fatalf("%d bindings, want %d", len(got), len(sites))
	}
	for k, b := range got {
		if b.cs != &sites[k] || b.off != int32(k%2) {
			t.Fatalf("binding %d is out of order", k)
		}
	}
}
