package stats

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

func logitData(n int) ([]float64, [][]float64) {
	rng := rand.New(rand.NewPCG(3, 5))
	y := make([]float64, n)
	x1, x2 := make([]float64, n), make([]float64, n)
	for i := range y {
		x1[i] = rng.NormFloat64()
		x2[i] = 0.5*x1[i] + rng.NormFloat64()
		if rng.Float64() < sigmoid(0.3+0.8*x1[i]-0.6*x2[i]) {
			y[i] = 1
		}
	}
	return y, [][]float64{x1, x2}
}

// BenchmarkLogit fits a two-predictor logit (separation check included).
// bench/compare.sh runs the same fits in statsmodels for the ratio.
func BenchmarkLogit(b *testing.B) {
	for _, n := range []int{200, 2000} {
		y, x := logitData(n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := Logit(y, x, &LogitOptions{ZScore: true}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkMannWhitneyExact computes exact two-sided p-values.
func BenchmarkMannWhitneyExact(b *testing.B) {
	for _, n := range []int{8, 30, 100} {
		rng := rand.New(rand.NewPCG(uint64(n), 1))
		x, y := make([]float64, n), make([]float64, n)
		for i := range x {
			x[i] = rng.NormFloat64()
			y[i] = rng.NormFloat64() + 0.3
		}
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := MannWhitneyU(x, y, &MannWhitneyOptions{Method: MWUExact}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
