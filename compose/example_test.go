package compose_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/faultline-dev/faultline/compose"
	"github.com/faultline-dev/faultline/task"
)

func Example() {
	program := strings.Join([]string{
		"def stats(xs):",
		"    n = len(xs)",
		"    total = 0",
		"    for x in xs:",
		"        total += x",
		"    mean = total / n",
		"    low = min(xs)",
		"    high = max(xs)",
		"    spread = high - low",
		"    return mean, spread",
	}, "\n")
	// An in-process oracle standing in for the tests: only the correct program passes.
	oracle := task.OracleFunc(func(_ context.Context, p string) (bool, error) {
		return p == task.Normalize(program), nil
	})
	res, err := compose.Generate(context.Background(), program, oracle, compose.Options{
		TaskID: "stats", Seed: 5, M1: 6, M3: 1, KMax: 2,
	})
	if err != nil {
		panic(err)
	}
	// Bugs are keyed by lines of the correct program, fixes by lines of the buggy one: the
	// deleted line 6 shifts the second bug's fix up to line 8.
	for _, ex := range res.Examples {
		fmt.Printf("%s: %d bug(s)\n", ex.TaskID, ex.BugCount)
		for _, b := range ex.Bugs {
			fmt.Printf("  line %d by %s\n", b.Start, b.Rule)
		}
		for _, e := range ex.GTDiff {
			text := e.Modified
			if e.Type == task.Delete {
				text = e.Original
			}
			fmt.Printf("  fix %s %s: %q\n", e.Key(), e.Type, strings.TrimSpace(text))
		}
	}
	// Output:
	// stats/k1/0: 1 bug(s)
	//   line 2 by duplicate-statement
	//   fix 2 delete: "n = len(xs)"
	// stats/k2/0: 2 bug(s)
	//   line 6 by delete-statement
	//   line 9 by swap-arithmetic
	//   fix 6 add: "mean = total / n"
	//   fix 8 modify: "spread = high - low"
}
