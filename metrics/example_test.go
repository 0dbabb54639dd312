package metrics_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/faultline-dev/faultline/metrics"
	"github.com/faultline-dev/faultline/task"
)

func Example() {
	fixed := "def area(w, h):\n    s = w * h\n    return s\n"
	buggy := "def area(w, h):\n    s = w + h\n    return s\n"
	// The debugger fixed the bug and also touched the return line.
	prediction := "def area(w, h):\n    s = w * h\n    return (s)\n"

	// An in-process oracle: the "tests" pass iff the product is computed and returned.
	oracle := task.OracleFunc(func(_ context.Context, program string) (bool, error) {
		return strings.Contains(program, "s = w * h") && strings.Contains(program, "return"), nil
	})
	in := metrics.Input{TaskID: "area", Buggy: buggy, GT: task.DiffLines(buggy, fixed), Prediction: prediction}
	r, err := metrics.Score(context.Background(), in, oracle, metrics.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("precision %.2f recall %.2f f1 %.2f unit %.0f\n", r.Precision, r.Recall, r.F1, r.Unit)
	fmt.Printf("predicted edits %d, oracle calls %d\n", r.PredEdits, r.OracleCalls)
	for _, m := range r.Matches {
		fmt.Printf("%s match of lines %d-%d: passed %v, tolerance %d\n", m.Kind, m.PredStart, m.PredEnd, m.Passed, m.Tolerance)
	}
	// Output:
	// precision 0.50 recall 1.00 f1 0.67 unit 1
	// predicted edits 2, oracle calls 3
	// wrap match of lines 2-3: passed true, tolerance 0
}
