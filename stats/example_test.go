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
