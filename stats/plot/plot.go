// Package plot draws the difficulty charts of the Breakpoint and PDB papers with
// gonum.org/v1/plot, on top of the analyses in package stats:
//
//   - DifficultyCurves: per model, the fitted logistic curve P(solved | x) of success
//     against one predictor, with a bootstrap percentile band (resampled tasks, refits that
//     fail — separation on a resample, for example — counted as missing and reported).
//   - SuccessHexbin: a hexagonal-bin map of the success rate over two z-scored predictors
//     (for example code lines and harmonic centrality). A hexagon's colour is the share of
//     its tasks that were solved, read off a colour bar; its size grows with the number of
//     tasks it holds (the radius runs from 0.3 of the bin's radius for one task to the full
//     radius for the densest bin, on a log scale of the count; a size key shows it), so a
//     hexagon of one task does not look like a dense one. The axes span the hexagons. The
//     dashed line is the zero-logit line of the joint logistic model
//     β₀ + β₁z₁ + β₂z₂ = 0, where the fitted success probability is ½.
//   - SolvedDistribution: the distribution of a difficulty metric per model (for example
//     among the tasks each model solved), as box plots or violins, with each group's size
//     n under its name. Boxes follow matplotlib's boxplot: numpy-linear quartiles, whiskers
//     at the most extreme values within 1.5 interquartile ranges of the box, the values
//     beyond drawn as outliers (stats.BoxPlotStats). Violins are a Gaussian kernel density
//     with Scott's bandwidth (scipy.stats.gaussian_kde's default), mirrored around the
//     group's position, scaled to a common maximum width and cut at the extreme values,
//     with the median (solid) and quartiles (dashed) drawn across.
//
// Each function returns a Chart (a *plot.Plot, or a *HexbinChart holding one) the caller may
// adjust further; Render and Save write it as PNG, SVG or PDF at a chosen size and
// resolution. Bootstrap resamples come from a seed and PDF files carry a fixed creation
// date, so the same inputs give the same bytes. The package is pure Go (no cgo).
//
// Inputs are checked before drawing: NaN and ±Inf are errors (stats.ErrNotFinite); values
// so large that the span of an axis overflows float64 (such as -1e308 and 1e308 together)
// are errors wrapping stats.ErrOverflow; constant values, a single value and empty groups
// are drawn (a box or violin collapses to a line; an empty group leaves its slot empty,
// labelled n = 0) where the analysis allows it, and are errors where it does not (a
// logistic fit needs both outcomes and a predictor that varies).
package plot

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/faultline-dev/faultline/stats"
)

// Default size and resolution of a rendered chart.
const (
	DefaultWidth  = 6 * vg.Inch
	DefaultHeight = 4 * vg.Inch
	DefaultDPI    = 96
)

// Limits on RenderOptions, so a mistyped size cannot exhaust memory.
const (
	MaxSide   = 100 * vg.Inch // width or height
	MaxDPI    = 2400
	MaxPixels = 100_000_000 // width × height of a PNG in pixels
)

// Chart is anything that draws itself on a canvas: a *plot.Plot from gonum.org/v1/plot or
// a *HexbinChart.
type Chart interface {
	Draw(draw.Canvas)
}

// Format is an output format accepted by Render and Save.
type Format string

const (
	PNG Format = "png"
	SVG Format = "svg"
	PDF Format = "pdf"
)

// ParseFormat parses "png", "svg" or "pdf" (any case).
func ParseFormat(s string) (Format, error) {
	switch f := Format(strings.ToLower(s)); f {
	case PNG, SVG, PDF:
		return f, nil
	}
	return "", fmt.Errorf("stats/plot: unsupported format %q (want png, svg or pdf): %w", s, stats.ErrRange)
}

// FormatOf returns the format named by a file's extension (.png, .svg or .pdf, any case).
func FormatOf(path string) (Format, error) {
	f, err := ParseFormat(strings.TrimPrefix(filepath.Ext(path), "."))
	if err != nil {
		return "", fmt.Errorf("stats/plot: %s: unsupported extension %q (want .png, .svg or .pdf): %w", path, filepath.Ext(path), stats.ErrRange)
	}
	return f, nil
}

// RenderOptions sets the size of a rendered chart. The zero value gives DefaultWidth ×
// DefaultHeight at DefaultDPI.
type RenderOptions struct {
	Width, Height vg.Length
	// DPI is the resolution of PNG output in dots per inch (SVG and PDF are vector
	// formats; their size is Width × Height). 300 suits print.
	DPI int
}

func (o RenderOptions) withDefaults() RenderOptions {
	if o.Width == 0 {
		o.Width = DefaultWidth
	}
	if o.Height == 0 {
		o.Height = DefaultHeight
	}
	if o.DPI == 0 {
		o.DPI = DefaultDPI
	}
	return o
}

// Check reports an error wrapping stats.ErrRange when a size is negative, NaN or above
// MaxSide, the DPI is negative or above MaxDPI, or a PNG at that size would exceed MaxPixels.
func (o RenderOptions) Check() error {
	if !(o.Width >= 0 && o.Width <= MaxSide) || !(o.Height >= 0 && o.Height <= MaxSide) {
		return fmt.Errorf("stats/plot: size %v × %v points: want each in (0, %v]: %w", float64(o.Width), float64(o.Height), float64(MaxSide), stats.ErrRange)
	}
	if o.DPI < 0 || o.DPI > MaxDPI {
		return fmt.Errorf("stats/plot: %d dpi: want 1 to %d: %w", o.DPI, MaxDPI, stats.ErrRange)
	}
	d := o.withDefaults()
	px := d.Width.Dots(float64(d.DPI)) * d.Height.Dots(float64(d.DPI))
	if px > MaxPixels {
		return fmt.Errorf("stats/plot: %.0f pixels at %d dpi: more than %d: %w", px, d.DPI, MaxPixels, stats.ErrRange)
	}
	return nil
}

