package compose

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/bits"
	"math/rand"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/faultline-dev/faultline/task"
)

// Options configure Generate. The zero value generates PDB-Single-style tasks with the
// released generator's defaults; the paper's values are noted per field.
type Options struct {
	// TaskID names the task; example ids are TaskID + "/k<k>/<n>".
	TaskID string
	// Source proposes bugs; nil means Rules{MaxSpan: MaxLines} (linemut.Default mutations of
	// single lines, and of spans of up to MaxLines consecutive lines when MaxLines > 1).
	Source BugSource
	// Multi selects multi-line (PDB-Wild) defaults: MaxLines 4, Stride 4, KMax 3.
	Multi bool
	// M1 is the number of validated bugs to collect (default 20, as the paper).
	M1 int
	// M2 is the number of composition attempts per bug count k (default 20, the reference;
	// the paper's PDB-Single used 100).
	M2 int
	// M3 is the number of composed programs kept per k (default 5).
	M3 int
	// KMax is the largest bug count (default 4 single-line, 3 multi-line).
	KMax int
	// Stride s: consecutive bugs need start_i − end_{i−1} > s in the correct program and
	// the composed ground-truth diff must pass task.Verify(k, s, MaxLines, 1) in buggy
	// coordinates. Default 2 single-line / 4 multi-line (the reference); the paper states 3
	// and 5.
	Stride int
	// MaxLines is B_max, the largest bug block (default 1 single-line, 4 multi-line; the
	// paper used 30 for whole repository files).
	MaxLines int
	// ExhaustiveLimit is the largest block whose atomicity filter enumerates every proper
	// subset (2^B − 2 oracle calls); larger blocks test single-edit reverts only. Default 4
	// (the reference).
	ExhaustiveLimit int
	// Retries bounds the resampling when a sampled set of k bugs violates the stride
	// (default 100).
	Retries int
	// Independence additionally requires of each composed program that it fails and that
	// reverting any one bug alone still fails (the reference did not re-test compositions).
	Independence bool
	// Seed seeds every random choice. Same inputs and seed → identical output.
	Seed uint64
	// Frozen is the number of leading starter-code lines bugs must not touch.
	Frozen int
	// Jobs bounds concurrent oracle calls (0: GOMAXPROCS).
	Jobs int
	// SkipSingle leaves out the k = 1 examples (each validated bug on its own).
	SkipSingle bool
	// SkipProbe leaves out the check that the tests fail on an empty program (see
	// ErrTestsIgnoreProgram): one oracle call.
	SkipProbe bool
	// TaskPrompt is written as every example's task_prompt: the problem statement a
	// debugger is given (the release puts the task's description there). Empty: omitted.
	TaskPrompt string
	// SourceModel is written as every example's source_model, the model or tool that made
	// the bugs (the release names the LLM). Empty: "faultline/" and the bug sources, e.g.
	// "faultline/rule".
	SourceModel string
	// Progress, if set, is called as generation advances: phase "validate" with the
	// candidates checked so far and their number, then "compose k=K" with the composition
	// attempts made for K bugs and M2. It is called from Generate's goroutine.
	Progress func(phase string, done, total int)
}

func (o Options) withDefaults() Options {
	def := func(p *int, single, multi int) {
		if *p <= 0 {
			if o.Multi {
				*p = multi
			} else {
				*p = single
			}
		}
	}
	def(&o.M1, 20, 20)
	def(&o.M2, 20, 20)
	def(&o.M3, 5, 5)
	def(&o.KMax, 4, 3)
	def(&o.Stride, 2, 4)
	def(&o.MaxLines, 1, 4)
	def(&o.ExhaustiveLimit, 4, 4)
	def(&o.Retries, 100, 100)
	if o.Source == nil {
		o.Source = Rules{MaxSpan: o.MaxLines}
	}
	if o.Jobs <= 0 {
		o.Jobs = runtime.GOMAXPROCS(0)
	}
	return o
}

