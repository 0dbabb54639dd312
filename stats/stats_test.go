package stats

import (
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat"
)

func TestLogitBadInput(t *testing.T) {
	y := []float64{0, 1, 0, 1, 1, 0, 1, 0}
	x := []float64{1, 2, 3, 4, 5, 6, 7, 8}
	cases := []struct {
		name string
		y    []float64
		x    [][]float64
		opts *LogitOptions
		want error
	}{
		{"constant predictor", y, [][]float64{{2, 2, 2, 2, 2, 2, 2, 2}}, nil, ErrConstant},
		{"all success", []float64{1, 1, 1, 1, 1, 1, 1, 1}, [][]float64{x}, nil, ErrOutcomeConstant},
		{"all failure", make([]float64, 8), [][]float64{x}, nil, ErrOutcomeConstant},
		{"nan predictor", y, [][]float64{{1, 2, math.NaN(), 4, 5, 6, 7, 8}}, nil, ErrNotFinite},
		{"inf outcome", []float64{0, 1, 0, 1, 1, 0, 1, math.Inf(1)}, [][]float64{x}, nil, ErrNotFinite},
		{"not binary", []float64{0, 1, 0, 2, 1, 0, 1, 0}, [][]float64{x}, nil, ErrNotBinary},
		{"n < 3", []float64{0, 1}, [][]float64{{1, 2}}, nil, ErrTooFew},
		{"n <= k", []float64{0, 1, 1}, [][]float64{{1, 2, 4}, {3, 1, 2}}, nil, ErrTooFew},
		{"length", y, [][]float64{x[:7]}, nil, ErrLength},
		{"collinear", y, [][]float64{x, {2, 4, 6, 8, 10, 12, 14, 16}}, nil, ErrSingular},
		{"ddof", y, [][]float64{x}, &LogitOptions{ZScore: true, DDoF: 2}, ErrRange},
		{"separated", []float64{0, 0, 0, 0, 1, 1, 1, 1}, [][]float64{x}, nil, ErrSeparation},
		{"iteration limit", []float64{0, 0, 1, 0, 1, 1, 0, 1}, [][]float64{x}, &LogitOptions{MaxIter: 1}, ErrNoConvergence},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := Logit(c.y, c.x, c.opts)
			if !errors.Is(err, c.want) {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
			if r != nil {
				t.Errorf("result %+v with error", r)
			}
		})
	}
}

// TestLogitDDoF checks the spec's claim: the z-scoring ddof changes only slopes, their SEs
// and the odds ratios, and the slopes scale by sd₁/sd₀ = √(n/(n-1)).
// TestLogitSeparationKinds covers separation that makes the LP's constraint matrix rank
// deficient (a predictor that is a function of the outcome) next to the usual kinds.
func TestLogitSeparationKinds(t *testing.T) {
	y := []float64{0, 1, 0, 1, 1, 0, 1, 0}
	flipped := []float64{5, 2, 5, 2, 2, 5, 2, 5}
	noise := []float64{3, 1, 4, 1, 5, 9, 2, 6}
	cases := []struct {
		name     string
		y        []float64
		x        [][]float64
		complete bool
	}{
		{"predictor equals outcome", y, [][]float64{y}, true},
		{"predictor is a function of the outcome", y, [][]float64{noise, flipped}, true},
		{"threshold", []float64{0, 0, 0, 1, 1, 1}, [][]float64{{1, 2, 3, 4, 5, 6}}, true},
		{"binary predictor, one cell pure", []float64{0, 1, 0, 1, 1, 0, 1, 0, 1, 0}, [][]float64{{0, 1, 0, 1, 1, 0, 0, 0, 1, 0}}, false},
		{"tie at the threshold", []float64{0, 0, 0, 1, 0, 1, 1, 1}, [][]float64{{1, 2, 3, 4, 4, 5, 6, 7}}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Logit(c.y, c.x, nil)
			var se *SeparationError
			if !errors.As(err, &se) {
				t.Fatalf("err = %v, want separation", err)
			}
			if se.Complete != c.complete {
				t.Errorf("Complete = %v, want %v", se.Complete, c.complete)
			}
		})
	}
}

