package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/task"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBaselineFlaky(t *testing.T) {
	var n atomic.Int32
	r := task.RunnerFunc(func(ctx context.Context, req task.RunRequest) (*task.Report, error) {
		i := n.Add(1)
		flip := task.Pass
		if i%2 == 0 {
			flip = task.Fail
		}
		rep := &task.Report{State: task.RunOK, Wall: time.Duration(i) * time.Second, Tests: []task.TestResult{
			{ID: "a", Outcome: task.Pass}, {ID: "b", Outcome: task.Fail}, {ID: "c", Outcome: flip},
			{ID: "d", Outcome: task.Skip}, {ID: "e", Outcome: task.XFail},
		}}
		if i == 1 {
			rep.Tests = append(rep.Tests, task.TestResult{ID: "f", Outcome: task.Pass}) // missing later
		}
		return rep, nil
	})
	// Through a cache: Baseline must still run every time.
	c := NewCache(r, CacheOptions{})
	res, err := Baseline(context.Background(), c, task.RunRequest{Root: t.TempDir(), Kind: task.GoTest}, 3)
	require.NoError(t, err)
	assert.Equal(t, int32(3), n.Load())
	assert.Equal(t, []string{"a", "e"}, res.Passing)
	assert.Equal(t, []string{"b"}, res.Failing)
	assert.Equal(t, []string{"c", "f"}, res.Flaky)
	assert.Equal(t, 3*time.Second, res.Wall)
	assert.Len(t, res.Reports, 3)
}

// TestBaselineResumed: a program started again with the same on-disk cache (a new Cache in
// the same directory) gets the first start's baseline without running the tests, so a flaky
// test that a new sample would classify otherwise does not change its tasks; another
// directory observes the tests afresh.
func TestBaselineResumed(t *testing.T) {
	var n atomic.Int32
	r := task.RunnerFunc(func(ctx context.Context, req task.RunRequest) (*task.Report, error) {
		i := n.Add(1)
		c := task.Pass
		if i == 2 { // fails in the second run only: flaky in the first start, not later
			c = task.Fail
		}
		return &task.Report{State: task.RunOK, Wall: time.Duration(i) * time.Second,
			Tests: []task.TestResult{{ID: "a", Outcome: task.Pass}, {ID: "c", Outcome: c}}}, nil
	})
	req := task.RunRequest{Root: t.TempDir(), Kind: task.GoTest}
	dir := t.TempDir()
	first, err := Baseline(context.Background(), NewCache(r, CacheOptions{Dir: dir}), req, 2)
	require.NoError(t, err)
	require.Equal(t, int32(2), n.Load())
	assert.Equal(t, []string{"c"}, first.Flaky)

	again, err := Baseline(context.Background(), NewCache(r, CacheOptions{Dir: dir}), req, 2)
	require.NoError(t, err)
	assert.Equal(t, int32(2), n.Load(), "the resumed baseline ran the tests again")
	assert.Equal(t, first.Passing, again.Passing)
	assert.Equal(t, first.Flaky, again.Flaky)
	assert.Equal(t, first.Wall, again.Wall)

	fresh, err := Baseline(context.Background(), NewCache(r, CacheOptions{Dir: t.TempDir()}), req, 2)
	require.NoError(t, err)
	assert.Equal(t, int32(4), n.Load())
	assert.Empty(t, fresh.Flaky) // runs 3 and 4 both pass
	assert.Equal(t, []string{"a", "c"}, fresh.Passing)
}

func TestBaselineBroken(t *testing.T) {
	r := task.RunnerFunc(func(ctx context.Context, req task.RunRequest) (*task.Report, error) {
		return &task.Report{State: task.RunBuildFailed, Detail: "no"}, nil
	})
	res, err := Baseline(context.Background(), r, task.RunRequest{}, 0)
	assert.ErrorIs(t, err, ErrBaselineBroken)
	assert.Len(t, res.Reports, 1)
}

func TestBaselineRealFlakyPytest(t *testing.T) {
	needPytest(t)
	root := t.TempDir()
	// Each run gets a fresh copy, HOME and TMPDIR, so the flaky test flips a real coin.
	require.NoError(t, os.WriteFile(filepath.Join(root, "test_f.py"), []byte(
		"import os\n\ndef test_stable():\n    assert True\n\ndef test_random():\n    assert os.urandom(1)[0] % 2 == 0\n"), 0o644))
	l := local(t)
	res, err := Baseline(context.Background(), l, task.RunRequest{Root: root, Kind: task.Pytest}, 8)
	require.NoError(t, err)
	assert.Equal(t, []string{"test_f.py::test_stable"}, res.Passing)
	// 8 fair coin flips agree with probability 2/256.
	if len(res.Flaky) == 0 {
		t.Skip("the random test happened to agree in all runs")
	}
	assert.Equal(t, []string{"test_f.py::test_random"}, res.Flaky)
}

