package extract

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/faultline-dev/faultline/task"
)

// The spec's time limits: a test may run DefaultTestTimeout, a whole run (one test
// command) DefaultRunTimeout.
const (
	DefaultTestTimeout = 10 * time.Second
	DefaultRunTimeout  = 600 * time.Second
)

// TraceAllowance is how many times the per-test limit a test may take in a traced run
// (Pipeline's tracing of each test file): tracing every call and line makes a test several
// times slower, so the limit itself would fail tests that pass without the tracer. Whether
// a file passes on the original code is then decided by an untraced run under the limit
// whenever a traced test ran longer than it.
const TraceAllowance = 10

// TimeoutModule is the module name under which WithTestTimeout places its pytest plugin
// at the repository root of a run's overlay and loads it with `-p`.
const TimeoutModule = "_faultline_timeout"

// timeoutMarker starts the message of a test that the per-test limit stopped.
const timeoutMarker = "faultline: test exceeded the per-test time limit"

// WallBackstop is how many times the per-test limit a pytest test may take in wall-clock
// time (see WithTestTimeout): the limit itself is on CPU time, so that a loaded machine
// does not turn a test into a timeout, and a test that waits (sleeps, blocks on I/O or a
// lock) without using CPU is stopped by the wall-clock backstop. It is generous because
// load stretches wall-clock time: with 3, a test spinning for 1 s of CPU was stopped by
// the backstop on a 2-core machine at load 15.
const WallBackstop = 10

// timeoutPlugin is the pytest plugin behind WithTestTimeout. pytest-timeout is not assumed
// installed; this is the small part of it the pipeline needs: two interval timers armed
// around each phase (setup, call, teardown) with what is left of the test's budgets — the
// process's CPU time (ITIMER_PROF: user and system time of every thread) against the
// limit, and wall-clock time (ITIMER_REAL) against WallBackstop times the limit — the
// handler failing the test with pytest.fail (a BaseException, so `except Exception` in
// the test does not swallow it). Where there are no interval timers or pytest does not run
// tests in the main thread, the plugin does nothing and only the per-run limit applies.
var timeoutPlugin = `# faultline per-test time limit (package extract, WithTestTimeout). Generated; not part of
# the repository.
import signal
import threading
import time

import pytest

_MARK = "` + timeoutMarker + ` of %gs (%s)"
_BACKSTOP = ` + strconv.Itoa(WallBackstop) + `
_state = {"limit": 0.0, "cpu": 0.0, "wall": 0.0}


def pytest_addoption(parser):
    parser.addoption("--faultline-test-timeout", type=float, default=0.0,
                     dest="faultline_test_timeout",
                     help="fail a test whose setup, call and teardown use more CPU time (seconds)")


def pytest_configure(config):
    limit = config.getoption("faultline_test_timeout") or 0.0
    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        limit = 0.0
    _state["limit"] = limit


def _cpu_expired(signum, frame):
    pytest.fail(_MARK % (_state["limit"], "CPU time"), pytrace=False)


def _wall_expired(signum, frame):
    pytest.fail(_MARK % (_state["limit"], "%gs of wall-clock time" % (_state["limit"] * _BACKSTOP)), pytrace=False)


def _phase(first):
    limit = _state["limit"]
    if limit <= 0:
        yield
        return
    cpu, wall = time.process_time(), time.monotonic()
    if first:
        _state["cpu"] = cpu + limit
        _state["wall"] = wall + limit * _BACKSTOP
    previous = (signal.signal(signal.SIGPROF, _cpu_expired), signal.signal(signal.SIGALRM, _wall_expired))
    signal.setitimer(signal.ITIMER_PROF, max(_state["cpu"] - cpu, 0.001))
    signal.setitimer(signal.ITIMER_REAL, max(_state["wall"] - wall, 0.001))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGPROF, previous[0])
        signal.signal(signal.SIGALRM, previous[1])


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item):
    yield from _phase(True)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    yield from _phase(False)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item):
    yield from _phase(False)
`

// PytestTimeoutPlugin returns the source of the pytest plugin WithTestTimeout adds.
func PytestTimeoutPlugin() []byte { return []byte(timeoutPlugin) }

