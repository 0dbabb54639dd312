package golang

// Files are resolved in parallel (see resolveAll), but the type-flow graph is built in
// file order, exactly as one walk of the files in order would build it: each file's walk
// records the facts it adds in a flowRec, in the order it adds them, with locations and
// function literals numbered locally; replay then adds them to the graph, file after
// file, mapping the local numbers to the graph's. The graph's locations, edges, labels,
// literals, bound methods and pending calls come out numbered and ordered as a serial
// walk would leave them.

// flowRec records the type-flow facts of walks over one file (its global flows, then its
// resolution) until they are replayed into the graph.
type flowRec struct {
	ntypes int // flowGraph.ntypes: label bits of functions start there
	// Kept from the file's global flows to its resolution (these are the file's own
	// nodes, which no other file's walk names):
	//
	// litIdx numbers the file's function literals: an index into flowGraph.lits once
	// replayed, before that -1-k for lits[k];
	litIdx map[nodeKey]int
	// bound marks the method values on interfaces registered (see valueFlow);
	bound map[nodeKey]bool
	// callees is flowCallees' memo.
	callees map[nodeKey][]*fn

	// Recorded since the last replay: locations are numbered 1…n in the order they were
	// asked for, each either by key (keys[op.a]) or fresh (a local variable's).
	ids     locKeys
	n       loc
	keys    []locKey
	ops     []flowOp
	lits    []litInfo
	bounds  []*boundMethod // their locations and sites' receivers in local numbers
	pending []pendingCall  // likewise, and pos counts the file's calls (fileCalls)
}

// flowOp is one recorded fact.
type flowOp struct {
	kind opKind
	a, b int32
}

type opKind uint8

const (
	opKey     opKind = iota // location n+1 is the one of keys[a]
	opFresh                 // location n+1 is a new one
	opEdge                  // an edge from location a to location b
	opSeed                  // label bit b (a declared type or function) on location a
	opSeedLit               // the label bit of function literal b on location a
)

func (fg *flowGraph) newRec() *flowRec { return &flowRec{ntypes: fg.ntypes} }

func (r *flowRec) newLoc() loc {
	r.ops = append(r.ops, flowOp{kind: opFresh})
	r.n++
	return r.n
}

func (r *flowRec) at(k locKey) loc {
	return r.ids.find(k, func() loc {
		r.ops = append(r.ops, flowOp{kind: opKey, a: int32(len(r.keys))})
		r.keys = append(r.keys, k)
		r.n++
		return r.n
	})
}

// addEdge records an edge. Local numbers map one to one to the graph's, so the checks
// of flowGraph.addEdge give the same answers on them.
func (r *flowRec) addEdge(from, to loc) {
	if from == 0 || to == 0 || from == to {
		return
	}
	r.ops = append(r.ops, flowOp{kind: opEdge, a: int32(from), b: int32(to)})
}

func (r *flowRec) seedType(l loc, d *typeDecl) {
	r.ops = append(r.ops, flowOp{kind: opSeed, a: int32(l), b: int32(d.idx)})
}

func (r *flowRec) seedFn(l loc, g *fn) {
	r.ops = append(r.ops, flowOp{kind: opSeed, a: int32(l), b: int32(r.ntypes + g.idx)})
}

func (r *flowRec) seedLit(l loc, i int) {
	r.ops = append(r.ops, flowOp{kind: opSeedLit, a: int32(l), b: int32(i)})
}

// replay adds what r recorded to the graph, in the order it was recorded, and empties
// the record (litIdx, bound and callees stay, with litIdx in the graph's numbers).
// calls is the number of Analysis.Calls before the file's: the pending calls' positions
// are shifted by it.
func (fg *flowGraph) replay(r *flowRec, calls int) {
	base := len(fg.lits)
	fg.lits = append(fg.lits, r.lits...)
	lit := func(i int) int {
		if i < 0 {
			return base - 1 - i
		}
		return i
	}
	m := make([]loc, r.n+1) // local number → the graph's
	next := 1
	for _, o := range r.ops {
		switch o.kind {
		case opKey:
			m[next] = fg.at(r.keys[o.a])
			next++
		case opFresh:
			m[next] = fg.newLoc()
			next++
		case opEdge:
			fg.addEdge(m[o.a], m[o.b])
		case opSeed:
			fg.seedBit(m[o.a], int(o.b))
		case opSeedLit:
			fg.seedLit(m[o.a], lit(int(o.b)))
		}
	}
	tr := func(f flow) flow {
		if len(f.locs) > 0 {
			locs := make([]loc, len(f.locs))
			for i, l := range f.locs {
				locs[i] = m[l]
			}
			f.locs = locs
		}
		if len(f.lits) > 0 {
			lits := make([]int, len(f.lits))
			for i, l := range f.lits {
				lits[i] = lit(l)
			}
			f.lits = lits
		}
		return f
	}
	// Each site and call is its own (ifaceCall and dynamicCall make a new one per call
	// site or method value), so translating in place does each once.
	for _, b := range r.bounds {
		b.at = m[b.at]
		b.site.recv = tr(b.site.recv)
		fg.bounds = append(fg.bounds, b)
	}
	for _, p := range r.pending {
		p.pos += calls
		if p.site != nil {
			p.site.recv = tr(p.site.recv)
		}
		if d := p.dyn; d != nil {
			d.recv = tr(d.recv)
			for i, x := range d.args {
				d.args[i] = tr(x)
			}
		}
		fg.pending = append(fg.pending, p)
	}
	for k, i := range r.litIdx {
		r.litIdx[k] = lit(i)
	}
	r.ids = locKeys{}
	r.n, r.keys, r.ops, r.lits, r.bounds, r.pending = 0, nil, nil, nil, nil, nil
}
