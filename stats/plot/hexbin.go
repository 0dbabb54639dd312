package plot

import (
	"fmt"
	"image/color"
	"math"
	"slices"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/faultline-dev/faultline/stats"
)

// HexbinOptions configures SuccessHexbin. The zero value works.
type HexbinOptions struct {
	Title, XLabel, YLabel string
	// Radius is the hexagon circumradius in z units; 0 means 0.25.
	Radius float64
	// DDoF is the z-score ddof (0, the default, or 1).
	DDoF int
	// MinCount hides hexagons holding fewer tasks; 0 means 1.
	MinCount int
}

// Hex is one hexagonal bin: its centre in z units, the tasks it holds and the fraction
// solved.
type Hex struct {
	X, Y   float64
	Count  int
	Solved int
}

// Rate is the success rate of the bin.
func (h Hex) Rate() float64 { return float64(h.Solved) / float64(h.Count) }

// Hexbin is the binned map as drawn: the bins sorted by (row, column), the joint model fitted
// on the z-scored predictors, and the zero-logit line β₀ + β₁z₁ + β₂z₂ = 0 as two end points
// (nil when the line misses the plotted area).
type Hexbin struct {
	Bins []Hex
	Fit  *stats.LogitResult
	Line plotter.XYs
}

// SuccessHexbin z-scores x1 and x2, bins the tasks into pointy-top hexagons and colours each
// by its success rate (blue 0 → red 1), then draws the zero-logit line of the joint logistic
// model of solved on (z1, z2). It fails where stats.Logit fails for the joint model.
func SuccessHexbin(x1, x2, solved []float64, opts HexbinOptions) (*gplot.Plot, *Hexbin, error) {
	if len(x1) != len(x2) || len(x1) != len(solved) {
		return nil, nil, fmt.Errorf("stats/plot: hexbin: %d, %d and %d values: %w", len(x1), len(x2), len(solved), stats.ErrLength)
	}
	radius := opts.Radius
	if radius == 0 {
		radius = 0.25
	}
	if !(radius > 0) {
		return nil, nil, fmt.Errorf("stats/plot: hexbin: radius %v: %w", radius, stats.ErrRange)
	}
	minCount := max(opts.MinCount, 1)
	fit, err := stats.Logit(solved, [][]float64{x1, x2}, &stats.LogitOptions{ZScore: true, DDoF: opts.DDoF})
	if err != nil {
		return nil, nil, fmt.Errorf("stats/plot: hexbin: %w", err)
	}
	z1, err := stats.ZScore(x1, opts.DDoF)
	if err != nil {
		return nil, nil, fmt.Errorf("stats/plot: hexbin: x1: %w", err)
	}
	z2, err := stats.ZScore(x2, opts.DDoF)
	if err != nil {
		return nil, nil, fmt.Errorf("stats/plot: hexbin: x2: %w", err)
	}

	type key struct{ q, r int }
	bins := map[key]*Hex{}
	for i := range z1 {
		q, r := hexRound(z1[i], z2[i], radius)
		k := key{q, r}
		h := bins[k]
		if h == nil {
			cx, cy := hexCenter(q, r, radius)
			h = &Hex{X: cx, Y: cy}
			bins[k] = h
		}
		h.Count++
		if solved[i] == 1 {
			h.Solved++
		}
	}
	keys := make([]key, 0, len(bins))
	for k := range bins {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b key) int {
		if a.r != b.r {
			return a.r - b.r
		}
		return a.q - b.q
	})
	hb := &Hexbin{Fit: fit}
	for _, k := range keys {
		if h := bins[k]; h.Count >= minCount {
			hb.Bins = append(hb.Bins, *h)
		}
	}

	xmin, xmax := slices.Min(z1)-radius, slices.Max(z1)+radius
	ymin, ymax := slices.Min(z2)-radius, slices.Max(z2)+radius
	hb.Line = zeroLogitSegment(fit.Coef, xmin, xmax, ymin, ymax)

	p := gplot.New()
	p.Title.Text = opts.Title
	p.X.Label.Text = opts.XLabel
	p.Y.Label.Text = opts.YLabel
	cm := moreland.SmoothBlueRed()
	cm.SetMin(0)
	cm.SetMax(1)
	p.Add(&hexPlotter{bins: hb.Bins, radius: radius, colors: cm})
	for _, v := range []float64{0, 0.5, 1} {
		c, err := cm.At(v)
		if err != nil {
			return nil, nil, fmt.Errorf("stats/plot: hexbin: %w", err)
		}
		p.Legend.Add(fmt.Sprintf("success rate %g", v), swatch{c})
	}
	if hb.Line != nil {
		line, err := plotter.NewLine(hb.Line)
		if err != nil {
			return nil, nil, fmt.Errorf("stats/plot: hexbin: %w", err)
		}
		line.Width = vg.Points(2)
		line.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
		p.Add(line)
		p.Legend.Add("P(solved) = 0.5", line)
	}
	// Head room above the data for the legend, which sits top right.
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = xmin, xmax, ymin, ymax+0.4*(ymax-ymin)
	p.Legend.Top = true
	return p, hb, nil
}

