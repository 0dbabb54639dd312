package corrupt

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/faultline-dev/faultline/task"
	"github.com/faultline-dev/faultline/task/llm"
)

// Baseline is what the clean repository's tests do, run several times (see
// sandbox.Baseline): the tests that passed in every run, those that failed in every run, and
// the flaky ones, which never enter FAIL_TO_PASS or PASS_TO_PASS.
type Baseline struct {
	Passing []string
	Failing []string
	Flaky   []string
}

// ErrBaselineNotGreen is wrapped when the clean repository has failing tests.
var ErrBaselineNotGreen = errors.New("baseline not green")

// ErrNoTests is wrapped when the clean repository has no passing test.
var ErrNoTests = errors.New("no passing tests in the baseline")

// Check returns an error when the baseline cannot support validation: failing tests
// (unless allowed, in which case they are simply never counted) or no passing test.
func (b Baseline) Check(allowFailing bool) error {
	if len(b.Failing) > 0 && !allowFailing {
		show := b.Failing
		if len(show) > 5 {
			show = show[:5]
		}
		return fmt.Errorf("corrupt: %d test(s) fail on the clean repository (e.g. %s): %w", len(b.Failing), strings.Join(show, ", "), ErrBaselineNotGreen)
	}
	if len(b.Passing) == 0 {
		return fmt.Errorf("corrupt: %w", ErrNoTests)
	}
	return nil
}

// Validation is the outcome of running the tests on a corrupted repository. Only a test
// that ran has a verdict: a baseline-passing test that the corrupted run did not reach
// (task.NotRun, or missing from the report) or that it skipped is neither FAIL_TO_PASS nor
// PASS_TO_PASS, and is never counted as failing.
type Validation struct {
	// FailToPass holds the baseline-passing tests that ran and failed (fail, error or
	// timeout) on the corrupted tree; PassToPass those that ran and passed. Sorted.
	FailToPass []string
	PassToPass []string
	// Messages holds the stable record of each FailToPass test's failure (Failure.String:
	// its kind and site, never durations, addresses or reprs), in the same order. It is
	// what task records carry.
	Messages []string
	// Observed holds each FailToPass test's output as this run printed it (paths of the
	// runner's private copy made relative, truncated), in the same order: an observation
	// of one run for logs and people, not part of any record.
	Observed []string `json:"observed,omitempty"`
	// NotRun holds the baseline-passing tests that got no verdict (reported task.NotRun
	// or missing from the report); Skipped those the corrupted run skipped. Sorted.
	NotRun  []string `json:"not_run,omitempty"`
	Skipped []string `json:"skipped,omitempty"`
	// NotRunWhy says, in the same order as NotRun, why each got no verdict: the first line
	// of the runner's reason (task.NotRun's message: which run ended how, whether the
	// re-run budget was spent), with the private copy's paths made relative. Like Observed,
	// an observation of this run for logs and people, not part of any record: which test
	// was running when a binary died can depend on scheduling.
	NotRunWhy []string `json:"not_run_why,omitempty"`
	// OnlyWithOthers holds the tests that failed in the run but passed when run alone on
	// the same corrupted tree (see Options.SkipAlone): in neither list. Sorted.
	OnlyWithOthers []string `json:"only_with_others,omitempty"`
	// Unstable holds the tests whose verdict a second run of the suite on the same corrupted
	// tree did not reproduce (see confirmRepeat), which rejects the corruption. Sorted.
	Unstable []string `json:"unstable,omitempty"`
	// Accepted reports whether the corruption is kept; Reason says why not.
	Accepted bool
	Reason   string
	// State is the run's state (a run that could not execute, or whose evidence was
	// untrusted, is never accepted).
	State task.RunState

	// failedAlone holds the FailToPass tests whose failure the runner already observed in a
	// re-run of the test alone (task.TestResult.Alone): confirmAlone need not run them again.
	failedAlone map[string]bool
}

