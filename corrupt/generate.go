package corrupt

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/faultline-dev/faultline/callgraph"
	"github.com/faultline-dev/faultline/callgraph/python"
	"github.com/faultline-dev/faultline/task"
)

// Mode is a Breakpoint corruption mode.
type Mode string

// The corruption modes (docs/breakpoint.md, Corruption modes).
const (
	Remove    Mode = "remove"    // delete the body, keep signature and docstring
	Discovery Mode = "discovery" // a subtle behavioural change the solver must find
)

// Checker decides whether a mutated file is acceptable (it parses; for Go, it type-checks)
// and may amend the mutant (GoChecker prunes imports). It must not write the repository.
type Checker interface {
	Accept(m *Mutant, src []byte) (bool, error)
}

// SyntaxChecker accepts a mutant when a call-graph front end parses the mutated file
// without a syntax error. It is the checker for languages without a type checker here.
type SyntaxChecker struct{ Lang callgraph.Language }

// Accept parses the mutated file with the front end.
func (s SyntaxChecker) Accept(m *Mutant, src []byte) (bool, error) {
	a, err := s.Lang.Analyze(context.Background(), []callgraph.SourceFile{{Path: m.File, Src: m.Apply(src)}})
	if err != nil {
		return false, err
	}
	return len(a.Errors) == 0, nil
}

// Options configures Generate. The zero value generates 10 validated REMOVE tasks with
// the Breakpoint paper's thresholds.
type Options struct {
	Mode Mode // default Remove
	// N is the number of validated tasks wanted (default 10).
	N int
	// Seed drives every random choice; the same inputs and seed give the same tasks.
	Seed uint64
	// Select filters the candidate functions.
	Select SelectOptions
	// Group, when Group.K ≥ 2, corrupts K functions at once, pairwise within
	// Group.Distance in the call graph (Group.N is ignored).
	Group GroupOptions
	// MinFailures is the number of previously passing tests a corruption must break;
	// 0 means 5 for REMOVE and 2 for DISCOVERY or hard mode.
	MinFailures int
	// Run is the template of every test run: Kind, Select, Limits and Args. Root and
	// Overlay are set by Generate.
	Run task.RunRequest
	// Rules are the DISCOVERY operators (nil: GoRules for Go, PythonRules for Python).
	Rules []Rule
	// LLM, when set, writes the DISCOVERY corruptions instead of the rules: for each
	// function the REMOVE stub is run first to find the tests that depend on it (up to five
	// are shown to the model), then the model's loop runs (see LLMCorruptor).
	LLM *LLMCorruptor
	// MutantsPerFunction bounds the acceptable DISCOVERY mutants whose tests are run per
	// function before moving on (default 6).
	MutantsPerFunction int
	// Checkers maps a language ("go", "python", …) to the checker of its mutants. By
	// default Go gets a GoChecker on the repository and Python a SyntaxChecker with the
	// Python front end; another language without a checker keeps every mutant.
	Checkers map[string]Checker
	// MessageLen truncates failure messages (default 2,000 bytes).
	MessageLen int
	// AllowFailingBaseline ignores tests that fail on the clean repository instead of
	// refusing to run.
	AllowFailingBaseline bool
	// Jobs bounds the units (functions or groups) validated concurrently; 0 means
	// GOMAXPROCS. The output does not depend on it: every unit draws its mutants from its
	// own seeded source and results are accepted in unit order (see Generate).
	Jobs int
	// RetryTimeout, when longer than Run.Limits.Timeout, is the limit of a second
	// validation of a corruption whose run hit Run.Limits.Timeout: a run slowed down by the
	// machine's load is then told apart from a corruption that hangs, so which candidates
	// are kept does not depend on the load (a real hang costs this limit once). The runs
	// that confirm a kept corruption (alone, repeated) follow the same rule.
	RetryTimeout time.Duration
	// SkipAlone turns off the confirmation of a kept candidate's verdicts. By default each
	// test that failed in a candidate's run is run again alone on the corrupted tree (a
	// selection of that one id); FAIL_TO_PASS keeps those that fail alone too. A test that
	// passes alone failed only because of the tests that ran before it (state the corruption
	// leaks between tests): it goes to Validation.OnlyWithOthers, in neither list, and a
	// harness that runs a subset of the tests would see it pass before the fix. Then the
	// whole suite runs twice more: a test whose verdict they do not reproduce rejects the
	// corruption (see confirmRepeat).
	SkipAlone bool
	// Progress, if set, is called after every validation, in unit order, from the
	// goroutine that called Generate.
	Progress func(Progress)
	// Impact, when set, is the test impact of the repository's current state: a candidate
	// runs first the tests that can notice it and the whole suite only to confirm (see
	// Impact). The tasks are those of validation on the whole suite.
	Impact *Impact
}

