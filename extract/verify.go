package extract

import (
	"context"
	"fmt"
	"slices"

	"github.com/faultline-dev/faultline/task"
)

// DefaultMaxF2PPassRate is the highest F2P pass rate a masked repository may keep (spec:
// 0.3, inclusive).
const DefaultMaxF2PPassRate = 0.3

// PassRate returns passed / (passed + failed + error) over the tests of rep (skips and
// tests without a verdict, task.NotRun, do not count; a timeout counts as failed), and the
// denominator. It is the post-verification's
// measure of how much of the F2P file still passes on the masked code.
func PassRate(rep *task.Report) (float64, int) {
	passed, total := 0, 0
	for _, t := range rep.Tests {
		switch {
		case t.Outcome.Passed():
			passed++
			total++
		case t.Outcome.Failed():
			total++
		}
	}
	if total == 0 {
		return 0, 0
	}
	return float64(passed) / float64(total), total
}

// VerifyRequest describes one candidate instance to verify: the tree (Base.Root with
// Base.Overlay, the original code), the mask overlay on top of it, the F2P selection (a
// test file, or Go test ids) and one selection per P2P file.
type VerifyRequest struct {
	Base task.RunRequest
	Mask task.Overlay
	F2P  task.Selection
	P2P  []task.Selection
	// MaxPassRate is the highest F2P pass rate accepted on the masked code (0:
	// DefaultMaxF2PPassRate; a negative value means 0).
	MaxPassRate float64
	// F2PFile, when set, is deleted from the tree for the P2P runs on the masked code: an
	// instance starts without its F2P test file (the test patch restores it).
	F2PFile string
	// BuildFailureFails counts a masked F2P run whose build failed (task.RunBuildFailed) as
	// every F2P test failing instead of rejecting the candidate. Go needs it: a test file
	// that calls a removed function no longer compiles, which is how its tests fail. The
	// P2P runs, without the F2P file, still show that the masked package itself builds.
	BuildFailureFails bool
}

// Verification is the verdict on a candidate. Reason says why it was rejected (empty
// when accepted). The reports are those of the runs made, in the order F2P masked,
// P2P masked (one per file), F2P gold, P2P gold; a rejection stops at the first failed
// check.
type Verification struct {
	Accepted bool
	Reason   string
	// Cause is the kind of rejection, without the file or the numbers (e.g. "masked F2P
	// pass rate too high"), for counting rejections; empty when accepted.
	Cause       string
	F2PPassRate float64
	// F2PTests are the ids of the F2P tests on the original code that pass (the instance's
	// FAIL_TO_PASS); P2PTests those of the P2P files (PASS_TO_PASS). Sorted.
	F2PTests, P2PTests []string
	MaskedF2P          *task.Report
	MaskedP2P          []*task.Report
	GoldF2P            *task.Report
	GoldP2P            []*task.Report
}

