package metrics

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/faultline-dev/faultline/task"
)

// Mode selects between the paper's definition of the metric and the released evaluator.
type Mode int

const (
	// Paper follows the paper's definitions (the default): near-match context windows are
	// the untouched lines strictly between neighbouring blocks, and the essential-edit search
	// applies the other ground-truth blocks plus a window of the predicted block.
	Paper Mode = iota
	// Reference reproduces the released evaluator bit for bit: its context-window index
	// arithmetic (Python negative indexing included) and its essential-edit search, which
	// applies every ground-truth block (the matched one too) plus the window.
	Reference
)

// String returns "paper" or "reference".
func (m Mode) String() string {
	switch m {
	case Paper:
		return "paper"
	case Reference:
		return "reference"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// ParseMode parses "paper" or "reference" (any case).
func ParseMode(s string) (Mode, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "paper", "":
		return Paper, nil
	case "reference", "ref":
		return Reference, nil
	}
	return 0, fmt.Errorf("metrics: unknown mode %q (want paper or reference)", s)
}

// NoTolerance is the Options.Epsilon value that sets ε = 0 (0 itself selects the default).
const NoTolerance = -1

// Options configure Score. The zero value scores in Paper mode with the default tolerance,
// a private cache and GOMAXPROCS concurrent oracle calls.
type Options struct {
	// Mode is Paper (default) or Reference.
	Mode Mode
	// Epsilon is the tolerance ε of the essential-edit relaxation. 0 selects the paper's
	// default: 2 when every ground-truth block is a single line, 1 otherwise. NoTolerance
	// (any negative value) sets ε = 0.
	Epsilon int
	// Jobs bounds the concurrent oracle calls of one Score; 0 means runtime.GOMAXPROCS(0).
	Jobs int
	// Cache, if set, memoises verdicts across Score calls (scoring the same prediction twice
	// then costs no oracle call). The scope is Input.TaskID. Nil uses a private cache, which
	// still de-duplicates identical programs within one Score.
	Cache *Cache

	// noCache disables caching and de-duplication (the naive baseline of the benchmark).
	noCache bool
}

// Input is one scored task: the buggy program, its ground-truth edits, and a prediction
// (the debugger's full program).
type Input struct {
	TaskID     string
	Buggy      string
	GT         task.Edits
	Prediction string
	// BugCount is the task's number of bugs k for micro-averaging; 0 means the number of
	// ground-truth blocks.
	BugCount int
}

// Match kinds (Match.Kind).
const (
	KindExact   = "exact"   // Pass 1: identical block
	KindWrap    = "wrap"    // Pass 2: the predicted block spans the GT block's start
	KindNear    = "near"    // Pass 2: the context windows share a line
	KindDistant = "distant" // Pass 2: identical edits at another position
)

// Match records one predicted block paired with ground-truth blocks.
type Match struct {
	Kind      string `json:"kind"`
	PredStart int    `json:"pred_start"`
	PredEnd   int    `json:"pred_end"`
	PredEdits int    `json:"pred_edits"`
	GTBlocks  []int  `json:"gt_blocks"` // ids of the matched ground-truth blocks
	GTEdits   int    `json:"gt_edits"`  // Σ |gt block|
	Passed    bool   `json:"passed"`    // the pseudo-revision passes (always true for exact)
	// Outcome is the oracle's verdict on the pseudo-revision (task.Pass, task.Fail or
	// task.Timeout); empty for an exact match, which needs no oracle call.
	Outcome   task.Outcome `json:"outcome,omitempty"`
	Tolerance int          `json:"tolerance"` // the relaxed extra edits credited
}

// Result is the score of one task.
//
// Matches lists every pairing (exact and pass 2, verified or not) in predicted-line order;
// UnmatchedPred holds the predicted edits of pass-2 blocks that matched no ground-truth
// block (they count against precision only) and UnmatchedGT the ground-truth blocks that no
// predicted block was paired with (a paired block whose verification failed is in Matches,
// not here), as in the released evaluator's unmatched_pred and unmatched_gt.
type Result struct {
	TaskID        string  `json:"task_id"`
	Precision     float64 `json:"precision"`
	Recall        float64 `json:"recall"`
	F1            float64 `json:"f1"`
	Unit          float64 `json:"unit"`
	PredEdits     int     `json:"pred_edits"`
	GTBlocks      int     `json:"gt_blocks"`
	BugCount      int     `json:"bug_count"`
	MatchedBlocks int     `json:"matched_blocks"`
	// UnitOutcome is the oracle's verdict on the whole prediction; empty when no call was
	// made (a blank prediction).
	UnitOutcome   task.Outcome `json:"unit_outcome,omitempty"`
	Matches       []Match      `json:"matches"`
	UnmatchedPred task.Edits   `json:"unmatched_pred"`
	UnmatchedGT   task.Edits   `json:"unmatched_gt"`
	OracleCalls   int          `json:"oracle_calls"`
	// OracleTimeouts counts the verdicts this score used that were timeouts (failing
	// verdicts, see task.Verdict).
	OracleTimeouts int    `json:"oracle_timeouts"`
	Error          string `json:"error,omitempty"`
}

// ErrNoGroundTruth is returned when a task's ground-truth diff has no edits.
var ErrNoGroundTruth = errors.New("metrics: ground-truth diff is empty")

// MismatchError reports a ground-truth edit that does not fit the buggy program.
type MismatchError struct {
	Line   int    // 1-based line of the buggy program named by the edit
	Lines  int    // number of lines of the buggy program
	Want   string // the edit's Original
	Got    string // the buggy program's line ("" when out of range)
	Reason string
}

func (e *MismatchError) Error() string {
	if e.Reason != "" {
		return fmt.Sprintf("metrics: gt_diff does not match buggy_code at line %d: %s", e.Line, e.Reason)
	}
	return fmt.Sprintf("metrics: gt_diff does not match buggy_code at line %d: buggy has %q, gt_diff expects %q", e.Line, e.Got, e.Want)
}

// checkGT verifies that every ground-truth edit names a line of buggy and, for Modify and
// Delete, that the line's text is the edit's Original.
func checkGT(lines []string, gt task.Edits) error {
	n := len(lines)
	for _, e := range gt {
		switch e.Type {
		case task.Add:
			if e.Line < 1 || e.Line > n+1 {
				return &MismatchError{Line: e.Line, Lines: n, Reason: fmt.Sprintf("add before line %d is outside 1..%d", e.Line, n+1)}
			}
		default:
			if e.Line < 1 || e.Line > n {
				return &MismatchError{Line: e.Line, Lines: n, Reason: fmt.Sprintf("line is outside 1..%d", n)}
			}
			if lines[e.Line-1] != rstrip(e.Original) {
				return &MismatchError{Line: e.Line, Lines: n, Want: e.Original, Got: lines[e.Line-1]}
			}
		}
	}
	return nil
}

// Score computes precision, recall, F1 and the unit score of in.Prediction against the
// ground truth, calling o (through a cache) for every pseudo-revision. A non-nil error means
// the task could not be scored (bad ground truth, oracle error, cancelled context); the
// returned Result then carries the TaskID, the oracle calls made and the error text.
func Score(ctx context.Context, in Input, o task.Oracle, opts Options) (Result, error) {
	res := Result{TaskID: in.TaskID, Matches: []Match{}, UnmatchedPred: task.Edits{}, UnmatchedGT: task.Edits{}}
	v := newVerifier(in.TaskID, o, opts)
	err := score(ctx, in, v, opts, &res)
	res.OracleCalls = v.calls()
	res.OracleTimeouts = v.timeouts()
	if err != nil {
		res.Error = err.Error()
		res.Precision, res.Recall, res.F1, res.Unit = 0, 0, 0, 0
	}
	return res, err
}

func score(ctx context.Context, in Input, v *verifier, opts Options, res *Result) error {
	buggy := task.Lines(in.Buggy)
	// Compare texts as the edit model sees them: trailing whitespace is not significant.
	gt := make(task.Edits, len(in.GT))
	for i, e := range in.GT {
		e.Original, e.Modified = rstrip(e.Original), rstrip(e.Modified)
		gt[i] = e
	}
	if len(gt) == 0 {
		return ErrNoGroundTruth
	}
	if err := checkGT(buggy, gt); err != nil {
		return err
	}
	gtBlocks := task.Blocks(gt)
	res.GTBlocks = len(gtBlocks)
	res.BugCount = in.BugCount
	if res.BugCount <= 0 {
		res.BugCount = len(gtBlocks)
	}
	if strings.TrimSpace(in.Prediction) == "" {
		res.UnmatchedGT = gt
		return nil // empty prediction: every score is 0, no oracle call
	}
	pred := task.DiffLines(in.Buggy, in.Prediction).Clean()
	res.PredEdits = len(pred)

	eps := opts.Epsilon
	if eps == 0 {
		eps = 1
		if allSingle(gtBlocks) {
			eps = 2
		}
	} else if eps < 0 {
		eps = 0
	}

	// The unit score runs alongside the pass-2 candidates.
	unitProgram := task.Apply(in.Prediction, nil)
	m := &matcher{mode: opts.Mode, buggyText: in.Buggy, buggy: buggy, gt: gt, gtBlocks: gtBlocks, eps: eps}
	exact, cands := m.match(pred)

	programs := make([]string, 0, len(cands)+1)
	programs = append(programs, unitProgram)
	for _, c := range cands {
		programs = append(programs, c.program)
	}
	verdicts, err := v.verifyAll(ctx, programs)
	if err != nil {
		return err
	}
	res.UnitOutcome = verdicts[0].Outcome
	if verdicts[0].Passed() {
		res.Unit = 1
	}
	for i := range cands {
		cands[i].Outcome = verdicts[i+1].Outcome
		cands[i].Passed = verdicts[i+1].Passed()
		if !cands[i].Passed {
			cands[i].Tolerance = 0
		}
	}
	if err := m.essential(ctx, v, cands); err != nil {
		return err
	}
	res.UnmatchedPred, res.UnmatchedGT = m.unmatchedPred, m.unmatchedGT

	numer := 0
	matched := 0
	for _, x := range exact {
		numer += x.GTEdits
		matched += len(x.GTBlocks)
		res.Matches = append(res.Matches, x.Match)
	}
	for _, c := range cands {
		if c.Passed {
			numer += c.GTEdits + c.Tolerance
			matched += len(c.GTBlocks)
		}
		res.Matches = append(res.Matches, c.Match)
	}
	sort.SliceStable(res.Matches, func(i, j int) bool { return res.Matches[i].PredStart < res.Matches[j].PredStart })
	res.MatchedBlocks = matched
	if len(pred) > 0 {
		res.Precision = min(float64(numer)/float64(len(pred)), 1)
		res.Recall = float64(matched) / float64(len(gtBlocks))
	}
	res.F1 = f1(res.Precision, res.Recall)
	return nil
}

func f1(p, r float64) float64 {
	if p+r == 0 {
		return 0
	}
	return 2 * p * r / (p + r)
}

func allSingle(bs []task.Block) bool {
	for _, b := range bs {
		if len(b.Edits) != 1 {
			return false
		}
	}
	return true
}

// rstrip strips trailing whitespace as the edit model does (Python's str.rstrip()).
func rstrip(s string) string { return task.Normalize(strings.ReplaceAll(s, "\n", " ")) }

// verifier runs programs through the oracle with caching, de-duplication, bounded
// concurrency, a call count and a count of the timeout verdicts used.
type verifier struct {
	co      *CountingOracle
	naive   task.Oracle
	jobs    int
	mu      sync.Mutex
	counted int
	timeout int
}

func newVerifier(scope string, o task.Oracle, opts Options) *verifier {
	jobs := opts.Jobs
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	v := &verifier{jobs: jobs}
	if opts.noCache {
		v.naive = o
		return v
	}
	c := opts.Cache
	if c == nil {
		c = NewCache()
	}
	v.co = c.Oracle(scope, o)
	return v
}

func (v *verifier) calls() int {
	if v.co != nil {
		return v.co.Calls()
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.counted
}

func (v *verifier) timeouts() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.timeout
}

// verifyAll returns the verdict on every program, running at most v.jobs oracle calls at
// once. The first error cancels the remaining calls.
func (v *verifier) verifyAll(ctx context.Context, programs []string) ([]task.Verdict, error) {
	out := make([]task.Verdict, len(programs))
	if len(programs) == 0 {
		return out, nil
	}
	defer func() {
		v.mu.Lock()
		for _, x := range out {
			if x.Outcome == task.Timeout {
				v.timeout++
			}
		}
		v.mu.Unlock()
	}()
	if v.naive != nil {
		// The naive baseline: one call per program, sequentially, no cache.
		for i, p := range programs {
			x, err := task.VerdictOf(ctx, v.naive, p)
			v.mu.Lock()
			v.counted++
			v.mu.Unlock()
			if err != nil {
				out = nil
				return nil, fmt.Errorf("metrics: oracle: %w", err)
			}
			out[i] = x
		}
		return out, nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sem := make(chan struct{}, v.jobs)
	var wg sync.WaitGroup
	var once sync.Once
	var firstErr error
	for i, p := range programs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				once.Do(func() { firstErr = ctx.Err() })
				return
			}
			defer func() { <-sem }()
			x, err := v.co.Verdict(ctx, p)
			if err != nil {
				once.Do(func() { firstErr = err; cancel() })
				return
			}
			out[i] = x
		}()
	}
	wg.Wait()
	if firstErr != nil {
		out = nil
		return nil, fmt.Errorf("metrics: oracle: %w", firstErr)
	}
	return out, nil
}
