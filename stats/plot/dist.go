package plot

import (
	"fmt"
	"image/color"
	"math"
	"slices"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/faultline-dev/faultline/stats"
)

// DistKind selects how SolvedDistribution draws each model's values.
type DistKind int

const (
	// Box draws a box plot with matplotlib's rules (see stats.BoxPlotStats).
	Box DistKind = iota
	// Violin draws a mirrored Gaussian kernel density estimate with the quartiles across.
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

// Values are the values of a difficulty metric in one group, for example among the tasks
// one model solved.
type Values struct {
	Model  string
	Values []float64
}

// DistOptions configures SolvedDistribution. The zero value draws box plots with
// matplotlib's 1.5 IQR whiskers.
type DistOptions struct {
	Title string
	// XLabel names what the groups are (for example "model"); YLabel the metric.
	XLabel, YLabel string
	// Subset states which rows were kept, for example "solved tasks only"; it is printed
	// under the title, so a filtered chart says so.
	Subset string
	Kind   DistKind
	// Points is the number of density evaluations per violin; 0 means 100.
	Points int
	// Whis is the whisker reach of the boxes in interquartile ranges; 0 means 1.5.
	Whis float64
}

// DistGroup is one group as drawn: its size and box-plot statistics (zero when N is 0).
type DistGroup struct {
	Model string
	N     int
	Box   stats.BoxStats
}

// SolvedDistribution draws one box or violin per group, in the order given, at x
// positions 0, 1, …, labelled with the group's name and size n. A group with no values
// keeps its slot, empty, labelled n = 0; a group of one value or of equal values is drawn
// as a line at that value. It fails when no group has a value, on NaN or ±Inf, and when the
// values span more than float64 can hold.
func SolvedDistribution(models []Values, opts DistOptions) (*gplot.Plot, []DistGroup, error) {
	if len(models) == 0 {
		return nil, nil, fmt.Errorf("stats/plot: solved distribution: no groups: %w", stats.ErrTooFew)
	}
	whis := opts.Whis
	if whis == 0 {
		whis = 1.5
	}
	points := opts.Points
	if points == 0 {
		points = 100
	}
	if points < 2 {
		return nil, nil, fmt.Errorf("stats/plot: solved distribution: %d density points: %w", points, stats.ErrRange)
	}
	if opts.Kind != Box && opts.Kind != Violin {
		return nil, nil, fmt.Errorf("stats/plot: solved distribution: kind %d: %w", opts.Kind, stats.ErrRange)
	}
	groups := make([]DistGroup, len(models))
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, m := range models {
		groups[i] = DistGroup{Model: m.Model, N: len(m.Values)}
		if len(m.Values) == 0 {
			continue
		}
		b, err := stats.BoxPlotStats(m.Values, whis)
		if err != nil {
			return nil, nil, fmt.Errorf("stats/plot: solved distribution: group %q: %w", m.Model, err)
		}
		groups[i].Box = b
		lo, hi = math.Min(lo, slices.Min(m.Values)), math.Max(hi, slices.Max(m.Values))
	}
	if math.IsInf(lo, 1) {
		return nil, nil, fmt.Errorf("stats/plot: solved distribution: no group has a value: %w", stats.ErrTooFew)
	}
	ymin, ymax, err := axisLimits("solved distribution: y", lo, hi)
	if err != nil {
		return nil, nil, err
	}

	p := gplot.New()
	p.Title.Text = joinLines(opts.Title, opts.Subset)
	p.X.Label.Text = opts.XLabel
	p.Y.Label.Text = opts.YLabel
	labels := make([]string, len(models))
	for i, m := range models {
		labels[i] = fmt.Sprintf("%s\nn = %d", m.Model, len(m.Values))
		if len(m.Values) == 0 {
			continue
		}
		fill := withAlpha(plotutil.Color(i), 0x80)
		switch opts.Kind {
		case Box:
			p.Add(&boxGlyph{pos: float64(i), stats: groups[i].Box, fill: fill})
		case Violin:
			v, err := newViolin(m.Values, float64(i), 0.4, points, groups[i].Box, withAlpha(plotutil.Color(i), 0x99))
			if err != nil {
				return nil, nil, fmt.Errorf("stats/plot: solved distribution: group %q: %w", m.Model, err)
			}
			p.Add(v)
		}
	}
	p.NominalX(labels...)
	p.X.Min, p.X.Max = -0.6, float64(len(models)-1)+0.6
	p.Y.Min, p.Y.Max = ymin, ymax
	p.Y.Tick.Marker = distinctTicks{}
	return p, groups, nil
}

// joinLines joins the non-empty strings with newlines.
func joinLines(s ...string) string {
	var out string
	for _, v := range s {
		if v == "" {
			continue
		}
		if out != "" {
			out += "\n"
		}
		out += v
	}
	return out
}

// boxGlyph draws one box plot at x = pos from precomputed statistics.
type boxGlyph struct {
	pos   float64
	stats stats.BoxStats
	fill  color.Color
}

const boxHalfWidth = 0.25 // in x data units (groups are 1 apart)

func (b *boxGlyph) Plot(c draw.Canvas, p *gplot.Plot) {
	tx, ty := p.Transforms(&c)
	s := b.stats
	line := draw.LineStyle{Color: color.Black, Width: vg.Points(1)}
	x0, x1 := tx(b.pos-boxHalfWidth), tx(b.pos+boxHalfWidth)
	xc := tx(b.pos)
	q1, q3 := ty(s.Q1), ty(s.Q3)
	rect := []vg.Point{{X: x0, Y: q1}, {X: x1, Y: q1}, {X: x1, Y: q3}, {X: x0, Y: q3}}
	c.FillPolygon(b.fill, c.ClipPolygonXY(rect))
	c.StrokeLines(line, c.ClipLinesXY(append(rect, rect[0]))...)
	// Whiskers with caps half as wide as the box.
	cx0, cx1 := tx(b.pos-boxHalfWidth/2), tx(b.pos+boxHalfWidth/2)
	for _, w := range [][2]float64{{s.Q1, s.WhiskerLo}, {s.Q3, s.WhiskerHi}} {
		if w[0] == w[1] {
			continue
		}
		c.StrokeLines(line, c.ClipLinesXY([]vg.Point{{X: xc, Y: ty(w[0])}, {X: xc, Y: ty(w[1])}})...)
		c.StrokeLines(line, c.ClipLinesXY([]vg.Point{{X: cx0, Y: ty(w[1])}, {X: cx1, Y: ty(w[1])}})...)
	}
	med := draw.LineStyle{Color: color.Black, Width: vg.Points(2)}
	c.StrokeLines(med, c.ClipLinesXY([]vg.Point{{X: x0, Y: ty(s.Median)}, {X: x1, Y: ty(s.Median)}})...)
	out := draw.GlyphStyle{Color: color.Black, Radius: vg.Points(2.5), Shape: draw.RingGlyph{}}
	for _, v := range s.Outliers {
		pt := vg.Point{X: xc, Y: ty(v)}
		if c.Contains(pt) {
			c.DrawGlyph(out, pt)
		}
	}
}

// violin draws a density outline at x = pos with the median and quartiles across it.
type violin struct {
	outline plotter.XYs // nil for a degenerate violin (one value, or equal values)
	// marks are the quartile lines: y, half-width and whether dashed.
	marks []violinMark
	pos   float64
	fill  color.Color
}

type violinMark struct {
	y, half float64
	dashed  bool
}

// newViolin builds the violin of values centred at pos with half-width halfWidth at the
// density's maximum. The outline spans the range of the values only, so the shape does
// not suggest values that were never seen. The density is computed on the values divided
// by a power of two near their magnitude (exact, and it keeps values near ±1e308 or
// 1e-300 within range); the shape does not depend on that scale.
func newViolin(values []float64, pos, halfWidth float64, points int, b stats.BoxStats, fill color.Color) (*violin, error) {
	v := &violin{pos: pos, fill: fill}
	lo, hi := slices.Min(values), slices.Max(values)
	if lo == hi {
		v.marks = []violinMark{{y: lo, half: halfWidth / 2}}
		return v, nil
	}
	_, e := math.Frexp(math.Max(math.Abs(lo), math.Abs(hi)))
	scale := math.Ldexp(1, e-1) // |values|/scale < 2; 2^(e-1) is finite for every finite value
	scaled := make([]float64, len(values))
	for i, x := range values {
		scaled[i] = x / scale
	}
	slo, shi := lo/scale, hi/scale
	grid := make([]float64, points, points+3)
	for i := range grid {
		grid[i] = slo + (shi-slo)*float64(i)/float64(points-1)
	}
	grid = append(grid, b.Q1/scale, b.Median/scale, b.Q3/scale)
	d, err := KDE(scaled, grid)
	if err != nil {
		return nil, err
	}
	top := slices.Max(d[:points])
	if !(top > 0) {
		return nil, fmt.Errorf("stats/plot: violin: density vanishes: %w", stats.ErrRange)
	}
	v.outline = make(plotter.XYs, 0, 2*points)
	for i := 0; i < points; i++ {
		v.outline = append(v.outline, plotter.XY{X: pos + halfWidth*d[i]/top, Y: grid[i] * scale})
	}
	for i := points - 1; i >= 0; i-- {
		v.outline = append(v.outline, plotter.XY{X: pos - halfWidth*d[i]/top, Y: grid[i] * scale})
	}
	v.marks = []violinMark{
		{y: b.Q1, half: halfWidth * d[points] / top, dashed: true},
		{y: b.Median, half: halfWidth * d[points+1] / top},
		{y: b.Q3, half: halfWidth * d[points+2] / top, dashed: true},
	}
	return v, nil
}

func (v *violin) Plot(c draw.Canvas, p *gplot.Plot) {
	tx, ty := p.Transforms(&c)
	edge := draw.LineStyle{Color: color.Black, Width: vg.Points(0.75)}
	if v.outline != nil {
		pts := make([]vg.Point, len(v.outline))
		for i, xy := range v.outline {
			pts[i] = vg.Point{X: tx(xy.X), Y: ty(xy.Y)}
		}
		c.FillPolygon(v.fill, c.ClipPolygonXY(pts))
		c.StrokeLines(edge, c.ClipLinesXY(append(pts, pts[0]))...)
	}
	for _, m := range v.marks {
		st := draw.LineStyle{Color: color.Black, Width: vg.Points(1.5)}
		if m.dashed {
			st.Width = vg.Points(1)
			st.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
		}
		if v.outline == nil {
			st.Width = vg.Points(2)
		}
		c.StrokeLines(st, c.ClipLinesXY([]vg.Point{{X: tx(v.pos - m.half), Y: ty(m.y)}, {X: tx(v.pos + m.half), Y: ty(m.y)}})...)
	}
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
	if math.IsInf(sd, 0) || math.IsNaN(sd) {
		return nil, fmt.Errorf("stats/plot: kde: the standard deviation overflows: %w", stats.ErrOverflow)
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
