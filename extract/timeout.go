package extract

import (
	"context"
	"fmt"
	"slices"
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

// TimeoutModule is the module name under which WithTestTimeout places its pytest plugin
// at the repository root of a run's overlay and loads it with `-p`.
const TimeoutModule = "_faultline_timeout"

// timeoutMarker starts the message of a test that the per-test limit stopped.
const timeoutMarker = "faultline: test exceeded the per-test time limit"

// timeoutPlugin is the pytest plugin behind WithTestTimeout. pytest-timeout is not assumed
// installed; this is the small part of it the pipeline needs: SIGALRM (setitimer) armed
// around each phase (setup, call, teardown) with what is left of the test's budget, the
// handler failing the test with pytest.fail (a BaseException, so `except Exception` in
// the test does not swallow it). Where there is no SIGALRM or pytest does not run tests
// in the main thread, the plugin does nothing and only the per-run limit applies.
const timeoutPlugin = `# faultline per-test time limit (package extract, WithTestTimeout). Generated; not part of
# the repository.
import signal
import threading
import time

import pytest

_MARK = "` + timeoutMarker + ` of %gs"
_state = {"limit": 0.0, "deadline": 0.0}


def pytest_addoption(parser):
    parser.addoption("--faultline-test-timeout", type=float, default=0.0,
                     dest="faultline_test_timeout",
                     help="fail a test whose setup, call and teardown take longer (seconds)")


def pytest_configure(config):
    limit = config.getoption("faultline_test_timeout") or 0.0
    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        limit = 0.0
    _state["limit"] = limit


def _expired(signum, frame):
    pytest.fail(_MARK % _state["limit"], pytrace=False)


def _phase(first):
    limit = _state["limit"]
    if limit <= 0:
        yield
        return
    now = time.monotonic()
    if first:
        _state["deadline"] = now + limit
    left = max(_state["deadline"] - now, 0.001)
    previous = signal.signal(signal.SIGALRM, _expired)
    signal.setitimer(signal.ITIMER_REAL, left)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


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
// option). The budget covers a test's setup, call and teardown, so a slow module- or
// session-scoped fixture is charged to the test that first needs it. A test stuck in
// native code that does not return to the interpreter is only stopped by the per-run
// limit.
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
