package plot

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
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
	// Counts prints each hexagon's number of tasks inside it, where it fits.
	Counts bool
	// Outcome names the 0/1 outcome in the colour bar's title ("share <Outcome>") and the
	// line's legend ("P(<Outcome>) = 0.5"); "" means "solved".
	Outcome string
}

// Hex is one hexagonal bin: its centre in z units, the tasks it holds and how many of them
// were solved.
type Hex struct {
	X, Y   float64
	Count  int
	Solved int
}

// Rate is the success rate of the bin.
func (h Hex) Rate() float64 { return float64(h.Solved) / float64(h.Count) }

// Hexbin is the binned map as drawn: the bins sorted by (row, column), the joint model
// fitted on the z-scored predictors and its zero-logit line β₀ + β₁z₁ + β₂z₂ = 0 as two
// end points (nil when the line misses the map). When the joint model cannot be fitted
// (separation, a single outcome class, too few tasks, collinear predictors) the map is
// still drawn: Fit and Line are nil and FitErr says why.
type Hexbin struct {
	Bins     []Hex
	MaxCount int
	Fit      *stats.LogitResult
	FitErr   error
	Line     plotter.XYs
	// XMin … YMax is the extent of the drawn hexagons in z units (their centres ± one
	// radius), the limits of the axes.
	XMin, XMax, YMin, YMax float64
}

// HexbinChart is the drawn hexbin map: Plot holds the map with its axes, title and labels
// (adjust them there), and Draw adds a side panel with the colour bar of the success rate,
// the key of hexagon sizes and the legend of the zero-logit line.
type HexbinChart struct {
	Plot    *gplot.Plot
	hb      *Hexbin
	radius  float64
	outcome string
	colors  palette.ColorMap
	// bar is where the last Draw put the colour bar (for tests).
	bar vg.Rectangle
}

// SuccessHexbin z-scores x1 and x2, bins the tasks into pointy-top hexagons, colours each
// by its success rate (blue 0 → red 1) and sizes it by its number of tasks (the radius
// grows with the logarithm of the count, from 0.3 of the full radius for one task to the
// full radius for the densest hexagon), then draws the zero-logit line of the joint
// logistic model of solved on (z1, z2). It fails when the inputs differ in length, are not
// finite, solved is not 0/1, or a predictor cannot be z-scored (fewer than two values, a
// constant, values whose squares overflow).
func SuccessHexbin(x1, x2, solved []float64, opts HexbinOptions) (*HexbinChart, *Hexbin, error) {
	if len(x1) != len(x2) || len(x1) != len(solved) {
		return nil, nil, fmt.Errorf("stats/plot: hexbin: %d, %d and %d values: %w", len(x1), len(x2), len(solved), stats.ErrLength)
	}
	radius := opts.Radius
	if radius == 0 {
		radius = 0.25
	}
	if !(radius > 0) || math.IsInf(radius, 0) {
		return nil, nil, fmt.Errorf("stats/plot: hexbin: radius %v: %w", radius, stats.ErrRange)
	}
	minCount := max(opts.MinCount, 1)
	for i, v := range solved {
		if v != 0 && v != 1 {
			return nil, nil, fmt.Errorf("stats/plot: hexbin: solved[%d] = %v: %w", i, v, stats.ErrNotBinary)
		}
	}
	z1, err := stats.ZScore(x1, opts.DDoF)
	if err != nil {
		return nil, nil, fmt.Errorf("stats/plot: hexbin: x1: %w", err)
	}
	z2, err := stats.ZScore(x2, opts.DDoF)
	if err != nil {
		return nil, nil, fmt.Errorf("stats/plot: hexbin: x2: %w", err)
	}
	hb := &Hexbin{}
	hb.Fit, hb.FitErr = stats.Logit(solved, [][]float64{x1, x2}, &stats.LogitOptions{ZScore: true, DDoF: opts.DDoF})

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
	for _, k := range keys {
		if h := bins[k]; h.Count >= minCount {
			hb.Bins = append(hb.Bins, *h)
			hb.MaxCount = max(hb.MaxCount, h.Count)
		}
	}
	if len(hb.Bins) == 0 {
		return nil, nil, fmt.Errorf("stats/plot: hexbin: no hexagon holds %d tasks: %w", minCount, stats.ErrTooFew)
	}

	hb.XMin, hb.XMax = math.Inf(1), math.Inf(-1)
	hb.YMin, hb.YMax = math.Inf(1), math.Inf(-1)
	for _, b := range hb.Bins {
		hb.XMin, hb.XMax = math.Min(hb.XMin, b.X-radius), math.Max(hb.XMax, b.X+radius)
		hb.YMin, hb.YMax = math.Min(hb.YMin, b.Y-radius), math.Max(hb.YMax, b.Y+radius)
	}
	if hb.Fit != nil {
		hb.Line = zeroLogitSegment(hb.Fit.Coef, hb.XMin, hb.XMax, hb.YMin, hb.YMax)
	}

	p := gplot.New()
	p.Title.Text = opts.Title
	p.Title.Padding = vg.Points(8) // the map reaches the top of its area
	p.X.Label.Text = opts.XLabel
	p.Y.Label.Text = opts.YLabel
	cm := moreland.SmoothBlueRed()
	cm.SetMin(0)
	cm.SetMax(1)
	hp := &hexPlotter{bins: hb.Bins, radius: radius, maxCount: hb.MaxCount, colors: cm, counts: opts.Counts, label: p.X.Tick.Label}
	p.Add(hp)
	if hb.Line != nil {
		line, err := plotter.NewLine(hb.Line)
		if err != nil {
			return nil, nil, fmt.Errorf("stats/plot: hexbin: %w", err)
		}
		line.Width = vg.Points(2)
		line.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
		p.Add(line)
	}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = hb.XMin, hb.XMax, hb.YMin, hb.YMax
	outcome := opts.Outcome
	if outcome == "" {
		outcome = "solved"
	}
	return &HexbinChart{Plot: p, hb: hb, radius: radius, outcome: outcome, colors: cm}, hb, nil
}

