package main

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"slices"
	"time"

	"gonum.org/v1/plot/vg"

	"github.com/faultline-dev/faultline/stats/plot"
)

const plotUsage = `usage: analyze plot <curve|hexbin|dist> -in F.csv -out F.png|F.svg|F.pdf|- [flags]
run "analyze plot <kind> -h" for the flags of a chart`

func runPlot(args []string, st streams) error {
	if len(args) == 0 {
		return usagef("plot: want a chart kind: curve, hexbin or dist")
	}
	if isHelp(args[0]) {
		fmt.Fprintln(st.stderr, plotUsage)
		return flag.ErrHelp
	}
	switch args[0] {
	case "curve":
		return plotCurve(args[1:], st)
	case "hexbin":
		return plotHexbin(args[1:], st)
	case "dist":
		return plotDist(args[1:], st)
	}
	return usagef("plot: unknown chart kind %q (want curve, hexbin or dist)", args[0])
}

// chartFlags are the flags every chart takes.
type chartFlags struct {
	in, out, format, title *string
	width, height          *float64
	dpi                    *int
}

func addChartFlags(fs *flag.FlagSet) *chartFlags {
	return &chartFlags{
		in:     fs.String("in", "", "input CSV file with a header row"),
		out:    fs.String("out", "", "output file (.png, .svg or .pdf), or - for stdout with -format"),
		format: fs.String("format", "", "png, svg or pdf (default: the extension of -out)"),
		title:  fs.String("title", "", "chart title"),
		width:  fs.Float64("width", 6, "width in inches"),
		height: fs.Float64("height", 4, "height in inches"),
		dpi:    fs.Int("dpi", plot.DefaultDPI, "resolution of PNG output in dots per inch (300 for print)"),
	}
}

// check validates the chart flags and the paths before any work and returns the output
// format and size.
func (c *chartFlags) check(cmd string) (plot.Format, plot.RenderOptions, error) {
	var f plot.Format
	var err error
	switch {
	case *c.format != "":
		if f, err = plot.ParseFormat(*c.format); err != nil {
			return "", plot.RenderOptions{}, usagef("%s: -format %q: want png, svg or pdf", cmd, *c.format)
		}
		if *c.out != "-" {
			if ext, err := plot.FormatOf(*c.out); err != nil || ext != f {
				return "", plot.RenderOptions{}, usagef("%s: -out %q does not end in .%s (-format %s)", cmd, *c.out, f, f)
			}
		}
	case *c.out == "-":
		return "", plot.RenderOptions{}, usagef("%s: -out - needs -format png, svg or pdf", cmd)
	default:
		if f, err = plot.FormatOf(*c.out); err != nil {
			return "", plot.RenderOptions{}, usagef("%s: -out %q: want a .png, .svg or .pdf file", cmd, *c.out)
		}
	}
	for _, v := range []struct {
		name string
		val  float64
	}{{"width", *c.width}, {"height", *c.height}} {
		if !(v.val > 0 && v.val <= float64(plot.MaxSide/vg.Inch)) {
			return "", plot.RenderOptions{}, usagef("%s: -%s %v: want inches in (0, %v]", cmd, v.name, v.val, float64(plot.MaxSide/vg.Inch))
		}
	}
	if *c.dpi < 1 || *c.dpi > plot.MaxDPI {
		return "", plot.RenderOptions{}, usagef("%s: -dpi %d: want 1 to %d", cmd, *c.dpi, plot.MaxDPI)
	}
	o := plot.RenderOptions{Width: vg.Length(*c.width) * vg.Inch, Height: vg.Length(*c.height) * vg.Inch, DPI: *c.dpi}
	if err := o.Check(); err != nil {
		return "", plot.RenderOptions{}, usagef("%s: -width %v -height %v -dpi %d: %v", cmd, *c.width, *c.height, *c.dpi, err)
	}
	if err := checkPaths(cmd, *c.in, *c.out); err != nil {
		return "", plot.RenderOptions{}, err
	}
	return f, o, nil
}

