package metrics

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/faultline-dev/faultline/sandbox"
	"github.com/faultline-dev/faultline/task"
)

func rep(exit int, outcomes ...task.Outcome) *task.Report {
	r := &task.Report{State: task.RunOK, ExitCode: exit}
	for i, o := range outcomes {
		r.Tests = append(r.Tests, task.TestResult{ID: string(rune('a' + i)), Outcome: o})
	}
	return r
}

// TestFeatureBenchCounts works the definition by hand on small reports (ids a, b, c, ... in
// order): each case states the arithmetic.
func TestFeatureBenchCounts(t *testing.T) {
	notRun := &task.Report{State: task.RunOK, ExitCode: 2, Tests: []task.TestResult{{ID: "a", Outcome: task.Pass}, {ID: "b", Outcome: task.NotRun}}}
	cases := []struct {
		name     string
		f2p      *task.Report
		ids      []string
		p2p      []*task.Report
		resolved bool
		passed   int
		total    int
	}{
		// PASSED, PASSED, XFAIL all pass: 3/3; exit 0; the P2P run is clean.
		{"all pass", rep(0, task.Pass, task.Pass, task.XFail), nil, []*task.Report{rep(0, task.Pass)}, true, 3, 3},
		// XPASS is in the denominator but does not pass: 1/2, so not resolved although pytest exits 0.
		{"xpass is not a pass", rep(0, task.Pass, task.XPass), nil, nil, false, 1, 2},
		// Skipped cases are left out without ids: 1/1 and exit 0.
		{"skip without ids", rep(0, task.Pass, task.Skip), nil, nil, true, 1, 1},
		// With ids every listed case counts: b skipped → 1/2.
		{"skip with ids", rep(0, task.Pass, task.Skip), []string{"a", "b"}, nil, false, 1, 2},
		// Nothing but skips: 0 cases, rate 0, not resolved.
		{"skips only", rep(0, task.Skip), nil, nil, false, 0, 0},
		// FAILED and ERROR do not pass: 2/4; exit 1.
		{"one failure and an error", rep(1, task.Pass, task.Fail, task.Pass, task.Error), nil, nil, false, 2, 4},
		// An expected id missing from the report did not pass: 1/2.
		{"missing expected case", rep(0, task.Pass), []string{"a", "zz"}, nil, false, 1, 2},
		// F2P resolved on its own (1/1) but the second P2P run failed.
		{"broken P2P", rep(0, task.Pass), nil, []*task.Report{rep(0, task.Pass), rep(1, task.Fail)}, false, 1, 1},
		// A P2P run with a test that got no verdict is not clean.
		{"P2P not run", rep(0, task.Pass), nil, []*task.Report{notRun}, false, 1, 1},
		// An F2P test without a verdict counts in the denominator, not the numerator: 1/2.
		{"F2P not run", notRun, nil, nil, false, 1, 2},
		// The run did not execute: every expected case counts as not passed, 0/2.
		{"F2P did not run", &task.Report{State: task.RunCollectionError, ExitCode: 2}, []string{"a", "b"}, nil, false, 0, 2},
		// Exit status 0 is required even when every case passes (a teardown error elsewhere).
		{"non-zero exit", rep(1, task.Pass), nil, nil, false, 1, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := FeatureBench(c.f2p, c.ids, c.p2p)
			want := 0.0
			if c.total > 0 {
				want = float64(c.passed) / float64(c.total)
			}
			if got.Resolved != c.resolved || got.Passed != c.passed || got.Total != c.total || got.PassRate != want {
				t.Errorf("got %+v, want resolved %v, %d/%d", got, c.resolved, c.passed, c.total)
			}
		})
	}
	if got := FeatureBench(rep(0, task.Pass), nil, []*task.Report{rep(0, task.Pass), rep(1, task.Fail), nil}); len(got.P2PBroken) != 2 || got.P2PBroken[0] != 1 || got.P2PBroken[1] != 2 {
		t.Errorf("P2PBroken = %v", got.P2PBroken)
	}
}

// TestFeatureBenchOnPytest scores real pytest runs through the local runner: a file with
// passing, failing, xfail and xpass cases.
func TestFeatureBenchOnPytest(t *testing.T) {
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("no /usr/bin/python3")
	}
	root := t.TempDir()
	test := `import pytest

def test_ok():
    assert 1 + 1 == 2

def test_bad():
    assert 1 + 1 == 3

@pytest.mark.xfail
def test_expected_failure():
    assert False

@pytest.mark.xfail
def test_unexpected_pass():
    assert True
`
	if err := os.WriteFile(filepath.Join(root, "test_feature.py"), []byte(test), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "test_other.py"), []byte("def test_p2p():\n    assert True\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := sandbox.NewLocal(sandbox.Options{})
	defer r.Close()
	ctx := context.Background()
	f2p, err := r.Run(ctx, task.RunRequest{Root: root, Kind: task.Pytest, Select: task.Selection{Files: []string{"test_feature.py"}}})
	if err != nil {
		t.Fatal(err)
	}
	if !f2p.Ran() {
		t.Skipf("pytest did not run here: %s %s", f2p.State, f2p.Detail)
	}
	p2p, err := r.Run(ctx, task.RunRequest{Root: root, Kind: task.Pytest, Select: task.Selection{Files: []string{"test_other.py"}}})
	if err != nil {
		t.Fatal(err)
	}
	got := FeatureBench(f2p, nil, []*task.Report{p2p})
	// ok and expected_failure pass; bad fails; unexpected_pass (XPASS) is not counted.
	if got.Resolved || got.Passed != 2 || got.Total != 4 || got.PassRate != 0.5 || len(got.P2PBroken) != 0 {
		t.Errorf("got %+v", got)
	}
}