// sizeFraction is the drawn radius of a hexagon of count tasks as a fraction of the full
// radius: 0.3 for one task, growing with log(count) to 1 for the densest.
func sizeFraction(count, maxCount int) float64 {
	if maxCount <= 1 {
		return 1
	}
	return 0.3 + 0.7*math.Log(float64(count))/math.Log(float64(maxCount))
}

// Draw draws the map over the extent of the data and the side panel to its right.
// Hexagons are regular in z units; when the two axes have different scales they are
// stretched alike, which keeps the tiling exact.
func (h *HexbinChart) Draw(dc draw.Canvas) {
	side := min(vg.Inch*1.5, (dc.Max.X-dc.Min.X)*0.3)
	main := draw.Crop(dc, 0, -side, 0, 0)
	h.Plot.Draw(main)
	da := h.Plot.DataCanvas(main)
	ux := (da.Max.X - da.Min.X) / vg.Length(h.Plot.X.Max-h.Plot.X.Min) // length of one z unit
	uy := (da.Max.Y - da.Min.Y) / vg.Length(h.Plot.Y.Max-h.Plot.Y.Min)
	h.drawPanel(draw.Crop(dc, dc.Max.X-dc.Min.X-side, 0, 0, 0), da, ux, uy)
}

// drawPanel draws the colour bar, the size key and the line legend in the strip c, aligned
// with the map's data area da.
func (h *HexbinChart) drawPanel(c draw.Canvas, da draw.Canvas, ux, uy vg.Length) {
	sty := h.Plot.Y.Tick.Label
	sty.Color = color.Black
	title := h.Plot.Y.Label.TextStyle
	title.Font.Size = sty.Font.Size
	lineSty := draw.LineStyle{Color: color.Black, Width: vg.Points(0.75)}
	top := da.Max.Y
	height := top - da.Min.Y
	x0 := c.Min.X + vg.Points(12)

	// Colour bar: the upper half of the panel.
	barW := vg.Points(12)
	barTop := top - sty.Height("0")
	barBottom := barTop - height*0.45
	title.XAlign, title.YAlign = draw.XLeft, draw.YBottom
	c.FillText(title, vg.Point{X: x0, Y: barTop + vg.Points(4)}, "share "+h.outcome)
	const bands = 64
	for i := 0; i < bands; i++ {
		v := (float64(i) + 0.5) / bands
		col, err := h.colors.At(v)
		if err != nil {
			continue // unreachable: v lies in [0, 1]
		}
		// Each band reaches to the top of the bar and the next band paints over it, so no
		// anti-aliased seam of background shows between bands.
		y0 := barBottom + (barTop-barBottom)*vg.Length(i)/bands
		c.FillPolygon(col, []vg.Point{{X: x0, Y: y0}, {X: x0 + barW, Y: y0}, {X: x0 + barW, Y: barTop}, {X: x0, Y: barTop}})
	}
	h.bar = vg.Rectangle{Min: vg.Point{X: x0, Y: barBottom}, Max: vg.Point{X: x0 + barW, Y: barTop}}
	c.StrokeLines(lineSty, []vg.Point{{X: x0, Y: barBottom}, {X: x0 + barW, Y: barBottom}, {X: x0 + barW, Y: barTop}, {X: x0, Y: barTop}, {X: x0, Y: barBottom}})
	tick := sty
	tick.XAlign, tick.YAlign = draw.XLeft, draw.YCenter
	for _, v := range []float64{0, 0.25, 0.5, 0.75, 1} {
		y := barBottom + (barTop-barBottom)*vg.Length(v)
		c.StrokeLine2(lineSty, x0+barW, y, x0+barW+vg.Points(3), y)
		c.FillText(tick, vg.Point{X: x0 + barW + vg.Points(5), Y: y}, strconv.FormatFloat(v, 'g', -1, 64))
	}

	// Size key: hexagons for one task, the densest, and one between.
	keyTop := barBottom - vg.Points(14)
	c.FillText(title, vg.Point{X: x0, Y: keyTop}, "tasks per hexagon")
	counts := []int{1}
	if m := h.hb.MaxCount; m > 1 {
		if mid := int(math.Round(math.Sqrt(float64(m)))); mid > 1 && mid < m {
			counts = append(counts, mid)
		}
		counts = append(counts, m)
	}
	rx, ry := vg.Length(h.radius)*ux, vg.Length(h.radius)*uy
	y := keyTop - vg.Points(4) - max(ry, vg.Points(5))
	grey := color.Gray{Y: 0x99}
	for _, n := range counts {
		f := vg.Length(sizeFraction(n, h.hb.MaxCount))
		c.FillPolygon(grey, hexagon(vg.Point{X: x0 + rx, Y: y}, rx*f, ry*f))
		c.FillText(tick, vg.Point{X: x0 + 2*rx + vg.Points(5), Y: y}, strconv.Itoa(n))
		y -= 2*max(ry, vg.Points(5)) + vg.Points(3)
	}

	// The zero-logit line, or why there is none.
	y -= vg.Points(6)
	if h.hb.Line != nil {
		dash := draw.LineStyle{Color: color.Black, Width: vg.Points(2), Dashes: []vg.Length{vg.Points(6), vg.Points(3)}}
		c.StrokeLine2(dash, x0, y, x0+vg.Points(20), y)
		c.FillText(tick, vg.Point{X: x0 + vg.Points(24), Y: y}, "P("+h.outcome+") = 0.5")
	} else {
		c.FillText(tick, vg.Point{X: x0, Y: y}, "no joint fit")
	}
}