// Progress reports one validated or rejected corruption: Tried units (functions or groups)
// of Units in all, Accepted tasks of Wanted.
type Progress struct {
	Tried, Units, Accepted, Wanted int
	Functions                      []string
	Rule                           string
	Kept                           bool
	Reason                         string
}

// Corrupted is one function changed by a task. Path and Metrics are the fields of the
// same names in task.CorruptedFunction, which Result.Problem fills from them.
type Corrupted struct {
	ID        string             `json:"id"`
	Path      string             `json:"path"` // slash path relative to the repository root
	Name      string             `json:"name"`
	Line      int                `json:"line"`
	EndLine   int                `json:"end_line"`
	Span      task.Span          `json:"span"`
	Rule      string             `json:"rule"`
	Desc      string             `json:"desc"`
	CodeLines int                `json:"code_lines"`
	Metrics   map[string]float64 `json:"metrics"` // as Candidate.Metrics
}

// Result is one validated Breakpoint task.
type Result struct {
	Mode      Mode        `json:"mode"`
	Seed      uint64      `json:"seed"`
	Index     int         `json:"index"` // position among the tasks of this run
	Functions []Corrupted `json:"functions"`
	// Overlay holds the corrupted files; Patch is the corruption (original → corrupted) and
	// Gold its reverse, both git-style unified diffs.
	// Model is the LLM that wrote the corruption (empty for rule-based and REMOVE tasks).
	Model      string       `json:"model,omitempty"`
	Overlay    task.Overlay `json:"-"`
	Patch      string       `json:"patch"`
	Gold       string       `json:"gold"`
	Validation *Validation  `json:"validation"`
}

// ErrNoCandidates is wrapped when no function qualifies for corruption.
var ErrNoCandidates = errors.New("no function qualifies")

// Generate corrupts functions of the repository at root (whose call graph g and centrality
// c were computed beforehand) until opts.N corruptions pass validation through the runner,
// or the candidates run out (then it returns what it found; an error only when none was
// found, wrapping the reasons). base is the clean repository's baseline. The repository is
// only read: corruptions live in overlays. Functions in generated files (IsGenerated) are
// never corrupted.
//
// Candidates (or groups) are tried in a seeded order; up to opts.Jobs of them are validated
// concurrently, and the first opts.N that pass in that order are returned, so the output
// is byte-identical for the same inputs and seed whatever Jobs is.
func Generate(ctx context.Context, root string, g *callgraph.Graph, c *callgraph.Centrality, r task.Runner, base Baseline, opts Options) ([]Result, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	if err := base.Check(o.AllowFailingBaseline); err != nil {
		return nil, err
	}
	if o.Select.Hard && opts.MinFailures == 0 {
		o.MinFailures = 2
	}
	gen := &generator{root: root, r: r, base: base, o: o, files: map[string][]byte{}, checkers: o.Checkers}
	cands, generated, err := gen.notGenerated(Select(g, c, o.Select))
	if err != nil {
		return nil, err
	}
	if len(cands) == 0 {
		return nil, fmt.Errorf("corrupt: %s: %w (after excluding tests, generated files (%d function(s)) and functions under the code-line and degree thresholds)", root, ErrNoCandidates, generated)
	}
	rng := rand.New(rand.NewPCG(o.Seed, o.Seed^0x9e3779b97f4a7c15))
	var units [][]Candidate
	if o.Group.K >= 2 {
		gopts := o.Group
		gopts.N = 20 * o.N
		if units, err = Groups(g, cands, gopts, rng); err != nil {
			return nil, err
		}
		if len(units) == 0 {
			return nil, fmt.Errorf("corrupt: no %d functions pairwise within distance %d: %w", o.Group.K, o.Group.Distance, ErrNoCandidates)
		}
	} else {
		for _, i := range rng.Perm(len(cands)) {
			units = append(units, []Candidate{cands[i]})
		}
	}
	results, reasons, tried, err := gen.run(ctx, units)
	if err != nil {
		return results, err
	}
	if len(results) == 0 {
		return nil, fmt.Errorf("corrupt: no corruption of %d candidate(s) passed validation (%s): %w", tried, reasons.String(), ErrNoCandidates)
	}
	return results, nil
}

