package extract

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/faultline-dev/faultline/sandbox"
	"github.com/faultline-dev/faultline/task"
)

// fixtureCopy copies testdata/<dir> to a fresh temporary root.
func fixtureCopy(t *testing.T, dir string) string {
	t.Helper()
	src, err := filepath.Abs(filepath.Join("testdata", dir))
	require.NoError(t, err)
	root := filepath.Join(t.TempDir(), "repo")
	copyTree(t, src, root)
	return root
}

// TestTestTimeoutPytest: a test that sleeps 300 s without using CPU (and swallows every
// Exception) is stopped by the wall-clock backstop (WallBackstop × the limit) and reported
// as timed out; the other test of the file passes.
func TestTestTimeoutPytest(t *testing.T) {
	t.Parallel()
	py := pythonWithPytest(t)
	root := fixtureCopy(t, "timeout/py")
	limit := 500 * time.Millisecond
	r := WithTestTimeout(closed(t, sandbox.NewLocal(sandbox.Options{WorkDir: t.TempDir(), Python: py})), limit)
	start := time.Now()
	rep, err := r.Run(context.Background(), task.RunRequest{Root: root, Kind: task.Pytest,
		Select: task.Selection{Files: []string{"tests/test_slow.py"}}})
	require.NoError(t, err)
	took := time.Since(start)
	t.Logf("run took %s (per-test limit %s, the test sleeps 300s)", took.Round(time.Millisecond), limit)
	require.Equal(t, task.RunOK, rep.State, rep.Output)
	fast, ok := rep.Result("tests/test_slow.py::test_fast")
	require.True(t, ok)
	require.Equal(t, task.Pass, fast.Outcome)
	slow, ok := rep.Result("tests/test_slow.py::test_sleeps")
	require.True(t, ok, rep.Output)
	require.Equal(t, task.Timeout, slow.Outcome, slow.Message)
	require.Contains(t, slow.Message, timeoutMarker+" of 0.5s (5s of wall-clock time)")
	require.GreaterOrEqual(t, took, WallBackstop*limit, "stopped before the backstop")
	require.False(t, rep.Green())
	// The repository's tree is not touched by the plugin.
	require.NoFileExists(t, filepath.Join(root, TimeoutModule+".py"))
}

// TestTestTimeoutPytestCPU: a test that spins on the CPU is stopped when it has used the
// per-test limit of CPU time, and reported as timed out.
func TestTestTimeoutPytestCPU(t *testing.T) {
	t.Parallel()
	py := pythonWithPytest(t)
	root := fixtureCopy(t, "timeout/busy")
	r := WithTestTimeout(closed(t, sandbox.NewLocal(sandbox.Options{WorkDir: t.TempDir(), Python: py})), time.Second)
	rep, err := r.Run(context.Background(), task.RunRequest{Root: root, Kind: task.Pytest,
		Select: task.Selection{Files: []string{"tests/test_busy.py"}}})
	require.NoError(t, err)
	require.Equal(t, task.RunOK, rep.State, rep.Output)
	busy, ok := rep.Result("tests/test_busy.py::test_busy")
	require.True(t, ok, rep.Output)
	require.Equal(t, task.Timeout, busy.Outcome, busy.Message)
	require.Contains(t, busy.Message, timeoutMarker+" of 1s (CPU time)")
	quick, ok := rep.Result("tests/test_busy.py::test_quick")
	require.True(t, ok)
	require.Equal(t, task.Pass, quick.Outcome)
}

// TestTestTimeoutGo: a run of one Go test that sleeps 30 s ends at the per-test limit
// with the test timed out.
func TestTestTimeoutGo(t *testing.T) {
	t.Parallel()
	root := fixtureCopy(t, "timeout/go")
	r := WithTestTimeout(closed(t, sandbox.NewLocal(sandbox.Options{WorkDir: t.TempDir(), Env: []string{"GOFLAGS=-mod=mod", "GOPROXY=off"}})), DefaultTestTimeout)
	start := time.Now()
	rep, err := r.Run(context.Background(), task.RunRequest{Root: root, Kind: task.GoTest,
		Select: task.Selection{IDs: []string{"example.com/slow.TestSleep"}}})
	require.NoError(t, err)
	t.Logf("run took %s (per-test limit %s, the test sleeps 30s)", time.Since(start).Round(time.Millisecond), DefaultTestTimeout)
	require.Equal(t, task.RunOK, rep.State, rep.Detail)
	slow, ok := rep.Result("example.com/slow.TestSleep")
	require.True(t, ok, rep.Output)
	require.Equal(t, task.Timeout, slow.Outcome, slow.Message)
	require.Contains(t, rep.Detail+slow.Message, "test timed out after 10s")
}

