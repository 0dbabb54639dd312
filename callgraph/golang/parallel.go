package golang

import (
	"context"
	"fmt"
	"maps"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/faultline-dev/faultline/callgraph"
)

// Parallel resolution.
//
// Resolving a file reads the other files' outlines and declarations and writes only
// what belongs to the file (its calls, its record of type-flow facts, its memos), with
// three exceptions that settle and flowRec take care of:
//
//   - memos filled lazily on first use: declared types' underlying types and method
//     sets, functions' signatures, package-level variables' types and the index of
//     types by method. settle fills them all before the walks, which then only read
//     them.
//   - the type-flow graph, whose numbering depends on the order facts are added in:
//     each walk records its file's facts and they are replayed into the graph in file
//     order (see flowRec).
//   - the class-hierarchy expansions of interface methods, shared memos that take a
//     lock (analyzer.memo).
//
// The Analysis is the one a walk of the files in order gives, byte for byte.

// resolveWorkers returns how many files are resolved at once: Frontend.workers when set,
// else GOMAXPROCS.
func (fe *Frontend) resolveWorkers() int {
	if fe.workers > 0 {
		return fe.workers
	}
	return runtime.GOMAXPROCS(0)
}

// settle fills the memos that resolution fills lazily, so that files can be resolved in
// parallel reading them only, and reports whether it did. Each memo's value is a function
// of the declarations alone, whatever order they are filled in, unless the inference of
// a type or a variable needs itself through another declaration (a cycle: invalid code,
// or build variants that declare one name twice): a cycle is cut where it is entered,
// which depends on the order (see inference; a declaration that needs only itself, as
// builtin/builtin.go's type bool bool, does not count). settle then undoes what it
// filled and reports false, and the files are resolved one after the other, in order,
// filling the memos as a serial resolution does.
func (a *analyzer) settle() bool {
	var types, msets []*typeDecl
	for _, td := range a.named {
		if !td.resolved {
			types = append(types, td)
		}
		if !td.msetDone {
			msets = append(msets, td)
		}
	}
	var vars []*varDecl
	for _, v := range a.vars {
		if !v.done {
			vars = append(vars, v)
		}
	}
	hadIndex := a.byMethod != nil
	chaMemo, flowCHA := maps.Clone(a.chaMemo), maps.Clone(a.flowCHA)
	cycles := a.inf.cycles

	// Functions' signatures do not depend on the other memos.
	for _, g := range a.fns {
		g.arity()
		g.paramInfo()
		g.resultTypes()
	}
	for _, td := range a.named {
		td.underlying()
	}
	for _, td := range a.named {
		td.methodSet()
	}
	a.typesWithMethod("")
	// The names of a spec are listed one after the other: it is decoded once for them.
	var at *file
	var spec *node
	k := -1
	for _, v := range a.vars {
		if v.done {
			continue
		}
		if v.file != at || v.spec != k {
			at, k, spec = v.file, v.spec, v.file.spec(a.fe.grammar, v.spec)
		}
		a.inferVar(v, spec)
	}
	if a.inf.cycles == cycles {
		return true
	}
	// Undo: a memo filled here would hold a value a serial resolution may not give.
	for _, td := range types {
		td.under, td.resolved = nil, false
	}
	for _, td := range msets {
		td.mset, td.msetDone = nil, false
	}
	for _, v := range vars {
		v.t, v.done = nil, false
	}
	if !hadIndex {
		a.byMethod = nil
	}
	a.chaMemo, a.flowCHA = chaMemo, flowCHA
	return false
}