// Validate runs req (the corruption as its overlay) and classifies the baseline-passing
// tests (see Validation). It accepts the corruption when the tests ran (task.RunOK: a run
// that broke, or whose evidence channels disagreed, task.RunUntrusted, is rejected), none of
// them timed out or ran out of memory, and at least minFailures of them ran and failed.
// messageLen truncates the observed messages (0: 2,000 bytes). A corruption that makes a
// test time out or exhaust memory is rejected with State RunTimeout: its outcome depends on
// the machine's speed and load (which tests a killed run had reached), so its task would
// not be reproducible, and every run of it costs the whole time limit.
func Validate(ctx context.Context, r task.Runner, req task.RunRequest, base Baseline, minFailures, messageLen int) (*Validation, error) {
	if messageLen <= 0 {
		messageLen = 2000
	}
	rep, err := r.Run(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("corrupt: running the tests: %w", err)
	}
	v := &Validation{State: rep.State}
	rel := relativizer{root: req.Root, overlay: req.Overlay, known: map[string]string{}}
	if !rep.Ran() {
		// The cause (the build error, the collection error, the missing module) is the
		// reason: with the private copy's paths made relative, so the same failure gives
		// the same words in every run.
		v.Reason = "the tests could not run (" + task.Abbreviate(llm.EnvRedactor().Redact(rel.relativize(rep.Cause())), 300) + ")"
		return v, nil
	}
	flaky := map[string]bool{}
	for _, id := range base.Flaky {
		flaky[id] = true
	}
	fp := newFailureParser(req)
	redact := llm.EnvRedactor()
	passing := append([]string(nil), base.Passing...)
	sort.Strings(passing)
	for _, id := range passing {
		if flaky[id] {
			continue
		}
		t, ok := rep.Result(id)
		switch {
		case !ok:
			v.NotRun = append(v.NotRun, id)
			v.NotRunWhy = append(v.NotRunWhy, missingWhy(rep, id))
		case !t.Outcome.Decided():
			v.NotRun = append(v.NotRun, id)
			v.NotRunWhy = append(v.NotRunWhy, notRunWhy(redact.Redact(rel.relativize(t.Message))))
		case t.Outcome.Passed():
			v.PassToPass = append(v.PassToPass, id)
		case t.Outcome.Failed():
			if t.Alone {
				if v.failedAlone == nil {
					v.failedAlone = map[string]bool{}
				}
				v.failedAlone[id] = true
			}
			v.FailToPass = append(v.FailToPass, id)
			v.Messages = append(v.Messages, fp.parse(t).String())
			v.Observed = append(v.Observed, truncate(redact.Redact(rel.relativize(t.Message)), messageLen))
		default:
			v.Skipped = append(v.Skipped, id)
		}
	}
	if n := timedOut(rep, v.FailToPass); n > 0 {
		// A hang makes every later run of the task as slow as the time limit, and which
		// tests a killed run reports depends on the machine's speed: not a reproducible task.
		v.Reason = fmt.Sprintf("%d test(s) time out (the corruption may loop forever)", n)
		v.State = task.RunTimeout
		return v, nil
	}
	if outOfMemory(rep, v.FailToPass) {
		// A loop that allocates ends at the memory limit or the time limit, whichever the
		// machine reaches first: not reproducible either.
		v.Reason = "the tests run out of memory (the corruption may loop forever)"
		v.State = task.RunTimeout
		return v, nil
	}
	if len(v.FailToPass) < minFailures {
		v.Reason = fmt.Sprintf("%d test(s) fail, want at least %d", len(v.FailToPass), minFailures)
		if len(v.NotRun) > 0 {
			v.Reason += fmt.Sprintf(" (%d got no verdict)", len(v.NotRun))
		}
		return v, nil
	}
	v.Accepted = true
	return v, nil
}

// absPath matches an absolute file path with an extension (as in stack traces and
// tracebacks).
var absPath = regexp.MustCompile(`(?:/[\w.@+-]+)+/[\w@+-][\w.@+-]*\.\w+`)

// relativizer rewrites the absolute paths of a repository's files in test output (a
// runner's private copy lives in a directory whose name changes from run to run) to
// paths relative to the repository: the longest suffix of the path that names a file of
// the repository (root on disk or the overlay). Other paths stay as they are.
type relativizer struct {
	root    string
	overlay task.Overlay
	known   map[string]string // absolute path → replacement
}

func (r relativizer) relativize(msg string) string {
	if r.root == "" || !strings.Contains(msg, "/") {
		return msg
	}
	return absPath.ReplaceAllStringFunc(msg, func(p string) string {
		if rep, ok := r.known[p]; ok {
			return rep
		}
		rep := p
		parts := strings.Split(p[1:], "/")
		for i := 1; i < len(parts); i++ {
			rel := strings.Join(parts[i:], "/")
			if _, ok := r.overlay[rel]; ok {
				rep = rel
				break
			}
			if st, err := os.Stat(filepath.Join(r.root, filepath.FromSlash(rel))); err == nil && st.Mode().IsRegular() {
				rep = rel
				break
			}
		}
		r.known[p] = rep
		return rep
	})
}

// timedOut counts the tests among ids whose outcome in rep is Timeout.
func timedOut(rep *task.Report, ids []string) int {
	n := 0
	for _, id := range ids {
		if t, ok := rep.Result(id); ok && t.Outcome == task.Timeout {
			n++
		}
	}
	return n
}