// Pointy-top hexagons of circumradius s: centre (s·√3·(q + r/2), s·1.5·r) in axial
// coordinates (q, r).
func hexCenter(q, r int, s float64) (float64, float64) {
	return s * math.Sqrt(3) * (float64(q) + float64(r)/2), s * 1.5 * float64(r)
}

// hexRound returns the axial coordinates of the hexagon containing (x, y): fractional axial
// coordinates rounded in cube coordinates.
func hexRound(x, y, s float64) (int, int) {
	fq := (math.Sqrt(3)/3*x - y/3) / s
	fr := (2.0 / 3 * y) / s
	fs := -fq - fr
	q, r, sr := math.Round(fq), math.Round(fr), math.Round(fs)
	dq, dr, ds := math.Abs(q-fq), math.Abs(r-fr), math.Abs(sr-fs)
	switch {
	case dq > dr && dq > ds:
		q = -r - sr
	case dr > ds:
		r = -q - sr
	}
	return int(q), int(r)
}

// zeroLogitSegment clips the line b0 + b1·x + b2·y = 0 to the rectangle and returns its end
// points, or nil if it misses the rectangle.
func zeroLogitSegment(b []float64, xmin, xmax, ymin, ymax float64) plotter.XYs {
	var pts plotter.XYs
	add := func(x, y float64) {
		if x >= xmin-1e-12 && x <= xmax+1e-12 && y >= ymin-1e-12 && y <= ymax+1e-12 {
			pts = append(pts, plotter.XY{X: x, Y: y})
		}
	}
	if b[2] != 0 {
		add(xmin, -(b[0]+b[1]*xmin)/b[2])
		add(xmax, -(b[0]+b[1]*xmax)/b[2])
	}
	if b[1] != 0 {
		add(-(b[0]+b[2]*ymin)/b[1], ymin)
		add(-(b[0]+b[2]*ymax)/b[1], ymax)
	}
	if len(pts) < 2 {
		return nil
	}
	slices.SortFunc(pts, func(a, c plotter.XY) int {
		if a.X != c.X {
			return cmpFloat(a.X, c.X)
		}
		return cmpFloat(a.Y, c.Y)
	})
	return plotter.XYs{pts[0], pts[len(pts)-1]}
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// hexPlotter draws filled hexagons coloured by success rate.
type hexPlotter struct {
	bins   []Hex
	radius float64
	colors palette.ColorMap
}

func (h *hexPlotter) Plot(c draw.Canvas, p *gplot.Plot) {
	tx, ty := p.Transforms(&c)
	for _, b := range h.bins {
		col, err := h.colors.At(b.Rate())
		if err != nil {
			col = color.Black // unreachable: rates lie in [0, 1]
		}
		pts := make([]vg.Point, 6)
		for k := range pts {
			a := math.Pi/6 + float64(k)*math.Pi/3
			pts[k] = vg.Point{X: tx(b.X + h.radius*math.Cos(a)), Y: ty(b.Y + h.radius*math.Sin(a))}
		}
		c.FillPolygon(col, c.ClipPolygonXY(pts))
	}
}

func (h *hexPlotter) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, ymin = math.Inf(1), math.Inf(1)
	xmax, ymax = math.Inf(-1), math.Inf(-1)
	for _, b := range h.bins {
		xmin, xmax = math.Min(xmin, b.X-h.radius), math.Max(xmax, b.X+h.radius)
		ymin, ymax = math.Min(ymin, b.Y-h.radius), math.Max(ymax, b.Y+h.radius)
	}
	return xmin, xmax, ymin, ymax
}

// swatch is a legend thumbnail filled with one colour.
type swatch struct{ c color.Color }

func (s swatch) Thumbnail(c *draw.Canvas) {
	c.FillPolygon(s.c, []vg.Point{
		{X: c.Min.X, Y: c.Min.Y}, {X: c.Max.X, Y: c.Min.Y},
		{X: c.Max.X, Y: c.Max.Y}, {X: c.Min.X, Y: c.Max.Y},
	})
}
