package extract

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/faultline-dev/faultline/extract/artifact"
	"github.com/faultline-dev/faultline/task"
)

func report(outcomes ...string) *task.Report {
	rep := &task.Report{State: task.RunOK}
	for i := 0; i+1 < len(outcomes); i += 2 {
		rep.Tests = append(rep.Tests, task.TestResult{ID: outcomes[i], Outcome: task.Outcome(outcomes[i+1])})
	}
	rep.Sort()
	return rep
}

func TestPassRate(t *testing.T) {
	r, n := PassRate(report("a", "pass", "b", "fail", "c", "error", "d", "skip", "e", "xfail", "f", "timeout"))
	require.Equal(t, 5, n)
	require.InDelta(t, 0.4, r, 1e-12)
	r, n = PassRate(report("a", "pass", "b", "not_run", "c", "not_run", "d", "fail"))
	require.Equal(t, 2, n)
	require.InDelta(t, 0.5, r, 1e-12)
	r, n = PassRate(report("a", "skip"))
	require.Zero(t, n)
	require.Zero(t, r)
}

// fakeRunner answers by (masked?, selection file) from a table.
func fakeRunner(table map[string]*task.Report, calls *[]string) task.Runner {
	return task.RunnerFunc(func(_ context.Context, req task.RunRequest) (*task.Report, error) {
		key := "gold:"
		if _, ok := req.Overlay["lib.py"]; ok {
			key = "masked:"
		}
		key += req.Select.Files[0]
		*calls = append(*calls, key)
		rep, ok := table[key]
		if !ok {
			return nil, errors.New("unexpected run " + key)
		}
		return rep, nil
	})
}

func TestVerify(t *testing.T) {
	base := task.RunRequest{Root: "/repo", Kind: task.Pytest}
	mask := task.Overlay{"lib.py": {Data: []byte("pass\n")}}
	vr := VerifyRequest{Base: base, Mask: mask, F2P: task.Selection{Files: []string{"t_f.py"}},
		P2P: []task.Selection{{Files: []string{"t_p.py"}}}}
	good := map[string]*task.Report{
		"masked:t_f.py": report("t_f.py::a", "fail", "t_f.py::b", "fail", "t_f.py::c", "pass", "t_f.py::d", "fail"),
		"masked:t_p.py": report("t_p.py::x", "pass"),
		"gold:t_f.py":   report("t_f.py::a", "pass", "t_f.py::b", "pass", "t_f.py::c", "pass", "t_f.py::d", "pass"),
		"gold:t_p.py":   report("t_p.py::x", "pass", "t_p.py::y", "skip"),
	}
	var calls []string
	v, err := Verify(context.Background(), fakeRunner(good, &calls), vr)
	require.NoError(t, err)
	require.True(t, v.Accepted, v.Reason)
	require.Equal(t, 0.25, v.F2PPassRate)
	require.Equal(t, []string{"t_f.py::a", "t_f.py::b", "t_f.py::c", "t_f.py::d"}, v.F2PTests)
	require.Equal(t, []string{"t_p.py::x"}, v.P2PTests)
	require.Equal(t, []string{"masked:t_f.py", "masked:t_p.py", "gold:t_f.py", "gold:t_p.py"}, calls)

	cases := map[string]struct {
		key    string
		rep    *task.Report
		reason string
	}{
		"too many pass": {"masked:t_f.py", report("t_f.py::a", "pass", "t_f.py::b", "fail"), "pass rate 0.500 > 0.300"},
		"no collect":    {"masked:t_f.py", &task.Report{State: task.RunCollectionError, Detail: "ImportError: cannot import name 'f'"}, "does not run: collection_error: ImportError"},
		"all skipped":   {"masked:t_f.py", report("t_f.py::a", "skip"), "no passing or failing test"},
		"p2p broken":    {"masked:t_p.py", report("t_p.py::x", "fail"), "masked P2P t_p.py does not pass: 1 failing"},
		"gold broken":   {"gold:t_f.py", report("t_f.py::a", "pass", "t_f.py::b", "error"), "gold F2P t_f.py does not pass"},
		"gold p2p":      {"gold:t_p.py", &task.Report{State: task.RunTimeout}, "gold P2P t_p.py does not pass: timeout"},
		// Tests without a verdict count neither way: on the masked code they leave the pass
		// rate to the tests that ran (none here), on the original code they are not passes.
		"masked unreached": {"masked:t_f.py", report("t_f.py::a", "not_run", "t_f.py::b", "not_run"), "no passing or failing test"},
		"gold unreached":   {"gold:t_f.py", report("t_f.py::a", "pass", "t_f.py::b", "not_run"), "gold F2P t_f.py does not pass: 1 test(s) got no verdict, first t_f.py::b"},
		"p2p unreached":    {"masked:t_p.py", report("t_p.py::x", "pass", "t_p.py::y", "not_run"), "masked P2P t_p.py does not pass: 1 test(s) got no verdict"},
		"untrusted":        {"masked:t_f.py", &task.Report{State: task.RunUntrusted, Tests: report("t_f.py::a", "fail").Tests}, "does not run: untrusted"},
		"gold untrusted":   {"gold:t_f.py", &task.Report{State: task.RunUntrusted, Tests: report("t_f.py::a", "pass").Tests}, "gold F2P t_f.py does not pass: untrusted"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			table := map[string]*task.Report{}
			for k, v := range good {
				table[k] = v
			}
			table[c.key] = c.rep
			var calls []string
			v, err := Verify(context.Background(), fakeRunner(table, &calls), vr)
			require.NoError(t, err)
			require.False(t, v.Accepted)
			require.Contains(t, v.Reason, c.reason)
		})
	}
	// The threshold is inclusive.
	table := map[string]*task.Report{}
	for k, v := range good {
		table[k] = v
	}
	table["masked:t_f.py"] = report("a", "pass", "b", "fail", "c", "fail", "d", "fail", "e", "fail", "f", "fail", "g", "fail", "h", "fail", "i", "fail", "j", "fail")
	vr.MaxPassRate = 0.1
	v, err = Verify(context.Background(), fakeRunner(table, &calls), vr)
	require.NoError(t, err)
	require.True(t, v.Accepted, v.Reason)
	// A runner error is an error.
	_, err = Verify(context.Background(), fakeRunner(map[string]*task.Report{}, &calls), vr)
	require.Error(t, err)
}

