package extract

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/faultline-dev/faultline/callgraph"
	"github.com/faultline-dev/faultline/callgraph/golang"
	"github.com/faultline-dev/faultline/callgraph/python"
	"github.com/faultline-dev/faultline/extract/mask"
	"github.com/faultline-dev/faultline/task"
)

// ErrNoLister is returned by Pipeline when the runner cannot discover tests.
var ErrNoLister = errors.New("extract: the runner does not implement task.Lister")

// Options configure Pipeline. The zero value works and follows the spec's defaults.
type Options struct {
	// Kind is the test framework; default task.GoTest when the root has a go.mod file,
	// else task.Pytest.
	Kind task.TestKind
	// Seed drives every random choice (budgets, P2P sampling). It is a uint64, math/rand/v2's
	// seed type, as in corrupt, compose and task.
	Seed uint64
	// N stops after N accepted instances (0: no limit).
	N int
	// MinTests is the least number of tests an F2P file needs (default 1).
	MinTests int
	// CommittedAfter, when set, keeps as F2P candidates only the test files whose first
	// commit (the committer date of the earliest commit adding them, see FirstCommitted)
	// is strictly after it, e.g. after a model's training cut-off. It needs root to be in
	// a git checkout (an error wrapping ErrNotGitCheckout otherwise); files left out are in
	// Result.Excluded. P2P candidates are not filtered.
	CommittedAfter time.Time
	// MinP2P and MaxP2P bound the P2P files per instance (defaults 1 and 5).
	MinP2P, MaxP2P int
	// MinBudget and MaxBudget bound the line budget (defaults 3000 and 5000).
	MinBudget, MaxBudget int
	// TopDepth is the top-object BFS depth (default 5).
	TopDepth int
	// MaxPassRate is the highest F2P pass rate accepted on the masked code (default 0.3).
	MaxPassRate float64
	// Classifier picks top objects (default Heuristic{}).
	Classifier Classifier
	// Limits bound every run (the runner's defaults fill zero fields): Limits.Timeout is
	// the per-run limit (the spec's 600 s is sandbox.Local's default; a zero Timeout is
	// taken as DefaultRunTimeout when the per-test limit is turned into Go's -timeout).
	Limits task.Limits
	// TestTimeout is the per-test limit (default DefaultTestTimeout, 10 s; negative: none).
	// Every run of the pipeline goes through WithTestTimeout, which documents how pytest
	// and go test enforce it; a test over the limit counts as failed (task.Timeout).
	TestTimeout time.Duration
	// Args are extra test-command arguments for every run.
	Args []string
	// Jobs bounds the test files traced at once (default runtime.GOMAXPROCS(0)); items are
	// built one after another.
	Jobs int
	// Progress, when set, receives one line per step.
	Progress func(msg string)
	// Steps, when set, is told how far the pipeline is, as each step ends: phase "trace"
	// (Done of Total test files traced) and then "build" (Done of Total F2P candidates
	// tried; Total is the candidates, those Owns keeps when it is set, which N may cut
	// short). Calls are serialised but
	// may come from the tracing goroutines.
	Steps func(Step)
	// Accept, when set, is a last check of an item that passed post-verification (e.g.
	// that its Level 2 instance verifies, VerifyLevel2): a non-empty reason rejects it.
	Accept func(ctx context.Context, it *Item) (reason string, err error)
	// Owns, when set, decides which F2P candidates this run builds, by test file (slash
	// path): the build walks the whole candidate order and passes over, without a run of
	// its own, every candidate Owns declines; they are not Items and do not count towards
	// N. Every test file is still traced (P2P choice reads every trace), and an item does
	// not depend on the items built before it (its seed comes from its test file), so the
	// owned items are exactly the unsharded run's items for those candidates. Splitting
	// the candidates among runs (a shard's cli.Shard.Owns) and keeping, of all the runs'
	// accepted items ordered by Item.Candidate, the first N gives the unsharded result.
	Owns func(testFile string) bool
}

