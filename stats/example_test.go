package stats_test

import (
	"fmt"

	"github.com/faultline-dev/faultline/stats"
)

func ExampleLogit() {
	// Success of a model on tasks against the size of the function it had to repair.
	lines := []float64{12, 30, 45, 8, 60, 22, 75, 15, 90, 40, 18, 55}
	solved := []float64{1, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1}
	r, err := stats.Logit(solved, [][]float64{lines}, &stats.LogitOptions{ZScore: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("slope per SD %.3f (p = %.3f), odds ratio per SD %.3f\n", r.Coef[1], r.P[1], r.OddsRatio[0])
	fmt.Printf("McFadden R² %.3f, AIC %.2f\n", r.McFaddenR2, r.AIC)
	fmt.Printf("P(solved | 20 lines) = %.2f\n", r.Prob(20))

	_, err = stats.Logit([]float64{0, 0, 1, 1}, [][]float64{{1, 2, 3, 4}}, nil)
	fmt.Println(err)
	// Output:
	// slope per SD -1.682 (p = 0.075), odds ratio per SD 0.186
	// McFadden R² 0.316, AIC 15.16
	// P(solved | 20 lines) = 0.84
	// stats: logit: complete separation (the predictors perfectly predict the outcome)
}

func ExampleMannWhitneyU() {
	solvedA := []float64{3.1, 4.5, 2.2, 5.0, 3.8}
	solvedB := []float64{1.2, 2.0, 0.7, 2.9, 1.1, 1.9}
	r, err := stats.MannWhitneyU(solvedA, solvedB, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("U = %g, p = %.5f (%v), r = %.3f\n", r.U, r.P, r.Method, r.R)
	// Output: U = 29, p = 0.00866 (exact), r = 0.771
}

func ExamplePercentile() {
	p, _ := stats.Percentile([]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 90)
	fmt.Println(p)
	// Output: 9.1
}

func ExampleSpearman() {
	x := []float64{1, 2, 2, 3, 5, 8}
	y := []float64{2, 1, 4, 4, 7, 9}
	c, _ := stats.Spearman(x, y)
	fmt.Printf("rho = %.4f, p = %.4f\n", c.R, c.P)
	// Output: rho = 0.8676, p = 0.0251
}

// The statistics matplotlib's boxplot draws for the same sample (its cbook.boxplot_stats
// gives q1 2, median 4, q3 6, whiskers 1 and 7, fliers -50 and 60).
func ExampleBoxPlotStats() {
	b, err := stats.BoxPlotStats([]float64{-50, 1, 2, 3, 4, 5, 6, 7, 60}, 1.5)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("n %d, quartiles %g %g %g, whiskers %g..%g, outliers %v\n",
		b.N, b.Q1, b.Median, b.Q3, b.WhiskerLo, b.WhiskerHi, b.Outliers)
	// Output:
	// n 9, quartiles 2 4 6, whiskers 1..7, outliers [-50 60]
}

// The parameter rows of the summary read as in statsmodels' Logit(...).fit().summary() of
// the same data.
func ExampleLogitResult_Summary() {
	lines := []float64{12, 30, 45, 8, 60, 22, 75, 15, 90, 40, 18, 55}
	solved := []float64{1, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1}
	r, err := stats.Logit(solved, [][]float64{lines}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	text, err := r.Summary(stats.SummaryOptions{DepVar: "solved", Names: []string{"code_lines"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(text)
	// Output:
	//                            Logit Regression Results
	// ==============================================================================
	// Dep. Variable:                 solved   No. Observations:                   12
	// Model:                          Logit   Df Residuals:                       10
	// Method:                           MLE   Df Model:                            1
	// Predictors:                       raw   Pseudo R-squ.:                  0.3156
	// Iterations:                         6   Log-Likelihood:                -5.5781
	// converged:                       True   LL-Null:                       -8.1503
	// Covariance Type:            nonrobust   LLR p-value:                   0.02332
	// ==============================================================================
	//                  coef    std err          z      P>|z|      [0.025      0.975]
	// ------------------------------------------------------------------------------
	// const          3.0040      1.670      1.799      0.072      -0.270       6.278
	// code_lines    -0.0664      0.037     -1.778      0.075      -0.140       0.007
	// ==============================================================================
	//            odds ratio      [0.025      0.975]
	// ------------------------------------------------------------------------------
	// const         20.1654       0.764     532.512
	// code_lines     0.9358       0.870       1.007
	// ==============================================================================
	// Odds ratio: exp(coef), the factor on the odds of solved = 1 per unit of the
	// predictor; const: the odds when every predictor is 0.
}