// save renders the chart and writes it to -out, then the summary: to stdout as JSON, or to
// stderr when the picture took stdout.
func (c *chartFlags) save(st streams, chart plot.Chart, f plot.Format, o plot.RenderOptions, summary any) error {
	var buf bytes.Buffer
	if err := plot.Render(&buf, chart, f, o); err != nil {
		return fmt.Errorf("analyze: %w", err)
	}
	line, err := jsonLine(summary)
	if err != nil {
		return err
	}
	if err := emit(*c.out, st.stdout, buf.Bytes()); err != nil {
		return err
	}
	if *c.out == "-" {
		_, err = st.stderr.Write(line)
	} else {
		_, err = st.stdout.Write(line)
	}
	if err != nil {
		return fmt.Errorf("analyze: %w", err)
	}
	return nil
}

// chartInfo is the part of every chart summary that describes the file.
type chartInfo struct {
	Out      string  `json:"out"`
	Format   string  `json:"format"`
	WidthIn  float64 `json:"width_in"`
	HeightIn float64 `json:"height_in"`
	DPI      int     `json:"dpi"`
}

func (c *chartFlags) info(f plot.Format) chartInfo {
	return chartInfo{Out: *c.out, Format: string(f), WidthIn: *c.width, HeightIn: *c.height, DPI: *c.dpi}
}

// groupBy splits row indices by the values of a label column in order of first appearance;
// with no column, every row is in one group named all.
func groupBy(t *table, col string) ([]string, [][]int, error) {
	if col == "" {
		idx := make([]int, len(t.rows))
		for i := range idx {
			idx[i] = i
		}
		return []string{"all"}, [][]int{idx}, nil
	}
	labels, err := t.strings(col)
	if err != nil {
		return nil, nil, err
	}
	var names []string
	var groups [][]int
	for i, l := range labels {
		k := slices.Index(names, l)
		if k < 0 {
			names = append(names, l)
			groups = append(groups, nil)
			k = len(names) - 1
		}
		groups[k] = append(groups[k], i)
	}
	return names, groups, nil
}

func pick(x []float64, idx []int) []float64 {
	out := make([]float64, len(idx))
	for i, j := range idx {
		out[i] = x[j]
	}
	return out
}

// checkBinary returns a cell error for the first value of column col that is not 0 or 1.
func checkBinary(t *table, col string, v []float64, what string) error {
	for i, x := range v {
		if x != 0 && x != 1 {
			return t.cellError(i, mustColumn(t, col), fmt.Errorf("%s %v is not 0 or 1", what, x))
		}
	}
	return nil
}

type curveOut struct {
	chartInfo
	Models []curveInfo `json:"models"`
}

type curveInfo struct {
	Model   string `json:"model"`
	N       int    `json:"n"`
	Coef    []num  `json:"coef"`
	Reps    int    `json:"reps"`
	Missing int    `json:"missing"`
}