// notGenerated drops the candidates whose file is generated code (see IsGenerated) and
// returns how many it dropped.
func (g *generator) notGenerated(cands []Candidate) ([]Candidate, int, error) {
	gen := map[string]bool{}
	out := cands[:0]
	dropped := 0
	for _, c := range cands {
		f := c.Node.File
		is, ok := gen[f]
		if !ok {
			src, err := g.read(f)
			if err != nil {
				return nil, 0, err
			}
			is = IsGenerated(f, src)
			gen[f] = is
		}
		if is {
			dropped++
			continue
		}
		out = append(out, c)
	}
	return out, dropped, nil
}

// outcome is the validation of one unit.
type outcome struct {
	res    *Result
	reason string
	err    error
}

// unitRand returns the random source of the i-th unit: derived from the seed and the
// unit's position only, so a unit's mutants do not depend on which other units were tried
// or in what order the workers ran.
func unitRand(seed uint64, i int) *rand.Rand {
	z := seed + uint64(i+1)*0x9e3779b97f4a7c15 // splitmix64 finaliser
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return rand.New(rand.NewPCG(z^z>>31, uint64(i)))
}

// run validates the units with up to o.Jobs workers over a sliding window and accepts
// results strictly in unit order, so the output equals that of one worker: the first o.N
// units that pass. Workers may validate up to Jobs−1 units past the last one needed; their
// outcomes are discarded. It returns the accepted results, the rejection reasons of the
// units consumed, and how many units were consumed.
func (g *generator) run(ctx context.Context, units [][]Candidate) ([]Result, Reasons, int, error) {
	o := g.o
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	outs := make([]outcome, len(units))
	done := make([]bool, len(units))
	finished := make(chan int)
	next, inflight := 0, 0
	defer func() {
		cancel()
		for ; inflight > 0; inflight-- {
			<-finished
		}
	}()
	var results []Result
	reasons := Reasons{}
	tried := 0
	for consumed := 0; consumed < len(units) && len(results) < o.N; consumed++ {
		if err := ctx.Err(); err != nil {
			return results, reasons, tried, err
		}
		for next < len(units) && next-consumed < o.Jobs {
			i := next
			next++
			inflight++
			go func() {
				res, reason, err := g.try(wctx, units[i], unitRand(o.Seed, i))
				outs[i] = outcome{res, reason, err}
				finished <- i
			}()
		}
		for !done[consumed] {
			i := <-finished
			inflight--
			done[i] = true
		}
		out := outs[consumed]
		if out.err != nil {
			return results, reasons, tried, out.err
		}
		tried++
		if out.res != nil {
			out.res.Index = len(results)
			results = append(results, *out.res)
		} else {
			reasons.Add(out.reason)
		}
		if o.Progress != nil {
			p := Progress{Tried: tried, Units: len(units), Accepted: len(results), Wanted: o.N, Kept: out.res != nil, Reason: out.reason}
			for _, m := range units[consumed] {
				p.Functions = append(p.Functions, m.Node.ID)
			}
			if out.res != nil {
				p.Rule = out.res.Functions[0].Rule
			}
			o.Progress(p)
		}
	}
	return results, reasons, tried, nil
}

// Reasons counts why units were rejected, by reason.
type Reasons map[string]int

// Add counts one rejection (an empty reason is not counted).
func (r Reasons) Add(reason string) {
	if reason != "" {
		r[reason]++
	}
}

