package corrupt

import (
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/faultline-dev/faultline/callgraph"
	"github.com/faultline-dev/faultline/callgraph/golang"
	"github.com/faultline-dev/faultline/stats"
)

func sampleGraph(t testing.TB) (*callgraph.Graph, *callgraph.Centrality) {
	t.Helper()
	ctx := context.Background()
	g, err := callgraph.Build(ctx, "../examples/sample", []callgraph.Language{golang.New(golang.Options{})}, callgraph.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := g.Centrality(ctx, callgraph.CentralityOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return g, c
}

func TestSelectSample(t *testing.T) {
	g, c := sampleGraph(t)
	all := Select(g, c, SelectOptions{})
	if len(all) < 8 {
		t.Fatalf("only %d candidates in the sample", len(all))
	}
	var logs, harm []float64
	for i, cand := range all {
		if callgraph.IsTestPath(cand.Node.File) {
			t.Errorf("%s: test file selected", cand.Node.ID)
		}
		if cand.CodeLines < 5 || cand.Degree < 1 {
			t.Errorf("%s: %d code lines, degree %d", cand.Node.ID, cand.CodeLines, cand.Degree)
		}
		if i > 0 && all[i-1].Node.ID >= cand.Node.ID {
			t.Errorf("not sorted by ID at %d", i)
		}
		if cand.Metrics["harmonic"] != cand.Harmonic {
			t.Errorf("%s: Metrics[harmonic] and Harmonic disagree", cand.Node.ID)
		}
		logs = append(logs, math.Log(float64(cand.CodeLines)+1))
		harm = append(harm, cand.Harmonic)
	}
	// The hard flag is the 90th-percentile rule over the same pool.
	lt, _ := stats.Percentile(logs, 90)
	ht, _ := stats.Percentile(harm, 90)
	hard := 0
	for i, cand := range all {
		want := logs[i] >= lt && harm[i] >= ht
		if cand.Hard != want {
			t.Errorf("%s: Hard = %v, want %v", cand.Node.ID, cand.Hard, want)
		}
		if want {
			hard++
		}
	}
	got := Select(g, c, SelectOptions{Hard: true, MinCodeLines: 5, MinDegree: 1})
	if len(got) != hard {
		t.Errorf("hard selection kept %d, want %d", len(got), hard)
	}
	compat := Select(g, c, SelectOptions{Compat: true})
	for _, cand := range compat {
		if cand.CodeLines != cand.Node.Metrics.CodeLines+1 {
			t.Errorf("%s: compat code lines %d, plain %d", cand.Node.ID, cand.CodeLines, cand.Node.Metrics.CodeLines)
		}
	}
}

// TestSelectAbsentMeasures: a measure the centrality did not compute is absent from the
// candidates' scores (a task record must not claim "pagerank": 0), and Select does not need it.
func TestSelectAbsentMeasures(t *testing.T) {
	g, _ := sampleGraph(t)
	c, err := g.Centrality(context.Background(), callgraph.CentralityOptions{Measures: callgraph.MeasureHarmonic})
	if err != nil {
		t.Fatal(err)
	}
	cands := Select(g, c, SelectOptions{})
	if len(cands) == 0 {
		t.Fatal("no candidates")
	}
	for _, cand := range cands {
		for _, gone := range []string{"pagerank", "betweenness"} {
			if v, ok := cand.Metrics[gone]; ok {
				t.Errorf("%s: %s = %v, want it absent", cand.Node.ID, gone, v)
			}
		}
		for _, kept := range []string{"harmonic", "distance_discount", "in_degree", "out_degree", "code_lines"} {
			if _, ok := cand.Metrics[kept]; !ok {
				t.Errorf("%s: %s missing", cand.Node.ID, kept)
			}
		}
	}
}

func TestGroupsWithinDistance(t *testing.T) {
	g, c := sampleGraph(t)
	cands := Select(g, c, SelectOptions{MinCodeLines: 1})
	for _, undirected := range []bool{false, true} {
		for _, k := range []int{2, 3} {
			opts := GroupOptions{K: k, Distance: 3, Undirected: undirected, N: 4}
			groups, err := Groups(g, cands, opts, rand.New(rand.NewPCG(3, 4)))
			if err != nil {
				t.Fatal(err)
			}
			if len(groups) == 0 {
				t.Fatalf("k=%d undirected=%v: no group found", k, undirected)
			}
			again, _ := Groups(g, cands, opts, rand.New(rand.NewPCG(3, 4)))
			if !reflect.DeepEqual(ids(groups), ids(again)) {
				t.Errorf("same seed, different groups: %v vs %v", ids(groups), ids(again))
			}
			for _, grp := range groups {
				if len(grp) != k {
					t.Errorf("group of %d, want %d", len(grp), k)
				}
				for i := range grp {
					for j := i + 1; j < len(grp); j++ {
						a, b := grp[i].Node.Index, grp[j].Node.Index
						d1, ok1 := g.Distance(a, b, undirected)
						d2, ok2 := g.Distance(b, a, undirected)
						if !(ok1 && d1 <= 3) && !(ok2 && d2 <= 3) {
							t.Errorf("%s and %s are not within 3", grp[i].Node.ID, grp[j].Node.ID)
						}
					}
				}
			}
		}
	}
	if _, err := Groups(g, cands, GroupOptions{K: 1}, rand.New(rand.NewPCG(1, 1))); err == nil {
		t.Error("K=1 accepted")
	}
	// A distance no pair satisfies gives no groups, not an error.
	far, err := Groups(g, cands[:2], GroupOptions{K: 3, Distance: 1}, rand.New(rand.NewPCG(1, 1)))
	if err != nil || len(far) != 0 {
		t.Errorf("impossible groups: %v, %v", far, err)
	}
}

func ids(groups [][]Candidate) [][]string {
	var out [][]string
	for _, g := range groups {
		var s []string
		for _, c := range g {
			s = append(s, c.Node.ID)
		}
		out = append(out, s)
	}
	return out
}
