package plot_test

import (
	"bytes"
	"fmt"
	"image/png"

	"github.com/faultline-dev/faultline/stats/plot"
)

// The fitted probabilities agree with statsmodels' Logit on the same data.
func ExampleDifficultyCurves() {
	lines := []float64{12, 30, 45, 8, 60, 22, 75, 15, 90, 40, 18, 55, 33, 27, 70, 10}
	solvedA := []float64{1, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 1, 0, 0, 1}
	solvedB := []float64{1, 0, 0, 1, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1}
	p, curves, err := plot.DifficultyCurves([]plot.Outcomes{
		{Model: "model-a", X: lines, Solved: solvedA},
		{Model: "model-b", X: lines, Solved: solvedB},
	}, plot.CurveOptions{XLabel: "code lines", Reps: 100, Points: 5, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range curves {
		fmt.Printf("%s: P(solved | %g lines) = %.2f, P(solved | %g lines) = %.2f\n",
			c.Model, c.X[0], c.P[0], c.X[4], c.P[4])
	}
	var buf bytes.Buffer
	if err := plot.Render(&buf, p, plot.PNG, plot.RenderOptions{}); err != nil {
		fmt.Println(err)
		return
	}
	img, err := png.Decode(&buf)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("PNG", img.Bounds().Dx(), "x", img.Bounds().Dy())
	// Output:
	// model-a: P(solved | 8 lines) = 0.91, P(solved | 90 lines) = 0.04
	// model-b: P(solved | 8 lines) = 0.87, P(solved | 90 lines) = 0.00
	// PNG 576 x 384
}

// The values agree with scipy.stats.gaussian_kde([1, 2, 2, 3, 7])([0, 2, 5]).
func ExampleKDE() {
	d, _ := plot.KDE([]float64{1, 2, 2, 3, 7}, []float64{0, 2, 5})
	fmt.Printf("%.5f\n", d)
	// Output: [0.09636 0.17347 0.06970]
}