// TestBaselineHangingTest: a clean run stopped at its limit by one test that hangs names
// that test, not only the limit (python3-oslo.concurrency's eventlet tests hang outside
// faultline too, and "raise -timeout" alone sent the user the wrong way).
func TestBaselineHangingTest(t *testing.T) {
	needPytest(t)
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "test_h.py"), []byte(
		"import time\n\ndef test_ok():\n    assert True\n\ndef test_hang():\n    time.sleep(3600)\n"), 0o644))
	l := local(t)
	_, err := Baseline(context.Background(), l, task.RunRequest{Root: root, Kind: task.Pytest, Limits: task.Limits{Timeout: 3 * time.Second}}, 1)
	require.ErrorIs(t, err, ErrBaselineBroken)
	assert.Contains(t, err.Error(), "(did not finish: test_h.py::test_hang)")
	assert.NotContains(t, err.Error(), "test_ok")
	assert.Equal(t, "", unfinished(&task.Report{State: task.RunOK, Tests: []task.TestResult{{ID: "a", Outcome: task.Timeout}}}))
	many := &task.Report{State: task.RunTimeout}
	for _, id := range []string{"e", "d", "c", "b", "a"} {
		many.Tests = append(many.Tests, task.TestResult{ID: id, Outcome: task.Timeout})
	}
	assert.Equal(t, " (did not finish: a, b, c and 2 more)", unfinished(many))
}

func TestTimeoutRule(t *testing.T) {
	assert.Equal(t, 30*time.Second, TimeoutRule{}.For(10*time.Second))
	assert.Equal(t, 10*time.Minute, TimeoutRule{}.For(time.Hour))
	assert.Equal(t, 4*time.Second, TimeoutRule{Factor: 1.5, Constant: time.Second, Ceiling: time.Minute}.For(2*time.Second))
}

func TestFileOracle(t *testing.T) {
	var seen atomic.Value
	r := task.RunnerFunc(func(ctx context.Context, req task.RunRequest) (*task.Report, error) {
		prog := string(req.Overlay["lib.py"].Data)
		seen.Store(req.Overlay)
		switch prog {
		case "broken":
			return &task.Report{State: task.RunCollectionError}, nil
		case "empty":
			return &task.Report{State: task.RunOK}, nil
		case "good":
			return &task.Report{State: task.RunOK, Tests: []task.TestResult{{ID: "a", Outcome: task.Pass}, {ID: "b", Outcome: task.XFail}}}, nil
		}
		return &task.Report{State: task.RunOK, Tests: []task.TestResult{{ID: "a", Outcome: task.Pass}, {ID: "b", Outcome: task.Fail}}}, nil
	})
	base := task.Overlay{"other.py": {Data: []byte("x")}}
	o := FileOracle(r, task.RunRequest{Overlay: base}, "lib.py")
	ctx := context.Background()
	for prog, want := range map[string]bool{"broken": false, "empty": false, "good": true, "bad": false} {
		got, err := o.Passes(ctx, prog)
		require.NoError(t, err)
		assert.Equal(t, want, got, prog)
	}
	assert.Len(t, base, 1, "the request's overlay is not modified")
	assert.Len(t, seen.Load().(task.Overlay), 2)
	// With ids selected, only they must pass.
	o = FileOracle(r, task.RunRequest{Select: task.Selection{IDs: []string{"a"}}}, "lib.py")
	ok, err := o.Passes(ctx, "bad")
	require.NoError(t, err)
	assert.True(t, ok)
	o = FileOracle(r, task.RunRequest{Select: task.Selection{IDs: []string{"a", "missing"}}}, "lib.py")
	ok, _ = o.Passes(ctx, "good")
	assert.False(t, ok, "a selected test missing from the report did not pass")
}

// TestBaselineCause: a baseline that cannot run says why, even when the runner recorded no
// detail (it used to print "no_tests: :").
func TestBaselineCause(t *testing.T) {
	for _, c := range []struct {
		rep  task.Report
		want string
	}{
		{task.Report{State: task.RunNoTests}, "baseline run 1: no_tests: no test was collected or selected"},
		{task.Report{State: task.RunCollectionError, Detail: "ERROR collecting test_x.py\nImportError: boom\n"}, "baseline run 1: collection_error: ERROR collecting test_x.py\nImportError: boom: "},
	} {
		r := task.RunnerFunc(func(context.Context, task.RunRequest) (*task.Report, error) { rep := c.rep; return &rep, nil })
		_, err := Baseline(context.Background(), r, task.RunRequest{Root: t.TempDir(), Kind: task.Pytest}, 2)
		require.ErrorIs(t, err, ErrBaselineBroken)
		assert.Contains(t, err.Error(), c.want)
		assert.NotContains(t, err.Error(), ": :")
	}
}

func TestDeriveLimits(t *testing.T) {
	// No bound: clean runs get CleanLimit; a variant 2× + 10 s (at most 10 min), its retry
	// 4× + 1 min (at most CleanLimit).
	assert.Equal(t, DerivedLimits{Clean: 30 * time.Minute, Run: 50 * time.Second, Retry: 140 * time.Second}, DeriveLimits(20*time.Second, 0))
	assert.Equal(t, DerivedLimits{Clean: 30 * time.Minute, Run: 10 * time.Minute, Retry: 30 * time.Minute}, DeriveLimits(20*time.Minute, 0))
	// A bound caps every limit, and a retry is then not longer than the run.
	assert.Equal(t, DerivedLimits{Clean: 5 * time.Second, Run: 5 * time.Second, Retry: 5 * time.Second}, DeriveLimits(100*time.Millisecond, 5*time.Second))
	assert.Equal(t, DerivedLimits{Clean: time.Minute, Run: 30 * time.Second, Retry: time.Minute}, DeriveLimits(10*time.Second, time.Minute))
	assert.Equal(t, DerivedLimits{Clean: CleanLimit, Run: CleanLimit, Retry: CleanLimit}, CleanLimits(0))
}