// Atomicity filter variants (Bug.Atomicity).
const (
	AtomicTrivial    = "single-edit-fix" // the correction is one edit: atomic by definition
	AtomicExhaustive = "exhaustive"      // every proper subset of the correction reverted
	AtomicSingleEdit = "single-edit"     // block above ExhaustiveLimit: single-edit reverts only
)

// Bug is a validated atomic bug of the correct program. Category is its ODC category
// (ODC) when the source tells it: an LLM source's requested category, or the category of
// the linemut rule (see RuleCategory).
type Bug struct {
	Source    string     `json:"source"`
	Rule      string     `json:"rule,omitempty"`
	Category  string     `json:"category,omitempty"`
	Start     int        `json:"start"` // first line of the correct program it touches
	End       int        `json:"end"`   // last line
	Edits     task.Edits `json:"edits"` // forward edits correct → buggy (keys: correct lines)
	Atomicity string     `json:"atomicity"`
}

// Example is one generated PDB task: the release's fields (task_id, buggy_code,
// gt_solution, gt_diff, bug_count, task_prompt, source_model; for a single bug bug_type,
// bug_subtype and is_buggy as the release writes them only there; the line counts
// frozen_lines, gt_length, editable_lines and deletable_lines of the correct program) plus
// generation metadata (seed, stride, bugs).
type Example struct {
	TaskID         string     `json:"task_id"`
	BuggyCode      string     `json:"buggy_code"`
	GTSolution     string     `json:"gt_solution"`
	GTDiff         task.Edits `json:"gt_diff"`
	BugCount       int        `json:"bug_count"`
	TaskPrompt     string     `json:"task_prompt,omitempty"`
	SourceModel    string     `json:"source_model,omitempty"`
	BugType        string     `json:"bug_type,omitempty"`
	BugSubtype     string     `json:"bug_subtype,omitempty"`
	IsBuggy        bool       `json:"is_buggy,omitempty"`
	FrozenLines    int        `json:"frozen_lines"`
	GTLength       int        `json:"gt_length"`
	EditableLines  int        `json:"editable_lines"`
	DeletableLines int        `json:"deletable_lines"`
	Seed           uint64     `json:"seed"`
	Stride         int        `json:"stride"`
	Bugs           []Bug      `json:"bugs"`
}

// Stats counts what happened during generation.
type Stats struct {
	Candidates  int            `json:"candidates"`
	Accepted    int            `json:"accepted"`
	Rejected    map[string]int `json:"rejected"` // by reason
	Attempts    map[int]int    `json:"attempts"` // composition attempts per k
	Composed    map[int]int    `json:"composed"` // distinct valid compositions per k
	OracleCalls int            `json:"oracle_calls"`
}

// Result is the output of Generate.
type Result struct {
	Examples []Example `json:"examples"`
	Pool     []Bug     `json:"pool"`
	Stats    Stats     `json:"stats"`
}

// ErrCorrectFails is returned when the correct program does not pass its own tests.
var ErrCorrectFails = errors.New("compose: the correct program fails its tests")

// ErrTestsIgnoreProgram is returned when the tests pass on an empty program as they do on
// the correct one: they do not exercise the program the oracle is given (a test command
// that imports an installed copy of the module, or does not use the program at all), so no
// bug could ever fail them.
var ErrTestsIgnoreProgram = errors.New("compose: the tests pass on an empty program: they do not exercise the program they are given")

// Rejection reasons (Stats.Rejected keys).
const (
	RejectNoChange      = "no-change"
	RejectNotContiguous = "not-contiguous"
	RejectTooLarge      = "too-large"
	RejectFrozen        = "not-editable"
	RejectOutOfRange    = "out-of-range"
	RejectPasses        = "passes-tests"
	RejectNotAtomic     = "not-atomic"
	RejectDuplicate     = "duplicate"
	// RejectTimeout: the buggy program's tests were stopped at their time limit (a hang
	// is not a usable bug: every later check of it would cost the whole limit).
	RejectTimeout = "timeout"
)

type gen struct {
	opts   Options
	gt     string
	lines  []string
	marks  []LineInfo
	oracle task.Oracle
	mu     sync.Mutex
	memo   map[string]task.Verdict
	calls  int
	rng    *rand.Rand
}

