package stats

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"testing"
)

// golden holds the vectors computed by testdata/gen_golden.py with scipy 1.10,
// statsmodels 0.13 and numpy 1.24.
type golden struct {
	Versions map[string]string `json:"versions"`
	Logit    []struct {
		Name       string      `json:"name"`
		Y          []float64   `json:"y"`
		X          [][]float64 `json:"x"`
		ZScore     bool        `json:"zscore"`
		DDoF       int         `json:"ddof"`
		OddsRatio  []float64   `json:"odds_ratio"`
		Separation string      `json:"separation"`
		logitEstimates
		logitInference
	} `json:"logit"`
	LogitReal []struct {
		Name      string    `json:"name"`
		Package   string    `json:"package"`
		YCol      string    `json:"y_col"`
		XCols     []string  `json:"x_cols"`
		ZScore    bool      `json:"zscore"`
		DDoF      int       `json:"ddof"`
		N         int       `json:"n"`
		OddsRatio []float64 `json:"odds_ratio"` // intercept included
		logitEstimates
		logitInference
		Summary []string `json:"summary"` // statsmodels' text without Date and Time
	} `json:"logit_real"`
	MWU []struct {
		Name        string    `json:"name"`
		X           []float64 `json:"x"`
		Y           []float64 `json:"y"`
		Alternative string    `json:"alternative"`
		Method      string    `json:"method"`
		Continuity  bool      `json:"continuity"`
		U           float64   `json:"u"`
		P           *float64  `json:"p"` // nil: scipy's NaN
	} `json:"mannwhitneyu"`
	Corr []struct {
		Name      string    `json:"name"`
		X         []float64 `json:"x"`
		Y         []float64 `json:"y"`
		Pearson   float64   `json:"pearson"`
		PearsonP  float64   `json:"pearson_p"`
		Spearman  float64   `json:"spearman"`
		SpearmanP float64   `json:"spearman_p"`
	} `json:"corr"`
	Percentile []struct {
		Name   string    `json:"name"`
		X      []float64 `json:"x"`
		Q      []float64 `json:"q"`
		Values []float64 `json:"values"`
	} `json:"percentile"`
	Describe []struct {
		Name    string    `json:"name"`
		X       []float64 `json:"x"`
		Mean    float64   `json:"mean"`
		SEM     float64   `json:"sem"`
		ZScore0 []float64 `json:"zscore0"`
		ZScore1 []float64 `json:"zscore1"`
		Rank    []float64 `json:"rank"`
	} `json:"describe"`
	Bootstrap []struct {
		Name    string    `json:"name"`
		X       []float64 `json:"x"`
		Indices [][]int   `json:"indices"`
		Lo95    float64   `json:"lo95"`
		Hi95    float64   `json:"hi95"`
		Lo90    float64   `json:"lo90"`
		Hi90    float64   `json:"hi90"`
	} `json:"bootstrap"`
}

// logitEstimates holds statsmodels' estimates and likelihoods of one fit.
type logitEstimates struct {
	Coef     []float64 `json:"coef"`
	SE       []float64 `json:"se"`
	Z        []float64 `json:"z"`
	P        []float64 `json:"p"`
	LLF      float64   `json:"llf"`
	LLNull   float64   `json:"llnull"`
	McFadden float64   `json:"mcfadden_r2"`
	AIC      float64   `json:"aic"`
	BIC      float64   `json:"bic"`
}

// check compares the estimates of r with statsmodels'. McFadden's R² is left to
// logitInference.check, which compares it with the exact null likelihood.
func (ref *logitEstimates) check(t *testing.T, r *LogitResult) {
	t.Helper()
	checkSlice(t, "coef", r.Coef, ref.Coef)
	checkSlice(t, "se", r.SE, ref.SE)
	checkSlice(t, "z", r.Z, ref.Z)
	checkSlice(t, "p", r.P, ref.P)
	checkClose(t, "llf", r.LLF, ref.LLF)
	checkClose(t, "llnull", r.LLNull, ref.LLNull)
	checkClose(t, "aic", r.AIC, ref.AIC)
	checkClose(t, "bic", r.BIC, ref.BIC)
}

// logitInference holds statsmodels' intervals (alpha 0.05 and 0.10), likelihood-ratio
// test, degrees of freedom and convergence flag of one fit.
type logitInference struct {
	CILo      []float64 `json:"ci_lo"`
	CIHi      []float64 `json:"ci_hi"`
	CI90Lo    []float64 `json:"ci90_lo"`
	CI90Hi    []float64 `json:"ci90_hi"`
	LLR       float64   `json:"llr"`
	LLRPValue float64   `json:"llr_pvalue"`
	// The likelihood-ratio quantities recomputed (scipy) from statsmodels' llf and the
	// exact intercept-only log-likelihood: statsmodels maximizes the null model with BFGS,
	// which on the real data stops up to 3e-8 short of the maximum, enough to move llr by
	// 2e-8 relative.
	LLNullExact    float64 `json:"llnull_exact"`
	LLRExact       float64 `json:"llr_exact"`
	LLRPValueExact float64 `json:"llr_pvalue_exact"`
	McFaddenExact  float64 `json:"mcfadden_r2_exact"`
	DfModel        int     `json:"df_model"`
	DfResid        int     `json:"df_resid"`
	Converged      bool    `json:"converged"`
}

