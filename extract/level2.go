package extract

import (
	"context"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/faultline-dev/faultline/extract/artifact"
	"github.com/faultline-dev/faultline/metrics"
	"github.com/faultline-dev/faultline/task"
)

// Level2Request describes the Level 2 instance to verify (artifact.Environment, built by
// artifact.Build or artifact.Level2).
type Level2Request struct {
	Env *artifact.Environment
	// MaxPassRate is the highest F2P pass rate accepted without the solution (0:
	// DefaultMaxF2PPassRate; a negative value means 0).
	MaxPassRate float64
	// Limits and Args go to every run.
	Limits task.Limits
	Args   []string
	// TestTimeout is the per-test limit (default DefaultTestTimeout; negative: none), as
	// for Pipeline: the runs go through WithTestTimeout.
	TestTimeout time.Duration
	// WorkDir is where the starting tree is written for the runs (default os.TempDir());
	// the directory made there is removed afterwards.
	WorkDir string
}

// Level2Verification is the verdict on a Level 2 instance. Reason says why it was rejected
// (empty when accepted). Before is the F2P run on the starting tree with the tests, Gold
// the run with the solution added.
type Level2Verification struct {
	Accepted bool
	Reason   string
	// PassRate is the F2P pass rate without the solution (0 when the tests could not be
	// collected or built).
	PassRate float64
	// F2PTests are the ids that pass with the solution, sorted.
	F2PTests     []string
	Before, Gold *task.Report
}

// VerifyLevel2 checks a Level 2 instance through r. The tree starts as an empty directory
// holding Env.Start (written to a fresh directory under WorkDir: the repository is not
// involved). With the tests added, the F2P tests must fail: a pass rate of at most
// MaxPassRate, where a test file that cannot be collected or set up (pytest) or built
// (Go) counts as none passing. With the solution added too, every F2P test must pass, and the passing
// ids must be exactly Env.FailToPass. A rejected instance comes back with Accepted false
// and the reason; the error is for a runner that could not be used.
//
// There are no P2P checks: a Level 2 tree has no repository code that could regress.
func VerifyLevel2(ctx context.Context, r task.Runner, req Level2Request) (*Level2Verification, error) {
	env := req.Env
	if env == nil || len(env.Solution) == 0 || len(env.Tests) == 0 {
		return nil, fmt.Errorf("extract: level 2: an environment with tests and a solution is required")
	}
	maxRate := req.MaxPassRate
	if maxRate == 0 {
		maxRate = DefaultMaxF2PPassRate
	}
	if maxRate < 0 {
		maxRate = 0
	}
	run, cleanup, err := level2Tree(ctx, r, req)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	v := &Level2Verification{}
	reject := func(format string, a ...any) (*Level2Verification, error) {
		v.Reason = fmt.Sprintf(format, a...)
		return v, nil
	}
	rep, err := run(env.Tests)
	if err != nil {
		return nil, err
	}
	v.Before = rep
	switch {
	case rep.State == task.RunBuildFailed || rep.State == task.RunCollectionError || rep.State == task.RunSetupFailed:
		// The tests cannot import or build what is missing (a conftest.py importing the
		// package makes pytest fail before collecting: RunSetupFailed). The gold run below,
		// which differs only by the solution, shows the environment itself works.
		v.PassRate = 0
	case !rep.Ran():
		return reject("level 2: F2P %s without the solution does not run: %s: %s", env.TestFile, rep.State, firstLine(rep.Detail))
	default:
		rate, n := PassRate(rep)
		v.PassRate = rate
		if n == 0 {
			return reject("level 2: F2P %s without the solution reports no passing or failing test", env.TestFile)
		}
		if rate > maxRate {
			hint := ""
			if env.Kind == task.Pytest && env.To == "" {
				hint = " (is the package importable from the environment? rename it)"
			}
			return reject("level 2: F2P %s passes without the solution: pass rate %.3f > %.3f%s", env.TestFile, rate, maxRate, hint)
		}
	}
	rep, err = run(env.Tests.Merge(env.Solution))
	if err != nil {
		return nil, err
	}
	v.Gold = rep
	if !passes(rep) {
		return reject("level 2: gold F2P %s does not pass: %s", env.TestFile, runSummary(rep))
	}
	v.F2PTests = rep.Passing()
	slices.Sort(v.F2PTests)
	if len(env.FailToPass) > 0 && !slices.Equal(v.F2PTests, env.FailToPass) {
		return reject("level 2: gold F2P %s passes %d tests, the instance lists %d%s", env.TestFile, len(v.F2PTests),
			len(env.FailToPass), firstDifference(v.F2PTests, env.FailToPass))
	}
	v.Accepted = true
	return v, nil
}

