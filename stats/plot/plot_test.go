package plot

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/faultline-dev/faultline/stats"
)

// synthetic draws n tasks whose success falls with x1 (and x2), like code lines and
// centrality.
func synthetic(seed uint64, n int, slope float64) (x1, x2, y []float64) {
	rng := rand.New(rand.NewPCG(seed, 99))
	x1, x2, y = make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range y {
		x1[i] = 5 + 40*rng.Float64()
		x2[i] = 0.3*x1[i]/40 + rng.Float64()
		eta := 2 - slope*(x1[i]-25)/10 - 1.5*(x2[i]-0.5)
		if rng.Float64() < 1/(1+math.Exp(-eta)) {
			y[i] = 1
		}
	}
	return x1, x2, y
}

// checkRender renders p as PNG and SVG and checks the PNG decodes to a picture of reasonable
// size that is not a single colour, and the SVG is an SVG document with drawing in it.
func checkRender(t *testing.T, p Chart) {
	t.Helper()
	var buf bytes.Buffer
	if err := Render(&buf, p, PNG, RenderOptions{}); err != nil {
		t.Fatal(err)
	}
	if buf.Len() < 5000 {
		t.Errorf("PNG is only %d bytes", buf.Len())
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatalf("PNG does not decode: %v", err)
	}
	b := img.Bounds()
	if b.Dx() < 300 || b.Dy() < 200 {
		t.Errorf("PNG is %dx%d", b.Dx(), b.Dy())
	}
	if n := distinctColors(img, 10); n < 10 {
		t.Errorf("PNG has %d distinct colours", n)
	}
	buf.Reset()
	if err := Render(&buf, p, SVG, RenderOptions{}); err != nil {
		t.Fatal(err)
	}
	s := buf.String()
	if !strings.Contains(s, "<svg") || strings.Count(s, "<path") < 10 {
		t.Errorf("SVG has %d paths: %.200s", strings.Count(s, "<path"), s)
	}
}

func distinctColors(img image.Image, stop int) int {
	seen := map[[4]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, a := img.At(x, y).RGBA()
			seen[[4]uint32{r, g, bl, a}] = true
			if len(seen) >= stop {
				return len(seen)
			}
		}
	}
	return len(seen)
}

