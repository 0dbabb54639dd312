// Package plot draws the difficulty charts of the Breakpoint and PDB papers with
// gonum.org/v1/plot, on top of the analyses in package stats:
//
//   - DifficultyCurves: per model, the fitted logistic curve P(solved | x) of success
//     against one predictor, with a bootstrap percentile band (resampled tasks, refits that
//     fail — separation on a resample, for example — counted as missing and reported).
//   - SuccessHexbin: a hexagonal-bin map of the success rate over two z-scored predictors
//     (for example code lines and harmonic centrality), with the zero-logit line of the joint
//     logistic model β₀ + β₁z₁ + β₂z₂ = 0, where the fitted success probability is ½.
//   - SolvedDistribution: the distribution of a difficulty metric among the tasks each model
//     solved, as box plots (gonum's Tukey boxes) or violins (a Gaussian kernel density with
//     Scott's bandwidth, scipy.stats.gaussian_kde's default, mirrored around the model's
//     position and scaled to a common maximum width).
//
// Each function returns a *plot.Plot the caller may adjust further; Save writes it as PNG or
// SVG, chosen by the file extension. Bootstrap resamples come from a seed, so the same
// inputs give the same picture. The package is pure Go (no cgo).
package plot

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

// Default size of a saved chart.
const (
	DefaultWidth  = 6 * vg.Inch
	DefaultHeight = 4 * vg.Inch
)

// Format is an output format accepted by Render and Save.
type Format string

const (
	PNG Format = "png"
	SVG Format = "svg"
)

// FormatOf returns the format named by a file's extension (.png or .svg, any case).
func FormatOf(path string) (Format, error) {
	switch f := Format(strings.ToLower(strings.TrimPrefix(filepath.Ext(path), "."))); f {
	case PNG, SVG:
		return f, nil
	}
	return "", fmt.Errorf("stats/plot: %s: unsupported extension %q (want .png or .svg)", path, filepath.Ext(path))
}

// Render writes p to w in the given format at the given size (zero means the default).
func Render(w io.Writer, p *gplot.Plot, f Format, width, height vg.Length) error {
	if f != PNG && f != SVG {
		return fmt.Errorf("stats/plot: unsupported format %q", f)
	}
	if width == 0 {
		width = DefaultWidth
	}
	if height == 0 {
		height = DefaultHeight
	}
	wt, err := p.WriterTo(width, height, string(f))
	if err != nil {
		return fmt.Errorf("stats/plot: render %s: %w", f, err)
	}
	if _, err := wt.WriteTo(w); err != nil {
		return fmt.Errorf("stats/plot: render %s: %w", f, err)
	}
	return nil
}

// Save renders p to path as PNG or SVG by the path's extension, at the given size (zero
// means the default). Nothing is written if rendering fails.
func Save(p *gplot.Plot, path string, width, height vg.Length) error {
	f, err := FormatOf(path)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := Render(&buf, p, f, width, height); err != nil {
		return err
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("stats/plot: %w", err)
	}
	return nil
}