// oomMarkers are what Go and Python print when a program exhausts its memory.
var oomMarkers = []string{"fatal error: out of memory", "runtime: out of memory", "MemoryError"}

// outOfMemory reports whether the run, or one of the tests among ids, ran out of memory.
func outOfMemory(rep *task.Report, ids []string) bool {
	has := func(s string) bool {
		for _, m := range oomMarkers {
			if strings.Contains(s, m) {
				return true
			}
		}
		return false
	}
	if has(rep.Detail) || has(rep.Output) {
		return true
	}
	for _, id := range ids {
		if t, ok := rep.Result(id); ok && has(t.Message) {
			return true
		}
	}
	return false
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	// Cut at a rune boundary.
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…[truncated]"
}

// confirmAlone runs each FAIL_TO_PASS test of an accepted validation alone on the same
// corrupted tree (req with a selection of that one id; up to jobs at a time) and keeps in
// FAIL_TO_PASS those that fail alone too, with the failure they show alone as their message
// (one the runner already re-ran alone and saw fail, task.TestResult.Alone, is not run again
// and keeps that run's). One that passes alone goes to OnlyWithOthers; one
// that gets no verdict alone goes to NotRun. With fewer than minFailures left, v is
// rejected, the reason saying how many failed only with others. A run alone that hits
// req's time limit runs once more at retry when that is longer (runAgainSlow).
func confirmAlone(ctx context.Context, r task.Runner, req task.RunRequest, v *Validation, minFailures, jobs int, retry time.Duration) error {
	type alone struct {
		outcome task.Outcome
		result  task.TestResult
		ran     bool
		err     error
	}
	got := make([]alone, len(v.FailToPass))
	var todo []int
	for i, id := range v.FailToPass {
		if v.failedAlone[id] {
			got[i].outcome = task.Fail // the runner's re-run of it alone failed already
		} else {
			todo = append(todo, i)
		}
	}
	jobs = max(1, min(jobs, len(todo)))
	next := make(chan int)
	var wg sync.WaitGroup
	for range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				one := req
				one.Select = task.Selection{IDs: []string{v.FailToPass[i]}}
				rep, err := runAgainSlow(ctx, r, one, retry)
				if err != nil {
					got[i].err = err
					continue
				}
				if t, ok := rep.Result(v.FailToPass[i]); ok && rep.Ran() {
					got[i].outcome, got[i].result, got[i].ran = t.Outcome, t, true
				}
			}
		}()
	}
	for _, i := range todo {
		next <- i
	}
	close(next)
	wg.Wait()
	var f2p, msgs, observed []string
	fp := newFailureParser(req)
	for i, id := range v.FailToPass {
		if got[i].err != nil {
			return fmt.Errorf("corrupt: running %s alone: %w", id, got[i].err)
		}
		switch o := got[i].outcome; {
		case o.Failed():
			f2p = append(f2p, id)
			// The recorded failure is the one alone: with the suite, which of several
			// t.Parallel tests that panic at once prints its trace is a race.
			if got[i].ran {
				msgs = append(msgs, fp.parse(got[i].result).String())
			} else {
				msgs = append(msgs, v.Messages[i])
			}
			if i < len(v.Observed) {
				observed = append(observed, v.Observed[i])
			}
		case o.Passed():
			v.OnlyWithOthers = append(v.OnlyWithOthers, id)
		default:
			why := "its run alone did not run its tests"
			if got[i].ran {
				why = "alone: " + notRunWhy(got[i].result.Message)
			}
			v.NotRun = append(v.NotRun, id)
			v.NotRunWhy = append(v.NotRunWhy, why)
		}
	}
	sortNotRun(v)
	v.FailToPass, v.Messages, v.Observed = f2p, msgs, observed
	if len(f2p) < minFailures {
		v.Accepted = false
		v.Reason = fmt.Sprintf("%d test(s) fail alone, want at least %d (%d fail only when run with others)", len(f2p), minFailures, len(v.OnlyWithOthers))
	}
	return nil
}

// missingWhy says why a test is missing from a report: for a subtest whose nearest
// reported ancestor (Go's Parent/sub/… ids) ended, that it never started because that
// ancestor ended with its outcome before running it (a t.Fatal before t.Run); otherwise just
// that it is missing.
func missingWhy(rep *task.Report, id string) string {
	for p := id; ; {
		i := strings.LastIndexByte(p, '/')
		if i < 0 {
			return "missing from the report"
		}
		p = p[:i]
		if t, ok := rep.Result(p); ok {
			if t.Outcome.Decided() {
				return fmt.Sprintf("never started: %s ended (%s) without running it", p, t.Outcome)
			}
			return "missing from the report"
		}
	}
}