// firstDifference names the first id in one sorted list and not the other.
func firstDifference(got, want []string) string {
	for _, id := range want {
		if _, ok := slices.BinarySearch(got, id); !ok {
			return " (missing " + id + ")"
		}
	}
	for _, id := range got {
		if _, ok := slices.BinarySearch(want, id); !ok {
			return " (unexpected " + id + ")"
		}
	}
	return ""
}

// ScoreLevel2 scores a Level 2 attempt: solution holds the files the agent wrote, relative
// to the Level 2 tree. The run starts from Env.Start, adds the solution and then the tests
// (the test files win over any file of the solution at their paths) and runs the F2P
// selection; the score is metrics.FeatureBench over Env.FailToPass with no P2P runs (a
// Level 2 instance has none). The report of the run is returned too; the error is for a
// runner that could not be used.
func ScoreLevel2(ctx context.Context, r task.Runner, req Level2Request, solution task.Overlay) (metrics.FeatureBenchResult, *task.Report, error) {
	env := req.Env
	if env == nil || len(env.Tests) == 0 {
		return metrics.FeatureBenchResult{}, nil, fmt.Errorf("extract: level 2: an environment with tests is required")
	}
	if err := solution.Validate(); err != nil {
		return metrics.FeatureBenchResult{}, nil, fmt.Errorf("extract: level 2: solution: %w", err)
	}
	run, cleanup, err := level2Tree(ctx, r, req)
	if err != nil {
		return metrics.FeatureBenchResult{}, nil, err
	}
	defer cleanup()
	rep, err := run(solution.Merge(env.Tests))
	if err != nil {
		return metrics.FeatureBenchResult{}, nil, err
	}
	return metrics.FeatureBench(rep, env.FailToPass, nil), rep, nil
}

// level2Tree writes req.Env.Start to a fresh directory under req.WorkDir. run runs the
// F2P selection there through r (with the per-test timeout) with an overlay; cleanup
// removes the directory.
func level2Tree(ctx context.Context, r task.Runner, req Level2Request) (run func(task.Overlay) (*task.Report, error), cleanup func(), err error) {
	perTest := req.TestTimeout
	if perTest == 0 {
		perTest = DefaultTestTimeout
	}
	r = WithTestTimeout(r, perTest)
	dir, err := os.MkdirTemp(req.WorkDir, "faultline-level2-")
	if err != nil {
		return nil, nil, fmt.Errorf("extract: level 2: %w", err)
	}
	cleanup = func() { os.RemoveAll(dir) }
	if err := req.Env.Start.WriteTo(dir); err != nil {
		cleanup()
		return nil, nil, fmt.Errorf("extract: level 2: %w", err)
	}
	env := req.Env
	run = func(ov task.Overlay) (*task.Report, error) {
		rep, err := r.Run(ctx, task.RunRequest{Root: dir, Overlay: ov, Kind: env.Kind, Select: env.Select,
			Limits: req.Limits, Args: slices.Clone(req.Args)})
		if err != nil {
			return nil, fmt.Errorf("extract: level 2: %w", err)
		}
		return rep, nil
	}
	return run, cleanup, nil
}