// check compares the inference of r with statsmodels'.
func (ref *logitInference) check(t *testing.T, r *LogitResult) {
	t.Helper()
	for _, lv := range []struct {
		alpha  float64
		lo, hi []float64
	}{{0.05, ref.CILo, ref.CIHi}, {0.10, ref.CI90Lo, ref.CI90Hi}} {
		lo, hi, err := r.ConfInt(lv.alpha)
		if err != nil {
			t.Fatal(err)
		}
		checkSlice(t, fmt.Sprintf("conf int %g lo", lv.alpha), lo, lv.lo)
		checkSlice(t, fmt.Sprintf("conf int %g hi", lv.alpha), hi, lv.hi)
	}
	checkClose(t, "llnull", r.LLNull, ref.LLNullExact)
	checkClose(t, "llr", r.LLR, ref.LLRExact)
	checkClose(t, "llr p-value", r.LLRPValue, ref.LLRPValueExact)
	checkClose(t, "mcfadden r2", r.McFaddenR2, ref.McFaddenExact)
	// statsmodels' own values, within the error of its numerical null fit.
	for _, c := range []struct {
		what      string
		got, want float64
	}{{"llr", r.LLR, ref.LLR}, {"llr p-value", r.LLRPValue, ref.LLRPValue}} {
		if math.Abs(c.got-c.want) > 1e-6*math.Abs(c.want) {
			t.Errorf("%s = %.17g, statsmodels %.17g", c.what, c.got, c.want)
		}
	}
	if r.DfModel != ref.DfModel || r.DfResid != ref.DfResid || r.Converged != ref.Converged {
		t.Errorf("df model, df resid, converged = %d, %d, %v; statsmodels %d, %d, %v",
			r.DfModel, r.DfResid, r.Converged, ref.DfModel, ref.DfResid, ref.Converged)
	}
}

func loadGolden(t testing.TB) *golden {
	t.Helper()
	b, err := os.ReadFile("testdata/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g golden
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	return &g
}

// Tolerances: 1e-8 relative, with an absolute floor for values that are zero in exact
// arithmetic (a coefficient, a z, a percentile at 0) where both sides carry only rounding
// noise.
const (
	relTol = 1e-8
	absTol = 1e-12
)

func close(got, want float64) bool {
	if math.IsNaN(want) {
		return math.IsNaN(got)
	}
	if got == want {
		return true
	}
	return math.Abs(got-want) <= relTol*math.Abs(want) || math.Abs(got-want) <= absTol
}

func checkClose(t *testing.T, what string, got, want float64) {
	t.Helper()
	if !close(got, want) {
		t.Errorf("%s = %.17g, reference %.17g (rel err %.3g)", what, got, want, math.Abs(got-want)/math.Abs(want))
	}
}

func checkSlice(t *testing.T, what string, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, reference %d", what, len(got), len(want))
	}
	for i := range want {
		checkClose(t, fmt.Sprintf("%s[%d]", what, i), got[i], want[i])
	}
}

