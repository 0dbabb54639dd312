package plot

import (
	"fmt"
	"math"
	"slices"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/faultline-dev/faultline/stats"
)

// DistKind selects how SolvedDistribution draws each model's values.
type DistKind int

const (
	// Box draws a Tukey box plot (gonum's plotter.BoxPlot).
	Box DistKind = iota
	// Violin draws a mirrored Gaussian kernel density estimate.
	Violin
)

// ParseDistKind parses "box" or "violin".
func ParseDistKind(s string) (DistKind, error) {
	switch s {
	case "box":
		return Box, nil
	case "violin":
		return Violin, nil
	}
	return 0, fmt.Errorf("stats/plot: unknown distribution kind %q (want box or violin): %w", s, stats.ErrRange)
}

// Values are the values of a difficulty metric among the tasks one model solved.
type Values struct {
	Model  string
	Values []float64
}

// DistOptions configures SolvedDistribution. The zero value draws box plots.
type DistOptions struct {
	Title, YLabel string
	Kind          DistKind
	// Points is the number of density evaluations per violin; 0 means 100.
	Points int
}

// SolvedDistribution draws one box or violin per model, in the order given, labelled with the
// model names on the X axis. A model needs at least one value for a box and two distinct
// values for a violin (a kernel density needs spread).
func SolvedDistribution(models []Values, opts DistOptions) (*gplot.Plot, error) {
	if len(models) == 0 {
		return nil, fmt.Errorf("stats/plot: solved distribution: no models: %w", stats.ErrTooFew)
	}
	p := gplot.New()
	p.Title.Text = opts.Title
	p.Y.Label.Text = opts.YLabel
	names := make([]string, len(models))
	for i, m := range models {
		names[i] = m.Model
		if len(m.Values) == 0 {
			return nil, fmt.Errorf("stats/plot: solved distribution: model %q solved nothing: %w", m.Model, stats.ErrTooFew)
		}
		if err := checkFinite(m); err != nil {
			return nil, err
		}
		switch opts.Kind {
		case Box:
			b, err := plotter.NewBoxPlot(vg.Points(30), float64(i), plotter.Values(m.Values))
			if err != nil {
				return nil, fmt.Errorf("stats/plot: solved distribution: model %q: %w", m.Model, err)
			}
			b.FillColor = withAlpha(plotutil.Color(i), 0x80)
			p.Add(b)
		case Violin:
			xys, err := violin(m.Values, float64(i), 0.4, opts.Points)
			if err != nil {
				return nil, fmt.Errorf("stats/plot: solved distribution: model %q: %w", m.Model, err)
			}
			poly, err := plotter.NewPolygon(xys)
			if err != nil {
				return nil, fmt.Errorf("stats/plot: solved distribution: model %q: %w", m.Model, err)
			}
			poly.Color = withAlpha(plotutil.Color(i), 0x99)
			p.Add(poly)
			med, err := stats.Percentile(m.Values, 50)
			if err != nil {
				return nil, fmt.Errorf("stats/plot: solved distribution: model %q: %w", m.Model, err)
			}
			mark, err := plotter.NewLine(plotter.XYs{{X: float64(i) - 0.15, Y: med}, {X: float64(i) + 0.15, Y: med}})
			if err != nil {
				return nil, fmt.Errorf("stats/plot: solved distribution: %w", err)
			}
			mark.Width = vg.Points(2)
			p.Add(mark)
		default:
			return nil, fmt.Errorf("stats/plot: solved distribution: kind %d: %w", opts.Kind, stats.ErrRange)
		}
	}
	p.NominalX(names...)
	// Margins so whisker caps and violin tips do not touch the frame.
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, m := range models {
		lo, hi = math.Min(lo, slices.Min(m.Values)), math.Max(hi, slices.Max(m.Values))
	}
	pad := 0.05 * (hi - lo)
	if pad == 0 {
		pad = 0.5
	}
	p.X.Min, p.X.Max = -0.6, float64(len(models)-1)+0.6
	p.Y.Min, p.Y.Max = lo-pad, hi+pad
	return p, nil
}

func checkFinite(m Values) error {
	for i, v := range m.Values {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("stats/plot: solved distribution: model %q: value %d is %v: %w", m.Model, i, v, stats.ErrNotFinite)
		}
	}
	return nil
}

// KDE returns a Gaussian kernel density estimate of values evaluated at points, with
// scipy.stats.gaussian_kde's default bandwidth (Scott's rule: the sample standard deviation,
// ddof 1, times n^(-1/5)).
func KDE(values, points []float64) ([]float64, error) {
	n := len(values)
	if n < 2 {
		return nil, fmt.Errorf("stats/plot: kde: n = %d: %w", n, stats.ErrTooFew)
	}
	ms, err := stats.MeanStdErr(values) // validates finiteness
	if err != nil {
		return nil, fmt.Errorf("stats/plot: kde: %w", err)
	}
	sd := ms.SE * math.Sqrt(float64(n)) // sample standard deviation, ddof 1
	if sd == 0 {
		return nil, fmt.Errorf("stats/plot: kde: all values equal %v: %w", values[0], stats.ErrConstant)
	}
	h := sd * math.Pow(float64(n), -0.2)
	norm := 1 / (float64(n) * h * math.Sqrt(2*math.Pi))
	out := make([]float64, len(points))
	for i, x := range points {
		s := 0.0
		for _, v := range values {
			u := (x - v) / h
			s += math.Exp(-u * u / 2)
		}
		out[i] = s * norm
	}
	return out, nil
}

// violin returns the outline of a violin centred at pos with half-width halfWidth at the
// density's maximum. The outline spans the range of the values only, so the shape does not
// suggest values that were never seen.
func violin(values []float64, pos, halfWidth float64, points int) (plotter.XYs, error) {
	if points == 0 {
		points = 100
	}
	if points < 2 {
		return nil, fmt.Errorf("stats/plot: violin: %d points: %w", points, stats.ErrRange)
	}
	lo, hi := slices.Min(values), slices.Max(values)
	grid := make([]float64, points)
	for i := range grid {
		grid[i] = lo + (hi-lo)*float64(i)/float64(points-1)
	}
	d, err := KDE(values, grid)
	if err != nil {
		return nil, err
	}
	top := slices.Max(d)
	xys := make(plotter.XYs, 0, 2*points)
	for i, y := range grid {
		xys = append(xys, plotter.XY{X: pos + halfWidth*d[i]/top, Y: y})
	}
	for i := points - 1; i >= 0; i-- {
		xys = append(xys, plotter.XY{X: pos - halfWidth*d[i]/top, Y: grid[i]})
	}
	return xys, nil
}