// TestScoreLevel2Definition scores Level 2 attempts through a runner that returns fixed
// reports. These cases used to lock in extract.ScoreRun's answers; that scorer disagreed with
// metrics.FeatureBench (an XPASS counted as a pass, so {pass, xpass} was resolved at rate 1)
// and was deleted (issue 17: one scorer). They now follow the single definition in
// metrics.FeatureBenchResult: PASSED and XFAIL pass, XPASS and a test without a verdict do
// not; without ids skipped cases are left out; resolved needs a clean run and rate 1 over
// at least one case.
func TestScoreLevel2Definition(t *testing.T) {
	env := &artifact.Environment{Kind: task.Pytest, Tests: task.Overlay{"t_f.py": {Data: []byte("def test_a(): pass\n")}},
		TestFile: "t_f.py", Select: task.Selection{Files: []string{"t_f.py"}}}
	cases := []struct {
		name           string
		rep            *task.Report
		ids            []string
		resolved       bool
		passed, total  int
		wantRateApprox float64
	}{
		// pass and xfail pass, fail does not, the skip is left out without ids: 2/3.
		{"skip left out", report("f::a", "pass", "f::b", "xfail", "f::c", "fail", "f::d", "skip"), nil, false, 2, 3, 2.0 / 3},
		// With ids the missing one counts as not passing: 2/3.
		{"missing id", report("f::a", "pass", "f::b", "xfail", "f::c", "fail", "f::d", "skip"), []string{"f::a", "f::b", "f::missing"}, false, 2, 3, 2.0 / 3},
		{"all pass", report("f::a", "pass", "f::b", "xfail"), []string{"f::a", "f::b"}, true, 2, 2, 1},
		// ScoreRun said resolved at 1.0 here; an XPASS is not the behaviour the test specifies.
		{"xpass does not pass", report("f::a", "pass", "f::b", "xpass"), []string{"f::a", "f::b"}, false, 1, 2, 0.5},
		// Without ids the skip is left out: 1/1 and resolved.
		{"skip without ids", report("f::a", "pass", "f::b", "skip"), nil, true, 1, 1, 1},
		// A test without a verdict is not a pass: not resolved, 1/2.
		{"not run", report("f::a", "pass", "f::b", "not_run"), []string{"f::a", "f::b"}, false, 1, 2, 0.5},
		// A run that did not run passes nothing: 0/2.
		{"collection error", &task.Report{State: task.RunCollectionError, Tests: report("f::a", "pass", "f::b", "pass").Tests}, []string{"f::a", "f::b"}, false, 0, 2, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := task.RunnerFunc(func(context.Context, task.RunRequest) (*task.Report, error) { return c.rep, nil })
			e := *env
			e.FailToPass = c.ids
			s, rep, err := ScoreLevel2(context.Background(), r, Level2Request{Env: &e, WorkDir: t.TempDir(), TestTimeout: -1}, nil)
			require.NoError(t, err)
			require.Same(t, c.rep, rep)
			require.Equal(t, c.resolved, s.Resolved, "%+v", s)
			require.Equal(t, c.passed, s.Passed)
			require.Equal(t, c.total, s.Total)
			require.InDelta(t, c.wantRateApprox, s.PassRate, 1e-12)
		})
	}
}

func TestVerifyGoBuildFailure(t *testing.T) {
	base := task.RunRequest{Root: "/repo", Kind: task.GoTest}
	mask := task.Overlay{"lib.py": {Data: []byte("x")}}
	vr := VerifyRequest{Base: base, Mask: mask, F2P: task.Selection{Files: []string{"a_test.go"}},
		P2P: []task.Selection{{Files: []string{"b_test.go"}}}, F2PFile: "a_test.go"}
	table := map[string]*task.Report{
		"masked:a_test.go": {State: task.RunBuildFailed, Detail: "a_test.go:5: undefined: Sum"},
		"masked:b_test.go": report("m.TestB", "pass"),
		"gold:a_test.go":   report("m.TestA", "pass"),
		"gold:b_test.go":   report("m.TestB", "pass"),
	}
	var seen []task.Overlay
	r := task.RunnerFunc(func(ctx context.Context, req task.RunRequest) (*task.Report, error) {
		seen = append(seen, req.Overlay)
		var calls []string
		return fakeRunner(table, &calls).Run(ctx, req)
	})
	v, err := Verify(context.Background(), r, vr)
	require.NoError(t, err)
	require.False(t, v.Accepted)
	require.Contains(t, v.Reason, "does not run: build_failed")

	vr.BuildFailureFails = true
	seen = nil
	v, err = Verify(context.Background(), r, vr)
	require.NoError(t, err)
	require.True(t, v.Accepted, v.Reason)
	require.Zero(t, v.F2PPassRate)
	// The masked P2P run had the F2P file deleted; the masked F2P run had it.
	require.Len(t, seen, 4)
	_, has := seen[0]["a_test.go"]
	require.False(t, has)
	require.True(t, seen[1]["a_test.go"].Delete)
	require.Equal(t, []byte("x"), seen[1]["lib.py"].Data)
	// The caller's overlay is not modified.
	require.Len(t, vr.Mask, 1)
}