// Render writes c to w in the given format with the given size.
func Render(w io.Writer, c Chart, f Format, o RenderOptions) error {
	if err := o.Check(); err != nil {
		return err
	}
	o = o.withDefaults()
	var wt io.WriterTo
	var err error
	switch f {
	case PNG:
		cv := vgimg.NewWith(vgimg.UseWH(o.Width, o.Height), vgimg.UseDPI(o.DPI))
		err = draw1(c, cv)
		wt = vgimg.PngCanvas{Canvas: cv}
	case SVG:
		cv := vgsvg.New(o.Width, o.Height)
		err = draw1(c, cv)
		wt = cv
	case PDF:
		cv := vgpdf.New(o.Width, o.Height)
		err = draw1(c, cv)
		wt = fixedDates{cv}
	default:
		return fmt.Errorf("stats/plot: unsupported format %q: %w", f, stats.ErrRange)
	}
	if err != nil {
		return err
	}
	if _, err := wt.WriteTo(w); err != nil {
		return fmt.Errorf("stats/plot: render %s: %w", f, err)
	}
	return nil
}

// draw1 draws c on cv. The chart functions of this package check their inputs so that
// gonum/plot never panics on them; a panic from a caller-built chart becomes an error.
func draw1(c Chart, cv vg.CanvasSizer) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("stats/plot: render: gonum/plot failed: %v", r)
		}
	}()
	c.Draw(draw.New(cv))
	return nil
}

// pdfDate matches the creation and modification dates the PDF writer stamps with the
// current time.
var pdfDate = regexp.MustCompile(`/(CreationDate|ModDate) \(D:\d{14}\)`)

// fixedDates writes a PDF with its dates replaced by 2000-01-01 (same length, so the
// cross-reference offsets stay valid): the same chart gives the same bytes.
type fixedDates struct{ c *vgpdf.Canvas }

func (f fixedDates) WriteTo(w io.Writer) (int64, error) {
	var buf bytes.Buffer
	if _, err := f.c.WriteTo(&buf); err != nil {
		return 0, err
	}
	out := pdfDate.ReplaceAll(buf.Bytes(), []byte("/$1 (D:20000101000000)"))
	n, err := w.Write(out)
	return int64(n), err
}

// Save renders c to path in the format named by the path's extension. Nothing is written
// if rendering fails.
func Save(c Chart, path string, o RenderOptions) error {
	f, err := FormatOf(path)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := Render(&buf, c, f, o); err != nil {
		return err
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("stats/plot: %w", err)
	}
	return nil
}

// axisLimits returns the limits of an axis showing data in [lo, hi] with a 5 % margin on
// each side (at least 1e-6 of the magnitude, so gonum's tick marks have room; ±5 % of a
// single value; ±0.5 around zero), clamped to the float64 range and dropped when the span with margins would
// overflow. It fails with stats.ErrOverflow when hi - lo itself overflows.
func axisLimits(what string, lo, hi float64) (float64, float64, error) {
	if math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) || lo > hi {
		return 0, 0, fmt.Errorf("stats/plot: %s range [%v, %v]: %w", what, lo, hi, stats.ErrNotFinite)
	}
	if math.IsInf(hi-lo, 0) {
		return 0, 0, fmt.Errorf("stats/plot: %s values span %g to %g, wider than float64 can hold: %w", what, lo, hi, stats.ErrOverflow)
	}
	pad := max(0.05*(hi-lo), 1e-6*max(math.Abs(lo), math.Abs(hi)))
	if lo == hi {
		pad = 0.05 * math.Abs(lo) // one value: ±5 % of it
	}
	if pad == 0 {
		pad = 0.5
	}
	a, b := math.Max(lo-pad, -math.MaxFloat64), math.Min(hi+pad, math.MaxFloat64)
	if math.IsInf(b-a, 0) {
		a, b = lo, hi // the margins would overflow the span; hi - lo does not
	}
	return a, b, nil
}

// distinctTicks are gonum's default tick marks with labels printed with as many significant
// digits as it takes to tell them apart (gonum's labels of an axis near 1e308 all read
// "1e+308").
type distinctTicks struct{}

func (distinctTicks) Ticks(lo, hi float64) []gplot.Tick {
	ticks := gplot.DefaultTicks{}.Ticks(lo, hi)
	for prec := 1; prec <= 17 && !distinctLabels(ticks); prec++ {
		for i := range ticks {
			if !ticks[i].IsMinor() {
				ticks[i].Label = strconv.FormatFloat(ticks[i].Value, 'g', prec, 64)
			}
		}
	}
	return ticks
}

func distinctLabels(ticks []gplot.Tick) bool {
	seen := map[string]bool{}
	for _, t := range ticks {
		if t.IsMinor() {
			continue
		}
		if seen[t.Label] {
			return false
		}
		seen[t.Label] = true
	}
	return true
}