// Generate builds PDB examples from a correct program and an oracle for its tests:
// it collects up to M1 validated atomic bugs from the source, composes k = 2..KMax of them
// with the stride constraint, and keeps at most M3 per k (plus M3 single-bug examples
// unless SkipSingle). The correct program is first put in the form of the release's files
// (see Canonical).
//
// A candidate whose tests time out (a task.VerdictOracle's Timeout verdict) is rejected
// (RejectTimeout) and generation goes on; in the atomicity filter and the independence
// check a timeout counts as not passing. An oracle error stops generation.
func Generate(ctx context.Context, program string, oracle task.Oracle, opts Options) (*Result, error) {
	opts = opts.withDefaults()
	g := &gen{
		opts: opts, gt: Canonical(program), oracle: oracle,
		memo: make(map[string]task.Verdict), rng: rand.New(rand.NewSource(int64(opts.Seed))),
	}
	g.lines = task.Lines(g.gt)
	g.marks = MarkPython(g.gt, opts.Frozen)
	res := &Result{Stats: Stats{Rejected: map[string]int{}, Attempts: map[int]int{}, Composed: map[int]int{}}}
	defer func() { res.Stats.OracleCalls = g.calls }()

	ok, err := g.verify(ctx, []string{g.gt})
	if err != nil {
		return res, err
	}
	if !ok[0].Passed() {
		// The oracle's detail (the limit that stopped the run, the end of the tests'
		// output) is the only clue to why a program the user believes correct fails.
		why := "its tests failed"
		if ok[0].Outcome == task.Timeout {
			why = "its tests timed out"
		}
		if d := strings.TrimSpace(ok[0].Detail); d != "" {
			if r := []rune(d); len(r) > 600 {
				d = "…" + string(r[len(r)-600:])
			}
			why += ": " + d
		}
		return res, fmt.Errorf("%w (%s)", ErrCorrectFails, why)
	}
	if !opts.SkipProbe {
		empty, err := g.verify(ctx, []string{""})
		if err != nil {
			return res, err
		}
		if empty[0].Passed() {
			return res, ErrTestsIgnoreProgram
		}
	}
	cands, err := opts.Source.Candidates(ctx, Request{Program: g.gt, Lines: g.lines, Marks: g.marks, N: opts.M1}, g.rng)
	if err != nil {
		return res, fmt.Errorf("compose: bug source: %w", err)
	}
	res.Stats.Candidates = len(cands)
	res.Pool, err = g.collect(ctx, cands, &res.Stats)
	if err != nil {
		return res, err
	}
	res.Stats.Accepted = len(res.Pool)

	if !opts.SkipSingle {
		var singles []Example
		for _, b := range res.Pool {
			singles = append(singles, g.example([]Bug{b}))
		}
		res.Examples = append(res.Examples, g.subsample(singles, 1)...)
	}
	for k := 2; k <= opts.KMax; k++ {
		comps, err := g.compose(ctx, res.Pool, k, &res.Stats)
		if err != nil {
			return res, err
		}
		res.Examples = append(res.Examples, g.subsample(comps, k)...)
	}
	return res, nil
}

// Canonical returns program in the form the release's files hold programs in, which its
// evaluator's line splitting and ours agree on (see package metrics): every line stripped
// of trailing white space (task.Normalize) and no line break or blank line at the end.
func Canonical(program string) string {
	return strings.TrimRight(task.Normalize(program), "\n")
}

// progress reports a phase's advance to Options.Progress.
func (g *gen) progress(phase string, done, total int) {
	if g.opts.Progress != nil {
		g.opts.Progress(phase, done, total)
	}
}

