package metrics

import (
	"context"
	"hash/fnv"
	"testing"

	"github.com/faultline-dev/faultline/task"
)

// FuzzScore checks invariants of Score on arbitrary programs with a deterministic oracle
// (a program passes iff its FNV hash is even, or it is the fixed program): no panic,
// scores within [0, 1], F1 consistent, matched blocks ≤ GT blocks, and a second scoring
// with the same cache gives the same numbers with no oracle call.
func FuzzScore(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nB\nc\n", "a\nB\nc\n")
	f.Add("x = 1\ny = 2\nz = 3\n", "x = 1\ny = 3\nz = 3\nw = 0", "x = 2\ny = 3\n")
	f.Add("", "new\n", "new\n\n")
	f.Add("l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8", "l1\nL2\nl3\nl4\nl5\nL6\nl7\nl8", "l1\nL2\nl3\nX\nl5\nl6\nL7\nl8")
	f.Add("a\r\nb\r\n", "a\r\nc\r\n", "\n\n")
	f.Fuzz(func(t *testing.T, buggy, fixed, pred string) {
		if len(buggy)+len(fixed)+len(pred) > 4000 {
			return
		}
		gt := task.DiffLines(buggy, fixed)
		if len(gt) == 0 {
			return
		}
		want := task.Normalize(fixed)
		o := task.OracleFunc(func(_ context.Context, p string) (bool, error) {
			h := fnv.New32a()
			h.Write([]byte(p))
			return p == want || h.Sum32()%2 == 0, nil
		})
		for _, mode := range []Mode{Paper, Reference} {
			c := NewCache()
			in := Input{TaskID: "f", Buggy: buggy, GT: gt, Prediction: pred}
			r, err := Score(context.Background(), in, o, Options{Mode: mode, Cache: c})
			if err != nil {
				t.Fatalf("%v: %v", mode, err)
			}
			for _, v := range []float64{r.Precision, r.Recall, r.F1, r.Unit} {
				if v < 0 || v > 1 {
					t.Fatalf("%v: score out of range: %+v", mode, r)
				}
			}
			if r.MatchedBlocks > r.GTBlocks || !near(r.F1, f1(r.Precision, r.Recall)) {
				t.Fatalf("%v: inconsistent %+v", mode, r)
			}
			r2, _ := Score(context.Background(), in, o, Options{Mode: mode, Cache: c})
			if r2.OracleCalls != 0 || r2.Precision != r.Precision || r2.Recall != r.Recall || r2.Unit != r.Unit {
				t.Fatalf("%v: rescoring %+v vs %+v", mode, r2, r)
			}
		}
	})
}
