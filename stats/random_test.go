package stats

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"
)

// TestRandomSweep compares with the references on the randomized cases of
// testdata/gen_random.py (random sizes, ties, alternatives, methods, scales and q).
func TestRandomSweep(t *testing.T) {
	b, err := os.ReadFile("testdata/random.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		MWU []struct {
			X, Y                []float64
			Alternative, Method string
			Continuity          bool
			U, P                float64
		} `json:"mannwhitneyu"`
		Corr []struct {
			X, Y              []float64
			Pearson, Spearman float64
			PearsonP          float64 `json:"pearson_p"`
			SpearmanP         float64 `json:"spearman_p"`
		}
		Percentile []struct {
			X        []float64
			Q, Value float64
		}
		Logit []struct {
			Y                     []float64
			X                     [][]float64
			Coef, SE, P           []float64
			LLF, LLNull, AIC, BIC float64
		}
	}
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.MWU) < 400 || len(ref.Corr) < 150 || len(ref.Percentile) < 200 || len(ref.Logit) < 60 {
		t.Fatalf("truncated reference file")
	}
	t.Run("mannwhitneyu", func(t *testing.T) {
		for i, c := range ref.MWU {
			alt, err := ParseAlternative(c.Alternative)
			if err != nil {
				t.Fatal(err)
			}
			m, err := ParseMWUMethod(c.Method)
			if err != nil {
				t.Fatal(err)
			}
			r, err := MannWhitneyU(c.X, c.Y, &MannWhitneyOptions{Alternative: alt, Method: m, NoContinuity: !c.Continuity})
			if err != nil {
				t.Fatalf("case %d: %v", i, err)
			}
			checkClose(t, fmt.Sprintf("case %d u", i), r.U, c.U)
			checkClose(t, fmt.Sprintf("case %d p (%s, %s, n=%d,%d)", i, c.Alternative, c.Method, len(c.X), len(c.Y)), r.P, c.P)
		}
	})
	t.Run("corr", func(t *testing.T) {
		for i, c := range ref.Corr {
			p, err := Pearson(c.X, c.Y)
			if err != nil {
				t.Fatalf("case %d: %v", i, err)
			}
			s, err := Spearman(c.X, c.Y)
			if err != nil {
				t.Fatalf("case %d: %v", i, err)
			}
			checkClose(t, fmt.Sprintf("case %d pearson", i), p.R, c.Pearson)
			checkClose(t, fmt.Sprintf("case %d pearson p", i), p.P, c.PearsonP)
			checkClose(t, fmt.Sprintf("case %d spearman", i), s.R, c.Spearman)
			checkClose(t, fmt.Sprintf("case %d spearman p", i), s.P, c.SpearmanP)
		}
	})
	t.Run("percentile", func(t *testing.T) {
		for i, c := range ref.Percentile {
			v, err := Percentile(c.X, c.Q)
			if err != nil {
				t.Fatalf("case %d: %v", i, err)
			}
			if v != c.Value {
				t.Errorf("case %d: percentile %v of %v = %.17g, numpy %.17g", i, c.Q, c.X, v, c.Value)
			}
		}
	})
	t.Run("logit", func(t *testing.T) {
		for i, c := range ref.Logit {
			r, err := Logit(c.Y, c.X, nil)
			if err != nil {
				t.Fatalf("case %d: %v", i, err)
			}
			checkSlice(t, fmt.Sprintf("case %d coef", i), r.Coef, c.Coef)
			checkSlice(t, fmt.Sprintf("case %d se", i), r.SE, c.SE)
			checkSlice(t, fmt.Sprintf("case %d p", i), r.P, c.P)
			checkClose(t, fmt.Sprintf("case %d llf", i), r.LLF, c.LLF)
			checkClose(t, fmt.Sprintf("case %d llnull", i), r.LLNull, c.LLNull)
			checkClose(t, fmt.Sprintf("case %d aic", i), r.AIC, c.AIC)
			checkClose(t, fmt.Sprintf("case %d bic", i), r.BIC, c.BIC)
		}
	})
}