// String names the three most frequent reasons with their counts, most frequent first
// ("20× fewer than 5 tests fail; 3× no mutant compiles"), ties by reason.
func (r Reasons) String() string {
	keys := make([]string, 0, len(r))
	for k := range r {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if r[keys[i]] != r[keys[j]] {
			return r[keys[i]] > r[keys[j]]
		}
		return keys[i] < keys[j]
	})
	if len(keys) > 3 {
		keys = keys[:3]
	}
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d× %s", r[k], k))
	}
	return strings.Join(parts, "; ")
}

func (o Options) withDefaults() (Options, error) {
	switch o.Mode {
	case "":
		o.Mode = Remove
	case Remove, Discovery:
	default:
		return o, fmt.Errorf("corrupt: unknown mode %q", o.Mode)
	}
	if o.N <= 0 {
		o.N = 10
	}
	if o.MinFailures <= 0 {
		o.MinFailures = 5
		if o.Mode == Discovery || o.Select.Hard {
			o.MinFailures = 2
		}
	}
	if o.Jobs <= 0 {
		o.Jobs = runtime.GOMAXPROCS(0)
	}
	if o.MutantsPerFunction <= 0 {
		o.MutantsPerFunction = 6
	}
	if o.Run.Kind == "" {
		return o, fmt.Errorf("corrupt: Options.Run.Kind is required (go or pytest)")
	}
	return o, nil
}

// LanguageOf returns the language of a source path by extension: "go", "python",
// "javascript", "typescript", or "" when unknown.
func LanguageOf(p string) string {
	switch path.Ext(p) {
	case ".go":
		return "go"
	case ".py", ".pyi":
		return "python"
	case ".js", ".mjs", ".cjs", ".jsx":
		return "javascript"
	case ".ts", ".tsx":
		return "typescript"
	}
	return ""
}

type generator struct {
	root     string
	r        task.Runner
	base     Baseline
	o        Options
	mu       sync.Mutex
	files    map[string][]byte
	checkers map[string]Checker
}

func (g *generator) read(p string) ([]byte, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if b, ok := g.files[p]; ok {
		return b, nil
	}
	full, err := task.SafeJoin(g.root, p)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(full)
	if err != nil {
		return nil, fmt.Errorf("corrupt: %w", err)
	}
	g.files[p] = b
	return b, nil
}

func (g *generator) checker(lang string) (Checker, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if c, ok := g.checkers[lang]; ok {
		return c, nil
	}
	if g.checkers == nil {
		g.checkers = map[string]Checker{}
	}
	switch lang {
	case "go":
		c, err := NewGoChecker(g.root)
		if err != nil {
			return nil, err
		}
		g.checkers[lang] = c
		return c, nil
	case "python":
		c := SyntaxChecker{Lang: python.New(python.Options{})}
		g.checkers[lang] = c
		return c, nil
	}
	g.checkers[lang] = nil
	return nil, nil
}

func (g *generator) rules(lang string) []Rule {
	if g.o.Rules != nil {
		return g.o.Rules
	}
	switch lang {
	case "go":
		return GoRules()
	case "python":
		return PythonRules()
	}
	return nil
}

// accept runs the language's checker on a mutant (nil checker: accept).
func (g *generator) accept(lang string, m *Mutant, src []byte) (bool, error) {
	ch, err := g.checker(lang)
	if err != nil || ch == nil {
		return err == nil, err
	}
	return ch.Accept(m, src)
}