// Verify runs the post-verification checks through r: on the masked code the F2P
// selection still runs (collects) and its pass rate is at most MaxPassRate (see
// BuildFailureFails; tests without a verdict do not count), and every P2P selection passes
// entirely (without F2PFile); on the original code (the gold patch reapplied) the F2P and
// P2P selections pass entirely. A run passes entirely when it ran, reported tests, none
// failed and every one got a verdict: a test that did not run is not a pass, so a run
// that leaves one without a verdict (task.NotRun) rejects the candidate, and
// FAIL_TO_PASS / PASS_TO_PASS only ever hold tests that ran and passed. A run whose
// evidence is untrusted (task.RunUntrusted) is not a run that ran. A rejected candidate comes back with Accepted false and
// the reason; the error is for a runner that could not be used.
func Verify(ctx context.Context, r task.Runner, vr VerifyRequest) (*Verification, error) {
	maxRate := vr.MaxPassRate
	if maxRate == 0 {
		maxRate = DefaultMaxF2PPassRate
	}
	if maxRate < 0 {
		maxRate = 0
	}
	masked := vr.Base.Overlay.Merge(vr.Mask)
	run := func(ov task.Overlay, sel task.Selection) (*task.Report, error) {
		req := vr.Base
		req.Overlay = ov
		req.Select = sel
		rep, err := r.Run(ctx, req)
		if err != nil {
			return nil, fmt.Errorf("extract: verify: %w", err)
		}
		return rep, nil
	}
	v := &Verification{}
	reject := func(cause, format string, a ...any) (*Verification, error) {
		v.Cause = cause
		v.Reason = fmt.Sprintf(format, a...)
		return v, nil
	}
	rep, err := run(masked, vr.F2P)
	if err != nil {
		return nil, err
	}
	v.MaskedF2P = rep
	switch {
	case rep.State == task.RunBuildFailed && vr.BuildFailureFails:
		v.F2PPassRate = 0
	case !rep.Ran():
		return reject("masked F2P does not run", "masked F2P %s does not run: %s: %s", selName(vr.F2P), rep.State, firstLine(rep.Detail))
	default:
		rate, n := PassRate(rep)
		v.F2PPassRate = rate
		if n == 0 {
			return reject("masked F2P reports no verdict", "masked F2P %s reports no passing or failing test", selName(vr.F2P))
		}
		if rate > maxRate {
			return reject("masked F2P pass rate too high", "masked F2P %s pass rate %.3f > %.3f", selName(vr.F2P), rate, maxRate)
		}
	}
	maskedP2P := masked
	if vr.F2PFile != "" {
		maskedP2P = masked.Clone()
		maskedP2P.Remove(vr.F2PFile)
	}
	for _, sel := range vr.P2P {
		rep, err := run(maskedP2P, sel)
		if err != nil {
			return nil, err
		}
		v.MaskedP2P = append(v.MaskedP2P, rep)
		if !passes(rep) {
			return reject("masked P2P fails", "masked P2P %s does not pass: %s", selName(sel), runSummary(rep))
		}
	}
	rep, err = run(vr.Base.Overlay, vr.F2P)
	if err != nil {
		return nil, err
	}
	v.GoldF2P = rep
	if !passes(rep) {
		return reject("gold F2P fails", "gold F2P %s does not pass: %s", selName(vr.F2P), runSummary(rep))
	}
	v.F2PTests = rep.Passing()
	for _, sel := range vr.P2P {
		rep, err := run(vr.Base.Overlay, sel)
		if err != nil {
			return nil, err
		}
		v.GoldP2P = append(v.GoldP2P, rep)
		if !passes(rep) {
			return reject("gold P2P fails", "gold P2P %s does not pass: %s", selName(sel), runSummary(rep))
		}
		v.P2PTests = append(v.P2PTests, rep.Passing()...)
	}
	slices.Sort(v.F2PTests)
	slices.Sort(v.P2PTests)
	v.P2PTests = slices.Compact(v.P2PTests)
	v.Accepted = true
	return v, nil
}

// passes reports whether rep passes entirely: the tests ran, at least one was reported,
// none failed and every one got a verdict (a selected test that did not run, task.NotRun,
// did not pass; task.Report.Green alone does not see it).
func passes(rep *task.Report) bool { return rep.Green() && len(rep.NotRun()) == 0 }

func selName(s task.Selection) string {
	switch {
	case len(s.Files) == 1 && len(s.IDs) == 0:
		return s.Files[0]
	case len(s.Files) == 0 && len(s.IDs) == 1:
		return s.IDs[0]
	case s.All():
		return "(all tests)"
	}
	return fmt.Sprintf("(%d files, %d ids)", len(s.Files), len(s.IDs))
}

func runSummary(rep *task.Report) string {
	if !rep.Ran() {
		return fmt.Sprintf("%s: %s", rep.State, firstLine(rep.Detail))
	}
	f := rep.Failing()
	if len(f) == 0 {
		if nr := rep.NotRun(); len(nr) > 0 {
			return fmt.Sprintf("%d test(s) got no verdict, first %s", len(nr), nr[0])
		}
		return "no test ran"
	}
	if to := rep.IDs(func(o task.Outcome) bool { return o == task.Timeout }); len(to) > 0 {
		return fmt.Sprintf("%d failing, %d over the per-test time limit, first %s", len(f), len(to), to[0])
	}
	return fmt.Sprintf("%d failing, first %s", len(f), f[0])
}