// hexagon returns the corners of a pointy-top hexagon around ctr whose circumradius is rx
// horizontally and ry vertically (a regular hexagon stretched with its axes).
func hexagon(ctr vg.Point, rx, ry vg.Length) []vg.Point {
	pts := make([]vg.Point, 6)
	for k := range pts {
		a := math.Pi/6 + float64(k)*math.Pi/3
		pts[k] = vg.Point{X: ctr.X + rx*vg.Length(math.Cos(a)), Y: ctr.Y + ry*vg.Length(math.Sin(a))}
	}
	return pts
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

// hexPlotter draws filled hexagons coloured by success rate and sized by count.
type hexPlotter struct {
	bins     []Hex
	radius   float64
	maxCount int
	colors   palette.ColorMap
	counts   bool
	label    text.Style
}

func (h *hexPlotter) Plot(c draw.Canvas, p *gplot.Plot) {
	tx, ty := p.Transforms(&c)
	ux, uy := tx(1)-tx(0), ty(1)-ty(0)
	lab := h.label
	lab.XAlign, lab.YAlign = draw.XCenter, draw.YCenter
	lab.Font.Size = vg.Points(7)
	for _, b := range h.bins {
		col, err := h.colors.At(b.Rate())
		if err != nil {
			col = color.Black // unreachable: rates lie in [0, 1]
		}
		ctr := vg.Point{X: tx(b.X), Y: ty(b.Y)}
		f := vg.Length(h.radius * sizeFraction(b.Count, h.maxCount))
		c.FillPolygon(col, c.ClipPolygonXY(hexagon(ctr, f*ux, f*uy)))
		if h.counts && c.Contains(ctr) {
			s := strconv.Itoa(b.Count)
			if lab.Width(s) < 1.6*f*ux && lab.Height(s) < 1.4*f*uy {
				lab.Color = textColor(col)
				c.FillText(lab, ctr, s)
			}
		}
	}
}

// textColor is black or white, whichever reads better on bg.
func textColor(bg color.Color) color.Color {
	r, g, b, _ := bg.RGBA()
	if 0.299*float64(r)+0.587*float64(g)+0.114*float64(b) > 0.5*0xffff {
		return color.Black
	}
	return color.White
}