func TestLogitDDoF(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	n := 60
	x1, x2, y := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range y {
		x1[i] = rng.NormFloat64() * 10
		x2[i] = rng.ExpFloat64()
		if rng.Float64() < sigmoid(0.05*x1[i]-0.5*x2[i]+0.2) {
			y[i] = 1
		}
	}
	r0, err := Logit(y, [][]float64{x1, x2}, &LogitOptions{ZScore: true})
	if err != nil {
		t.Fatal(err)
	}
	r1, err := Logit(y, [][]float64{x1, x2}, &LogitOptions{ZScore: true, DDoF: 1})
	if err != nil {
		t.Fatal(err)
	}
	ratio := math.Sqrt(float64(n) / float64(n-1))
	checkClose(t, "intercept", r1.Coef[0], r0.Coef[0])
	for j := 1; j < 3; j++ {
		checkClose(t, "slope ratio", r1.Coef[j]/r0.Coef[j], ratio)
		checkClose(t, "se ratio", r1.SE[j]/r0.SE[j], ratio)
		checkClose(t, "z", r1.Z[j], r0.Z[j])
		checkClose(t, "p", r1.P[j], r0.P[j])
	}
	checkClose(t, "llf", r1.LLF, r0.LLF)
	checkClose(t, "aic", r1.AIC, r0.AIC)
	checkClose(t, "r2", r1.McFaddenR2, r0.McFaddenR2)
	// Predictions on the raw scale do not depend on the standardization.
	raw, err := Logit(y, [][]float64{x1, x2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i += 7 {
		checkClose(t, "prob", r1.Prob(x1[i], x2[i]), raw.Prob(x1[i], x2[i]))
	}
	checkClose(t, "odds ratio", r0.OddsRatio[0], math.Exp(r0.Coef[1]))
}

// TestLogitInterceptOnly checks the null model against its closed form.
func TestLogitInterceptOnly(t *testing.T) {
	y := []float64{1, 0, 1, 1, 0, 1, 1, 0, 1, 1}
	r, err := Logit(y, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkClose(t, "intercept", r.Coef[0], math.Log(0.7/0.3))
	checkClose(t, "se", r.SE[0], math.Sqrt(1/(10*0.7*0.3)))
	checkClose(t, "llf", r.LLF, r.LLNull)
	if math.Abs(r.McFaddenR2) > 1e-15 || len(r.OddsRatio) != 0 {
		t.Errorf("R² %v, odds ratios %v", r.McFaddenR2, r.OddsRatio)
	}
}

// TestLogitScoreZero checks the first-order condition at the returned estimate.
func TestLogitScoreZero(t *testing.T) {
	x := []float64{0.5, 1.5, 2, 2.5, 3, 4, 4.5, 5, 6, 7, 7.5, 8}
	y := []float64{0, 0, 1, 0, 0, 1, 0, 1, 1, 0, 1, 1}
	r, err := Logit(y, [][]float64{x}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var g0, g1 float64
	for i := range x {
		res := y[i] - r.Prob(x[i])
		g0 += res
		g1 += res * x[i]
	}
	if math.Abs(g0) > 1e-12 || math.Abs(g1) > 1e-12 {
		t.Errorf("score at the estimate = (%g, %g), want 0", g0, g1)
	}
	if r.Iterations < 2 || r.Iterations > 15 {
		t.Errorf("Newton took %d iterations", r.Iterations)
	}
}

func TestMannWhitneyBadInput(t *testing.T) {
	if _, err := MannWhitneyU(nil, []float64{1}, nil); !errors.Is(err, ErrTooFew) {
		t.Errorf("empty x: %v", err)
	}
	if _, err := MannWhitneyU([]float64{1}, []float64{math.NaN()}, nil); !errors.Is(err, ErrNotFinite) {
		t.Errorf("nan: %v", err)
	}
	if _, err := MannWhitneyU([]float64{1}, []float64{2}, &MannWhitneyOptions{Method: 7}); !errors.Is(err, ErrRange) {
		t.Errorf("bad method: %v", err)
	}
	if _, err := ParseAlternative("two_sided"); !errors.Is(err, ErrRange) {
		t.Errorf("parse: %v", err)
	}
}

// TestMannWhitneyExactCounts compares the counting distribution with brute-force
// enumeration of every assignment of ranks to the first sample.
func TestMannWhitneyExactCounts(t *testing.T) {
	for m := 1; m <= 6; m++ {
		for n := 1; n <= 6; n++ {
			want := make([]float64, m*n+1)
			N := m + n
			for mask := 0; mask < 1<<N; mask++ {
				if popcount(mask) != m {
					continue
				}
				// U of the sample at the set bits: pairs (x, y) with x above y.
				u, ys := 0, 0
				for b := 0; b < N; b++ {
					if mask&(1<<b) != 0 {
						u += ys
					} else {
						ys++
					}
				}
				want[u]++
			}
			got := mwuCounts(m, n)
			if !slices.Equal(got, want) {
				t.Errorf("m=%d n=%d: counts %v, enumeration %v", m, n, got, want)
			}
		}
	}
	// Large sizes, far past 2^53: compare with the same recurrence in exact integers.
	m, n := 40, 55
	c := mwuCounts(m, n)
	exact := make([]*big.Int, m*n+1)
	for k := range exact {
		exact[k] = new(big.Int)
	}
	exact[0].SetInt64(1)
	for i := 1; i <= m; i++ {
		for k := i * n; k >= n+i; k-- {
			exact[k].Sub(exact[k], exact[k-n-i])
		}
		for k := i; k <= i*n; k++ {
			exact[k].Add(exact[k], exact[k-i])
		}
	}
	sum := 0.0
	for k, v := range c {
		want, _ := new(big.Float).SetInt(exact[k]).Float64()
		if math.Abs(v-want) > 1e-12*want {
			t.Fatalf("count[%d] = %g, exact %g", k, v, want)
		}
		sum += v
	}
	checkClose(t, "sum of counts", sum, binomial(m+n, m))
}

func popcount(x int) int {
	c := 0
	for ; x != 0; x &= x - 1 {
		c++
	}
	return c
}

func TestMannWhitneyEffectSize(t *testing.T) {
	x := []float64{5, 6, 7, 8, 9, 10, 11, 12, 13, 14}
	y := []float64{1, 2, 3, 4, 5.5, 6.5, 7.5, 8, 9, 10}
	r, err := MannWhitneyU(x, y, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Z recomputed from the definition: U1 - n1n2/2 over the tie-corrected σ.
	ranks, ties := rankTies(append(slices.Clone(x), y...))
	r1 := 0.0
	for _, v := range ranks[:len(x)] {
		r1 += v
	}
	u1 := r1 - 55
	sigma := math.Sqrt(100.0 / 12 * (21 - ties/(20*19)))
	checkClose(t, "z", r.Z, (u1-50)/sigma)
	checkClose(t, "r", r.R, r.Z/math.Sqrt(20))
	if r.Z <= 0 || r.Method != MWUAsymptotic {
		t.Errorf("z = %v, method %v: x is larger and tied, want positive z and asymptotic", r.Z, r.Method)
	}
	same, err := MannWhitneyU([]float64{3, 3}, []float64{3, 3, 3}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if same.Z != 0 || same.R != 0 || same.P != 1 {
		t.Errorf("all equal: %+v", same)
	}
}

func TestCorrelationBadInput(t *testing.T) {
	for name, c := range map[string]struct {
		x, y []float64
		want error
	}{
		"n2":       {[]float64{1, 2}, []float64{2, 1}, ErrTooFew},
		"constant": {[]float64{1, 2, 3}, []float64{4, 4, 4}, ErrConstant},
		"nan":      {[]float64{1, 2, math.NaN()}, []float64{1, 2, 3}, ErrNotFinite},
		"length":   {[]float64{1, 2, 3}, []float64{1, 2}, ErrLength},
	} {
		if _, err := Pearson(c.x, c.y); !errors.Is(err, c.want) {
			t.Errorf("%s: pearson err = %v, want %v", name, err, c.want)
		}
		if _, err := Spearman(c.x, c.y); !errors.Is(err, c.want) {
			t.Errorf("%s: spearman err = %v, want %v", name, err, c.want)
		}
	}
}

func TestCorrelationMatrix(t *testing.T) {
	g := loadGolden(t)
	c := g.Corr[3] // normal_30
	z := make([]float64, len(c.X))
	for i := range z {
		z[i] = c.X[i]*c.X[i] - c.Y[i]
	}
	for _, spearman := range []bool{false, true} {
		m, err := CorrelationMatrix([][]float64{c.X, c.Y, z}, spearman)
		if err != nil {
			t.Fatal(err)
		}
		want, wantP := c.Pearson, c.PearsonP
		f := Pearson
		if spearman {
			want, wantP, f = c.Spearman, c.SpearmanP, Spearman
		}
		checkClose(t, "r[0,1]", m.R.At(0, 1), want)
		checkClose(t, "p[1,0]", m.P.At(1, 0), wantP)
		yz, _ := f(c.Y, z)
		checkClose(t, "r[2,1]", m.R.At(2, 1), yz.R)
		if m.R.At(2, 2) != 1 || m.P.At(2, 2) != 0 {
			t.Errorf("diagonal %v %v", m.R.At(2, 2), m.P.At(2, 2))
		}
	}
	if _, err := CorrelationMatrix([][]float64{c.X, make([]float64, len(c.X))}, false); !errors.Is(err, ErrConstant) {
		t.Errorf("constant column: %v", err)
	}
}

func TestPercentileVsGonum(t *testing.T) {
	x := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	p, err := Percentile(x, 90)
	if err != nil {
		t.Fatal(err)
	}
	if p != 9.1 {
		t.Errorf("90th percentile of 1..10 = %v, numpy gives 9.1", p)
	}
	if g := stat.Quantile(0.9, stat.Empirical, x, nil); g == p {
		t.Errorf("gonum's Empirical quantile agrees (%v); the documented difference is gone", g)
	}
	for _, q := range []float64{-1, 100.5, math.NaN()} {
		if _, err := Percentile(x, q); !errors.Is(err, ErrRange) {
			t.Errorf("q=%v: %v", q, err)
		}
	}
	if _, err := Percentile(nil, 50); !errors.Is(err, ErrTooFew) {
		t.Errorf("empty: %v", err)
	}
}

func TestSelectAtLeastPercentile(t *testing.T) {
	lines := []float64{10, 50, 30, 80, 20, 90, 70, 40}
	central := []float64{0.9, 0.1, 0.5, 0.7, 0.3, 0.8, 0.2, 0.6}
	// 50th percentiles: lines 45, centrality 0.55. Both met at indices 3 and 5.
	got, err := SelectAtLeastPercentile(50, lines, central)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []int{3, 5}) {
		t.Errorf("selected %v, want [3 5]", got)
	}
	all, err := SelectAtLeastPercentile(0, lines, central)
	if err != nil || len(all) != len(lines) {
		t.Errorf("q=0 selects %v, %v", all, err)
	}
	if _, err := SelectAtLeastPercentile(50, lines, central[:3]); !errors.Is(err, ErrLength) {
		t.Errorf("length: %v", err)
	}
}

func TestAverages(t *testing.T) {
	// Worked case: repository A has 2 tasks, B has 1; the mean of the per-group means
	// weighs each repository the same.
	values := []float64{1, 0, 1, 0.25}
	groups := []string{"b", "a", "a", "b"}
	macro, err := MacroAverage(values)
	if err != nil {
		t.Fatal(err)
	}
	micro, err := MicroAverage(values, groups)
	if err != nil {
		t.Fatal(err)
	}
	if macro != 0.5625 || micro != 0.5625 {
		t.Errorf("macro %v, micro %v, want 0.5625 both (equal group sizes)", macro, micro)
	}
	values = append(values, 1)
	groups = append(groups, "c")
	macro, _ = MacroAverage(values)
	micro, _ = MicroAverage(values, groups)
	// Pooled: 3.25/5 = 0.65; groups: a 0.5, b 0.625, c 1 → 2.125/3.
	if macro != 0.65 || !close(micro, 2.125/3) {
		t.Errorf("macro %v, micro %v", macro, micro)
	}
	gm, _ := GroupMeans(values, groups)
	if len(gm) != 3 || gm[0].Group != "a" || gm[2].Group != "c" || gm[1].N != 2 {
		t.Errorf("group means %+v", gm)
	}
	if _, err := MicroAverage(values, groups[:2]); !errors.Is(err, ErrLength) {
		t.Errorf("length: %v", err)
	}
	if _, err := MeanStdErr([]float64{1}); !errors.Is(err, ErrTooFew) {
		t.Errorf("sem n=1: %v", err)
	}
	if _, err := ZScore([]float64{2, 2, 2}, 0); !errors.Is(err, ErrConstant) {
		t.Errorf("zscore constant: %v", err)
	}
}

func TestBootstrapRandAndMissing(t *testing.T) {
	x := []float64{3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7}
	stat := func(idx []int) ([]float64, error) {
		v := make([]float64, len(idx))
		for i, j := range idx {
			v[i] = x[j]
		}
		if isConstant(v) {
			return nil, ErrConstant
		}
		m, sd, err := meanSD("t", v, 1)
		return []float64{m, sd}, err
	}
	run := func() []Interval {
		iv, err := Bootstrap(len(x), stat, BootstrapOptions{Rand: rand.New(rand.NewPCG(4, 2)), Reps: 500})
		if err != nil {
			t.Fatal(err)
		}
		return iv
	}
	a, b := run(), run()
	if !slices.Equal(a, b) {
		t.Errorf("same seed, different intervals: %v vs %v", a, b)
	}
	m := mean(x)
	if len(a) != 2 || !(a[0].Lo < m && m < a[0].Hi) || a[0].Reps+a[0].Missing != 500 {
		t.Errorf("intervals %+v around mean %v", a, m)
	}
	// A statistic that fails on every other resample: counted, not fatal.
	calls := 0
	flaky := func(idx []int) ([]float64, error) {
		calls++
		if calls%2 == 0 {
			return nil, ErrSeparation
		}
		return []float64{float64(idx[0])}, nil
	}
	iv, err := Bootstrap(5, flaky, BootstrapOptions{Rand: rand.New(rand.NewPCG(1, 1)), Reps: 10})
	if err != nil {
		t.Fatal(err)
	}
	if iv[0].Reps != 5 || iv[0].Missing != 5 {
		t.Errorf("reps %d missing %d, want 5 and 5", iv[0].Reps, iv[0].Missing)
	}
	fail := func([]int) ([]float64, error) { return []float64{math.NaN()}, nil }
	if _, err := Bootstrap(5, fail, BootstrapOptions{Rand: rand.New(rand.NewPCG(1, 1)), Reps: 3}); !errors.Is(err, ErrTooFew) {
		t.Errorf("all failed: %v", err)
	}
	if _, err := Bootstrap(5, flaky, BootstrapOptions{}); !errors.Is(err, ErrRange) {
		t.Errorf("no source: %v", err)
	}
	if _, err := Bootstrap(2, flaky, BootstrapOptions{Indices: [][]int{{0, 2}}}); !errors.Is(err, ErrRange) {
		t.Errorf("bad index: %v", err)
	}
}
