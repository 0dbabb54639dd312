package corrupt

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/task"
)

// TestRecheckDetects builds a one-file task and checks that each broken part of a record
// is reported: a corruption that fails nothing, a gold patch that does not restore the file,
// and tests that still fail after the gold patch.
func TestRecheckDetects(t *testing.T) {
	root := t.TempDir()
	orig := "package p\n\nfunc F() int { return 1 }\n"
	if err := os.WriteFile(filepath.Join(root, "p.go"), []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	corruptedSrc := strings.Replace(orig, "return 1", "return 2", 1)
	o := task.Overlay{}
	o.Set("p.go", []byte(corruptedSrc))
	patch, err := task.DiffOverlay(root, o, task.DiffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	good := task.BreakpointProblem{ID: "p", CorruptionPatch: string(patch.Format()), GoldPatch: string(patch.Reverse().Format()),
		FailToPass: task.TestList{"p.TestF"}, PassToPass: task.TestList{"p.TestG"}}
	// A fake runner: TestF passes iff F returns 1; TestG always passes.
	runner := task.RunnerFunc(func(_ context.Context, req task.RunRequest) (*task.Report, error) {
		src := orig
		if ch, ok := req.Overlay["p.go"]; ok {
			src = string(ch.Data)
		}
		f := task.Fail
		if strings.Contains(src, "return 1") {
			f = task.Pass
		}
		return &task.Report{State: task.RunOK, Tests: []task.TestResult{{ID: "p.TestF", Outcome: f}, {ID: "p.TestG", Outcome: task.Pass}}}, nil
	})
	req := task.RunRequest{Root: root, Kind: task.GoTest}
	ctx := context.Background()
	if err := Recheck(ctx, runner, nil, req, good); err != nil {
		t.Fatalf("a valid record: %v", err)
	}
	noFail := good
	noFail.FailToPass = task.TestList{"p.TestG"}
	if err := Recheck(ctx, runner, nil, req, noFail); err == nil || !strings.Contains(err.Error(), "p.TestG does not fail on the corrupted tree (pass)") {
		t.Errorf("a corruption that breaks nothing: err = %v", err)
	}
	// A FAIL_TO_PASS test the corrupted run did not reach (task.NotRun, or missing) is not
	// a failure: the record does not hold.
	for _, rep := range []*task.Report{
		{State: task.RunOK, Tests: []task.TestResult{{ID: "p.TestF", Outcome: task.NotRun}, {ID: "p.TestG", Outcome: task.Pass}}},
		{State: task.RunOK, Tests: []task.TestResult{{ID: "p.TestG", Outcome: task.Pass}}},
	} {
		unreached := task.RunnerFunc(func(context.Context, task.RunRequest) (*task.Report, error) { return rep, nil })
		if err := Recheck(ctx, unreached, runner, req, good); err == nil || !strings.Contains(err.Error(), "p.TestF does not fail") {
			t.Errorf("a FAIL_TO_PASS test without a verdict: err = %v", err)
		}
	}
	untrusted := task.RunnerFunc(func(context.Context, task.RunRequest) (*task.Report, error) {
		return &task.Report{State: task.RunUntrusted, Tests: []task.TestResult{{ID: "p.TestF", Outcome: task.Fail}, {ID: "p.TestG", Outcome: task.Pass}}}, nil
	})
	if err := Recheck(ctx, untrusted, runner, req, good); err == nil || !strings.Contains(err.Error(), "did not run (untrusted)") {
		t.Errorf("an untrusted corrupted run: err = %v", err)
	}
	wrongGold := good
	wrongGold.GoldPatch = strings.Replace(good.GoldPatch, "+func F() int { return 1 }", "+func F() int { return 3 }", 1)
	if err := Recheck(ctx, runner, nil, req, wrongGold); err == nil || !strings.Contains(err.Error(), "does not restore") {
		t.Errorf("a gold patch that does not restore: err = %v", err)
	}
	broken := task.RunnerFunc(func(context.Context, task.RunRequest) (*task.Report, error) {
		return &task.Report{State: task.RunBuildFailed}, nil
	})
	if err := Recheck(ctx, runner, broken, req, good); err == nil || !strings.Contains(err.Error(), "after the gold patch") {
		t.Errorf("tests failing after the gold patch: err = %v", err)
	}
	if after, _ := os.ReadFile(filepath.Join(root, "p.go")); string(after) != orig {
		t.Error("Recheck wrote the repository")
	}
}