func TestDifficultyCurves(t *testing.T) {
	xa, _, ya := synthetic(1, 150, 1.5)
	xb, _, yb := synthetic(2, 120, 0.6)
	models := []Outcomes{{Model: "model-a", X: xa, Solved: ya}, {Model: "model-b", X: xb, Solved: yb}}
	p, curves, err := DifficultyCurves(models, CurveOptions{Title: "success vs code lines", XLabel: "code lines", Reps: 60, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	checkRender(t, p)
	for m, c := range curves {
		fit, err := stats.Logit(models[m].Solved, [][]float64{models[m].X}, nil)
		if err != nil {
			t.Fatal(err)
		}
		inside := 0
		for i, x := range c.X {
			if math.Abs(c.P[i]-fit.Prob(x)) > 1e-9 {
				t.Fatalf("%s: P(%v) = %v, direct fit %v", c.Model, x, c.P[i], fit.Prob(x))
			}
			if c.Lo[i] > c.Hi[i] || c.Lo[i] < 0 || c.Hi[i] > 1 {
				t.Fatalf("%s: band [%v, %v]", c.Model, c.Lo[i], c.Hi[i])
			}
			if c.Lo[i] <= c.P[i] && c.P[i] <= c.Hi[i] {
				inside++
			}
		}
		if inside < len(c.X)*9/10 {
			t.Errorf("%s: fitted curve inside its band at %d of %d points", c.Model, inside, len(c.X))
		}
		if c.Reps+c.Missing != 60 || c.Reps < 50 {
			t.Errorf("%s: %d refits, %d missing", c.Model, c.Reps, c.Missing)
		}
		if c.P[0] <= c.P[len(c.P)-1] {
			t.Errorf("%s: success does not fall with size: %v → %v", c.Model, c.P[0], c.P[len(c.P)-1])
		}
	}
	// Same seed, same band.
	_, again, err := DifficultyCurves(models, CurveOptions{Reps: 60, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	if again[1].Lo[10] != curves[1].Lo[10] || again[0].Hi[50] != curves[0].Hi[50] {
		t.Error("bands differ for the same seed")
	}
	// A model that solved everything cannot be fitted.
	all := []Outcomes{{Model: "oracle", X: xa, Solved: onesLike(xa)}}
	if _, _, err := DifficultyCurves(all, CurveOptions{Reps: -1}); !errors.Is(err, stats.ErrOutcomeConstant) {
		t.Errorf("all solved: %v", err)
	}
}

func onesLike(x []float64) []float64 {
	y := make([]float64, len(x))
	for i := range y {
		y[i] = 1
	}
	return y
}

func TestSuccessHexbin(t *testing.T) {
	x1, x2, y := synthetic(3, 400, 1.2)
	c, hb, err := SuccessHexbin(x1, x2, y, HexbinOptions{Title: "success rate", XLabel: "z code lines", YLabel: "z harmonic"})
	if err != nil {
		t.Fatal(err)
	}
	checkRender(t, c)
	total, solved := 0, 0
	for _, b := range hb.Bins {
		total += b.Count
		solved += b.Solved
		if r := b.Rate(); r < 0 || r > 1 {
			t.Fatalf("rate %v", r)
		}
		if b.X-0.25 < hb.XMin || b.X+0.25 > hb.XMax || b.Y-0.25 < hb.YMin || b.Y+0.25 > hb.YMax {
			t.Errorf("hexagon at (%v, %v) outside the axes [%v, %v] × [%v, %v]", b.X, b.Y, hb.XMin, hb.XMax, hb.YMin, hb.YMax)
		}
	}
	want := 0
	for _, v := range y {
		want += int(v)
	}
	if total != len(y) || solved != want {
		t.Errorf("bins hold %d tasks, %d solved; want %d, %d", total, solved, len(y), want)
	}
	// The axes span the hexagons exactly: the limits come from the data.
	if c.Plot.X.Min != hb.XMin || c.Plot.X.Max != hb.XMax || c.Plot.Y.Min != hb.YMin || c.Plot.Y.Max != hb.YMax {
		t.Errorf("axes [%v, %v] × [%v, %v], hexagons [%v, %v] × [%v, %v]", c.Plot.X.Min, c.Plot.X.Max, c.Plot.Y.Min, c.Plot.Y.Max, hb.XMin, hb.XMax, hb.YMin, hb.YMax)
	}
	// The joint model on z-scores is what stats.Logit fits.
	fit, err := stats.Logit(y, [][]float64{x1, x2}, &stats.LogitOptions{ZScore: true})
	if err != nil {
		t.Fatal(err)
	}
	if hb.Fit.Coef[1] != fit.Coef[1] || hb.Fit.Coef[2] != fit.Coef[2] {
		t.Errorf("joint fit %v, direct %v", hb.Fit.Coef, fit.Coef)
	}
	if len(hb.Line) != 2 {
		t.Fatalf("zero-logit line %v", hb.Line)
	}
	for _, pt := range hb.Line {
		if eta := fit.Coef[0] + fit.Coef[1]*pt.X + fit.Coef[2]*pt.Y; math.Abs(eta) > 1e-9 {
			t.Errorf("line point %v has logit %v", pt, eta)
		}
	}
	if _, _, err := SuccessHexbin(x1, x2, y[:10], HexbinOptions{}); !errors.Is(err, stats.ErrLength) {
		t.Errorf("length: %v", err)
	}
	if _, _, err := SuccessHexbin(x1, x2, onesLike(x1)[:len(x1)-1:len(x1)-1], HexbinOptions{}); !errors.Is(err, stats.ErrLength) {
		t.Errorf("length: %v", err)
	}
	two := append(onesLike(y[:len(y)-1]), 2)
	if _, _, err := SuccessHexbin(x1, x2, two, HexbinOptions{}); !errors.Is(err, stats.ErrNotBinary) {
		t.Errorf("outcome 2: %v", err)
	}
	if _, _, err := SuccessHexbin(x1, onesLike(x1), y, HexbinOptions{}); !errors.Is(err, stats.ErrConstant) {
		t.Errorf("constant predictor: %v", err)
	}
	// Every task solved: no joint model, but the map is drawn.
	c, hb, err = SuccessHexbin(x1, x2, onesLike(y), HexbinOptions{})
	if err != nil || hb.Fit != nil || hb.Line != nil || !errors.Is(hb.FitErr, stats.ErrOutcomeConstant) {
		t.Fatalf("all solved: %v, fit %v, line %v, fit error %v", err, hb.Fit, hb.Line, hb.FitErr)
	}
	checkRender(t, c)
}

// realFunctions reads the real task-level data of package stats' tests (call-graph metrics
// of three Debian Python packages): the named columns of every row, and the package names.
func realFunctions(t *testing.T, cols ...string) ([][]float64, []string) {
	t.Helper()
	f, err := os.Open("../testdata/functions.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	out := make([][]float64, len(cols))
	var pkgs []string
	for _, r := range recs[1:] {
		for k, c := range cols {
			j := slices.Index(recs[0], c)
			v, err := strconv.ParseFloat(r[j], 64)
			if err != nil || j < 0 {
				t.Fatalf("column %q: %v", c, err)
			}
			out[k] = append(out[k], v)
		}
		pkgs = append(pkgs, r[slices.Index(recs[0], "package")])
	}
	return out, pkgs
}

// renderPNG renders c at 96 dpi and decodes it.
func renderPNG(t *testing.T, c Chart, o RenderOptions) image.Image {
	t.Helper()
	var buf bytes.Buffer
	if err := Render(&buf, c, PNG, o); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// TestHexbinColourBar renders the hexbin of the real data and reads the colour bar back
// from the pixels: a gradient from blue (rate 0, bottom) to red (rate 1, top) through many
// distinct colours, in the rectangle Draw reports.
func TestHexbinColourBar(t *testing.T) {
	cols, _ := realFunctions(t, "code_lines", "harmonic", "tested")
	c, hb, err := SuccessHexbin(cols[0], cols[1], cols[2], HexbinOptions{XLabel: "z code lines", YLabel: "z harmonic", Counts: true})
	if err != nil {
		t.Fatal(err)
	}
	if hb.Fit == nil || len(hb.Bins) < 20 || hb.MaxCount < 50 {
		t.Fatalf("%d bins, densest %d, fit %v", len(hb.Bins), hb.MaxCount, hb.FitErr)
	}
	const dpi = 150
	img := renderPNG(t, c, RenderOptions{DPI: dpi})
	b := img.Bounds()
	if b.Dx() != 900 || b.Dy() != 600 {
		t.Fatalf("6×4 in at %d dpi is %dx%d", dpi, b.Dx(), b.Dy())
	}
	px := func(l vg.Length) int { return int(l.Dots(dpi)) }
	bar := c.bar
	if bar.Max.X <= bar.Min.X || bar.Max.Y-bar.Min.Y < vg.Inch {
		t.Fatalf("colour bar %v", bar)
	}
	x := px((bar.Min.X + bar.Max.X) / 2)
	cm := moreland.SmoothBlueRed()
	cm.SetMin(0)
	cm.SetMax(1)
	lo, hi := bar.Min.Y.Dots(dpi), bar.Max.Y.Dots(dpi)
	distinct := map[color.RGBA]bool{}
	rows := 0
	for y := int(lo) + 3; y <= int(hi)-3; y++ {
		r, g, bl, _ := img.At(x, b.Max.Y-1-y).RGBA() // image rows run top down
		got := color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8), 0xff}
		distinct[got] = true
		rows++
		v := math.Min(1, math.Max(0, (float64(y)+0.5-lo)/(hi-lo)))
		want, err := cm.At(v)
		if err != nil {
			t.Fatal(err)
		}
		wr, wg, wb, _ := want.RGBA()
		if d := max(absDiff(r, wr), absDiff(g, wg), absDiff(bl, wb)); d > 12 {
			t.Fatalf("colour bar at rate %.3f (pixel row %d): %v, the colour map gives %v", v, y, got, want)
		}
	}
	if len(distinct) < 30 {
		t.Errorf("colour bar has %d distinct colours over %d pixels", len(distinct), rows)
	}
	// The pixels left of the bar are white: the bar is not part of the map.
	if r, g, bl, _ := img.At(px(bar.Min.X)-6, b.Max.Y-1-px((bar.Min.Y+bar.Max.Y)/2)).RGBA(); r>>8 < 250 || g>>8 < 250 || bl>>8 < 250 {
		t.Errorf("left of the colour bar is not white")
	}
}

func absDiff(a, b uint32) int { return max(int(a>>8)-int(b>>8), int(b>>8)-int(a>>8)) }

// TestHexbinSizeShowsCount: a hexagon holding one task covers far fewer pixels than one
// holding many. Fifty unsolved tasks share one hexagon (rate 0, blue) and a single solved
// task sits alone in another (rate 1, red); the red area must be much smaller.
func TestHexbinSizeShowsCount(t *testing.T) {
	var x1, x2, y []float64
	for i := range 50 {
		x1, x2, y = append(x1, 0.001*float64(i%5)), append(x2, 0.001*float64(i/5)), append(y, 0)
	}
	x1, x2, y = append(x1, 0.4), append(x2, 0.4), append(y, 1)
	c, hb, err := SuccessHexbin(x1, x2, y, HexbinOptions{Radius: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(hb.Bins) != 2 || hb.MaxCount != 50 {
		t.Fatalf("bins %+v", hb.Bins)
	}
	if f := sizeFraction(1, 50); f != 0.3 || sizeFraction(50, 50) != 1 || sizeFraction(7, 50) <= f {
		t.Errorf("size fractions %v, %v, %v", f, sizeFraction(7, 50), sizeFraction(50, 50))
	}
	const dpi = 100
	img := renderPNG(t, c, RenderOptions{DPI: dpi})
	cm := moreland.SmoothBlueRed()
	cm.SetMin(0)
	cm.SetMax(1)
	blue, _ := cm.At(0)
	red, _ := cm.At(1)
	near := func(a, b color.Color) bool {
		r1, g1, b1, _ := a.RGBA()
		r2, g2, b2, _ := b.RGBA()
		d := func(u, v uint32) int { return max(int(u>>8)-int(v>>8), int(v>>8)-int(u>>8)) }
		return d(r1, r2) < 6 && d(g1, g2) < 6 && d(b1, b2) < 6
	}
	barX := int(c.bar.Min.X.Dots(dpi)) - 2 // the map lies left of the colour bar
	nBlue, nRed := 0, 0
	for py := img.Bounds().Min.Y; py < img.Bounds().Max.Y; py++ {
		for px := img.Bounds().Min.X; px < barX; px++ {
			switch col := img.At(px, py); {
			case near(col, blue):
				nBlue++
			case near(col, red):
				nRed++
			}
		}
	}
	// Areas scale with the square of the size fraction: 1 against 0.09.
	if nRed == 0 || nBlue < 6*nRed {
		t.Errorf("the 50-task hexagon covers %d pixels, the 1-task one %d", nBlue, nRed)
	}
}

// TestHexRound checks the binning against the definition: a point belongs to the hexagon
// whose centre is nearest.
func TestHexRound(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	const s = 0.3
	for range 5000 {
		x, y := rng.NormFloat64()*2, rng.NormFloat64()*2
		q, r := hexRound(x, y, s)
		cx, cy := hexCenter(q, r, s)
		d := math.Hypot(x-cx, y-cy)
		if d > s+1e-12 {
			t.Fatalf("(%v, %v) is %v from its centre, radius %v", x, y, d, s)
		}
		for _, n := range [][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, -1}, {-1, 1}} {
			nx, ny := hexCenter(q+n[0], r+n[1], s)
			if math.Hypot(x-nx, y-ny) < d-1e-12 {
				t.Fatalf("(%v, %v): neighbour centre nearer than own", x, y)
			}
		}
	}
}

func TestZeroLogitSegment(t *testing.T) {
	seg := zeroLogitSegment([]float64{0, 1, -1}, -2, 2, -1, 1) // the line y = x
	if len(seg) != 2 || seg[0].X != -1 || seg[0].Y != -1 || seg[1].X != 1 || seg[1].Y != 1 {
		t.Errorf("y = x clipped to [-2,2]x[-1,1]: %v", seg)
	}
	if seg := zeroLogitSegment([]float64{10, 1, 1}, -1, 1, -1, 1); seg != nil {
		t.Errorf("line outside the box: %v", seg)
	}
	seg = zeroLogitSegment([]float64{0.5, 1, 0}, -1, 1, -1, 1) // vertical x = -0.5
	if len(seg) != 2 || seg[0].X != -0.5 || seg[1].X != -0.5 || seg[0].Y != -1 || seg[1].Y != 1 {
		t.Errorf("vertical line: %v", seg)
	}
}

func TestSolvedDistribution(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	var models []Values
	for i, name := range []string{"model-a", "model-b", "model-c"} {
		v := make([]float64, 40+10*i)
		for j := range v {
			v[j] = math.Exp(rng.NormFloat64()*0.5 + float64(i))
		}
		models = append(models, Values{Model: name, Values: v})
	}
	for _, kind := range []string{"box", "violin"} {
		t.Run(kind, func(t *testing.T) {
			k, err := ParseDistKind(kind)
			if err != nil {
				t.Fatal(err)
			}
			p, groups, err := SolvedDistribution(models, DistOptions{Title: "solved tasks", XLabel: "model", YLabel: "code lines", Subset: "solved only", Kind: k})
			if err != nil {
				t.Fatal(err)
			}
			checkRender(t, p)
			for i, g := range groups {
				want, err := stats.BoxPlotStats(models[i].Values, 1.5)
				if err != nil {
					t.Fatal(err)
				}
				if g.Model != models[i].Model || g.N != len(models[i].Values) || g.Box.Q1 != want.Q1 || g.Box.WhiskerHi != want.WhiskerHi {
					t.Errorf("group %d: %+v, want %+v", i, g, want)
				}
			}
			if !strings.Contains(p.Title.Text, "solved only") || p.X.Label.Text != "model" {
				t.Errorf("title %q, x label %q", p.Title.Text, p.X.Label.Text)
			}
			var labels []string
			for _, tk := range p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max) {
				labels = append(labels, tk.Label)
			}
			if want := []string{"model-a\nn = 40", "model-b\nn = 50", "model-c\nn = 60"}; !slices.Equal(labels, want) {
				t.Errorf("x labels %q, want %q", labels, want)
			}
		})
	}
	if _, _, err := SolvedDistribution([]Values{{Model: "x"}}, DistOptions{}); !errors.Is(err, stats.ErrTooFew) {
		t.Errorf("no values: %v", err)
	}
	if _, _, err := SolvedDistribution(nil, DistOptions{}); !errors.Is(err, stats.ErrTooFew) {
		t.Errorf("no groups: %v", err)
	}
	if _, _, err := SolvedDistribution([]Values{{Model: "x", Values: []float64{1, math.NaN()}}}, DistOptions{}); !errors.Is(err, stats.ErrNotFinite) {
		t.Errorf("nan: %v", err)
	}
	if _, _, err := SolvedDistribution([]Values{{Model: "x", Values: []float64{-1e308, 1e308}}}, DistOptions{Kind: Violin}); !errors.Is(err, stats.ErrOverflow) {
		t.Errorf("±1e308: %v", err)
	}
	if _, _, err := SolvedDistribution(models, DistOptions{Kind: DistKind(7)}); !errors.Is(err, stats.ErrRange) {
		t.Errorf("kind 7: %v", err)
	}
	if _, err := ParseDistKind("pie"); !errors.Is(err, stats.ErrRange) {
		t.Errorf("parse: %v", err)
	}
	// Degenerate groups are drawn, not refused: an empty group keeps its slot, one value
	// and equal values collapse to a line, values near the float64 limit get an axis that
	// holds them and tick labels that differ.
	for _, kind := range []DistKind{Box, Violin} {
		p, groups, err := SolvedDistribution([]Values{
			{Model: "none"}, {Model: "one", Values: []float64{3}}, {Model: "equal", Values: []float64{2, 2, 2}},
			{Model: "two", Values: []float64{1, 9}},
		}, DistOptions{Kind: kind})
		if err != nil {
			t.Fatalf("kind %d: %v", kind, err)
		}
		if groups[0].N != 0 || groups[1].Box.Median != 3 || groups[2].Box.IQR != 0 {
			t.Errorf("groups %+v", groups)
		}
		checkRender(t, p)
		p, _, err = SolvedDistribution([]Values{{Model: "big", Values: []float64{1e308, 1.5e308, 1.79e308}}, {Model: "const", Values: []float64{1e308, 1e308}}}, DistOptions{Kind: kind})
		if err != nil {
			t.Fatalf("kind %d near the limit: %v", kind, err)
		}
		if !(p.Y.Min < 1e308 && p.Y.Max >= 1.79e308) || math.IsInf(p.Y.Max, 0) {
			t.Errorf("axis [%v, %v]", p.Y.Min, p.Y.Max)
		}
		seen := map[string]bool{}
		for _, tk := range p.Y.Tick.Marker.Ticks(p.Y.Min, p.Y.Max) {
			if tk.Label != "" && seen[tk.Label] {
				t.Errorf("tick label %q twice", tk.Label)
			}
			seen[tk.Label] = true
		}
		checkRender(t, p)
	}
}

// TestBoxWhiskers draws the box plot of a real sample (code lines of the bs4 functions the
// tests call) and reads the whisker ends back from the pixels: they sit where matplotlib's
// rule puts them, not where gonum's BoxPlot would.
func TestBoxWhiskers(t *testing.T) {
	cols, pkgs := realFunctions(t, "code_lines", "tested")
	var v []float64
	for i, p := range pkgs {
		if p == "bs4" && cols[1][i] == 1 {
			v = append(v, cols[0][i])
		}
	}
	p, groups, err := SolvedDistribution([]Values{{Model: "bs4", Values: v}}, DistOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b := groups[0].Box
	if len(b.Outliers) == 0 || b.WhiskerHi >= b.HiFence {
		t.Fatalf("sample without outliers: %+v", b)
	}
	gonum, err := plotter.NewBoxPlot(vg.Points(20), 0, plotter.Values(v))
	if err != nil {
		t.Fatal(err)
	}
	if gonum.Quartile1 == b.Q1 && gonum.Quartile3 == b.Q3 {
		t.Logf("gonum's quartiles agree on this sample: %v %v", gonum.Quartile1, gonum.Quartile3)
	}
	const dpi = 100
	img := renderPNG(t, p, RenderOptions{DPI: dpi})
	// The whisker is the dark vertical line through the box centre: find its ends.
	c := draw.New(vgimg.NewWith(vgimg.UseWH(DefaultWidth, DefaultHeight), vgimg.UseDPI(dpi)))
	da := p.DataCanvas(c)
	tx, ty := p.Transforms(&da)
	x := int(tx(0).Dots(dpi))
	rows := img.Bounds().Dy()
	dark := func(py int) bool {
		r, g, bl, _ := img.At(x, py).RGBA()
		return r>>8 < 90 && g>>8 < 90 && bl>>8 < 90
	}
	top := rows - 1 - int(ty(b.WhiskerHi).Dots(dpi))
	q3 := rows - 1 - int(ty(b.Q3).Dots(dpi))
	for py := top + 2; py < q3-2; py++ {
		if !dark(py) {
			t.Fatalf("no whisker at pixel row %d between the top whisker end (row %d) and Q3 (row %d)", py, top, q3)
		}
	}
	// Above the whisker end (and below the first outlier) the column is background.
	next := slices.Min(b.Outliers)
	for py := rows - 1 - int(ty(next).Dots(dpi)) + 6; py < top-3; py++ {
		if dark(py) {
			t.Fatalf("ink at row %d above the whisker end %v (row %d)", py, b.WhiskerHi, top)
		}
	}
}

func TestKDEMatchesScipy(t *testing.T) {
	b, err := os.ReadFile("testdata/kde.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Cases []struct {
			Name                    string
			Values, Points, Density []float64
		}
	}
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	for _, c := range ref.Cases {
		got, err := KDE(c.Values, c.Points)
		if err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if math.Abs(got[i]-c.Density[i]) > 1e-8*c.Density[i]+1e-15 {
				t.Errorf("%s: density at %v = %.17g, scipy %.17g", c.Name, c.Points[i], got[i], c.Density[i])
			}
		}
	}
}

func TestSave(t *testing.T) {
	p, _, err := SolvedDistribution([]Values{{Model: "m", Values: []float64{1, 2, 3, 5, 8}}}, DistOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, name := range []string{"a.png", "b.SVG", "c.pdf"} {
		path := filepath.Join(dir, name)
		if err := Save(p, path, RenderOptions{}); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(path); err != nil || fi.Size() < 1000 {
			t.Errorf("%s: %v, %v", name, fi, err)
		}
	}
	bad := filepath.Join(dir, "d.jpg")
	if err := Save(p, bad, RenderOptions{}); err == nil || !strings.Contains(err.Error(), ".jpg") {
		t.Errorf("jpg: %v", err)
	}
	if err := Save(p, filepath.Join(dir, "e.png"), RenderOptions{DPI: -1}); !errors.Is(err, stats.ErrRange) {
		t.Errorf("dpi -1: %v", err)
	}
	if err := Save(p, filepath.Join(dir, "missing", "f.png"), RenderOptions{}); err == nil {
		t.Error("saved into a missing directory")
	}
	// Nothing but the three charts was left behind (no temporary files).
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 3 {
		t.Errorf("directory holds %d entries, want the 3 charts", len(entries))
	}
}

// TestRenderOptions: the size and resolution flags reach the picture, bad values are
// refused, and the same chart gives the same bytes in every format.
func TestRenderOptions(t *testing.T) {
	x1, x2, y := synthetic(4, 200, 1)
	c, _, err := SuccessHexbin(x1, x2, y, HexbinOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []struct {
		opts          RenderOptions
		width, height int
	}{
		{RenderOptions{}, 576, 384},
		{RenderOptions{DPI: 300}, 1800, 1200},
		{RenderOptions{Width: 3.5 * vg.Inch, Height: 2.5 * vg.Inch, DPI: 200}, 700, 500},
	} {
		img := renderPNG(t, c, o.opts)
		if img.Bounds().Dx() != o.width || img.Bounds().Dy() != o.height {
			t.Errorf("%+v: %dx%d, want %dx%d", o.opts, img.Bounds().Dx(), img.Bounds().Dy(), o.width, o.height)
		}
	}
	for _, o := range []RenderOptions{
		{Width: -1}, {Height: vg.Length(math.NaN())}, {Width: MaxSide + 1}, {DPI: MaxDPI + 1},
		{Width: 90 * vg.Inch, Height: 90 * vg.Inch, DPI: 300},
	} {
		if err := o.Check(); !errors.Is(err, stats.ErrRange) {
			t.Errorf("%+v: %v", o, err)
		}
		if err := Render(io.Discard, c, PNG, o); !errors.Is(err, stats.ErrRange) {
			t.Errorf("render %+v: %v", o, err)
		}
	}
	for _, f := range []Format{PNG, SVG, PDF} {
		var a, b bytes.Buffer
		if err := Render(&a, c, f, RenderOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := Render(&b, c, f, RenderOptions{}); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Errorf("%s: two renders differ", f)
		}
		if f == PDF && !bytes.Contains(a.Bytes(), []byte("/CreationDate (D:20000101000000)")) {
			t.Errorf("PDF without the fixed creation date")
		}
	}
	if _, err := ParseFormat("jpeg"); !errors.Is(err, stats.ErrRange) {
		t.Errorf("jpeg: %v", err)
	}
}