func plotCurve(args []string, st streams) error {
	fs := newFlags("plot curve", st.stderr)
	cf := addChartFlags(fs)
	y := fs.String("y", "", "0/1 solved column")
	x := fs.String("x", "", "predictor column")
	model := fs.String("model", "", "model name column (one curve per model; default one curve)")
	reps := fs.Int("reps", 200, "bootstrap resamples per model (0 for no band)")
	seed := fs.Uint64("seed", 0, "bootstrap seed")
	if err := parse(fs, args, "in", "y", "x", "out"); err != nil {
		return err
	}
	if *reps < 0 || *reps > 100000 {
		return usagef("plot curve: -reps %d: want 0 to 100000", *reps)
	}
	f, o, err := cf.check("plot curve")
	if err != nil {
		return err
	}
	t, err := readTable(*cf.in)
	if err != nil {
		return err
	}
	cols, err := t.paired(*y, *x)
	if err != nil {
		return err
	}
	if err := checkBinary(t, *y, cols[0], "solved flag"); err != nil {
		return err
	}
	names, groups, err := groupBy(t, *model)
	if err != nil {
		return err
	}
	models := make([]plot.Outcomes, len(names))
	for k, name := range names {
		models[k] = plot.Outcomes{Model: name, Solved: pick(cols[0], groups[k]), X: pick(cols[1], groups[k])}
	}
	r := *reps
	if r == 0 {
		r = -1 // plot.CurveOptions: negative means no band
	}
	start := time.Now()
	progress := func(done, total int) {
		// Only a bootstrap that takes a while is worth a line on stderr.
		if el := time.Since(start); el > 2*time.Second {
			eta := time.Duration(float64(el) / float64(done) * float64(total-done))
			fmt.Fprintf(st.stderr, "analyze: plot curve: bootstrap %d/%d models, %s elapsed, about %s left\n",
				done, total, el.Round(time.Second), eta.Round(time.Second))
		}
	}
	p, curves, err := plot.DifficultyCurves(models, plot.CurveOptions{Title: *cf.title, XLabel: *x, YLabel: fmt.Sprintf("P(%s = 1)", *y), Reps: r, Seed: *seed, Progress: progress})
	if err != nil {
		return fmt.Errorf("analyze: %s: %w", *cf.in, err)
	}
	res := curveOut{chartInfo: cf.info(f)}
	for k, c := range curves {
		res.Models = append(res.Models, curveInfo{Model: c.Model, N: len(models[k].X), Coef: nums(c.Fit.Coef), Reps: c.Reps, Missing: c.Missing})
	}
	return cf.save(st, p, f, o, res)
}

type hexbinOut struct {
	chartInfo
	N        int    `json:"n"`
	Bins     int    `json:"bins"`
	MaxCount int    `json:"max_count"`
	Coef     []num  `json:"coef"`
	FitError string `json:"fit_error,omitempty"`
}

func plotHexbin(args []string, st streams) error {
	fs := newFlags("plot hexbin", st.stderr)
	cf := addChartFlags(fs)
	y := fs.String("y", "", "0/1 solved column")
	x := fs.String("x", "", "two comma-separated predictor columns")
	radius := fs.Float64("radius", 0.25, "hexagon radius in z units")
	ddof := fs.Int("ddof", 0, "z-score ddof: 0 or 1")
	minCount := fs.Int("min-count", 1, "hide hexagons holding fewer tasks")
	counts := fs.Bool("counts", false, "print each hexagon's number of tasks inside it, where it fits")
	if err := parse(fs, args, "in", "y", "x", "out"); err != nil {
		return err
	}
	xs := splitList(*x)
	if len(xs) != 2 {
		return usagef("plot hexbin: -x %q: want two columns", *x)
	}
	if *ddof != 0 && *ddof != 1 {
		return usagef("plot hexbin: -ddof %d, want 0 or 1", *ddof)
	}
	if !(*radius > 0) || math.IsInf(*radius, 0) {
		return usagef("plot hexbin: -radius %v, want a number > 0", *radius)
	}
	if *minCount < 1 {
		return usagef("plot hexbin: -min-count %d, want ≥ 1", *minCount)
	}
	f, o, err := cf.check("plot hexbin")
	if err != nil {
		return err
	}
	t, err := readTable(*cf.in)
	if err != nil {
		return err
	}
	cols, err := t.paired(*y, xs[0], xs[1])
	if err != nil {
		return err
	}
	if err := checkBinary(t, *y, cols[0], "solved flag"); err != nil {
		return err
	}
	chart, hb, err := plot.SuccessHexbin(cols[1], cols[2], cols[0], plot.HexbinOptions{
		Title: *cf.title, XLabel: "z " + xs[0], YLabel: "z " + xs[1], Radius: *radius, DDoF: *ddof,
		MinCount: *minCount, Counts: *counts, Outcome: *y,
	})
	if err != nil {
		return fmt.Errorf("analyze: %s: %w", *cf.in, err)
	}
	res := hexbinOut{chartInfo: cf.info(f), N: len(cols[0]), Bins: len(hb.Bins), MaxCount: hb.MaxCount}
	if hb.Fit != nil {
		res.Coef = nums(hb.Fit.Coef)
	} else {
		res.FitError = hb.FitErr.Error()
		fmt.Fprintf(st.stderr, "analyze: plot hexbin: no zero-logit line: %v\n", hb.FitErr)
	}
	return cf.save(st, chart, f, o, res)
}

