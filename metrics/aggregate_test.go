package metrics

import (
	"math"
	"testing"
)

// Hand-computed aggregates: tasks with k = 1: precision 1, 0; k = 2: 0.5; one error.
// Macro precision: mean(1, 0, 0.5) = 0.5, SE = sd(1, 0, 0.5; ddof 1)/√3 = 0.5/√3.
// Micro: per-k means 0.5 (k=1) and 0.5 (k=2) → 0.5, SE 0.
func TestSummarize(t *testing.T) {
	rs := []Result{
		{TaskID: "a", BugCount: 1, Precision: 1, Recall: 1, F1: 1, Unit: 1, OracleCalls: 3},
		{TaskID: "b", BugCount: 1, Precision: 0, Recall: 0, F1: 0, Unit: 0, OracleCalls: 2},
		{TaskID: "c", BugCount: 2, Precision: 0.5, Recall: 0.5, F1: 0.5, Unit: 0, OracleCalls: 4},
		{TaskID: "d", BugCount: 2, Error: "metrics: oracle: boom", OracleCalls: 1},
	}
	s := Summarize(rs)
	if s.Tasks != 4 || s.Errors != 1 || s.OracleCalls != 10 {
		t.Errorf("counts %+v", s)
	}
	if !near(s.Macro.Precision.Mean, 0.5) || !near(s.Macro.Precision.SE, 0.5/math.Sqrt(3)) || s.Macro.Precision.N != 3 {
		t.Errorf("macro precision %+v", s.Macro.Precision)
	}
	if !near(s.Micro.Precision.Mean, 0.5) || s.Micro.Precision.SE != 0 || s.Micro.Precision.N != 2 {
		t.Errorf("micro precision %+v", s.Micro.Precision)
	}
	// Unit: macro mean(1,0,0) = 1/3; micro mean(0.5, 0) = 0.25, SE = sd(0.5, 0)/√2 = 0.25.
	if !near(s.Macro.Unit.Mean, 1.0/3) || !near(s.Micro.Unit.Mean, 0.25) || !near(s.Micro.Unit.SE, 0.25) {
		t.Errorf("unit macro %+v micro %+v", s.Macro.Unit, s.Micro.Unit)
	}
	if len(s.ByBugCount) != 2 || s.ByBugCount[0].BugCount != 1 || s.ByBugCount[0].Tasks != 2 || s.ByBugCount[1].Tasks != 1 {
		t.Errorf("groups %+v", s.ByBugCount)
	}
	if st := MeanStdErr(nil); st.N != 0 || st.Mean != 0 || st.SE != 0 {
		t.Errorf("empty %+v", st)
	}
}