// mutantsFor lists the acceptable corruptions of one function, best first: the REMOVE stub,
// or up to MutantsPerFunction checked DISCOVERY mutants in seeded order.
func (g *generator) mutantsFor(ctx context.Context, cand Candidate, rng *rand.Rand) ([]Mutant, string, error) {
	fn := cand.Node.Function
	lang := LanguageOf(fn.File)
	src, err := g.read(fn.File)
	if err != nil {
		return nil, "", err
	}
	if g.o.Mode == Remove {
		m, err := Stub(lang, src, fn)
		if err != nil {
			return nil, "no body to remove", nil
		}
		ok, err := g.accept(lang, &m, src)
		if err != nil {
			return nil, "", err
		}
		if !ok {
			return nil, "the stub does not compile", nil
		}
		return []Mutant{m}, "", nil
	}
	t, err := NewTarget(fn.File, src, fn)
	if err != nil {
		return nil, "no body to change", nil
	}
	if g.o.LLM != nil {
		return g.llmMutant(ctx, t, lang)
	}
	rules := g.rules(lang)
	if len(rules) == 0 {
		return nil, "", fmt.Errorf("corrupt: no corruption rules for %s (%s)", lang, fn.File)
	}
	var out []Mutant
	for _, m := range Candidates(t, rules, lang, rng) {
		if len(out) == g.o.MutantsPerFunction {
			break
		}
		ok, err := g.accept(lang, &m, src)
		if err != nil {
			return nil, "", err
		}
		if ok {
			out = append(out, m)
		}
	}
	if len(out) == 0 {
		return nil, "no mutant compiles", nil
	}
	return out, "", nil
}

// llmMutant runs the LLM loop for one function: the REMOVE stub first shows which tests
// depend on it, then the model corrupts it with those tests in view.
func (g *generator) llmMutant(ctx context.Context, t *Target, lang string) ([]Mutant, string, error) {
	stub, err := Stub(lang, t.Src, t.Func)
	if err != nil {
		return nil, "no body to remove", nil
	}
	if ok, err := g.accept(lang, &stub, t.Src); err != nil || !ok {
		return nil, "the stub does not compile", err
	}
	req := g.o.Run
	req.Root, req.Overlay = g.root, task.Overlay{}
	req.Overlay.Set(t.Path, stub.Apply(t.Src))
	v, err := Validate(ctx, g.r, req, g.base, 1, g.o.MessageLen)
	if err != nil {
		return nil, "", err
	}
	if !v.Accepted {
		return nil, "no test depends on the function", nil
	}
	ch, err := g.checker(lang)
	if err != nil {
		return nil, "", err
	}
	run := g.o.Run
	run.Root = g.root
	res, err := g.o.LLM.Corrupt(ctx, LLMRequest{Target: t, Lang: lang, Tests: testSources(g.root, v.FailToPass, lang, g.read, 5),
		Runner: g.r, Run: run, Baseline: g.base, MinFailures: g.o.MinFailures, Checker: ch})
	if err != nil {
		return nil, "", err
	}
	if res.Mutant == nil {
		return nil, "the model's attempts were not acceptable (" + res.Stop + ")", nil
	}
	m := *res.Mutant
	m.Desc += " (" + res.Model + ")"
	return []Mutant{m}, "", nil
}

// try corrupts one unit (a function or a group) and validates it. It returns the result,
// or the reason it was rejected.
func (g *generator) try(ctx context.Context, unit []Candidate, rng *rand.Rand) (*Result, string, error) {
	options := make([][]Mutant, len(unit))
	for i, cand := range unit {
		ms, reason, err := g.mutantsFor(ctx, cand, rng)
		if err != nil {
			return nil, "", err
		}
		if len(ms) == 0 {
			return nil, reason, nil
		}
		options[i] = ms
	}
	// A single function tries its mutants in order. A group (the unit of validation) tries
	// the members' mutants side by side: attempt a takes each member's a-th mutant, or its
	// last when it has fewer (a REMOVE member has one: its stub).
	attempts := 0
	for _, ms := range options {
		attempts = max(attempts, len(ms))
	}
	reason := ""
	for a := 0; a < attempts; a++ {
		chosen := make([]Mutant, len(unit))
		for i := range unit {
			chosen[i] = options[i][min(a, len(options[i])-1)]
		}
		overlay, why, err := g.overlay(chosen)
		if err != nil {
			return nil, "", err
		}
		if overlay == nil {
			reason = why
			continue
		}
		req := g.o.Run
		req.Root, req.Overlay = g.root, overlay
		v, err := g.validate(ctx, req, unit, chosen)
		if err != nil {
			return nil, "", err
		}
		if !v.Accepted && v.State == task.RunTimeout && g.o.RetryTimeout > req.Limits.Timeout {
			req.Limits.Timeout = g.o.RetryTimeout
			if v, err = Validate(ctx, g.r, req, g.base, g.o.MinFailures, g.o.MessageLen); err != nil {
				return nil, "", err
			}
		}
		if v.Accepted && !g.o.SkipAlone {
			if err := confirmAlone(ctx, g.r, req, v, g.o.MinFailures, g.o.Jobs, g.o.RetryTimeout); err != nil {
				return nil, "", err
			}
		}
		if v.Accepted && !g.o.SkipAlone {
			if err := confirmRepeat(ctx, g.r, req, v, g.o.RetryTimeout); err != nil {
				return nil, "", err
			}
		}
		if !v.Accepted {
			// The reason names the cause: a run that could not run keeps Validate's words
			// (its state and detail: the collection or build error), which the progress
			// lines, the summary and the final error show.
			reason = v.Reason
			if v.State == task.RunTimeout {
				reason = "the tests time out or run out of memory"
			} else if v.State == task.RunOK && len(v.FailToPass) < g.o.MinFailures && len(v.OnlyWithOthers) == 0 {
				reason = fmt.Sprintf("fewer than %d tests fail", g.o.MinFailures)
			}
			continue
		}
		res, err := g.result(unit, chosen, overlay, v)
		if err != nil {
			return nil, "", err
		}
		return res, "", nil
	}
	return nil, reason, nil
}