// verify returns the oracle's verdicts, memoised by program text, with at most Jobs
// concurrent calls.
func (g *gen) verify(ctx context.Context, programs []string) ([]task.Verdict, error) {
	out := make([]task.Verdict, len(programs))
	var todo []string
	g.mu.Lock()
	seen := map[string]bool{}
	for _, p := range programs {
		if _, ok := g.memo[p]; !ok && !seen[p] {
			seen[p] = true
			todo = append(todo, p)
		}
	}
	g.mu.Unlock()
	sem := make(chan struct{}, g.opts.Jobs)
	errs := make([]error, len(todo))
	var wg sync.WaitGroup
	for i, p := range todo {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			if ctx.Err() != nil {
				errs[i] = ctx.Err()
				return
			}
			v, err := task.VerdictOf(ctx, g.oracle, p)
			g.mu.Lock()
			g.calls++
			if err == nil {
				g.memo[p] = v
			}
			g.mu.Unlock()
			errs[i] = err
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("compose: oracle: %w", err)
		}
	}
	g.mu.Lock()
	for i, p := range programs {
		out[i] = g.memo[p]
	}
	g.mu.Unlock()
	return out, nil
}

// collect validates candidates in order, Jobs at a time, until M1 bugs are accepted. The
// accepted set depends only on the candidate order, never on timing.
func (g *gen) collect(ctx context.Context, cands []Candidate, st *Stats) ([]Bug, error) {
	var pool []Bug
	seen := map[string]bool{}
	for lo := 0; lo < len(cands) && len(pool) < g.opts.M1; lo += g.opts.Jobs {
		g.progress("validate", lo, len(cands))
		batch := cands[lo:min(lo+g.opts.Jobs, len(cands))]
		type checked struct {
			bug    Bug
			buggy  string
			reason string
		}
		pre := make([]checked, len(batch))
		var progs []string
		for i, c := range batch {
			b, buggy, reason := g.precheck(c)
			pre[i] = checked{b, buggy, reason}
			if reason == "" {
				progs = append(progs, buggy)
			}
		}
		verdicts, err := g.verify(ctx, progs)
		if err != nil {
			return pool, err
		}
		vi := 0
		for i := range pre {
			if pre[i].reason != "" {
				continue
			}
			switch {
			case verdicts[vi].Passed():
				pre[i].reason = RejectPasses
			case verdicts[vi].Outcome == task.Timeout:
				pre[i].reason = RejectTimeout
			}
			vi++
		}
		// Atomicity filter for multi-edit corrections, batch-wide.
		for i := range pre {
			if pre[i].reason != "" {
				continue
			}
			atomic, how, err := g.atomic(ctx, pre[i].buggy)
			if err != nil {
				return pool, err
			}
			pre[i].bug.Atomicity = how
			if !atomic {
				pre[i].reason = RejectNotAtomic
			}
		}
		for _, p := range pre {
			if len(pool) == g.opts.M1 {
				break
			}
			switch {
			case p.reason != "":
				st.Rejected[p.reason]++
			case seen[p.buggy]:
				st.Rejected[RejectDuplicate]++
			default:
				seen[p.buggy] = true
				pool = append(pool, p.bug)
			}
		}
	}
	return pool, nil
}

// precheck validates a candidate without the oracle: one contiguous block within MaxLines
// on editable lines, applicable, changing the program.
func (g *gen) precheck(c Candidate) (Bug, string, string) {
	fwd := c.Edits
	if fwd == nil {
		fwd = task.DiffLines(g.gt, c.Buggy).Clean()
	}
	b := Bug{Source: c.Source, Rule: c.Rule, Category: candidateCategory(c), Edits: fwd}
	if len(fwd) == 0 {
		return b, "", RejectNoChange
	}
	blocks := task.Blocks(fwd)
	if len(blocks) != 1 {
		return b, "", RejectNotContiguous
	}
	b.Start, b.End = blocks[0].Start, blocks[0].End
	if len(fwd) > g.opts.MaxLines {
		return b, "", RejectTooLarge
	}
	n := len(g.lines)
	for _, e := range fwd {
		switch e.Type {
		case task.Add:
			if e.Line <= g.opts.Frozen || e.Line > n+1 || e.Line < 1 {
				return b, "", RejectFrozen
			}
		case task.Modify, task.Delete:
			if e.Line < 1 || e.Line > n {
				return b, "", RejectOutOfRange
			}
			if !g.marks[e.Line-1].Editable || (e.Type == task.Delete && !g.marks[e.Line-1].Deletable) {
				return b, "", RejectFrozen
			}
		}
	}
	buggy, err := task.ApplyStrict(g.gt, fwd)
	if err != nil {
		return b, "", RejectOutOfRange
	}
	if buggy == g.gt {
		return b, "", RejectNoChange
	}
	if len(task.Blocks(task.DiffLines(buggy, g.gt))) != 1 {
		return b, "", RejectNotContiguous
	}
	// Keep the canonical form of the bug: the reference derives edits from programs, so a
	// duplicated line, say, is keyed where difflib aligns it, not where a rule put it.
	canon := task.DiffLines(g.gt, buggy)
	if cb := task.Blocks(canon); len(cb) == 1 {
		b.Edits, b.Start, b.End = canon, cb[0].Start, cb[0].End
	}
	return b, buggy, ""
}

