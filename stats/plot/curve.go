package plot

import (
	"fmt"
	"image/color"
	"math"
	"math/rand/v2"
	"slices"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"

	"github.com/faultline-dev/faultline/stats"
)

// Outcomes are one model's results: X[i] is the predictor of task i (for example its code
// lines) and Solved[i] is 1 if the model solved it, 0 otherwise.
type Outcomes struct {
	Model  string
	X      []float64
	Solved []float64
}

// CurveOptions configures DifficultyCurves. The zero value works.
type CurveOptions struct {
	Title, XLabel string
	// YLabel names the probability on the Y axis; "" means "P(solved)".
	YLabel string
	// Points is the number of grid points of each curve; 0 means 100.
	Points int
	// Reps is the number of bootstrap resamples per model; 0 means 200. A negative value
	// draws no band.
	Reps int
	// Level is the band's confidence level; 0 means 0.95.
	Level float64
	// Seed seeds the resampling (PCG(Seed, model index)); the same seed gives the same
	// bands.
	Seed uint64
	// Progress, when set, is called after each model's curve and band with the number of
	// models done and the total (the bootstrap is the slow part).
	Progress func(done, total int)
}

// Curve is the fitted curve of one model as drawn.
type Curve struct {
	Model string
	Fit   *stats.LogitResult
	// X is the grid; P the fitted probabilities; Lo and Hi the band (nil without a band).
	X, P, Lo, Hi []float64
	// Reps and Missing count the bootstrap refits that succeeded and failed.
	Reps, Missing int
}

// DifficultyCurves fits, for each model, a logistic regression of Solved on X (X z-scored
// for the fit, drawn in its own units) and draws P(solved | x) over the range of X with a
// percentile bootstrap band: tasks are resampled with replacement, the model refitted and
// the curve re-evaluated on the grid. It fails if a model's own fit fails (for example
// separation or a model that solved everything).
func DifficultyCurves(models []Outcomes, opts CurveOptions) (*gplot.Plot, []Curve, error) {
	if len(models) == 0 {
		return nil, nil, fmt.Errorf("stats/plot: difficulty curves: no models: %w", stats.ErrTooFew)
	}
	points := opts.Points
	if points == 0 {
		points = 100
	}
	if points < 2 {
		return nil, nil, fmt.Errorf("stats/plot: difficulty curves: %d grid points: %w", points, stats.ErrRange)
	}
	reps := opts.Reps
	if reps == 0 {
		reps = 200
	}
	p := gplot.New()
	p.Title.Text = opts.Title
	p.X.Label.Text = opts.XLabel
	p.Y.Label.Text = opts.YLabel
	if p.Y.Label.Text == "" {
		p.Y.Label.Text = "P(solved)"
	}
	p.Y.Min, p.Y.Max = 0, 1
	p.Legend.Top = true
	curves := make([]Curve, len(models))
	xlo, xhi := math.Inf(1), math.Inf(-1)
	for m, mo := range models {
		if len(mo.X) == 0 {
			return nil, nil, fmt.Errorf("stats/plot: difficulty curves: model %q has no tasks: %w", mo.Model, stats.ErrTooFew)
		}
		lo, hi := slices.Min(mo.X), slices.Max(mo.X)
		fit, err := stats.Logit(mo.Solved, [][]float64{mo.X}, &stats.LogitOptions{ZScore: true})
		if err != nil {
			return nil, nil, fmt.Errorf("stats/plot: difficulty curves: model %q: %w", mo.Model, err)
		}
		grid := make([]float64, points)
		probs := make([]float64, points)
		for i := range grid {
			grid[i] = lo + (hi-lo)*float64(i)/float64(points-1)
			probs[i] = fit.Prob(grid[i])
		}
		cv := Curve{Model: mo.Model, Fit: fit, X: grid, P: probs}
		col := plotutil.Color(m)
		if reps > 0 {
			iv, err := stats.Bootstrap(len(mo.X), func(idx []int) ([]float64, error) {
				x, y := make([]float64, len(idx)), make([]float64, len(idx))
				for i, j := range idx {
					x[i], y[i] = mo.X[j], mo.Solved[j]
				}
				r, err := stats.Logit(y, [][]float64{x}, &stats.LogitOptions{ZScore: true})
				if err != nil {
					return nil, err
				}
				out := make([]float64, len(grid))
				for i, g := range grid {
					out[i] = r.Prob(g)
				}
				return out, nil
			}, stats.BootstrapOptions{Reps: reps, Level: opts.Level, Rand: rand.New(rand.NewPCG(opts.Seed, uint64(m)))})
			if err != nil {
				return nil, nil, fmt.Errorf("stats/plot: difficulty curves: model %q: bootstrap: %w", mo.Model, err)
			}
			cv.Lo, cv.Hi = make([]float64, points), make([]float64, points)
			band := make(plotter.XYs, 0, 2*points)
			for i := range grid {
				cv.Lo[i], cv.Hi[i] = iv[i].Lo, iv[i].Hi
				band = append(band, plotter.XY{X: grid[i], Y: iv[i].Lo})
			}
			for i := points - 1; i >= 0; i-- {
				band = append(band, plotter.XY{X: grid[i], Y: iv[i].Hi})
			}
			cv.Reps, cv.Missing = iv[0].Reps, iv[0].Missing
			poly, err := plotter.NewPolygon(band)
			if err != nil {
				return nil, nil, fmt.Errorf("stats/plot: difficulty curves: %w", err)
			}
			poly.Color = withAlpha(col, 0x50)
			poly.LineStyle.Width = 0
			p.Add(poly)
		}
		xys := make(plotter.XYs, points)
		for i := range grid {
			xys[i] = plotter.XY{X: grid[i], Y: probs[i]}
		}
		line, err := plotter.NewLine(xys)
		if err != nil {
			return nil, nil, fmt.Errorf("stats/plot: difficulty curves: %w", err)
		}
		line.Color = col
		line.Width *= 2
		p.Add(line)
		p.Legend.Add(fmt.Sprintf("%s (n = %d)", mo.Model, len(mo.X)), line)
		curves[m] = cv
		xlo, xhi = math.Min(xlo, lo), math.Max(xhi, hi)
		if opts.Progress != nil {
			opts.Progress(m+1, len(models))
		}
	}
	var err error
	if p.X.Min, p.X.Max, err = axisLimits("difficulty curves: x", xlo, xhi); err != nil {
		return nil, nil, err
	}
	p.X.Tick.Marker = distinctTicks{}
	return p, curves, nil
}

// withAlpha returns the opaque colour c with the given opacity.
func withAlpha(c color.Color, a uint8) color.Color {
	r, g, b, _ := c.RGBA()
	f := float64(a) / 0xff
	return color.NRGBA64{R: uint16(r), G: uint16(g), B: uint16(b), A: uint16(math.Round(f * 0xffff))}
}
