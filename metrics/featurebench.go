package metrics

import (
	"github.com/faultline-dev/faultline/task"
)

// FeatureBenchResult scores one FeatureBench instance from its test runs
// (spec/featurebench.md §Evaluation).
type FeatureBenchResult struct {
	// Resolved: the F2P file's run ran and exited 0 with no failing test, and so did every
	// P2P file's run.
	Resolved bool `json:"resolved"`
	// PassRate is the fraction of F2P test cases that passed (PASSED or XFAIL), over the
	// expected F2P cases when given (a missing case did not pass), else over the cases the
	// run reported. A run that did not execute has pass rate 0.
	PassRate float64 `json:"pass_rate"`
	// Passed and Total are PassRate's numerator and denominator.
	Passed int `json:"passed"`
	Total  int `json:"total"`
	// P2PBroken lists the indices of P2P runs that did not pass.
	P2PBroken []int `json:"p2p_broken,omitempty"`
}

// FeatureBench computes resolved and pass rate. f2pIDs, when non-empty, lists the F2P test
// cases expected (the instance's FAIL_TO_PASS); p2p holds one report per P2P file.
//
// FeatureBench counts PASSED and XFAIL as passing; an XPASS is counted as not passing (it
// is neither), unlike task.Outcome.Passed, which follows pytest's non-strict XPASS.
func FeatureBench(f2p *task.Report, f2pIDs []string, p2p []*task.Report) FeatureBenchResult {
	var r FeatureBenchResult
	passes := func(o task.Outcome) bool { return o == task.Pass || o == task.XFail }
	clean := func(rep *task.Report) bool {
		return rep.Ran() && rep.ExitCode == 0 && len(rep.Failing()) == 0 && len(rep.Tests) > 0
	}
	if f2p != nil && f2p.Ran() {
		if len(f2pIDs) > 0 {
			r.Total = len(f2pIDs)
			for _, id := range f2pIDs {
				if t, ok := f2p.Result(id); ok && passes(t.Outcome) {
					r.Passed++
				}
			}
		} else {
			r.Total = len(f2p.Tests)
			for _, t := range f2p.Tests {
				if passes(t.Outcome) {
					r.Passed++
				}
			}
		}
	} else {
		r.Total = len(f2pIDs)
	}
	if r.Total > 0 {
		r.PassRate = float64(r.Passed) / float64(r.Total)
	}
	r.Resolved = f2p != nil && clean(f2p) && (len(f2pIDs) == 0 || r.Passed == r.Total)
	for i, rep := range p2p {
		if rep == nil || !clean(rep) {
			r.P2PBroken = append(r.P2PBroken, i)
			r.Resolved = false
		}
	}
	return r
}
