package sandbox

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/faultline-dev/faultline/task"
)

// BaselineResult classifies the tests of a clean tree run several times.
type BaselineResult struct {
	Reports []*task.Report
	// Passing and Failing hold the ids with a passing (resp. failing) outcome in every run;
	// Flaky the ids whose outcome class (pass / fail / other) differed between runs or that
	// were missing from some runs. Other ids (skipped in every run) are in none of them.
	// All sorted. Flaky tests belong in neither fail-to-pass nor pass-to-pass sets.
	Passing, Failing, Flaky []string
	// Wall is the longest run's wall time, the input of a TimeoutRule.
	Wall time.Duration
}

// ErrBaselineBroken is wrapped when a baseline run could not run its tests.
var ErrBaselineBroken = errors.New("baseline run did not run")

// Baseline runs req n times (n <= 0: 2) one after another and classifies the tests. Run i
// (from 0) is the i-th repeat of req (task.WithRepeat): a caching runner (Cache) keeps each
// run on its own, so the runs are n real runs, and a program started again with the same
// cache (a resumed run) reuses them: its flaky set, the tests' lists built from it and the
// time limits derived from Wall are those of the first start, not of a new sample of a
// flaky suite. Pass an uncached runner (or a Cache in a new directory) to observe the tests
// afresh. If a run did not run (Report.State is not RunOK), it returns the result so far and
// an error wrapping ErrBaselineBroken.
func Baseline(ctx context.Context, r task.Runner, req task.RunRequest, n int) (*BaselineResult, error) {
	if n <= 0 {
		n = 2
	}
	res := &BaselineResult{}
	for i := range n {
		rep, err := r.Run(task.WithRepeat(ctx, i), req)
		if err != nil {
			return res, err
		}
		res.Reports = append(res.Reports, rep)
		res.Wall = max(res.Wall, rep.Wall)
		if !rep.Ran() {
			return res, fmt.Errorf("sandbox: baseline run %d: %s%s: %w", i+1, rep.Cause(), unfinished(rep), ErrBaselineBroken)
		}
	}
	class := func(o task.Outcome) byte {
		switch {
		case o.Passed():
			return 'p'
		case o.Failed():
			return 'f'
		}
		return 'o'
	}
	seen := map[string][]byte{}
	for _, rep := range res.Reports {
		for _, t := range rep.Tests {
			seen[t.ID] = append(seen[t.ID], class(t.Outcome))
		}
	}
	for id, cs := range seen {
		consistent := len(cs) == n
		for _, c := range cs {
			consistent = consistent && c == cs[0]
		}
		switch {
		case !consistent:
			res.Flaky = append(res.Flaky, id)
		case cs[0] == 'p':
			res.Passing = append(res.Passing, id)
		case cs[0] == 'f':
			res.Failing = append(res.Failing, id)
		}
	}
	sort.Strings(res.Passing)
	sort.Strings(res.Failing)
	sort.Strings(res.Flaky)
	return res, nil
}

// WithGoVet returns req with go test's default vet checks turned on (Go runs only; other
// kinds are returned unchanged). Runs use -vet=off by default — a vet finding a corruption
// introduces must not hide the test verdicts — but a clean module whose own `go test`
// fails on vet is not green, so baselines run with the checks on: the "-vet=" argument
// (go test's curated default list) comes after the runner's -vet=off and wins.
func WithGoVet(req task.RunRequest) task.RunRequest {
	if req.Kind != task.GoTest {
		return req
	}
	req.Args = append(append([]string(nil), req.Args...), "-vet=")
	return req
}

// TimeoutRule computes a run's time limit from a baseline run, as mutation-testing tools
// do: Factor × baseline + Constant, at most Ceiling. Zero fields take the defaults 2, 10 s
// and 10 min.
type TimeoutRule struct {
	Factor   float64
	Constant time.Duration
	Ceiling  time.Duration
}

