package corrupt

import (
	"context"
	"errors"
	"testing"

	"github.com/faultline-dev/faultline/task"
)

// Hard mode keeps only the hard set and lowers the REMOVE failure threshold to 2.
func TestGenerateHardMode(t *testing.T) {
	ctx := context.Background()
	g, c := sampleGraph(t)
	ids := []string{"t.A", "t.B", "t.C", "t.D", "t.E"}
	twoFail := task.RunnerFunc(func(context.Context, task.RunRequest) (*task.Report, error) {
		rep := &task.Report{State: task.RunOK}
		for i, id := range ids {
			o := task.Pass
			if i < 2 {
				o = task.Fail
			}
			rep.Tests = append(rep.Tests, task.TestResult{ID: id, Outcome: o})
		}
		return rep, nil
	})
	req := task.RunRequest{Kind: task.GoTest}
	sel := SelectOptions{Hard: true, MinCodeLines: 1, MinDegree: 1, Percentile: 50}
	hard := map[string]bool{}
	for _, cand := range Select(g, c, sel) {
		hard[cand.Node.ID] = true
	}
	if len(hard) == 0 || len(hard) == len(Select(g, c, SelectOptions{MinCodeLines: 1})) {
		t.Fatalf("%d functions in the hard set: the test needs a proper subset", len(hard))
	}
	res, err := Generate(ctx, "../examples/sample", g, c, twoFail, Baseline{Passing: ids}, Options{N: 100, Run: req, Select: sel})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) == 0 {
		t.Fatal("no hard task")
	}
	for _, x := range res {
		if !hard[x.Functions[0].ID] {
			t.Errorf("%s is not in the hard set", x.Functions[0].ID)
		}
		if len(x.Validation.FailToPass) != 2 {
			t.Errorf("%s: %d failing tests", x.Functions[0].ID, len(x.Validation.FailToPass))
		}
	}
	sel.Hard = false
	_, err = Generate(ctx, "../examples/sample", g, c, twoFail, Baseline{Passing: ids}, Options{N: 100, Run: req, Select: sel})
	if !errors.Is(err, ErrNoCandidates) {
		t.Errorf("two failures outside hard mode: err = %v, want a rejection (REMOVE needs 5)", err)
	}
}