// Step is the pipeline's position (see Options.Steps).
type Step struct {
	Phase       string // "trace" or "build"
	Done, Total int
	Accepted    int    // items accepted so far (build)
	File        string // the test file of the step that ended
}

// Item is one F2P candidate the pipeline worked on, accepted or not.
type Item struct {
	// TestFile is the F2P test file; F2P the selection that runs it.
	TestFile string         `json:"test_file"`
	F2P      task.Selection `json:"f2p"`
	// P2PFiles are the chosen pass-to-pass files and P2P their selections.
	P2PFiles []string         `json:"p2p_files"`
	P2P      []task.Selection `json:"p2p"`
	// Top are the top objects kept; DroppedTop those given up to find P2P files.
	Top        []string `json:"top"`
	DroppedTop []string `json:"dropped_top,omitempty"`
	// Candidate is the item's position in the F2P candidate order (from 0); it is the same
	// whichever candidates Options.Owns passes over.
	Candidate int `json:"candidate"`
	// Seed is the item's seed (derived from Options.Seed and the test file).
	Seed         uint64        `json:"seed"`
	Extraction   *Extraction   `json:"extraction,omitempty"`
	Mask         *mask.Result  `json:"mask,omitempty"`
	Verification *Verification `json:"-"`
	// Accepted items passed post-verification; Reason says why an item was rejected and
	// Cause what kind of rejection it was, without files or numbers ("no top object",
	// "masked F2P pass rate too high", ...: the words to count rejections by).
	Accepted bool   `json:"accepted"`
	Reason   string `json:"reason,omitempty"`
	Cause    string `json:"cause,omitempty"`
}

// Result is what Pipeline produced: the items in the order they were tried (F2P
// candidates by descending test count, then path).
type Result struct {
	Kind  task.TestKind
	Items []*Item
	// Excluded are the test files that were not F2P candidates (too few tests, or first
	// committed too early), sorted by path. They may still be P2P files.
	Excluded []Exclusion
	// Tests and TestFiles are what discovery found. Every test file is in Items or
	// Excluded, among the PassedOver candidates Options.Owns declined, or among the Untried
	// candidates left when Options.N was reached.
	Tests, TestFiles    int
	PassedOver, Untried int
}