// atomic runs the atomicity filter on a buggy program whose correction (buggy → correct)
// is one block of B edits: for B ≤ ExhaustiveLimit every non-empty proper subset of the
// correction is applied alone, otherwise every single edit; a partial revert equal to the
// correct program is skipped; if any partial revert passes the tests the bug is not atomic.
func (g *gen) atomic(ctx context.Context, buggy string) (bool, string, error) {
	fix := task.DiffLines(buggy, g.gt)
	B := len(fix)
	if B < 2 {
		return true, AtomicTrivial, nil
	}
	how := AtomicExhaustive
	var masks []uint64
	if B <= g.opts.ExhaustiveLimit && B < 63 {
		for m := uint64(1); m < 1<<B-1; m++ {
			masks = append(masks, m)
		}
	} else {
		how = AtomicSingleEdit
		for i := range B {
			masks = append(masks, 1<<i)
		}
	}
	var progs []string
	for _, m := range masks {
		sub := make(task.Edits, 0, bits.OnesCount64(m))
		for i := range B {
			if m&(1<<i) != 0 {
				sub = append(sub, fix[i])
			}
		}
		p := task.Apply(buggy, sub)
		if p == g.gt {
			continue // equal to the ground truth: not a partial revert
		}
		progs = append(progs, p)
	}
	verdicts, err := g.verify(ctx, progs)
	if err != nil {
		return false, how, err
	}
	return !anyPassed(verdicts), how, nil
}

func anyPassed(vs []task.Verdict) bool {
	return slices.ContainsFunc(vs, task.Verdict.Passed)
}

// composeBugs merges the forward edits of bugs (disjoint lines) and applies them.
func (g *gen) composeBugs(bugs []Bug) string {
	var merged task.Edits
	for _, b := range bugs {
		merged = append(merged, b.Edits...)
	}
	task.SortEdits(merged)
	return task.Apply(g.gt, merged)
}

func (g *gen) example(bugs []Bug) Example {
	buggy := g.composeBugs(bugs)
	ex := Example{
		BuggyCode: buggy, GTSolution: g.gt, GTDiff: task.DiffLines(buggy, g.gt),
		BugCount: len(bugs), TaskPrompt: g.opts.TaskPrompt, SourceModel: g.opts.SourceModel,
		FrozenLines: g.opts.Frozen, GTLength: len(g.lines),
		Seed: g.opts.Seed, Stride: g.opts.Stride, Bugs: bugs,
	}
	for _, m := range g.marks {
		if m.Editable {
			ex.EditableLines++
		}
		if m.Deletable {
			ex.DeletableLines++
		}
	}
	if ex.SourceModel == "" {
		var srcs []string
		for _, b := range bugs {
			if !slices.Contains(srcs, b.Source) {
				srcs = append(srcs, b.Source)
			}
		}
		sort.Strings(srcs)
		ex.SourceModel = "faultline/" + strings.Join(srcs, "+")
	}
	if len(bugs) == 1 {
		// The release labels single-bug records only.
		ex.BugType, ex.BugSubtype, ex.IsBuggy = bugs[0].Category, bugs[0].Rule, true
	}
	return ex
}