// notRunWhy is the first line of a runner's reason for a test without a verdict, at most
// 300 bytes.
func notRunWhy(msg string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(msg), "\n")
	if line == "" {
		line = "no reason given"
	}
	return truncate(line, 300)
}

// sortNotRun sorts v.NotRun with v.NotRunWhy beside it.
func sortNotRun(v *Validation) {
	idx := make([]int, len(v.NotRun))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return v.NotRun[idx[a]] < v.NotRun[idx[b]] })
	ids, whys := make([]string, len(idx)), make([]string, len(idx))
	for i, j := range idx {
		ids[i] = v.NotRun[j]
		if j < len(v.NotRunWhy) {
			whys[i] = v.NotRunWhy[j]
		}
	}
	v.NotRun, v.NotRunWhy = ids, whys
}

// confirmRuns is how many more times confirmRepeat runs a kept corruption's suite. A test
// that flips between verdicts one time in two agrees with itself in all of 1+confirmRuns
// runs one time in 2^confirmRuns.
const confirmRuns = 2

// confirmRepeat runs the whole suite of an accepted validation confirmRuns more times on the
// same corrupted tree (task.WithRepeat: a caching runner runs each again, and a run started
// again later replays them) and rejects the corruption when a FAIL_TO_PASS test does not
// fail again or a PASS_TO_PASS test does not pass again, naming them in Unstable: on the
// corrupted tree their verdicts depend on something the runner cannot pin (Go's map order,
// goroutine scheduling, a test's own timing on a loaded machine: the clean runs may have
// passed it twice by luck), so no task built on it could say which tests fail, and two runs
// with one seed would write different records. A repeat that could not run rejects it too,
// as Validate would have; one that hits req's time limit runs once more at retry when that
// is longer (runAgainSlow), as the first validation did.
func confirmRepeat(ctx context.Context, r task.Runner, req task.RunRequest, v *Validation, retry time.Duration) error {
	unstable := map[string]bool{}
	for n := 1; n <= confirmRuns; n++ {
		rep, err := runAgainSlow(task.WithRepeat(ctx, n), r, req, retry)
		if err != nil {
			return fmt.Errorf("corrupt: running the tests again: %w", err)
		}
		if !rep.Ran() {
			v.Accepted, v.State = false, rep.State
			v.Reason = fmt.Sprintf("a repeated run of the tests did not run (%s)", rep.State)
			if rep.State == task.RunTimeout {
				v.Reason = "a repeated run of the tests timed out"
			}
			return nil
		}
		changed := func(id string, want func(task.Outcome) bool) {
			if t, ok := rep.Result(id); !ok || !want(t.Outcome) {
				unstable[id] = true
			}
		}
		for _, id := range v.FailToPass {
			changed(id, task.Outcome.Failed)
		}
		for _, id := range v.PassToPass {
			changed(id, task.Outcome.Passed)
		}
	}
	if len(unstable) > 0 {
		for id := range unstable {
			v.Unstable = append(v.Unstable, id)
		}
		sort.Strings(v.Unstable)
		v.Accepted = false
		v.Reason = fmt.Sprintf("%d test(s) got another verdict in a repeated run of the suite (%s): on the corrupted tree their verdicts depend on map order, scheduling or timing", len(v.Unstable), strings.Join(firstN(v.Unstable, 3), ", "))
	}
	return nil
}

// runAgainSlow runs req and, when that run hits req's time limit (a timed-out report, or a
// selected test with the timeout outcome) and retry is longer, runs it once more with
// retry as its limit and returns that run. The confirmations of a kept corruption follow
// the rule of its first validation (Options.RetryTimeout): a suite that took 3 s on an idle
// machine and passed its 11 s limit in the first run must not be rejected, or given another
// failure, because a confirming run on a loaded machine took 12 s (the likely cause of a
// difference on python3-tinycss, docs/breakpoint.md).
func runAgainSlow(ctx context.Context, r task.Runner, req task.RunRequest, retry time.Duration) (*task.Report, error) {
	rep, err := r.Run(ctx, req)
	if err != nil || retry <= req.Limits.Timeout || (rep.State != task.RunTimeout && timedOut(rep, req.Select.IDs) == 0) {
		return rep, err
	}
	req.Limits.Timeout = retry
	return r.Run(ctx, req)
}

// firstN returns the first n of s, with "…" for the rest.
func firstN(s []string, n int) []string {
	if len(s) <= n {
		return s
	}
	return append(append([]string(nil), s[:n]...), "…")
}
