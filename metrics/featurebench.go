package metrics

import (
	"github.com/faultline-dev/faultline/task"
)

// FeatureBenchResult scores one repair attempt of a FeatureBench instance from its test runs.
//
// The definition (docs/featurebench.md, Evaluation, made exact here):
//
//   - A test case passes when its outcome is PASSED or XFAIL. An XPASS does not pass (the
//     behaviour is not what the test file specifies), nor does a failure, an error, a timeout,
//     a test that did not run (task.NotRun) or a case missing from the report.
//   - The F2P cases are the instance's FAIL_TO_PASS ids when given (each counts, reported or
//     not: a skipped or missing case did not pass); otherwise every case the F2P run
//     reported except the skipped ones.
//   - The pass rate is passing F2P cases / F2P cases (0 when there are none).
//   - A run is clean when it ran, exited with status 0, reported at least one test, and none of
//     its tests failed or went without a verdict — pytest's and go test's "exit 0".
//   - Resolved: the F2P run is clean, its pass rate is 1 over at least one case, and every P2P
//     run is clean. A file whose cases all skip is therefore not resolved (skipping is how an
//     unimplemented feature often shows, through pytest.importorskip).
type FeatureBenchResult struct {
	Resolved bool    `json:"resolved"`
	PassRate float64 `json:"pass_rate"`
	// Passed and Total are PassRate's numerator and denominator.
	Passed int `json:"passed"`
	Total  int `json:"total"`
	// P2PBroken lists the indices of the P2P runs that are not clean.
	P2PBroken []int `json:"p2p_broken,omitempty"`
}

// featurePasses is FeatureBench's passing outcome: PASSED or XFAIL.
func featurePasses(o task.Outcome) bool { return o == task.Pass || o == task.XFail }

// cleanRun reports a run that ran, exited 0, reported a test and has no failing or unrun test.
func cleanRun(rep *task.Report) bool {
	return rep != nil && rep.Ran() && rep.ExitCode == 0 && len(rep.Tests) > 0 && len(rep.Failing()) == 0 && len(rep.NotRun()) == 0
}

// FeatureBench scores an attempt (see FeatureBenchResult for the definition). f2p is the run of
// the F2P test file, f2pIDs the instance's FAIL_TO_PASS ids (nil: every reported case but the
// skipped ones), p2p one run per P2P file. A nil or broken run counts as not clean.
func FeatureBench(f2p *task.Report, f2pIDs []string, p2p []*task.Report) FeatureBenchResult {
	var r FeatureBenchResult
	ran := f2p != nil && f2p.Ran()
	switch {
	case len(f2pIDs) > 0:
		r.Total = len(f2pIDs)
		for _, id := range f2pIDs {
			if !ran {
				break
			}
			if t, ok := f2p.Result(id); ok && featurePasses(t.Outcome) {
				r.Passed++
			}
		}
	case ran:
		for _, t := range f2p.Tests {
			if t.Outcome == task.Skip {
				continue
			}
			r.Total++
			if featurePasses(t.Outcome) {
				r.Passed++
			}
		}
	}
	if r.Total > 0 {
		r.PassRate = float64(r.Passed) / float64(r.Total)
	}
	r.Resolved = cleanRun(f2p) && r.Total > 0 && r.Passed == r.Total
	for i, rep := range p2p {
		if !cleanRun(rep) {
			r.P2PBroken = append(r.P2PBroken, i)
			r.Resolved = false
		}
	}
	return r
}
