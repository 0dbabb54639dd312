// Package testimpact records which tests execute which code of a repository, once per
// repository state, as a corrupt.Impact: Breakpoint validation (corrupt.Options.Impact)
// then runs a candidate corruption against the tests that can notice it and the whole
// suite only to confirm the candidates it is about to keep.
//
// It sits between corrupt (which must not import extract, nor anything that runs tests but
// through task.Runner) and extract (whose Python tracer and Go coverage parser it uses).
//
// # What is recorded
//
// Python: every test file of the baseline runs alone under extract's tracer
// (extract.TracePython): the functions it executed, from import and collection to the
// last test, are charged to that file's tests. One more run collects the whole suite under
// the tracer (--collect-only): what runs then runs outside any test, and a corruption there
// impacts every test (the whole suite validates it).
//
// Go: every top-level test of the baseline runs alone with a coverage profile over every
// package of the module (-coverprofile, -coverpkg=./...): its covered blocks are charged to
// it and its subtests. Coverage was chosen over the static call graph: the call graph is
// built from syntax, and calls through function values, interfaces it cannot resolve and
// reflection leave edges out, so "not reachable in the graph" is no proof that a test does
// not run a function; coverage observes what ran. Every per-test run executes the init
// functions and package-level variable initialisers of the packages linked into its binary
// (and TestMain, whose file is not instrumented and never a candidate), so that code is
// charged to every test of those binaries, as it must be. The cost is one go test run per
// top-level test (the build is cached after the first).
//
// # Where the subset could differ from the whole suite, and what closes it
//
//   - Code run outside any test (Python import and collection time): Global regions, the
//     whole suite validates.
//   - A corrupted function no recorded test executed: the whole suite validates (it is not
//     proven unreachable: see the next point).
//   - An edit outside the corrupted functions (a Go import the corruption left unused and
//     GoChecker pruned: which init functions run may change): the whole suite validates.
//   - A test whose recording failed: it is in every subset (corrupt.Impact.Always).
//   - A subset run that did not complete (timeout, collection error, untrusted): the whole
//     suite decides.
//   - State carried from one test to another within one process (a cache filled by a test
//     that ran the function and read by a test that did not): the recording runs test files
//     (Python) or top-level tests (Go) apart, so it sees state shared within a file or a
//     test, not across them. This is the assumption left: tests do not depend on the order
//     in which other files' tests ran. The equality tests on real repositories
//     (FAULTLINE_ACCEPTANCE) check it where it matters.
//
// An accepted candidate is always validated once more by the whole suite, whose
// FAIL_TO_PASS and PASS_TO_PASS the task records: only the rejections rest on the subset.
package testimpact

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/faultline-dev/faultline/corrupt"
	"github.com/faultline-dev/faultline/task"
)

// Options configure Record. The zero value works.
type Options struct {
	// Jobs bounds the recording runs that run at once (0: GOMAXPROCS).
	Jobs int
	// Limits bound each recording run (zero: the request's limits). Tracing slows Python
	// down several times; give it room.
	Limits task.Limits
	// Progress, when set, is called after each recording run with the runs done and the
	// runs in all (from several goroutines, never at once).
	Progress func(done, total int)
}

// Stats counts what a recording did.
type Stats struct {
	Runs   int // recording runs (one per group, plus the collection run for Python)
	Failed int // groups whose recording failed (their tests are in every subset)
}

// Record runs the recording for the repository of req (req.Kind says the language; its
// Overlay is the state recorded) over the baseline-passing tests passing (those of req's
// selection), and returns the impact. An error means the runner could not be used or the
// repository's state cannot be recorded at all; a group whose own run fails only widens
// every subset (Impact.Always).
func Record(ctx context.Context, r task.Runner, req task.RunRequest, passing []string, opts Options) (*corrupt.Impact, Stats, error) {
	if opts.Jobs <= 0 {
		opts.Jobs = runtime.GOMAXPROCS(0)
	}
	if opts.Limits == (task.Limits{}) {
		opts.Limits = req.Limits
	}
	switch req.Kind {
	case task.Pytest:
		return recordPython(ctx, r, req, passing, opts)
	case task.GoTest:
		return recordGo(ctx, r, req, passing, opts)
	}
	return nil, Stats{}, fmt.Errorf("testimpact: test kind %q: want %s or %s", req.Kind, task.GoTest, task.Pytest)
}

// region is what a recording run observed: code of one file that ran.
type region struct {
	file       string
	line, end  int
	outsideAny bool
}

// builder merges the regions of the groups into an impact.
type builder struct {
	groups [][]string
	byKey  map[region][]int
	global map[region]bool
	always []string
}

func newBuilder(groups [][]string) *builder {
	return &builder{groups: groups, byKey: map[region][]int{}, global: map[region]bool{}}
}

func (b *builder) add(group int, regs []region) {
	for _, r := range regs {
		if r.outsideAny {
			r.outsideAny = false
			b.global[r] = true
			continue
		}
		if gs := b.byKey[r]; len(gs) == 0 || gs[len(gs)-1] != group {
			b.byKey[r] = append(gs, group)
		}
	}
}

func (b *builder) impact() (*corrupt.Impact, error) {
	im := &corrupt.Impact{Groups: b.groups, Always: b.always}
	for r, gs := range b.byKey {
		slices.Sort(gs)
		im.Regions = append(im.Regions, corrupt.ImpactRegion{File: r.file, Line: r.line, EndLine: r.end, Groups: slices.Compact(gs), Global: b.global[r]})
	}
	for r := range b.global {
		if _, ok := b.byKey[r]; !ok {
			im.Regions = append(im.Regions, corrupt.ImpactRegion{File: r.file, Line: r.line, EndLine: r.end, Global: true})
		}
	}
	sort.Slice(im.Regions, func(i, j int) bool {
		a, c := im.Regions[i], im.Regions[j]
		if a.File != c.File {
			return a.File < c.File
		}
		if a.Line != c.Line {
			return a.Line < c.Line
		}
		return a.EndLine < c.EndLine
	})
	sort.Strings(im.Always)
	return im, im.Check()
}

// forEach runs job(i) for i in [0, n) with up to jobs at once and reports progress; it
// returns the first error (by index).
func forEach(ctx context.Context, n, jobs int, progress func(done, total int), job func(ctx context.Context, i int) error) error {
	errs := make([]error, n)
	var mu sync.Mutex
	done := 0
	sem := make(chan struct{}, jobs)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		if ctx.Err() != nil {
			break
		}
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			errs[i] = job(ctx, i)
			if progress != nil {
				mu.Lock()
				done++
				progress(done, n)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// groupBy splits the tests into groups by key (in key order, the tests sorted).
func groupBy(ids []string, key func(string) string) (keys []string, groups [][]string) {
	idx := map[string]int{}
	for _, id := range ids {
		k := key(id)
		i, ok := idx[k]
		if !ok {
			i = len(keys)
			idx[k] = i
			keys = append(keys, k)
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], id)
	}
	order := make([]int, len(keys))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return keys[order[a]] < keys[order[b]] })
	sk := make([]string, len(keys))
	sg := make([][]string, len(keys))
	for n, i := range order {
		sk[n] = keys[i]
		sg[n] = slices.Sorted(slices.Values(groups[i]))
	}
	return sk, sg
}

// pytestFile returns the file of a pytest node id.
func pytestFile(id string) string {
	f, _, _ := strings.Cut(id, "::")
	return f
}