type distOut struct {
	chartInfo
	Kind   string      `json:"kind"`
	Subset string      `json:"subset,omitempty"`
	Models []distGroup `json:"models"`
}

// distGroup is one box or violin as drawn: n and the box-plot numbers (absent when n = 0).
type distGroup struct {
	Model     string `json:"model"`
	N         int    `json:"n"`
	Q1        *num   `json:"q1,omitempty"`
	Median    *num   `json:"median,omitempty"`
	Q3        *num   `json:"q3,omitempty"`
	WhiskerLo *num   `json:"whisker_lo,omitempty"`
	WhiskerHi *num   `json:"whisker_hi,omitempty"`
	Outliers  int    `json:"outliers"`
}

func numPtr(v float64) *num { n := num(v); return &n }

func plotDist(args []string, st streams) error {
	fs := newFlags("plot dist", st.stderr)
	cf := addChartFlags(fs)
	value := fs.String("value", "", "difficulty metric column")
	model := fs.String("model", "", "model name column (default one distribution)")
	solved := fs.String("solved", "", "0/1 solved column; when given, only solved rows are drawn")
	kind := fs.String("kind", "box", "box or violin")
	whis := fs.Float64("whis", 1.5, "box whisker reach in interquartile ranges (matplotlib's default 1.5)")
	xlabel := fs.String("xlabel", "", "x axis label (default: the -model column)")
	if err := parse(fs, args, "in", "value", "out"); err != nil {
		return err
	}
	k, err := plot.ParseDistKind(*kind)
	if err != nil {
		return usagef("plot dist: -kind %q: want box or violin", *kind)
	}
	if !(*whis > 0) || math.IsInf(*whis, 0) {
		return usagef("plot dist: -whis %v, want a number > 0", *whis)
	}
	f, o, err := cf.check("plot dist")
	if err != nil {
		return err
	}
	t, err := readTable(*cf.in)
	if err != nil {
		return err
	}
	names := []string{*value}
	if *solved != "" {
		names = append(names, *solved)
	}
	cols, err := t.paired(names...)
	if err != nil {
		return err
	}
	var subset string
	if *solved != "" {
		if err := checkBinary(t, *solved, cols[1], "solved flag"); err != nil {
			return err
		}
		subset = fmt.Sprintf("solved only (rows with %s = 1)", *solved)
	}
	labels, groups, err := groupBy(t, *model)
	if err != nil {
		return err
	}
	var vals []plot.Values
	for g, name := range labels {
		var v []float64
		for _, i := range groups[g] {
			if *solved == "" || cols[1][i] == 1 {
				v = append(v, cols[0][i])
			}
		}
		vals = append(vals, plot.Values{Model: name, Values: v})
	}
	xl := *xlabel
	if xl == "" {
		xl = *model
	}
	p, drawn, err := plot.SolvedDistribution(vals, plot.DistOptions{
		Title: *cf.title, XLabel: xl, YLabel: *value, Subset: subset, Kind: k, Whis: *whis,
	})
	if err != nil {
		return fmt.Errorf("analyze: %s: %w", *cf.in, err)
	}
	res := distOut{chartInfo: cf.info(f), Kind: *kind, Subset: subset}
	for _, g := range drawn {
		dg := distGroup{Model: g.Model, N: g.N, Outliers: len(g.Box.Outliers)}
		if g.N > 0 {
			dg.Q1, dg.Median, dg.Q3 = numPtr(g.Box.Q1), numPtr(g.Box.Median), numPtr(g.Box.Q3)
			dg.WhiskerLo, dg.WhiskerHi = numPtr(g.Box.WhiskerLo), numPtr(g.Box.WhiskerHi)
		}
		res.Models = append(res.Models, dg)
	}
	return cf.save(st, p, f, o, res)
}
