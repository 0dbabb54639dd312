package metrics

import (
	"sort"

	"github.com/faultline-dev/faultline/internal/numeric"
)

// Stat is a mean with its standard error (sample standard deviation with ddof = 1 over
// √N; 0 when N < 2).
type Stat struct {
	Mean float64 `json:"mean"`
	SE   float64 `json:"se"`
	N    int     `json:"n"`
}

// Aggregate holds one Stat per metric.
type Aggregate struct {
	Precision Stat `json:"precision"`
	Recall    Stat `json:"recall"`
	F1        Stat `json:"f1"`
	Unit      Stat `json:"unit"`
}

// Group is the macro aggregate of the tasks with one bug count.
type Group struct {
	BugCount int       `json:"bug_count"`
	Tasks    int       `json:"tasks"`
	Metrics  Aggregate `json:"metrics"`
}

// Summary aggregates per-task results.
//
// Macro averages over tasks (what the released evaluator reports). Micro is the paper's
// "micro-average over bug counts": the mean within each bug count k (ByBugCount), then the
// unweighted mean of those per-k means; its SE is taken over the per-k means. Results with
// an Error are left out of every average and counted in Errors.
type Summary struct {
	Tasks       int       `json:"tasks"`
	Errors      int       `json:"errors"`
	OracleCalls int       `json:"oracle_calls"`
	Macro       Aggregate `json:"macro"`
	Micro       Aggregate `json:"micro"`
	ByBugCount  []Group   `json:"by_bug_count"`
}

// MeanStdErr returns the mean of xs and its standard error with ddof = 1 (scipy.stats.sem).
func MeanStdErr(xs []float64) Stat {
	m, se := numeric.MeanStdErr(xs)
	return Stat{Mean: m, SE: se, N: len(xs)}
}

func aggregate(rs []Result) Aggregate {
	var p, r, f, u []float64
	for _, x := range rs {
		p = append(p, x.Precision)
		r = append(r, x.Recall)
		f = append(f, x.F1)
		u = append(u, x.Unit)
	}
	return Aggregate{Precision: MeanStdErr(p), Recall: MeanStdErr(r), F1: MeanStdErr(f), Unit: MeanStdErr(u)}
}

// Summarize computes the macro and micro aggregates of results.
func Summarize(results []Result) Summary {
	s := Summary{Tasks: len(results)}
	var ok []Result
	byK := make(map[int][]Result)
	for _, r := range results {
		s.OracleCalls += r.OracleCalls
		if r.Error != "" {
			s.Errors++
			continue
		}
		ok = append(ok, r)
		byK[r.BugCount] = append(byK[r.BugCount], r)
	}
	s.Macro = aggregate(ok)
	ks := make([]int, 0, len(byK))
	for k := range byK {
		ks = append(ks, k)
	}
	sort.Ints(ks)
	var mp, mr, mf, mu []float64
	for _, k := range ks {
		a := aggregate(byK[k])
		s.ByBugCount = append(s.ByBugCount, Group{BugCount: k, Tasks: len(byK[k]), Metrics: a})
		mp = append(mp, a.Precision.Mean)
		mr = append(mr, a.Recall.Mean)
		mf = append(mf, a.F1.Mean)
		mu = append(mu, a.Unit.Mean)
	}
	s.Micro = Aggregate{Precision: MeanStdErr(mp), Recall: MeanStdErr(mr), F1: MeanStdErr(mf), Unit: MeanStdErr(mu)}
	return s
}