// TestTestTimeoutRequest checks what WithTestTimeout adds to each kind of run.
func TestTestTimeoutRequest(t *testing.T) {
	py := testTimeoutRequest(task.RunRequest{Kind: task.Pytest, Args: []string{"-x"}}, 2500*time.Millisecond)
	require.Equal(t, []string{"-p", TimeoutModule, "--faultline-test-timeout=2.5", "-x"}, py.Args)
	require.Equal(t, PytestTimeoutPlugin(), py.Overlay[TimeoutModule+".py"].Data)

	ids := []string{"gopkg.in/yaml.v3.TestA", "gopkg.in/yaml.v3.TestB", "gopkg.in/yaml.v3.TestB/sub.x"}
	for _, tc := range []struct {
		name string
		req  task.RunRequest
		want []string
	}{
		{"two top-level tests", task.RunRequest{Kind: task.GoTest, Select: task.Selection{IDs: ids}, Args: []string{"-v"}},
			[]string{"-timeout=20s", "-v"}},
		{"capped by the run limit", task.RunRequest{Kind: task.GoTest, Select: task.Selection{IDs: ids},
			Limits: task.Limits{Timeout: 20 * time.Second}}, nil},
		{"default run limit", task.RunRequest{Kind: task.GoTest, Select: task.Selection{IDs: ids[:1]},
			Limits: task.Limits{}}, []string{"-timeout=10s"}},
		{"packages, not ids", task.RunRequest{Kind: task.GoTest, Select: task.Selection{Files: []string{"."}}}, nil},
		{"everything", task.RunRequest{Kind: task.GoTest}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := testTimeoutRequest(tc.req, 10*time.Second)
			require.Equal(t, tc.want, got.Args)
			require.Nil(t, got.Overlay)
		})
	}
	require.True(t, isSubtestID("gopkg.in/yaml.v3.TestB/sub.x"))
	require.False(t, isSubtestID("gopkg.in/yaml.v3.TestB"))
	require.False(t, isSubtestID("example.com/m/v2.ExampleFoo"))
	require.False(t, isSubtestID("example.com/x.Testpkg/y.TestA"))
	require.True(t, isSubtestID("example.com/x.Testpkg/y.TestA/case"))
}

// TestMarkTimeouts: Go top-level tests over the limit become timeouts, subtests and fast
// tests keep their outcome, and the runner's report is not changed in place.
func TestMarkTimeouts(t *testing.T) {
	rep := &task.Report{State: task.RunOK, Tests: []task.TestResult{
		{ID: "m.TestFast", Outcome: task.Pass, Duration: time.Second},
		{ID: "m.TestSlow", Outcome: task.Pass, Duration: 12 * time.Second},
		{ID: "m.TestSlow/sub", Outcome: task.Pass, Duration: 11 * time.Second},
		{ID: "m.TestSkip", Outcome: task.Skip, Duration: 20 * time.Second},
	}}
	inner := task.RunnerFunc(func(context.Context, task.RunRequest) (*task.Report, error) { return rep, nil })
	got, err := WithTestTimeout(inner, 10*time.Second).Run(context.Background(), task.RunRequest{Kind: task.GoTest})
	require.NoError(t, err)
	var outcomes []string
	for _, tr := range got.Tests {
		outcomes = append(outcomes, tr.ID+"="+string(tr.Outcome))
	}
	require.Equal(t, []string{"m.TestFast=pass", "m.TestSlow=timeout", "m.TestSlow/sub=pass", "m.TestSkip=skip"}, outcomes)
	require.True(t, strings.HasPrefix(got.Tests[1].Message, timeoutMarker+" of 10s (ran 12s)"))
	require.Equal(t, task.Pass, rep.Tests[1].Outcome, "the runner's report was changed")
	require.Contains(t, runSummary(got), "1 over the per-test time limit, first m.TestSlow")

	// pytest: only failures carrying the plugin's message are timeouts.
	py := &task.Report{State: task.RunOK, Tests: []task.TestResult{
		{ID: "t.py::a", Outcome: task.Fail, Message: "Failed: " + timeoutMarker + " of 10s"},
		{ID: "t.py::b", Outcome: task.Fail, Message: "assert 1 == 2"},
		{ID: "t.py::c", Outcome: task.Pass, Duration: time.Minute},
	}}
	got = markTimeouts(py, task.Pytest, 10*time.Second)
	require.Equal(t, task.Timeout, got.Tests[0].Outcome)
	require.Equal(t, task.Fail, got.Tests[1].Outcome)
	require.Equal(t, task.Pass, got.Tests[2].Outcome)

	// Off: the runner is returned as it is; a Lister stays a Lister.
	_, wrapped := WithTestTimeout(inner, 0).(*timeoutRunner)
	require.False(t, wrapped)
	_, isLister := WithTestTimeout(inner, time.Second).(task.Lister)
	require.False(t, isLister)
	local := sandbox.NewLocal(sandbox.Options{WorkDir: t.TempDir()})
	defer local.Close()
	_, isLister = WithTestTimeout(local, time.Second).(task.Lister)
	require.True(t, isLister)
}