// For returns the limit for a program whose clean baseline took baseline.
func (r TimeoutRule) For(baseline time.Duration) time.Duration {
	f, c, ceil := r.Factor, r.Constant, r.Ceiling
	if f <= 0 {
		f = 2
	}
	if c <= 0 {
		c = 10 * time.Second
	}
	if ceil <= 0 {
		ceil = 10 * time.Minute
	}
	t := time.Duration(f*float64(baseline)) + c
	if t > ceil || t < 0 {
		t = ceil
	}
	return t
}

// CleanLimit is the limit of a clean run when the user set none: its time is not known yet,
// and slow real suites (networkx's takes minutes) fit under it.
const CleanLimit = 30 * time.Minute

// DerivedLimits are the time limits of the runs of a program's variants (corruptions, mutants),
// derived from what the clean program's run took (DeriveLimits).
type DerivedLimits struct {
	// Clean bounds the clean runs: the user's bound, or CleanLimit.
	Clean time.Duration
	// Run is a variant's limit: TimeoutRule's default (2× the clean run + 10 s, at most
	// 10 min), at most Clean. A variant that hangs is stopped there instead of at Clean.
	Run time.Duration
	// Retry is the limit of a second run of a variant stopped at Run (a run slowed by load
	// is not judged a hang): 4× the clean run + 1 min, at most CleanLimit; the user's bound
	// when set. A retry is due only when Retry > Run.
	Retry time.Duration
}

// CleanLimits returns the clean runs' limit for a user's bound (0: none).
func CleanLimits(bound time.Duration) DerivedLimits {
	if bound > 0 {
		return DerivedLimits{Clean: bound, Run: bound, Retry: bound}
	}
	return DerivedLimits{Clean: CleanLimit, Run: CleanLimit, Retry: CleanLimit}
}

// DeriveLimits returns the limits of the variants' runs of a program whose clean run took
// wall, under the user's bound (0: none; a positive bound caps every limit).
func DeriveLimits(wall, bound time.Duration) DerivedLimits {
	l := CleanLimits(bound)
	l.Run = min(TimeoutRule{}.For(wall), l.Clean)
	if bound <= 0 {
		l.Retry = TimeoutRule{Factor: 4, Constant: time.Minute, Ceiling: CleanLimit}.For(wall)
	}
	return l
}

// FileOracle returns a task.Oracle for single-file programs: the program text goes into a
// copy of req.Overlay at path, and the program passes iff the run ran, at least one test
// ran, and every selected test passed (every selected id present with a passing outcome when
// req.Select.IDs is set; no failing test otherwise). Its safety for concurrent use is r's.
func FileOracle(r task.Runner, req task.RunRequest, path string) task.Oracle {
	return task.OracleFunc(func(ctx context.Context, program string) (bool, error) {
		q := req
		q.Overlay = req.Overlay.Clone()
		if q.Overlay == nil {
			q.Overlay = task.Overlay{}
		}
		q.Overlay.Set(path, []byte(program))
		rep, err := r.Run(ctx, q)
		if err != nil {
			return false, err
		}
		if !rep.Ran() || len(rep.Tests) == 0 {
			return false, nil
		}
		if len(req.Select.IDs) > 0 {
			return rep.AllPassed(req.Select.IDs), nil
		}
		return rep.Green(), nil
	})
}

// unfinished names, for a run stopped at its time limit, the tests that did not finish
// (those running at the limit, and again when the runner re-ran what the limit cut off): the
// first place to look when one test hangs rather than the suite being slow. "" otherwise.
func unfinished(rep *task.Report) string {
	if rep.State != task.RunTimeout {
		return ""
	}
	var ids []string
	for _, t := range rep.Tests {
		if t.Outcome == task.Timeout {
			ids = append(ids, t.ID)
		}
	}
	if len(ids) == 0 {
		return ""
	}
	sort.Strings(ids)
	more := ""
	if len(ids) > 3 {
		more = fmt.Sprintf(" and %d more", len(ids)-3)
		ids = ids[:3]
	}
	return fmt.Sprintf(" (did not finish: %s%s)", strings.Join(ids, ", "), more)
}
