package metrics

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/task"
)

// benchInputs builds seeded tasks on a 200-line program: k ∈ {1..4} single-line bugs, and
// four kinds of prediction per task — the exact fix, the fix plus a harmless edit on the
// next line (wrap + essential search), a wrong fix, and a fix rewriting two lines.
func benchInputs(seed int64, tasks int) ([]Input, task.Oracle) {
	rng := rand.New(rand.NewSource(seed))
	const n = 200
	fixed := make([]string, n)
	fixed[0] = "def f(x):"
	for i := 1; i < n-1; i++ {
		fixed[i] = fmt.Sprintf("    v%d = x + %d", i, i)
	}
	fixed[n-1] = "    return x"
	oracle := task.OracleFunc(func(_ context.Context, p string) (bool, error) {
		return !strings.Contains(p, " - "), nil // a bug is a '+' turned into '-'
	})
	var ins []Input
	for t := 0; t < tasks; t++ {
		k := 1 + t%4
		lines := rng.Perm(n - 2)[:k]
		buggy := append([]string(nil), fixed...)
		for _, l := range lines {
			buggy[l+1] = strings.Replace(fixed[l+1], " + ", " - ", 1)
		}
		gt := task.DiffLines(strings.Join(buggy, "\n"), strings.Join(fixed, "\n"))
		for kind := 0; kind < 4; kind++ {
			pred := append([]string(nil), fixed...)
			for _, l := range lines {
				switch kind {
				case 1:
					pred[l+2] += "  # checked"
				case 2:
					pred[l+1] = strings.Replace(fixed[l+1], " + ", " * ", 1)
				case 3:
					pred[l+1] = strings.Replace(fixed[l+1], " + ", " +  ", 1)
					pred[l] += "  # see below"
				}
			}
			ins = append(ins, Input{TaskID: fmt.Sprintf("t%d-%d", t, kind), Buggy: strings.Join(buggy, "\n"), GT: gt, Prediction: strings.Join(pred, "\n")})
		}
	}
	return ins, oracle
}

type counting struct {
	o task.Oracle
	n atomic.Int64
}

func (c *counting) Passes(ctx context.Context, p string) (bool, error) {
	c.n.Add(1)
	return c.o.Passes(ctx, p)
}

// BenchmarkOracleCalls compares the oracle calls per scored example of Score (cache +
// de-duplication) with the naive evaluator (one call per candidate program) on the same
// inputs, reported as calls/example metrics, and measures scoring throughput with an
// in-process oracle.
//
//	go test -run '^$' -bench OracleCalls ./metrics
func BenchmarkOracleCalls(b *testing.B) {
	ins, o := benchInputs(1, 40)
	for _, c := range []struct {
		name string
		opts Options
	}{{"cached", Options{Jobs: 1}}, {"naive", Options{Jobs: 1, noCache: true}}} {
		b.Run(c.name, func(b *testing.B) {
			co := &counting{o: o}
			scored := 0
			for b.Loop() {
				for _, in := range ins {
					if _, err := Score(context.Background(), in, co, c.opts); err != nil {
						b.Fatal(err)
					}
					scored++
				}
			}
			b.ReportMetric(float64(co.n.Load())/float64(scored), "calls/example")
			b.ReportMetric(float64(scored)/b.Elapsed().Seconds(), "examples/s")
		})
	}
}

// TestCachedNeverCostsMore pins the benchmark's claim on its inputs: the cached scorer
// gives the same scores with fewer oracle calls than the naive one.
func TestCachedNeverCostsMore(t *testing.T) {
	ins, o := benchInputs(2, 12)
	cached, naive := 0, 0
	for _, in := range ins {
		a := mustScore(t, in, o, Options{})
		b := mustScore(t, in, o, Options{noCache: true})
		if a.Precision != b.Precision || a.Recall != b.Recall || a.Unit != b.Unit {
			t.Fatalf("%s: cached %+v naive %+v", in.TaskID, a, b)
		}
		if a.OracleCalls > b.OracleCalls {
			t.Fatalf("%s: cached %d > naive %d calls", in.TaskID, a.OracleCalls, b.OracleCalls)
		}
		cached += a.OracleCalls
		naive += b.OracleCalls
	}
	if cached >= naive {
		t.Errorf("cached %d calls, naive %d: no saving", cached, naive)
	}
}

// BenchmarkSlowOracle scores the same inputs with an oracle that sleeps 1ms per call (a
// stand-in for a test suite): the cached scorer with 4 concurrent calls against the naive
// sequential one. Compare the examples/s metrics.
//
//	go test -run '^$' -bench SlowOracle ./metrics
func BenchmarkSlowOracle(b *testing.B) {
	ins, o := benchInputs(3, 10)
	slow := task.OracleFunc(func(ctx context.Context, p string) (bool, error) {
		time.Sleep(time.Millisecond)
		return o.Passes(ctx, p)
	})
	for _, c := range []struct {
		name string
		opts Options
	}{{"cached-jobs4", Options{Jobs: 4}}, {"naive", Options{noCache: true}}} {
		b.Run(c.name, func(b *testing.B) {
			scored := 0
			for b.Loop() {
				for _, in := range ins {
					if _, err := Score(context.Background(), in, slow, c.opts); err != nil {
						b.Fatal(err)
					}
					scored++
				}
			}
			b.ReportMetric(float64(scored)/b.Elapsed().Seconds(), "examples/s")
		})
	}
}