// Counts accounts for every discovered test file, as "12 test files: 2 accepted, 7 no top
// object, 3 excluded (too few tests)": accepted items, rejected items by Cause, excluded
// files by Cause and the candidates not tried, most frequent first (ties by words). The
// counts add up to TestFiles.
func (r *Result) Counts() string {
	counts := map[string]int{}
	for _, it := range r.Items {
		switch {
		case it.Accepted:
			counts["accepted"]++
		case it.Cause != "":
			counts[it.Cause]++
		default:
			counts["rejected"]++
		}
	}
	for _, x := range r.Excluded {
		counts["excluded ("+x.Cause+")"]++
	}
	if r.PassedOver > 0 {
		counts["passed over (not owned)"] = r.PassedOver
	}
	if r.Untried > 0 {
		counts["not tried (enough accepted)"] = r.Untried
	}
	keys := slices.Collect(maps.Keys(counts))
	slices.SortFunc(keys, func(a, b string) int {
		if counts[a] != counts[b] {
			return counts[b] - counts[a]
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d %s", counts[k], k)
	}
	s := fmt.Sprintf("%d test files (%d tests)", r.TestFiles, r.Tests)
	if len(parts) > 0 {
		s += ": " + strings.Join(parts, ", ")
	}
	return s
}

// Exclusion is a test file that was not an F2P candidate, and why (Cause: the kind of
// exclusion, without numbers).
type Exclusion struct {
	File   string `json:"file"`
	Reason string `json:"reason"`
	Cause  string `json:"cause"`
}

// Accepted returns the accepted items.
func (r *Result) Accepted() []*Item {
	var out []*Item
	for _, it := range r.Items {
		if it.Accepted {
			out = append(out, it)
		}
	}
	return out
}

// testFileInfo is a discovered test file with its tests and trace.
type testFileInfo struct {
	file   string
	ids    []string
	trace  *Trace
	report *task.Report
	passes bool
}

// Pipeline runs the FeatureBench pipeline on the repository at root through r (which must
// also be a task.Lister): discover the tests, trace every test file, then for each F2P
// candidate choose top objects, P2P files and a budget, extract, mask and verify. root is
// only read. Rejected candidates are in the result with their reason; the error is for
// discovery failures, a runner that cannot be used or a cancelled ctx.
func Pipeline(ctx context.Context, r task.Runner, root string, opts Options) (*Result, error) {
	lister, ok := r.(task.Lister)
	if !ok {
		return nil, ErrNoLister
	}
	progress := opts.Progress
	if progress == nil {
		progress = func(string) {}
	}
	var stepMu sync.Mutex
	step := func(s Step) {
		if opts.Steps != nil {
			stepMu.Lock()
			defer stepMu.Unlock()
			opts.Steps(s)
		}
	}
	kind := opts.Kind
	if kind == "" {
		kind = task.Pytest
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			kind = task.GoTest
		}
	}
	if opts.MinTests <= 0 {
		opts.MinTests = 1
	}
	if opts.Classifier == nil {
		opts.Classifier = Heuristic{}
	}
	if opts.TestTimeout == 0 {
		opts.TestTimeout = DefaultTestTimeout
	}
	base := task.RunRequest{Root: root, Kind: kind, Limits: opts.Limits, Args: slices.Clone(opts.Args)}
	ids, err := lister.List(ctx, base)
	if err != nil {
		return nil, fmt.Errorf("extract: discover tests: %w", err)
	}
	var mod string
	if kind == task.GoTest {
		if mod, err = ModulePath(root); err != nil {
			return nil, err
		}
	}
	files, err := groupTests(root, kind, mod, ids)
	if err != nil {
		return nil, err
	}
	progress(fmt.Sprintf("discovered %d tests in %d files", len(ids), len(files)))
	res := &Result{Kind: kind, Tests: len(ids), TestFiles: len(files)}
	if len(files) == 0 {
		return res, nil
	}

	// F2P candidates: enough tests (and, with a date filter, first committed after the
	// date), decided before any test runs so that a bad root fails fast.
	var f2p []*testFileInfo
	for _, tf := range files {
		if len(tf.ids) >= opts.MinTests {
			f2p = append(f2p, tf)
		} else {
			res.Excluded = append(res.Excluded, Exclusion{File: tf.file, Cause: "too few tests",
				Reason: fmt.Sprintf("%d tests, fewer than %d", len(tf.ids), opts.MinTests)})
		}
	}
	if !opts.CommittedAfter.IsZero() {
		var out []Exclusion
		if f2p, out, err = filterCommittedAfter(ctx, root, opts.CommittedAfter, f2p); err != nil {
			return nil, fmt.Errorf("extract: CommittedAfter: %w", err)
		}
		res.Excluded = append(res.Excluded, out...)
		progress(fmt.Sprintf("%d test files first committed after %s", len(f2p), opts.CommittedAfter.UTC().Format(time.RFC3339)))
	}
	slices.SortFunc(res.Excluded, func(a, b Exclusion) int { return strings.Compare(a.File, b.File) })
	// Traced runs are slower than the runs the per-test limit is meant for (the tracer
	// sees every call and line): they get TraceAllowance times the limit, and a file whose
	// traced tests came near the limit is judged by an untraced run (confirmPasses).
	tr := r
	if opts.TestTimeout > 0 {
		tr = WithTestTimeout(r, opts.TestTimeout*TraceAllowance)
		r = WithTestTimeout(r, opts.TestTimeout)
	}

	// Static definitions (spans for masking and line counts; Go's graph for its traces).
	var lang callgraph.Language = python.New(python.Options{})
	if kind == task.GoTest {
		lang = golang.New(golang.Options{ModulePath: mod})
	}
	g, err := callgraph.Build(ctx, root, []callgraph.Language{lang}, callgraph.BuildOptions{})
	if err != nil {
		return nil, fmt.Errorf("extract: definitions: %w", err)
	}
	var fns []task.Function
	for _, n := range g.Nodes() {
		fns = append(fns, n.Function)
	}
	defs := NewDefIndex(fns)

	// Trace every test file, Jobs at a time (each result goes to its own slot, so the
	// order of completion does not matter).
	jobs := opts.Jobs
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	errs := make([]error, len(files))
	sem := make(chan struct{}, jobs)
	var wg sync.WaitGroup
	var tracedMu sync.Mutex
	traced := 0
	step(Step{Phase: "trace", Total: len(files)})
	for k, tf := range files {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			var err error
			if kind == task.GoTest {
				tf.trace, tf.report, err = TraceGo(ctx, tr, base, g, tf.file, tf.ids, GoTraceOptions{Limits: opts.Limits, ModulePath: mod})
			} else {
				tf.trace, tf.report, err = TracePython(ctx, tr, base, tf.file, false, TraceOptions{Limits: opts.Limits})
			}
			if err != nil && !errors.Is(err, ErrNoTrace) && !errors.Is(err, ErrBadTrace) {
				errs[k] = err
				return
			}
			tf.passes = err == nil && passes(tf.report)
			if err == nil && nearLimit(tf.report, opts.TestTimeout) {
				if tf.report, err = confirmPasses(ctx, r, base, kind, tf); err != nil {
					errs[k] = err
					return
				}
				tf.passes = passes(tf.report)
			}
			tracedMu.Lock()
			traced++
			n := traced
			tracedMu.Unlock()
			step(Step{Phase: "trace", Done: n, Total: len(files), File: tf.file})
		}()
	}
	wg.Wait()
	for k, tf := range files {
		if errs[k] != nil {
			return nil, errs[k]
		}
		progress(fmt.Sprintf("traced %s: %d objects, passes=%v", tf.file, traceLen(tf.trace), tf.passes))
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	others := map[string][]string{}
	for _, tf := range files {
		if tf.trace != nil {
			others[tf.file] = DirectUses(tf.trace, tf.file)
		}
	}

	// F2P candidates by descending test count, then path.
	slices.SortStableFunc(f2p, func(a, b *testFileInfo) int { return len(b.ids) - len(a.ids) })

	owned := len(f2p)
	if opts.Owns != nil {
		owned = 0
		for _, tf := range f2p {
			if opts.Owns(tf.file) {
				owned++
			}
		}
		progress(fmt.Sprintf("%d of %d F2P candidates owned; the others are passed over", owned, len(f2p)))
	}
	step(Step{Phase: "build", Total: owned})
	done := 0
	for k, tf := range f2p {
		if opts.N > 0 && len(res.Accepted()) >= opts.N {
			res.Untried = len(f2p) - k
			break
		}
		if opts.Owns != nil && !opts.Owns(tf.file) {
			res.PassedOver++
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		it, err := buildItem(ctx, r, base, root, kind, tf, files, others, defs, opts)
		if err != nil {
			return nil, err
		}
		it.Candidate = k
		res.Items = append(res.Items, it)
		if it.Accepted {
			progress(fmt.Sprintf("accepted %s: %d objects, %d lines extracted, %d P2P files", tf.file, len(it.Extraction.Extracted), it.Extraction.Lines, len(it.P2PFiles)))
		} else {
			progress(fmt.Sprintf("rejected %s: %s", tf.file, it.Reason))
		}
		done++
		step(Step{Phase: "build", Done: done, Total: owned, Accepted: len(res.Accepted()), File: tf.file})
	}
	return res, nil
}

func traceLen(t *Trace) int {
	if t == nil {
		return 0
	}
	return len(t.Objects)
}

// itemSeed derives an item's seed from the run's seed and the test file, so an item does
// not depend on which others were tried before it.
func itemSeed(seed uint64, file string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(file))
	return seed ^ h.Sum64()
}

// nearLimit reports whether a traced run may hide a test over the per-test limit perTest
// (> 0), or put one over it that an untraced run keeps under: a test ran longer than perTest
// (the traced time bounds the untraced one from above) or was stopped at its limit.
func nearLimit(rep *task.Report, perTest time.Duration) bool {
	if perTest <= 0 || rep == nil || !rep.Ran() {
		return false
	}
	for _, t := range rep.Tests {
		if t.Duration > perTest || t.Outcome == task.Timeout {
			return true
		}
	}
	return false
}

// confirmPasses runs tf's tests once without the tracer, under the per-test limit r
// enforces, and returns that report: whether the file passes on the original code is its
// verdict, not the traced run's (seen on more-itertools: a test of 4 s went over the 10 s
// limit only under the tracer, and the file was rejected as failing on the original code).
func confirmPasses(ctx context.Context, r task.Runner, base task.RunRequest, kind task.TestKind, tf *testFileInfo) (*task.Report, error) {
	req := base
	req.Select = selection(kind, tf)
	rep, err := r.Run(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("extract: run %s without the tracer: %w", tf.file, err)
	}
	return rep, nil
}

// firstGoError returns the first compiler message (file:line:col: text) of a Go run that
// did not build, or its state and first line.
func firstGoError(rep *task.Report) string {
	for _, text := range []string{rep.Detail, rep.Output} {
		for line := range strings.SplitSeq(text, "\n") {
			line = strings.TrimSpace(line)
			if i := strings.Index(line, ".go:"); i > 0 && strings.Contains(line[i:], ": ") {
				return strings.TrimPrefix(line, "./")
			}
		}
	}
	return runSummary(rep)
}

func selection(kind task.TestKind, tf *testFileInfo) task.Selection {
	if kind == task.GoTest {
		return task.Selection{IDs: slices.Clone(tf.ids)}
	}
	return task.Selection{Files: []string{tf.file}}
}

func buildItem(ctx context.Context, r task.Runner, base task.RunRequest, root string, kind task.TestKind,
	tf *testFileInfo, files []*testFileInfo, others map[string][]string, defs *DefIndex, opts Options) (*Item, error) {
	it := &Item{TestFile: tf.file, F2P: selection(kind, tf), Seed: itemSeed(opts.Seed, tf.file)}
	reject := func(cause, format string, a ...any) (*Item, error) {
		it.Cause = cause
		it.Reason = fmt.Sprintf(format, a...)
		return it, nil
	}
	if tf.trace == nil {
		return reject("not traced", "the test file could not be traced: %s", runSummary(tf.report))
	}
	if !tf.passes {
		return reject("fails on the original code", "the test file does not pass on the original code: %s", runSummary(tf.report))
	}
	rng := rand.New(rand.NewPCG(it.Seed, 0x6665617475726562))

	src, _ := os.ReadFile(filepath.Join(root, filepath.FromSlash(tf.file)))
	cands := Candidates(tf.trace, tf.file, opts.TopDepth, others)
	if _, heuristic := opts.Classifier.(Heuristic); !heuristic {
		addSources(root, cands, defs)
	}
	top, err := TopObjects(ctx, opts.Classifier, ClassifyRequest{TestFile: tf.file, TestSource: string(src), Candidates: cands, OtherFiles: len(files) - 1})
	if err != nil {
		if errors.Is(err, ErrNoTopObjects) {
			return reject("no top object", "%v", err)
		}
		return nil, err
	}

	var pc []P2PFile
	for _, o := range files {
		if o != tf && o.passes && reachesRepository(o) {
			pc = append(pc, P2PFile{File: o.file, Trace: o.trace})
		}
	}
	ch, err := ChooseP2P(top, pc, opts.MinP2P, opts.MaxP2P, rng)
	if err != nil {
		return reject("too few P2P files", "%v", err)
	}
	it.Top, it.DroppedTop, it.P2PFiles = ch.Top, ch.Dropped, ch.Files
	var p2pTraces []*Trace
	byFile := map[string]*testFileInfo{}
	for _, o := range files {
		byFile[o.file] = o
	}
	for _, f := range ch.Files {
		p2pTraces = append(p2pTraces, byFile[f].trace)
		it.P2P = append(it.P2P, selection(kind, byFile[f]))
	}

	var protected []string
	if kind == task.Pytest {
		col, rep, err := TracePython(ctx, r, base, tf.file, true, TraceOptions{Limits: opts.Limits})
		if err != nil {
			if errors.Is(err, ErrNoTrace) || errors.Is(err, ErrBadTrace) {
				return reject("collect-only trace failed", "collect-only trace failed: %s", runSummary(rep))
			}
			return nil, err
		}
		protected = protectedIDs(col)
	}

	dg := NewDepGraph(tf.trace, p2pTraces, protected, defs)
	budget := DrawBudget(rng, opts.MinBudget, opts.MaxBudget)
	ex := Extract(dg, it.Top, budget)
	it.Extraction = ex
	if len(ex.Extracted) == 0 {
		return reject("nothing to extract", "nothing to extract: the %d top objects are protected, seen in P2P or have no definition", len(it.Top))
	}

	var targets []mask.Target
	for _, id := range ex.Extracted {
		t, err := mask.ParseTarget(id)
		if err != nil {
			return nil, fmt.Errorf("extract: %w", err)
		}
		targets = append(targets, t)
	}
	var keep []mask.Target
	for _, id := range append(slices.Clone(ex.Protected), ex.Remained...) {
		if t, err := mask.ParseTarget(id); err == nil {
			keep = append(keep, t)
		}
	}
	// Mask, then protect whatever the F2P and P2P files need to collect (names in collection
	// errors, bisection) and mask again.
	// For Go the F2P file cannot compile without what it tests: the masked package must build
	// and the P2P tests collect without it (the instance starts without the F2P file).
	collect := task.Selection{Files: slices.Clone(it.F2P.Files), IDs: slices.Clone(it.F2P.IDs)}
	under := base.Overlay
	if kind == task.GoTest {
		collect = task.Selection{}
		under = base.Overlay.Clone()
		if under == nil {
			under = task.Overlay{}
		}
		under.Remove(tf.file)
	}
	for _, s := range it.P2P {
		collect.Files = append(collect.Files, s.Files...)
		collect.IDs = append(collect.IDs, s.IDs...)
	}
	if kind == task.GoTest {
		// Test files of one Go package share their declarations: when the others use a
		// helper or method the F2P file declares, they cannot build without it whatever
		// is masked. One build says so before the mask loop spends its runs.
		rep, err := r.Run(ctx, task.RunRequest{Root: root, Overlay: under, Kind: kind, Select: collect, Limits: opts.Limits,
			Args: mask.CollectArgs(kind)})
		if err != nil {
			return nil, fmt.Errorf("extract: build without %s: %w", tf.file, err)
		}
		if !mask.Collected(rep) {
			return reject("other tests need the F2P file", "the other tests do not build without %s (a Go package's test files share their declarations): %s",
				tf.file, firstGoError(rep))
		}
	}
	mr, err := mask.MaskUntilCollects(ctx, r, mask.CollectRequest{Root: root, Targets: targets, Kind: kind,
		Select: collect, Overlay: under, Limits: opts.Limits}, mask.LoopOptions{Options: mask.Options{Keep: keep}})
	if err != nil {
		if errors.Is(err, mask.ErrNoBuild) {
			return reject("the masked tree does not build", "%v", err)
		}
		if errors.Is(err, mask.ErrNotCollected) {
			return reject("the masked tree does not collect", "%v", err)
		}
		return nil, fmt.Errorf("extract: mask %s: %w", tf.file, err)
	}
	it.Mask = mr
	if len(mr.Removed) == 0 {
		return reject("the mask removed nothing", "the mask removed nothing (%d targets protected)", len(mr.Protected))
	}

	v, err := Verify(ctx, r, VerifyRequest{Base: base, Mask: mr.Overlay, F2P: it.F2P, P2P: it.P2P, MaxPassRate: opts.MaxPassRate,
		F2PFile: tf.file, BuildFailureFails: kind == task.GoTest})
	if err != nil {
		return nil, err
	}
	it.Verification = v
	if !v.Accepted {
		return reject(v.Cause, "%s", v.Reason)
	}
	if opts.Accept != nil {
		reason, err := opts.Accept(ctx, it)
		if err != nil {
			return nil, err
		}
		if reason != "" {
			return reject(acceptCause(reason), "%s", reason)
		}
	}
	it.Accepted = true
	return it, nil
}

// acceptCause is the cause of a rejection by Options.Accept: its reason up to the first
// ": " (Accept's reasons are expected to start with their kind).
func acceptCause(reason string) string {
	if i := strings.Index(reason, ": "); i > 0 {
		return reason[:i]
	}
	return reason
}

// addSources fills Candidate.Source with each candidate's definition text (for a model).
func addSources(root string, cands []Candidate, defs *DefIndex) {
	files := map[string][]byte{}
	for i := range cands {
		c := &cands[i]
		_, _, line, err := ParseObjectID(c.ID)
		if err != nil {
			continue
		}
		d := defs.Find(c.File, c.Name, line)
		if d == nil {
			continue
		}
		src, ok := files[c.File]
		if !ok {
			src, _ = os.ReadFile(filepath.Join(root, filepath.FromSlash(c.File)))
			files[c.File] = src
		}
		if d.Def.End <= len(src) && d.Def.Start < d.Def.End {
			c.Source = string(d.Def.Text(src))
		}
	}
}

// reachesRepository reports whether a test file's tests reach any candidate object (an
// object outside test, conftest and __init__ files). Every trace holds what importing the
// package executed; a file whose tests reach nothing beyond that (they run the code in a
// subprocess, or only test their own helpers) says nothing about what a mask breaks, so it
// is never a P2P file.
func reachesRepository(tf *testFileInfo) bool {
	return len(Candidates(tf.trace, tf.file, 0, nil)) > 0
}

// protectedIDs returns the objects a collect-only trace executed and the repository
// objects imported by name while collecting, sorted.
func protectedIDs(col *Trace) []string {
	set := map[string]bool{}
	for _, o := range col.Objects {
		set[o.ID] = true
	}
	for _, im := range col.Imports {
		if im.Target != "" {
			set[im.Target] = true
		}
	}
	out := make([]string, 0, len(set))
	for id := range set {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// groupTests groups test ids by file, sorted by path.
func groupTests(root string, kind task.TestKind, mod string, ids []string) ([]*testFileInfo, error) {
	byFile := map[string][]string{}
	if kind == task.GoTest {
		listed := map[string]bool{}
		for _, id := range ids {
			listed[id] = true
		}
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "vendor") {
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(p, "_test.go") {
				return nil
			}
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			rel = filepath.ToSlash(rel)
			src, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			for _, id := range GoTestIDs(mod, rel, src) {
				if listed[id] {
					byFile[rel] = append(byFile[rel], id)
				}
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("extract: discover tests: %w", err)
		}
	} else {
		for _, id := range ids {
			f, _, ok := strings.Cut(id, "::")
			if ok && strings.HasSuffix(f, ".py") {
				byFile[f] = append(byFile[f], id)
			}
		}
	}
	var out []*testFileInfo
	for f, ids := range byFile {
		slices.Sort(ids)
		out = append(out, &testFileInfo{file: f, ids: ids})
	}
	slices.SortFunc(out, func(a, b *testFileInfo) int { return strings.Compare(a.file, b.file) })
	return out, nil
}
