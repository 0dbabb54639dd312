package task

import (
	"context"
	"time"
)

// TestKind names the test framework a runner drives.
type TestKind string

// The test kinds the sandbox package implements.
const (
	GoTest TestKind = "go"     // `go test -json`
	Pytest TestKind = "pytest" // `python3 -m pytest`
	// Command runs RunRequest.Args (a program and its arguments, no shell) in the tree's
	// root and reports one test, CommandTestID: pass when it exits 0, fail on any other exit
	// status or a signal, timeout when the time limit kills it. It is how a program under
	// test with a user's test command (a PDB oracle) runs inside a sandbox. Select must be
	// empty.
	Command TestKind = "command"
)

// CommandTestID is the id of the single test a Command run reports.
const CommandTestID = "command"

// Selection chooses which tests run. The zero Selection runs every test. Files are slash
// paths relative to the repository root (pytest test files, or Go package directories /
// files whose package is tested); IDs are test ids as reported in a Report.
type Selection struct {
	Files []string `json:"files,omitempty"`
	IDs   []string `json:"ids,omitempty"`
}

// All reports whether the selection is empty (run everything).
func (s Selection) All() bool { return len(s.Files) == 0 && len(s.IDs) == 0 }

// Limits bound one run. Zero fields take the runner's documented defaults.
type Limits struct {
	Timeout     time.Duration `json:"timeout,omitempty"`      // wall time of the whole run
	OutputBytes int64         `json:"output_bytes,omitempty"` // per stream cap
	MemoryBytes int64         `json:"memory_bytes,omitempty"` // address space / memory limit
	Processes   int           `json:"processes,omitempty"`    // process count limit
	MessageLen  int           `json:"message_len,omitempty"`  // per-test message truncation
}

// RunRequest asks a runner to run tests of the repository at Root with Overlay applied.
// Root is never written: runners work on a private copy.
type RunRequest struct {
	Root    string
	Overlay Overlay
	Kind    TestKind
	Select  Selection
	Limits  Limits
	// Args are extra arguments passed to the test command (after the runner's own).
	Args []string
}

// Runner runs a repository's tests. An error means the runner itself could not be used
// (bad root, bad overlay path, context cancelled); a run whose tests could not execute is
// reported through Report.State, and failing tests are an outcome, not an error.
//
// Implementations must be safe for concurrent use by multiple goroutines.
type Runner interface {
	Run(ctx context.Context, req RunRequest) (*Report, error)
}

// repeatKey carries WithRepeat's number in a context.
type repeatKey struct{}

// WithRepeat returns a context whose runs are the n-th repeat (n > 0) of the same request:
// a runner that caches reports (sandbox.Cache) keeps the repeat's report apart from the
// first run's, so the repeat really runs the tests again, and a run started again later
// finds both. Callers use it to check that verdicts are reproducible.
func WithRepeat(ctx context.Context, n int) context.Context {
	return context.WithValue(ctx, repeatKey{}, n)
}

// RepeatOf returns the repeat number WithRepeat put in ctx (0 for a first run).
func RepeatOf(ctx context.Context) int {
	n, _ := ctx.Value(repeatKey{}).(int)
	return n
}

// RunnerFunc adapts a function to the Runner interface.
type RunnerFunc func(ctx context.Context, req RunRequest) (*Report, error)

// Run calls f(ctx, req).
func (f RunnerFunc) Run(ctx context.Context, req RunRequest) (*Report, error) { return f(ctx, req) }

// Lister discovers test ids without running them (`go test -list`, `pytest --collect-only`).
// Implementations must be safe for concurrent use.
type Lister interface {
	List(ctx context.Context, req RunRequest) ([]string, error)
}

// Oracle decides whether a program passes its tests: F_U in the PDB paper. The program is
// the full text of the file under test; the oracle knows which tests to run.
//
// Implementations must be safe for concurrent use by multiple goroutines; callers verify
// candidates concurrently.
type Oracle interface {
	Passes(ctx context.Context, program string) (bool, error)
}

// OracleFunc adapts a function to the Oracle interface, so a test or a user can plug in a
// predicate.
type OracleFunc func(ctx context.Context, program string) (bool, error)

// Passes calls f(ctx, program).
func (f OracleFunc) Passes(ctx context.Context, program string) (bool, error) { return f(ctx, program) }

// Verdict is an oracle's decision on one program: Outcome is Pass, Fail (the tests failed,
// or the program crashed) or Timeout (the run was stopped at its time limit). A Timeout is
// a failing verdict, as in the PDB release's evaluator, which counts a test run that timed
// out as a failure; callers that must tell it apart (a generator rejects a bug whose tests
// hang) look at Outcome. Detail says briefly why the program did not pass; it may be empty
// and may vary between runs (it is an observation, not part of the verdict).
type Verdict struct {
	Outcome Outcome
	Detail  string
}

// Passed reports whether the program passed.
func (v Verdict) Passed() bool { return v.Outcome.Passed() }

// VerdictOracle is an Oracle that reports how a program that did not pass ended. Passes
// must agree with Verdict(…).Passed(). An error still means there is no verdict (the
// oracle could not run the tests at all).
type VerdictOracle interface {
	Oracle
	Verdict(ctx context.Context, program string) (Verdict, error)
}

// VerdictOf asks o for its verdict on program: o.Verdict when o is a VerdictOracle,
// otherwise Pass or Fail from o.Passes.
func VerdictOf(ctx context.Context, o Oracle, program string) (Verdict, error) {
	if vo, ok := o.(VerdictOracle); ok {
		return vo.Verdict(ctx, program)
	}
	ok, err := o.Passes(ctx, program)
	if err != nil {
		return Verdict{}, err
	}
	if ok {
		return Verdict{Outcome: Pass}, nil
	}
	return Verdict{Outcome: Fail}, nil
}