// overlay merges the mutants into one overlay, re-checking files changed by several. It
// returns a nil overlay and a reason when the combination is unusable.
func (g *generator) overlay(ms []Mutant) (task.Overlay, string, error) {
	byFile := map[string][]Edit{}
	var files []string
	for _, m := range ms {
		if _, ok := byFile[m.File]; !ok {
			files = append(files, m.File)
		}
		byFile[m.File] = append(byFile[m.File], m.Edits...)
	}
	sort.Strings(files)
	o := task.Overlay{}
	for _, f := range files {
		edits := dedupeEdits(byFile[f])
		if !sortEdits(edits) {
			return nil, "the corruptions of the group overlap", nil
		}
		src, err := g.read(f)
		if err != nil {
			return nil, "", err
		}
		out := applyEdits(src, edits)
		if n := countFile(ms, f); n > 1 {
			lang := LanguageOf(f)
			joint := Mutant{File: f, Edits: edits}
			ok, err := g.accept(lang, &joint, src)
			if err != nil {
				return nil, "", err
			}
			if !ok {
				return nil, "the group's corruptions do not compile together", nil
			}
			out = joint.Apply(src)
		}
		o.Set(f, out)
	}
	return o, "", nil
}

func countFile(ms []Mutant, f string) int {
	n := 0
	for _, m := range ms {
		if m.File == f {
			n++
		}
	}
	return n
}

func dedupeEdits(edits []Edit) []Edit {
	seen := map[Edit]bool{}
	var out []Edit
	for _, e := range edits {
		if !seen[e] {
			seen[e] = true
			out = append(out, e)
		}
	}
	return out
}

func (g *generator) result(unit []Candidate, chosen []Mutant, overlay task.Overlay, v *Validation) (*Result, error) {
	res := &Result{Mode: g.o.Mode, Seed: g.o.Seed, Overlay: overlay, Validation: v}
	if g.o.LLM != nil && g.o.Mode == Discovery {
		res.Model = g.o.LLM.name()
	}
	for i, cand := range unit {
		fn := cand.Node.Function
		res.Functions = append(res.Functions, Corrupted{
			ID: fn.ID, Path: fn.File, Name: fn.Name, Line: fn.Line, EndLine: fn.EndLine, Span: fn.Def,
			Rule: chosen[i].Rule, Desc: chosen[i].Desc, CodeLines: cand.CodeLines, Metrics: cand.Metrics,
		})
	}
	sort.Slice(res.Functions, func(i, j int) bool { return res.Functions[i].ID < res.Functions[j].ID })
	p, err := task.DiffOverlay(g.root, overlay, task.DiffOptions{})
	if err != nil {
		return nil, fmt.Errorf("corrupt: diff of the corruption: %w", err)
	}
	res.Patch = string(p.Format())
	res.Gold = string(p.Reverse().Format())
	return res, nil
}
