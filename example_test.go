package faultline_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/faultline-dev/faultline/callgraph"
	"github.com/faultline-dev/faultline/callgraph/golang"
	"github.com/faultline-dev/faultline/corrupt"
	"github.com/faultline-dev/faultline/metrics"
	"github.com/faultline-dev/faultline/sandbox"
	"github.com/faultline-dev/faultline/task"
)

// Example walks the SDK end to end on the quickstart's sample repository: call graph and
// centrality, a clean baseline through the local runner, two validated Breakpoint REMOVE
// tasks, a solver's repair checked by rerunning the tests, and a PDB score of a one-line
// fix with an in-process oracle. The package doc shows the same steps.
func Example() {
	ctx := context.Background()
	repo, _ := filepath.Abs("examples/sample")

	g, _ := callgraph.Build(ctx, repo, []callgraph.Language{golang.New(golang.Options{})}, callgraph.BuildOptions{SkipTests: true})
	cent, _ := g.Centrality(ctx, callgraph.CentralityOptions{})

	// Cap each test run's memory: a corrupted function can loop allocating, and a run that
	// fails at 1 GiB fails the same way it would at the 8 GiB default, minutes sooner.
	runner := sandbox.NewLocal(sandbox.Options{Limits: task.Limits{MemoryBytes: 1 << 30}})
	defer runner.Close()
	req := task.RunRequest{Root: repo, Kind: task.GoTest}
	base, err := sandbox.Baseline(ctx, runner, req, 2)
	if err != nil {
		fmt.Println("baseline:", err)
		return
	}

	tasks, err := corrupt.Generate(ctx, repo, g, cent, runner,
		corrupt.Baseline{Passing: base.Passing, Failing: base.Failing, Flaky: base.Flaky},
		corrupt.Options{Mode: corrupt.Remove, N: 2, Seed: 1, Run: req})
	if err != nil || len(tasks) == 0 {
		fmt.Println(len(tasks), "tasks:", err)
		return
	}
	fmt.Println(len(tasks), "tasks; first:", tasks[0].Functions[0].ID)

	// A perfect solver applies the gold patch to the corrupted repository.
	gold, _ := task.ParsePatch([]byte(tasks[0].Gold))
	fixed, _ := gold.Apply(func(p string) ([]byte, error) { return tasks[0].Overlay[p].Data, nil })
	rep, _ := runner.Run(ctx, task.RunRequest{Root: repo, Kind: task.GoTest, Overlay: fixed})
	fmt.Println("repaired:", rep.AllPassed(tasks[0].Validation.FailToPass))

	// PDB: score a debugger's program against the ground-truth line edits.
	fixedProg := "def inc(x):\n    return x + 1\n"
	buggy := "def inc(x):\n    return x - 1\n"
	oracle := task.OracleFunc(func(_ context.Context, p string) (bool, error) { return strings.Contains(p, "x + 1"), nil })
	res, _ := metrics.Score(ctx, metrics.Input{TaskID: "inc", Buggy: buggy, GT: task.DiffLines(buggy, fixedProg), Prediction: fixedProg}, oracle, metrics.Options{})
	fmt.Printf("precision %.2f recall %.2f\n", res.Precision, res.Recall)
	// Output:
	// 2 tasks; first: ledger/balance.go::Filter
	// repaired: true
	// precision 1.00 recall 1.00
}
