package corrupt

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"sort"

	"github.com/faultline-dev/faultline/task"
)

// Recheck re-verifies a task record from its patches alone, as a user of the task would:
// the corruption patch applied to the clean repository at req.Root must make every
// FAIL_TO_PASS test run and fail and every PASS_TO_PASS test run and pass (run with r; a
// test without a verdict is neither), and the gold patch applied on top must restore every
// file byte for byte and make every FAIL_TO_PASS and PASS_TO_PASS test pass (run with
// gold; nil means r). req supplies Root, Kind, Limits and Args. The repository is only
// read. The error says which check failed.
func Recheck(ctx context.Context, r, gold task.Runner, req task.RunRequest, p task.BreakpointProblem) error {
	if gold == nil {
		gold = r
	}
	cp, err := task.ParsePatch([]byte(p.CorruptionPatch))
	if err != nil {
		return fmt.Errorf("corrupt: recheck %s: corruption patch: %w", p.ID, err)
	}
	clean := task.DirReader(req.Root)
	corrupted, err := cp.Apply(clean)
	if err != nil {
		return fmt.Errorf("corrupt: recheck %s: corruption patch does not apply: %w", p.ID, err)
	}
	q := req
	q.Overlay = corrupted
	rep, err := r.Run(ctx, q)
	if err != nil {
		return fmt.Errorf("corrupt: recheck %s: %w", p.ID, err)
	}
	if !rep.Ran() {
		return fmt.Errorf("corrupt: recheck %s: the tests of the corrupted tree did not run (%s)", p.ID, rep.State)
	}
	for _, id := range p.FailToPass {
		if t, ok := rep.Result(id); !ok || !t.Outcome.Failed() {
			return fmt.Errorf("corrupt: recheck %s: FAIL_TO_PASS test %s does not fail on the corrupted tree (%s)", p.ID, id, outcomeOf(t, ok))
		}
	}
	for _, id := range p.PassToPass {
		if t, ok := rep.Result(id); !ok || !t.Outcome.Passed() {
			return fmt.Errorf("corrupt: recheck %s: PASS_TO_PASS test %s does not pass on the corrupted tree (%s)", p.ID, id, outcomeOf(t, ok))
		}
	}
	gp, err := task.ParsePatch([]byte(p.GoldPatch))
	if err != nil {
		return fmt.Errorf("corrupt: recheck %s: gold patch: %w", p.ID, err)
	}
	restored, err := gp.Apply(func(path string) ([]byte, error) {
		if ch, ok := corrupted[path]; ok {
			return ch.Data, nil
		}
		return clean(path)
	})
	if err != nil {
		return fmt.Errorf("corrupt: recheck %s: gold patch does not apply to the corrupted tree: %w", p.ID, err)
	}
	for _, path := range restored.Paths() {
		full, err := task.SafeJoin(req.Root, path)
		if err != nil {
			return fmt.Errorf("corrupt: recheck %s: %w", p.ID, err)
		}
		orig, _ := os.ReadFile(full)
		if !bytes.Equal(orig, restored[path].Data) {
			return fmt.Errorf("corrupt: recheck %s: the gold patch does not restore %s", p.ID, path)
		}
	}
	q.Overlay = restored
	rep, err = gold.Run(ctx, q)
	if err != nil {
		return fmt.Errorf("corrupt: recheck %s: %w", p.ID, err)
	}
	all := append(append([]string(nil), p.FailToPass...), p.PassToPass...)
	sort.Strings(all)
	if !rep.AllPassed(all) {
		return fmt.Errorf("corrupt: recheck %s: tests fail after the gold patch (run state %s)", p.ID, rep.State)
	}
	return nil
}

// outcomeOf names a test's outcome in a report ("missing" when it has none).
func outcomeOf(t task.TestResult, ok bool) string {
	if !ok {
		return "missing from the report"
	}
	return string(t.Outcome)
}