// compose makes up to M2 attempts at composing k bugs of the pool.
func (g *gen) compose(ctx context.Context, pool []Bug, k int, st *Stats) ([]Example, error) {
	if len(pool) < k {
		return nil, nil
	}
	s := g.opts.Stride
	seen := map[string]bool{}
	var out []Example
	for a := range g.opts.M2 {
		g.progress(fmt.Sprintf("compose k=%d", k), a, g.opts.M2)
		st.Attempts[k]++
		var pick []Bug
		for range g.opts.Retries {
			idx := g.rng.Perm(len(pool))[:k]
			cand := make([]Bug, k)
			for i, j := range idx {
				cand[i] = pool[j]
			}
			sort.SliceStable(cand, func(a, b int) bool { return cand[a].Start < cand[b].Start })
			ok := true
			for i := 1; i < k; i++ {
				if cand[i].Start-cand[i-1].End <= s {
					ok = false
					break
				}
			}
			if ok {
				pick = cand
				break
			}
		}
		if pick == nil {
			continue
		}
		ex := g.example(pick)
		if task.Verify(ex.GTDiff, k, s, g.opts.MaxLines, 1) != nil || seen[ex.BuggyCode] {
			continue
		}
		seen[ex.BuggyCode] = true
		if g.opts.Independence {
			ok, err := g.independent(ctx, pick, ex.BuggyCode)
			if err != nil {
				return out, err
			}
			if !ok {
				continue
			}
		}
		out = append(out, ex)
	}
	st.Composed[k] = len(out)
	return out, nil
}

// independent checks that the composed program fails and that reverting any one bug
// alone (keeping the others) still fails.
func (g *gen) independent(ctx context.Context, bugs []Bug, buggy string) (bool, error) {
	progs := []string{buggy}
	for i := range bugs {
		rest := append(append([]Bug(nil), bugs[:i]...), bugs[i+1:]...)
		progs = append(progs, g.composeBugs(rest))
	}
	v, err := g.verify(ctx, progs)
	if err != nil {
		return false, err
	}
	return !anyPassed(v), nil
}

// subsample keeps at most M3 examples with bug count k, in a seeded random order, whose
// ground-truth diff round-trips (Apply(buggy, gt_diff) == gt); ids are assigned in kept
// order.
func (g *gen) subsample(exs []Example, k int) []Example {
	g.rng.Shuffle(len(exs), func(a, b int) { exs[a], exs[b] = exs[b], exs[a] })
	var out []Example
	for _, ex := range exs {
		if len(out) == g.opts.M3 {
			break
		}
		if task.Apply(ex.BuggyCode, ex.GTDiff) != ex.GTSolution {
			continue
		}
		ex.TaskID = fmt.Sprintf("%s/k%d/%d", g.opts.TaskID, k, len(out))
		out = append(out, ex)
	}
	return out
}

// PDB converts the example to the release's record, task.PDBExample, keeping the other
// members (line counts, is_buggy, generation metadata) as extra members; its JSON equals
// the example's own, keys sorted.
func (ex Example) PDB() (task.PDBExample, error) {
	p := task.PDBExample{
		TaskID: ex.TaskID, BuggyCode: ex.BuggyCode, GTSolution: ex.GTSolution,
		GTDiff: ex.GTDiff, BugCount: ex.BugCount, TaskPrompt: ex.TaskPrompt,
		SourceModel: ex.SourceModel, BugType: ex.BugType, BugSubtype: ex.BugSubtype,
		Extra: map[string]json.RawMessage{},
	}
	extra := map[string]any{
		"seed": ex.Seed, "stride": ex.Stride, "bugs": ex.Bugs, "frozen_lines": ex.FrozenLines,
		"gt_length": ex.GTLength, "editable_lines": ex.EditableLines, "deletable_lines": ex.DeletableLines,
	}
	if ex.IsBuggy {
		extra["is_buggy"] = true
	}
	for k, v := range extra {
		raw, err := json.Marshal(v)
		if err != nil {
			return task.PDBExample{}, fmt.Errorf("compose: example %s: %w", ex.TaskID, err)
		}
		p.Extra[k] = raw
	}
	return p, nil
}