// TestPipelineTestTimeout: a test file with a test that sleeps 300 s does not hold the
// pipeline: with a 1 s per-test limit its trace run reports the test timed out (at the
// 10 s wall-clock backstop) and the file is rejected with that reason.
func TestPipelineTestTimeout(t *testing.T) {
	t.Parallel()
	py := pythonWithPytest(t)
	root := fixtureCopy(t, "timeout/py")
	r := sandbox.NewLocal(sandbox.Options{WorkDir: t.TempDir(), Python: py})
	defer r.Close()
	start := time.Now()
	res, err := Pipeline(context.Background(), r, root, Options{Seed: 1, TestTimeout: 500 * time.Millisecond})
	require.NoError(t, err)
	t.Logf("pipeline took %s", time.Since(start).Round(time.Millisecond))
	reasons := map[string]string{}
	for _, it := range res.Items {
		reasons[it.TestFile] = it.Reason
	}
	require.Equal(t, "the test file does not pass on the original code: 1 failing, 1 over the per-test time limit, first tests/test_slow.py::test_sleeps",
		reasons["tests/test_slow.py"])
	// test_calc.py has nothing left to be a P2P file.
	require.Contains(t, reasons["tests/test_calc.py"], "no pass-to-pass files")
}

// closed closes l when t ends, so that its slots do not outlive the test.
func closed(t *testing.T, l *sandbox.Local) *sandbox.Local {
	t.Cleanup(func() { l.Close() })
	return l
}

// TestPipelineTracedSlowness: a test that stays under the per-test limit without the tracer
// but goes over it traced (the tracer sees every call) is not a failure on the original
// code: the file is judged by an untraced run. A test over the limit without the tracer is
// still one.
func TestPipelineTracedSlowness(t *testing.T) {
	py := pythonWithPytest(t)
	root := t.TempDir()
	write := func(rel, src string) { writeFile(t, root, rel, src) }
	write("pkg/__init__.py", "")
	write("pkg/calc.py", "def inc(x):\n    return x + 1\n\n\ndef twice(x):\n    return 2 * x\n\n\ndef spin(n):\n    t = 0\n    for i in range(n):\n        t += i\n    return t\n")
	write("tests/__init__.py", "")
	// inc is called 2,000,000 times: about 0.2 s without the tracer, over the limit with it.
	write("tests/test_calls.py", "from pkg.calc import inc\n\n\ndef test_many_calls():\n    x = 0\n    for _ in range(2000000):\n        x = inc(x)\n    assert x == 2000000\n\n\ndef test_one():\n    assert inc(1) == 2\n")
	// spin uses CPU in one frame: about as long with the tracer as without, over the limit.
	write("tests/test_spin.py", "from pkg.calc import spin\n\n\ndef test_spin():\n    assert spin(60000000) > 0\n\n\ndef test_small():\n    assert spin(3) == 3\n")
	write("tests/test_twice.py", "from pkg.calc import twice\n\n\ndef test_twice():\n    assert twice(2) == 4\n")
	r := closed(t, sandbox.NewLocal(sandbox.Options{WorkDir: t.TempDir(), Python: py}))
	res, err := Pipeline(context.Background(), r, root, Options{Seed: 1, TestTimeout: 500 * time.Millisecond})
	require.NoError(t, err)
	reasons := map[string]string{}
	for _, it := range res.Items {
		reasons[it.TestFile] = it.Reason
	}
	require.Contains(t, reasons, "tests/test_calls.py")
	require.NotContains(t, reasons["tests/test_calls.py"], "does not pass on the original code", "a test slow only under the tracer: %v", reasons)
	require.Contains(t, reasons["tests/test_spin.py"], "1 over the per-test time limit, first tests/test_spin.py::test_spin", "%v", reasons)
}