// inference follows the declared types' and the package-level variables' inferences in
// progress, which nest (a variable's type needs another's, a type's underlying type
// another type's), to tell the cycles that make a memo's value depend on the order the
// memos are filled in from those that do not.
//
// A declaration whose inference needs itself while it is the innermost in progress (type
// bool bool, var x = f(x)) gets the same value whoever asks for it first: it is always
// entered from outside and always cut, with the same nil, at its own frame. A cycle
// through two declarations or more is cut at whichever of them was entered first, so
// their values depend on the order. When every memo is filled (settle) and no cut is of
// the second kind, the dependencies between the declarations other than the
// self-references form no cycle (every such cycle would have been met, as the filling
// visits every declaration depth-first), and each memo's value is a function of the
// declarations alone.
type inference struct {
	depth  int32 // how many inferences are in progress
	cycles int   // how many cuts were of a cycle through two declarations or more
}

// enter starts an inference and returns its depth.
func (in *inference) enter() int32 {
	in.depth++
	return in.depth
}

// leave ends the innermost inference.
func (in *inference) leave() { in.depth-- }

// cut records that the inference entered at depth needs itself.
func (in *inference) cut(depth int32) {
	if depth != in.depth {
		in.cycles++
	}
}

// resolveAll resolves the files with the given number of workers, merging each file's
// calls and type-flow facts in file order (recs are the records kept from the global
// flows, by file; nil entries are empty).
func (a *analyzer) resolveAll(ctx context.Context, workers int, recs []*flowRec) error {
	type done struct {
		i   int
		out *fileCalls
		rec *flowRec
	}
	n := len(a.files)
	// At most window files are resolved ahead of the merge, bounding the records held.
	// The window is wide: files are merged in order, so a worker that has gone window
	// files past a long one waits for it (with 4 per worker the workers of GOROOT/src
	// waited 0.2-0.3 s in all, with 64 per worker 20-50 ms).
	window := 64 * workers
	slots := make(chan struct{}, window)
	results := make(chan done, window)
	stop := make(chan struct{})
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			// Nothing keeps a decoded body once its file is resolved: the next file's
			// bodies are decoded into the same storage.
			var sc decodeScratch
			for {
				select {
				case slots <- struct{}{}:
				case <-stop:
					return
				}
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				f := a.files[i]
				var rec *flowRec
				if a.flow != nil {
					if rec = recs[i]; rec == nil {
						rec = a.flow.newRec()
					}
					recs[i] = nil
				}
				out := a.resolveFile(f, f.bodiesInto(a.fe.grammar, &sc), rec)
				// Resolved: the bodies are not needed again, nor the file's memos.
				f.parsed.bodies = nil
				rec.drop()
				select {
				case results <- done{i, out, rec}:
				case <-stop:
					return
				}
			}
		})
	}
	defer func() {
		close(stop)
		wg.Wait()
	}()
	ahead := map[int]done{}
	for i := range n {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("golang: %w", err)
		}
		d, ok := ahead[i]
		for !ok {
			select {
			case r := <-results:
				ahead[r.i] = r
				d, ok = ahead[i]
			case <-ctx.Done():
				return fmt.Errorf("golang: %w", ctx.Err())
			}
		}
		delete(ahead, i)
		a.merge(a.files[i], d.out, d.rec)
		<-slots
	}
	return nil
}

// merge adds a resolved file's calls and type-flow facts to the analysis.
func (a *analyzer) merge(f *file, out *fileCalls, rec *flowRec) {
	calls := len(a.out.Calls)
	a.out.Calls = append(a.out.Calls, out.calls...)
	if out.sites > 0 { // as Analysis.AddSite and AddResolved count them
		a.out.CallSites += out.sites
		a.out.Resolved += out.resolved
		if a.out.ByFile == nil {
			a.out.ByFile = map[string]callgraph.CallCount{}
		}
		c := a.out.ByFile[f.path]
		c.Sites += out.sites
		c.Resolved += out.resolved
		a.out.ByFile[f.path] = c
	}
	if rec != nil {
		a.flow.replay(rec, calls)
	}
}

// drop lets the memos a file's resolution kept go (nil-safe).
func (r *flowRec) drop() {
	if r != nil {
		r.litIdx, r.bound, r.callees = nil, nil, nil
	}
}
