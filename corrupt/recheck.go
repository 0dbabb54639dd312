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
// the corruption patch applied to the clean repository at req.Root must make some of
// FAIL_TO_PASS fail (run with r), and the gold patch applied on top must restore every
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
	if rep.AllPassed(p.FailToPass) {
		return fmt.Errorf("corrupt: recheck %s: the corruption no longer fails its tests", p.ID)
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
