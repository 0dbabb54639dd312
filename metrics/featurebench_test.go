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

func TestFeatureBenchCounts(t *testing.T) {
	cases := []struct {
		name     string
		f2p      *task.Report
		ids      []string
		p2p      []*task.Report
		resolved bool
		rate     float64
	}{
		{"all pass", rep(0, task.Pass, task.Pass, task.XFail), nil, []*task.Report{rep(0, task.Pass)}, true, 1},
		{"xpass is not a pass", rep(0, task.Pass, task.XPass), nil, nil, true, 0.5},
		{"one failure", rep(1, task.Pass, task.Fail, task.Pass, task.Error), nil, nil, false, 0.5},
		{"missing expected case", rep(0, task.Pass), []string{"a", "zz"}, nil, false, 0.5},
		{"broken P2P", rep(0, task.Pass), nil, []*task.Report{rep(0, task.Pass), rep(1, task.Fail)}, false, 1},
		{"F2P did not run", &task.Report{State: task.RunCollectionError, ExitCode: 2}, []string{"a", "b"}, nil, false, 0},
		{"skips only", rep(0, task.Skip), nil, nil, true, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := FeatureBench(c.f2p, c.ids, c.p2p)
			if got.Resolved != c.resolved || got.PassRate != c.rate {
				t.Errorf("got %+v, want resolved %v rate %v", got, c.resolved, c.rate)
			}
		})
	}
	if got := FeatureBench(rep(0, task.Pass), nil, []*task.Report{rep(0, task.Pass), rep(1, task.Fail), nil}); len(got.P2PBroken) != 2 || got.P2PBroken[0] != 1 {
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