func TestGoldenLogit(t *testing.T) {
	g := loadGolden(t)
	for _, c := range g.Logit {
		t.Run(c.Name, func(t *testing.T) {
			r, err := Logit(c.Y, c.X, &LogitOptions{ZScore: c.ZScore, DDoF: c.DDoF})
			if c.Separation != "" {
				var se *SeparationError
				if !errors.As(err, &se) || !errors.Is(err, ErrSeparation) {
					t.Fatalf("err = %v, want a *SeparationError", err)
				}
				if se.Complete != (c.Separation == "complete") {
					t.Errorf("Complete = %v, reference says %s separation", se.Complete, c.Separation)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			c.logitEstimates.check(t, r)
			checkSlice(t, "odds ratio", r.OddsRatio, c.OddsRatio)
			checkClose(t, "mcfadden r2", r.McFaddenR2, c.McFadden)
			if r.N != len(c.Y) || r.K != len(c.X)+1 {
				t.Errorf("N, K = %d, %d", r.N, r.K)
			}
			if c.CILo == nil {
				t.Fatal("golden case lacks statsmodels' intervals: regenerate testdata/golden.json")
			}
			c.logitInference.check(t, r)
		})
	}
}

func TestGoldenMannWhitney(t *testing.T) {
	g := loadGolden(t)
	for _, c := range g.MWU {
		t.Run(c.Name, func(t *testing.T) {
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
				t.Fatal(err)
			}
			checkClose(t, "u", r.U, c.U)
			want := math.NaN()
			if c.P != nil {
				want = *c.P
			}
			checkClose(t, "p", r.P, want)
		})
	}
}

func TestGoldenCorrelation(t *testing.T) {
	g := loadGolden(t)
	for _, c := range g.Corr {
		t.Run(c.Name, func(t *testing.T) {
			p, err := Pearson(c.X, c.Y)
			if err != nil {
				t.Fatal(err)
			}
			s, err := Spearman(c.X, c.Y)
			if err != nil {
				t.Fatal(err)
			}
			checkClose(t, "pearson", p.R, c.Pearson)
			checkClose(t, "pearson p", p.P, c.PearsonP)
			checkClose(t, "spearman", s.R, c.Spearman)
			checkClose(t, "spearman p", s.P, c.SpearmanP)
		})
	}
}

func TestGoldenPercentile(t *testing.T) {
	g := loadGolden(t)
	for _, c := range g.Percentile {
		t.Run(c.Name, func(t *testing.T) {
			got, err := Percentiles(c.X, c.Q...)
			if err != nil {
				t.Fatal(err)
			}
			// numpy's linear method is reproduced operation for operation: demand bit
			// equality.
			for i := range got {
				if got[i] != c.Values[i] {
					t.Errorf("q=%v: %.17g, numpy %.17g", c.Q[i], got[i], c.Values[i])
				}
			}
		})
	}
}

func TestGoldenDescribe(t *testing.T) {
	g := loadGolden(t)
	for _, c := range g.Describe {
		t.Run(c.Name, func(t *testing.T) {
			m, err := Mean(c.X)
			if err != nil {
				t.Fatal(err)
			}
			checkClose(t, "mean", m, c.Mean)
			ms, err := MeanStdErr(c.X)
			if err != nil {
				t.Fatal(err)
			}
			checkClose(t, "sem", ms.SE, c.SEM)
			z0, err := ZScore(c.X, 0)
			if err != nil {
				t.Fatal(err)
			}
			checkSlice(t, "zscore ddof 0", z0, c.ZScore0)
			z1, err := ZScore(c.X, 1)
			if err != nil {
				t.Fatal(err)
			}
			checkSlice(t, "zscore ddof 1", z1, c.ZScore1)
			rounded := make([]float64, len(c.X))
			for i, v := range c.X {
				rounded[i] = math.Round(v*10) / 10 // numpy rounds half to even; no x.x5 here
			}
			r, err := Rank(rounded)
			if err != nil {
				t.Fatal(err)
			}
			checkSlice(t, "rank", r, c.Rank)
		})
	}
}

func TestGoldenBootstrap(t *testing.T) {
	g := loadGolden(t)
	for _, c := range g.Bootstrap {
		t.Run(c.Name, func(t *testing.T) {
			stat := func(idx []int) ([]float64, error) {
				s := 0.0
				for _, i := range idx {
					s += c.X[i]
				}
				return []float64{s / float64(len(idx))}, nil
			}
			for _, lv := range []struct{ level, lo, hi float64 }{{0, c.Lo95, c.Hi95}, {0.9, c.Lo90, c.Hi90}} {
				iv, err := Bootstrap(len(c.X), stat, BootstrapOptions{Indices: c.Indices, Level: lv.level})
				if err != nil {
					t.Fatal(err)
				}
				checkClose(t, "lo", iv[0].Lo, lv.lo)
				checkClose(t, "hi", iv[0].Hi, lv.hi)
				if iv[0].Reps != len(c.Indices) || iv[0].Missing != 0 {
					t.Errorf("reps, missing = %d, %d", iv[0].Reps, iv[0].Missing)
				}
			}
		})
	}
}

// TestGoldenBox compares BoxPlotStats with matplotlib.cbook.boxplot_stats on the real
// function metrics and edge cases (testdata/gen_box.py).
func TestGoldenBox(t *testing.T) {
	b, err := os.ReadFile("testdata/box.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Box []struct {
			Name                                   string
			X                                      []float64
			Whis                                   float64
			Mean, Q1, Med, Q3, IQR, WhisLo, WhisHi float64
			Fliers                                 []float64
		}
	}
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.Box) < 20 {
		t.Fatalf("%d cases", len(ref.Box))
	}
	for _, c := range ref.Box {
		t.Run(c.Name, func(t *testing.T) {
			s, err := BoxPlotStats(c.X, c.Whis)
			if err != nil {
				t.Fatal(err)
			}
			// Quartiles and whiskers are data values or numpy's interpolation,
			// reproduced operation for operation: demand equality.
			for _, v := range []struct {
				what      string
				got, want float64
			}{{"q1", s.Q1, c.Q1}, {"median", s.Median, c.Med}, {"q3", s.Q3, c.Q3}, {"iqr", s.IQR, c.IQR},
				{"whisker lo", s.WhiskerLo, c.WhisLo}, {"whisker hi", s.WhiskerHi, c.WhisHi}} {
				if v.got != v.want {
					t.Errorf("%s = %.17g, matplotlib %.17g", v.what, v.got, v.want)
				}
			}
			checkClose(t, "mean", s.Mean, c.Mean)
			if s.N != len(c.X) || len(s.Outliers) != len(c.Fliers) {
				t.Fatalf("n = %d, %d outliers; matplotlib %d fliers %v", s.N, len(s.Outliers), len(c.Fliers), c.Fliers)
			}
			for i := range c.Fliers {
				if s.Outliers[i] != c.Fliers[i] {
					t.Errorf("outlier %d = %v, matplotlib %v", i, s.Outliers[i], c.Fliers[i])
				}
			}
		})
	}
}
