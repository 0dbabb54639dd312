package python

// accum gathers the union of evaluation results (union's order and limits) for a
// function that returns it: in a scratch buffer of the resolver once a second result
// adds to the first, and interned by result (the set is most often one the memos hold
// already: eval interns what evalOp returns). Growing a fresh slice for every such
// union left the resolution's largest garbage (on sympy ≈430 MB of 1.4 GB allocated,
// most of it through callResult and callResultAt).
type accum struct {
	out []value
	buf int // 1 + the index of the scratch buffer out lives in; 0 while out is shared
}

// accBufs is the resolver's stack of accumulation buffers: an accum takes the next one
// when it first needs it and gives it back in result, so that the evaluations nested in
// between (which take the ones above) leave it alone.
type accBufs struct {
	bufs [][]value
	top  int
	// last is the set result interned last: eval, which interns what evalOp returns,
	// need not hash it again (see internResult)
	last  *value
	lastN int
}

// add adds vs to a, as out = union(out, vs) would.
func (r *resolver) add(a *accum, vs []value) {
	if len(vs) == 0 {
		return
	}
	if len(a.out) == 0 {
		a.out = vs[:len(vs):len(vs)]
		return
	}
	if a.buf == 0 {
		if !addsTo(a.out, vs) {
			return // union would return out itself
		}
		s := &r.acc
		if s.top == len(s.bufs) {
			s.bufs = append(s.bufs, nil)
		}
		s.top++
		a.out, a.buf = append(s.bufs[s.top-1][:0], a.out...), s.top
	}
	a.out = addValues(a.out, vs...)
}

// result returns a's union (interned when it was built in a buffer, which goes back to
// the stack) and resets a.
func (r *resolver) result(a *accum) []value {
	out := a.out
	if a.buf != 0 {
		s := &r.acc
		if a.buf != s.top {
			panic("python: accumulation buffers released out of order")
		}
		s.bufs[s.top-1] = out[:0]
		s.top--
		out = r.sets.intern(out)
		s.last, s.lastN = &out[0], len(out)
	}
	*a = accum{}
	return out
}

// addsTo reports whether addValues(out, vs...) would append a value to out. Most often
// vs is a set out starts with (the same interned set, or out grown from it): nothing to
// compare then.
func addsTo(out, vs []value) bool {
	if len(vs) <= len(out) && &vs[0] == &out[0] {
		return false
	}
	for _, v := range vs {
		if (len(out) < maxValues || v.kind == vDef && len(out) < maxFunctions) && !hasValue(out, v) {
			return true
		}
	}
	return false
}

// hasValue reports whether out holds v, comparing as addValues does (the pointers first:
// they tell most values apart).
func hasValue(out []value, v value) bool {
	for k := range out {
		if o := &out[k]; o.def == v.def && o.ref == v.ref && o.kind == v.kind &&
			o.bound == v.bound && o.sliced == v.sliced && o.off == v.off {
			return true
		}
	}
	return false
}

// addOne adds v to a, as out = addValues(out, v) would.
func (r *resolver) addOne(a *accum, v value) {
	if a.buf == 0 {
		if len(a.out) > 0 && !addsTo(a.out, []value{v}) {
			return
		}
		s := &r.acc
		if s.top == len(s.bufs) {
			s.bufs = append(s.bufs, nil)
		}
		s.top++
		a.out, a.buf = append(s.bufs[s.top-1][:0], a.out...), s.top
	}
	a.out = addValues(a.out, v)
}

// internResult interns v, what evalOp returned, unless it is the set result interned
// last (an evaluation's union, most often: hashing it again cost ≈0.1 s on sympy).
func (r *resolver) internResult(v []value) []value {
	if len(v) > 0 && &v[0] == r.acc.last && len(v) == r.acc.lastN {
		return v
	}
	return r.sets.intern(v)
}
