package corrupt

import (
	"context"
	"os/exec"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/callgraph"
	"github.com/faultline-dev/faultline/callgraph/python"
	"github.com/faultline-dev/faultline/sandbox"
	"github.com/faultline-dev/faultline/task"
)

func reportRunner(rep *task.Report) task.Runner {
	return task.RunnerFunc(func(context.Context, task.RunRequest) (*task.Report, error) {
		cp := *rep
		cp.Tests = append([]task.TestResult(nil), rep.Tests...)
		cp.Sort()
		return &cp, nil
	})
}

// TestValidateVerdicts: only a test that ran has a verdict. A baseline-passing test the
// corrupted run did not reach (NotRun or missing) or skipped is neither FAIL_TO_PASS nor
// PASS_TO_PASS, and the "at least N failing tests" filter counts only tests that ran and
// failed; a run whose evidence is untrusted is never accepted.
func TestValidateVerdicts(t *testing.T) {
	base := Baseline{Passing: []string{"a", "b", "c", "d", "e", "f", "g"}, Flaky: []string{"g"}}
	rep := &task.Report{State: task.RunOK, Tests: []task.TestResult{
		{ID: "a", Outcome: task.Fail, Message: "boom"},
		{ID: "b", Outcome: task.NotRun, Message: "the binary exited before it ran"},
		// c is missing from the report
		{ID: "d", Outcome: task.Skip},
		{ID: "e", Outcome: task.Pass},
		{ID: "f", Outcome: task.Error},
		{ID: "g", Outcome: task.Fail},
	}}
	req := task.RunRequest{Kind: task.Pytest}
	v, err := Validate(context.Background(), reportRunner(rep), req, base, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !v.Accepted || !slices.Equal(v.FailToPass, []string{"a", "f"}) || !slices.Equal(v.PassToPass, []string{"e"}) ||
		!slices.Equal(v.NotRun, []string{"b", "c"}) || !slices.Equal(v.Skipped, []string{"d"}) || len(v.Messages) != 2 || len(v.Observed) != 2 {
		t.Errorf("validation %+v", v)
	}
	// A Go subtest missing under a parent that ended never started.
	goRep := &task.Report{State: task.RunOK, Tests: []task.TestResult{
		{ID: "p.TestT", Outcome: task.Fail, Message: "t.Fatal before t.Run"},
		{ID: "p.TestU/ran", Outcome: task.Pass},
	}}
	for id, want := range map[string]string{
		"p.TestT/a/b":  "never started: p.TestT ended (fail) without running it",
		"p.TestU/gone": "missing from the report", // its parent is not in the report
		"p.TestV":      "missing from the report",
	} {
		if got := missingWhy(goRep, id); got != want {
			t.Errorf("missingWhy(%s) = %q, want %q", id, got, want)
		}
	}
	// Each test without a verdict has the runner's reason beside it.
	if want := []string{"the binary exited before it ran", "missing from the report"}; !slices.Equal(v.NotRunWhy, want) {
		t.Errorf("not run why %q, want %q", v.NotRunWhy, want)
	}
	v, err = Validate(context.Background(), reportRunner(rep), req, base, 3, 0)
	if err != nil {
		t.Fatal(err)
	}
	if v.Accepted || v.Reason != "2 test(s) fail, want at least 3 (2 got no verdict)" {
		t.Errorf("3 failures wanted: accepted %v, reason %q", v.Accepted, v.Reason)
	}
	// Every selected test but one without a verdict: a panic took the binary down.
	crash := &task.Report{State: task.RunOK, Tests: []task.TestResult{{ID: "a", Outcome: task.Fail}}}
	for _, id := range []string{"b", "c", "d", "e", "f"} {
		crash.Tests = append(crash.Tests, task.TestResult{ID: id, Outcome: task.NotRun})
	}
	if v, _ := Validate(context.Background(), reportRunner(crash), req, base, 2, 0); v.Accepted || len(v.FailToPass) != 1 || len(v.NotRun) != 5 {
		t.Errorf("one failure and five tests without a verdict: %+v", v)
	}
	untrusted := *rep
	untrusted.State = task.RunUntrusted
	if v, _ := Validate(context.Background(), reportRunner(&untrusted), req, base, 1, 0); v.Accepted || v.State != task.RunUntrusted || v.FailToPass != nil {
		t.Errorf("an untrusted run: %+v", v)
	}
}

// TestEnvScoresOnlyVerdicts: in a submission, a selected test without a verdict is neither
// a failure nor a pass: the attempt does not pass, earns no credit for it, and says so.
// Test output reaches the solver redacted (a fake key in the environment, printed by a
// failing test).
func TestEnvScoresOnlyVerdicts(t *testing.T) {
	const key = "sk-fake-key-for-the-redaction-test-0123"
	t.Setenv("FAULTLINE_LLM_API_KEY", key)
	ids := []string{"t.py::a", "t.py::b", "t.py::c", "t.py::d"}
	var rep *task.Report
	runner := task.RunnerFunc(func(context.Context, task.RunRequest) (*task.Report, error) { return rep, nil })
	root := writeTree(t, map[string]string{"m.py": "def f(x):\n    return x + 1\n"})
	o := task.Overlay{}
	o.Set("m.py", []byte("def f(x):\n    return x - 1\n"))
	p, err := task.DiffOverlay(root, o, task.DiffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	prob := task.BreakpointProblem{ID: "v", Mode: string(Discovery), CorruptionPatch: string(p.Format()), GoldPatch: string(p.Reverse().Format()),
		Functions: []task.CorruptedFunction{{Path: "m.py", Name: "f"}}, FailToPass: task.TestList(ids[:2]), PassToPass: task.TestList(ids[2:])}
	newEnv := func() *Env {
		e, err := NewEnv(root, prob, runner, EnvOptions{Langs: []callgraph.Language{python.New(python.Options{})}, Run: task.RunRequest{Kind: task.Pytest}})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	rep = &task.Report{State: task.RunOK, Tests: []task.TestResult{
		{ID: ids[0], Outcome: task.Pass}, {ID: ids[1], Outcome: task.NotRun, Message: "not reached"},
		{ID: ids[2], Outcome: task.Pass}, {ID: ids[3], Outcome: task.Fail, Message: "AssertionError: '" + key + "' != ''"},
	}}
	a, err := newEnv().Submit(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if a.Passed || a.Failures != 1 || a.Unverified != 1 || a.Partial != 0 {
		t.Errorf("one failure and one test without a verdict: %+v", a)
	}
	if !strings.Contains(a.Feedback, "NOT RUN t.py::b (not reached)") || !strings.Contains(a.Feedback, "FAILED t.py::d") {
		t.Errorf("feedback does not tell failures from tests without a verdict:\n%s", a.Feedback)
	}
	if strings.Contains(a.Feedback, key) || strings.Contains(a.Feedback, key[:16]) || !strings.Contains(a.Feedback, "[REDACTED]") {
		t.Errorf("the key reached the solver:\n%s", a.Feedback)
	}
	// All selected tests passed but one was not reached: not a success.
	rep.Tests[3].Outcome = task.Pass
	if a, _ := newEnv().Submit(context.Background()); a.Passed || a.Partial != 0.5 {
		t.Errorf("three passes and one test without a verdict: %+v", a)
	}
	// An untrusted run is never a pass, whatever its tests say.
	rep = &task.Report{State: task.RunUntrusted, Detail: "junit says pass, exit status 1", Tests: []task.TestResult{
		{ID: ids[0], Outcome: task.Pass}, {ID: ids[1], Outcome: task.Pass}, {ID: ids[2], Outcome: task.Pass}, {ID: ids[3], Outcome: task.Pass}}}
	e := newEnv()
	if a, _ := e.Submit(context.Background()); a.Passed || a.Partial != 0 || !strings.Contains(a.Feedback, "untrusted") {
		t.Errorf("an untrusted run: %+v", a)
	}
	if s := e.Score(); s.Success || s.Best != 0 {
		t.Errorf("score after an untrusted run: %+v", s)
	}
}

// TestEnvRedactsRealOutput: a real failing test prints a secret it can read (the runner is
// given it, as a leaky environment would); the feedback the solver gets has it redacted.
func TestEnvRedactsRealOutput(t *testing.T) {
	if testing.Short() {
		t.Skip("runs pytest")
	}
	if err := exec.Command("/usr/bin/python3", "-c", "import pytest").Run(); err != nil {
		t.Skip("Debian's /usr/bin/python3 cannot import pytest")
	}
	const key = "sk-fake-leaked-0123456789abcdefghij"
	t.Setenv("OPENAI_API_KEY", key)
	root := writeTree(t, map[string]string{
		"m.py":      "def f(x):\n    return x + 1\n",
		"test_m.py": "import os\nfrom m import f\n\n\ndef test_f():\n    assert f(1) == 2, os.environ.get(\"LEAKY_TOKEN\", \"absent\")\n",
	})
	o := task.Overlay{}
	o.Set("m.py", []byte("def f(x):\n    return x - 1\n"))
	p, err := task.DiffOverlay(root, o, task.DiffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	prob := task.BreakpointProblem{ID: "leak", Mode: string(Discovery), CorruptionPatch: string(p.Format()), GoldPatch: string(p.Reverse().Format()),
		Functions: []task.CorruptedFunction{{Path: "m.py", Name: "f"}}, FailToPass: task.TestList{"test_m.py::test_f"}}
	r := sandbox.NewLocal(sandbox.Options{Python: "/usr/bin/python3", Env: []string{"LEAKY_TOKEN=" + key}})
	defer r.Close()
	e, err := NewEnv(root, prob, r, EnvOptions{Langs: []callgraph.Language{python.New(python.Options{})}, Run: task.RunRequest{Kind: task.Pytest}})
	if err != nil {
		t.Fatal(err)
	}
	a, err := e.Submit(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if a.Passed || !strings.Contains(a.Feedback, "FAILED test_m.py::test_f") {
		t.Fatalf("the corrupted test did not fail: %+v", a)
	}
	if !strings.Contains(a.Feedback, "[REDACTED]") || strings.Contains(a.Feedback, key[:14]) {
		t.Errorf("feedback:\n%s", a.Feedback)
	}
}

// TestConfirmAlone: each FAIL_TO_PASS test is run alone on the same tree; one that fails
// alone stays (with its message), one that passes alone goes to OnlyWithOthers, one without
// a verdict alone to NotRun; too few left rejects the validation.
func TestConfirmAlone(t *testing.T) {
	alone := map[string]task.Outcome{"a": task.Fail, "b": task.Pass, "c": task.NotRun, "d": task.Error}
	var mu sync.Mutex
	ran := map[string]int{}
	r := task.RunnerFunc(func(ctx context.Context, req task.RunRequest) (*task.Report, error) {
		if len(req.Select.IDs) != 1 || req.Overlay == nil {
			t.Errorf("run of %v (overlay %v): want one id on the corrupted tree", req.Select.IDs, req.Overlay)
			return &task.Report{State: task.RunOK}, nil
		}
		id := req.Select.IDs[0]
		mu.Lock()
		ran[id]++
		mu.Unlock()
		res := task.TestResult{ID: id, Outcome: alone[id]}
		if res.Outcome == task.NotRun {
			res.Message = "not run: its test binary ended before it ran\n(first run: …)"
		}
		return &task.Report{State: task.RunOK, Tests: []task.TestResult{res}}, nil
	})
	req := task.RunRequest{Kind: task.Pytest, Overlay: task.Overlay{}}
	req.Overlay.Set("x.py", []byte("x = 1\n"))
	newV := func() *Validation {
		return &Validation{FailToPass: []string{"a", "b", "c", "d"}, Messages: []string{"ma", "mb", "mc", "md"}, Observed: []string{"oa", "ob", "oc", "od"},
			NotRun: []string{"e"}, NotRunWhy: []string{"why e"}, Accepted: true, State: task.RunOK}
	}
	v := newV()
	if err := confirmAlone(context.Background(), r, req, v, 2, 3, 0); err != nil {
		t.Fatal(err)
	}
	// The recorded failures are those alone (here a plain failure and an error, with no
	// output to name more), the observed output that of the suite.
	if !reflect.DeepEqual(v.FailToPass, []string{"a", "d"}) || !reflect.DeepEqual(v.Messages, []string{"fail", "error"}) || !reflect.DeepEqual(v.Observed, []string{"oa", "od"}) {
		t.Errorf("kept %v %v %v", v.FailToPass, v.Messages, v.Observed)
	}
	if !reflect.DeepEqual(v.OnlyWithOthers, []string{"b"}) || !reflect.DeepEqual(v.NotRun, []string{"c", "e"}) || !v.Accepted {
		t.Errorf("only with others %v, not run %v, accepted %v", v.OnlyWithOthers, v.NotRun, v.Accepted)
	}
	// The reasons stay beside their tests through the sort: c's is the first line of its run alone.
	if want := []string{"alone: not run: its test binary ended before it ran", "why e"}; !reflect.DeepEqual(v.NotRunWhy, want) {
		t.Errorf("not run why %q, want %q", v.NotRunWhy, want)
	}
	if len(ran) != 4 || ran["a"] != 1 {
		t.Errorf("runs %v: want each test once", ran)
	}
	v = newV()
	if err := confirmAlone(context.Background(), r, req, v, 3, 1, 0); err != nil {
		t.Fatal(err)
	}
	if v.Accepted || v.Reason != "2 test(s) fail alone, want at least 3 (1 fail only when run with others)" {
		t.Errorf("accepted %v, reason %q", v.Accepted, v.Reason)
	}
	// A test the runner already re-ran alone and saw fail (task.TestResult.Alone, noted by
	// Validate) is not run again; "b", which passes alone, would have left FAIL_TO_PASS.
	clear(ran)
	v = newV()
	v.failedAlone = map[string]bool{"b": true}
	if err := confirmAlone(context.Background(), r, req, v, 2, 2, 0); err != nil {
		t.Fatal(err)
	}
	if ran["b"] != 0 || len(ran) != 3 || !reflect.DeepEqual(v.FailToPass, []string{"a", "b", "d"}) {
		t.Errorf("runs %v, kept %v: want b kept without a run", ran, v.FailToPass)
	}
	if !reflect.DeepEqual(v.Messages, []string{"fail", "mb", "error"}) {
		t.Errorf("messages %v: want b's from the runner's run alone, the others' from confirmAlone's", v.Messages)
	}
}

// Validate notes which failures the runner observed in a re-run of the test alone.
func TestValidateNotesFailedAlone(t *testing.T) {
	r := task.RunnerFunc(func(context.Context, task.RunRequest) (*task.Report, error) {
		return &task.Report{State: task.RunOK, Tests: []task.TestResult{
			{ID: "a", Outcome: task.Fail, Alone: true}, {ID: "b", Outcome: task.Fail}, {ID: "c", Outcome: task.Pass, Alone: true}}}, nil
	})
	v, err := Validate(context.Background(), r, task.RunRequest{Kind: task.Pytest}, Baseline{Passing: []string{"a", "b", "c"}}, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(v.failedAlone, map[string]bool{"a": true}) || !reflect.DeepEqual(v.FailToPass, []string{"a", "b"}) {
		t.Errorf("failed alone %v, FAIL_TO_PASS %v", v.failedAlone, v.FailToPass)
	}
}

// TestConfirmRepeat: repeated runs of the suite (task.WithRepeat 1 and 2) that reproduce
// every verdict keep the candidate as it was; one that does not rejects it, naming the tests;
// one that could not run rejects it too.
func TestConfirmRepeat(t *testing.T) {
	again := map[string]task.Outcome{"a": task.Fail, "b": task.Fail, "c": task.Fail, "p": task.Pass, "q": task.Pass}
	flipFirst := map[string]bool{}
	state := task.RunOK
	repeats := 0
	r := task.RunnerFunc(func(ctx context.Context, req task.RunRequest) (*task.Report, error) {
		repeats++
		if n := task.RepeatOf(ctx); n != 1+(repeats-1)%confirmRuns {
			t.Errorf("run %d is repeat %d", repeats, n)
		}
		rep := &task.Report{State: state}
		for id, o := range again {
			if task.RepeatOf(ctx) == 1 && flipFirst[id] {
				// The first repeat agrees; only the second does not.
				o = map[bool]task.Outcome{true: task.Fail, false: task.Pass}[id <= "c"]
			}
			rep.Tests = append(rep.Tests, task.TestResult{ID: id, Outcome: o})
		}
		rep.Sort() // as every runner's report
		return rep, nil
	})
	newV := func() *Validation {
		return &Validation{FailToPass: []string{"a", "b", "c"}, Messages: []string{"ma", "mb", "mc"},
			PassToPass: []string{"p", "q"}, Accepted: true, State: task.RunOK}
	}
	v := newV()
	if err := confirmRepeat(context.Background(), r, task.RunRequest{Kind: task.GoTest}, v, 0); err != nil {
		t.Fatal(err)
	}
	if want := newV(); !reflect.DeepEqual(v, want) {
		t.Errorf("a repeat with the same verdicts changed the validation: %+v", v)
	}
	again["b"], again["c"], again["q"] = task.Pass, task.NotRun, task.Fail
	flipFirst["b"], flipFirst["c"], flipFirst["q"] = true, true, true
	v = newV()
	if err := confirmRepeat(context.Background(), r, task.RunRequest{Kind: task.GoTest}, v, 0); err != nil {
		t.Fatal(err)
	}
	if v.Accepted || !reflect.DeepEqual(v.Unstable, []string{"b", "c", "q"}) ||
		v.Reason != "3 test(s) got another verdict in a repeated run of the suite (b, c, q): on the corrupted tree their verdicts depend on map order, scheduling or timing" {
		t.Errorf("accepted %v, unstable %v, reason %q", v.Accepted, v.Unstable, v.Reason)
	}
	state = task.RunTimeout
	v = newV()
	if err := confirmRepeat(context.Background(), r, task.RunRequest{Kind: task.GoTest}, v, 0); err != nil {
		t.Fatal(err)
	}
	if v.Accepted || v.State != task.RunTimeout || !strings.Contains(v.Reason, "timed out") {
		t.Errorf("a repeat that timed out: accepted %v, state %s, reason %q", v.Accepted, v.State, v.Reason)
	}
	// Two repeats each time, but one when the first could not run.
	if repeats != 2*confirmRuns+1 {
		t.Errorf("%d repeats, want %d", repeats, 2*confirmRuns+1)
	}
}

// TestConfirmSlowRunsRetry: a confirming run (a repeat of the suite, a test alone) that hits
// the corrupted runs' limit runs once more at the retry limit, as the first validation does,
// so a loaded machine neither rejects a kept corruption nor records a timeout as its failure.
// Without a longer retry limit the timeout stands.
func TestConfirmSlowRunsRetry(t *testing.T) {
	const limit, retry = 10 * time.Second, time.Minute
	var mu sync.Mutex
	var limits []time.Duration
	// Runs at the first limit are slow: the suite times out, a test alone gets the timeout
	// outcome; at the retry limit they end as on an idle machine.
	r := task.RunnerFunc(func(ctx context.Context, req task.RunRequest) (*task.Report, error) {
		mu.Lock()
		limits = append(limits, req.Limits.Timeout)
		mu.Unlock()
		slow := req.Limits.Timeout < retry
		if ids := req.Select.IDs; len(ids) == 1 {
			res := task.TestResult{ID: ids[0], Outcome: task.Fail}
			if slow {
				res.Outcome, res.Message = task.Timeout, "timeout: still running at the run's limit"
			}
			return &task.Report{State: task.RunOK, Tests: []task.TestResult{res}}, nil
		}
		if slow {
			return &task.Report{State: task.RunTimeout}, nil
		}
		return &task.Report{State: task.RunOK, Tests: []task.TestResult{{ID: "a", Outcome: task.Fail}, {ID: "p", Outcome: task.Pass}}}, nil
	})
	req := task.RunRequest{Kind: task.Pytest, Limits: task.Limits{Timeout: limit}}
	newV := func() *Validation {
		return &Validation{FailToPass: []string{"a"}, Messages: []string{"m"}, PassToPass: []string{"p"}, Accepted: true, State: task.RunOK}
	}

	v := newV()
	if err := confirmRepeat(context.Background(), r, req, v, retry); err != nil {
		t.Fatal(err)
	}
	if !v.Accepted || v.Reason != "" {
		t.Errorf("repeats slow at the first limit: accepted %v, reason %q", v.Accepted, v.Reason)
	}
	if want := []time.Duration{limit, retry, limit, retry}; !reflect.DeepEqual(limits, want) {
		t.Errorf("repeat limits %v, want %v", limits, want)
	}
	limits = nil
	if err := confirmAlone(context.Background(), r, req, v, 1, 1, retry); err != nil {
		t.Fatal(err)
	}
	// The recorded failure is the retry's (a plain failure; the report holds no output to
	// name more), not the timeout of the slow run.
	if !reflect.DeepEqual(v.FailToPass, []string{"a"}) || !reflect.DeepEqual(v.Messages, []string{"fail"}) {
		t.Errorf("alone: kept %v with %v, want a with the failure of the retry", v.FailToPass, v.Messages)
	}
	if want := []time.Duration{limit, retry}; !reflect.DeepEqual(limits, want) {
		t.Errorf("alone limits %v, want %v", limits, want)
	}

	// No longer limit: the first verdicts stand.
	v = newV()
	if err := confirmRepeat(context.Background(), r, req, v, limit); err != nil {
		t.Fatal(err)
	}
	if v.Accepted || v.State != task.RunTimeout {
		t.Errorf("without a retry limit: accepted %v, state %s", v.Accepted, v.State)
	}
}