// WithTestTimeout returns a runner that enforces a per-test time limit on every run of r
// (next to the per-run limit, req.Limits.Timeout), and reports a test over it with the
// outcome task.Timeout (counted as failed). perTest ≤ 0 returns r unchanged. The result
// implements task.Lister when r does (discovery runs no test and is passed through).
//
// pytest: the plugin of PytestTimeoutPlugin is added to the run's overlay as
// TimeoutModule at the root and loaded with `-p` (plus its --faultline-test-timeout
// option). The limit is on the CPU time the test uses (the interpreter's process, every
// thread), not on wall-clock time: on a loaded machine a test waits for a core, and a
// wall-clock limit would make its verdict — and so the instances — depend on the load
// (seen on Debian's patsy: a test of 1 s CPU went over 10 s of wall-clock time under load
// in one run and not in the next). A test that waits without using CPU is stopped at
// WallBackstop times the limit of wall-clock time. The budgets cover a test's setup, call
// and teardown, so a slow module- or session-scoped fixture is charged to the test that
// first needs it. A test stuck in native code that does not return to the interpreter is
// only stopped by the per-run limit.
//
// go test has no per-test limit, only a limit on the whole test binary. The reading here:
// a run selecting n top-level tests by id gets the binary limit -timeout=n×perTest
// (capped at nine tenths of the per-run limit, which is what sandbox's runner gives the
// binary anyway; DefaultRunTimeout when Limits.Timeout is zero), so a run of one stuck
// test ends after perTest; the test that was running when the binary's limit fired is
// reported as timed out by the runner. After the run, every top-level test whose elapsed
// time is over perTest is marked task.Timeout even if it passed. A stuck test among n may
// therefore run up to n×perTest before the binary is stopped; runs that select files or
// packages instead of ids only get the second check.
//
// Reports are copied before being changed, so a caching runner's reports stay intact.
func WithTestTimeout(r task.Runner, perTest time.Duration) task.Runner {
	if perTest <= 0 {
		return r
	}
	tr := &timeoutRunner{r: r, perTest: perTest}
	if l, ok := r.(task.Lister); ok {
		return &timeoutLister{timeoutRunner: tr, l: l}
	}
	return tr
}

type timeoutRunner struct {
	r       task.Runner
	perTest time.Duration
}

type timeoutLister struct {
	*timeoutRunner
	l task.Lister
}

func (t *timeoutLister) List(ctx context.Context, req task.RunRequest) ([]string, error) {
	return t.l.List(ctx, req)
}

func (t *timeoutRunner) Run(ctx context.Context, req task.RunRequest) (*task.Report, error) {
	req = testTimeoutRequest(req, t.perTest)
	rep, err := t.r.Run(ctx, req)
	if err != nil || rep == nil {
		return rep, err
	}
	return markTimeouts(rep, req.Kind, t.perTest), nil
}

// testTimeoutRequest adds what enforces perTest to a request.
func testTimeoutRequest(req task.RunRequest, perTest time.Duration) task.RunRequest {
	switch req.Kind {
	case task.Pytest:
		ov := req.Overlay.Clone()
		if ov == nil {
			ov = task.Overlay{}
		}
		ov.Set(TimeoutModule+".py", []byte(timeoutPlugin))
		req.Overlay = ov
		req.Args = append([]string{"-p", TimeoutModule, "--faultline-test-timeout=" + seconds(perTest)}, req.Args...)
	case task.GoTest:
		n := 0
		if len(req.Select.Files) == 0 {
			for _, id := range req.Select.IDs {
				if !isSubtestID(id) {
					n++
				}
			}
		}
		if n == 0 {
			return req
		}
		run := req.Limits.Timeout
		if run <= 0 {
			run = DefaultRunTimeout
		}
		limit := time.Duration(n) * perTest
		if limit >= run*9/10 || limit < 0 {
			return req
		}
		// After the packages, before the caller's arguments (a caller's -timeout wins; an
		// -args there would pass everything after it to the binary untouched).
		req.Args = append([]string{"-timeout=" + limit.String()}, req.Args...)
	}
	return req
}

// isSubtestID reports whether a Go test id `import/path.TestName/sub` names a subtest.
func isSubtestID(id string) bool {
	_, test, ok := task.SplitGoTestID(id)
	return ok && strings.Contains(test, "/")
}

func seconds(d time.Duration) string {
	return fmt.Sprintf("%g", d.Seconds())
}

// markTimeouts returns rep, or a copy with the tests that went over perTest marked
// task.Timeout: pytest tests the plugin stopped (their message starts with the plugin's
// marker), Go top-level tests whose elapsed time is over perTest.
func markTimeouts(rep *task.Report, kind task.TestKind, perTest time.Duration) *task.Report {
	var idx []int
	for i, t := range rep.Tests {
		if t.Outcome == task.Timeout || t.Outcome == task.Skip {
			continue
		}
		switch kind {
		case task.Pytest:
			if t.Outcome.Failed() && strings.Contains(t.Message, timeoutMarker) {
				idx = append(idx, i)
			}
		case task.GoTest:
			if t.Duration > perTest && !isSubtestID(t.ID) {
				idx = append(idx, i)
			}
		}
	}
	if len(idx) == 0 {
		return rep
	}
	out := *rep
	out.Tests = slices.Clone(rep.Tests)
	for _, i := range idx {
		t := &out.Tests[i]
		t.Outcome = task.Timeout
		if kind == task.GoTest {
			t.Message = fmt.Sprintf("%s of %s (ran %s)\n%s", timeoutMarker, perTest, t.Duration.Round(time.Millisecond), t.Message)
		}
	}
	return &out
}
