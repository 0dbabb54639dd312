package main

import (
	"fmt"
	"io"
	"slices"

	"github.com/faultline-dev/faultline/stats/plot"
)

type curveOut struct {
	Out    string      `json:"out"`
	Models []curveInfo `json:"models"`
}

type curveInfo struct {
	Model   string `json:"model"`
	N       int    `json:"n"`
	Coef    []num  `json:"coef"`
	Reps    int    `json:"reps"`
	Missing int    `json:"missing"`
}

type hexbinOut struct {
	Out  string `json:"out"`
	Bins int    `json:"bins"`
	Coef []num  `json:"coef"`
	N    int    `json:"n"`
}

type distOut struct {
	Out    string `json:"out"`
	Models []struct {
		Model string `json:"model"`
		N     int    `json:"n"`
	} `json:"models"`
}

func runPlot(args []string, stderr io.Writer) (any, error) {
	if len(args) == 0 {
		return nil, usagef("plot: want a chart kind: curve, hexbin or dist")
	}
	switch args[0] {
	case "curve":
		return plotCurve(args[1:], stderr)
	case "hexbin":
		return plotHexbin(args[1:], stderr)
	case "dist":
		return plotDist(args[1:], stderr)
	}
	return nil, usagef("plot: unknown chart kind %q (want curve, hexbin or dist)", args[0])
}

// checkOut rejects an output path whose extension is neither .png nor .svg before any work.
func checkOut(path string) error {
	if _, err := plot.FormatOf(path); err != nil {
		return usagef("plot: -out %q: want a .png or .svg file", path)
	}
	return nil
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

func plotCurve(args []string, stderr io.Writer) (any, error) {
	fs := newFlags("plot curve", stderr)
	in := fs.String("in", "", "input CSV file with a header row")
	y := fs.String("y", "", "0/1 solved column")
	x := fs.String("x", "", "predictor column")
	model := fs.String("model", "", "model name column (one curve per model; default one curve)")
	reps := fs.Int("reps", 200, "bootstrap resamples per model (0 for no band)")
	seed := fs.Uint64("seed", 0, "bootstrap seed")
	title := fs.String("title", "", "chart title")
	out := fs.String("out", "", "output file, .png or .svg")
	if err := parse(fs, args, "in", "y", "x", "out"); err != nil {
		return nil, err
	}
	if err := checkOut(*out); err != nil {
		return nil, err
	}
	if *reps < 0 {
		return nil, usagef("plot curve: -reps %d", *reps)
	}
	t, err := readTable(*in)
	if err != nil {
		return nil, err
	}
	cols, err := t.paired(*y, *x)
	if err != nil {
		return nil, err
	}
	names, groups, err := groupBy(t, *model)
	if err != nil {
		return nil, err
	}
	models := make([]plot.Outcomes, len(names))
	for k, name := range names {
		models[k] = plot.Outcomes{Model: name, Solved: pick(cols[0], groups[k]), X: pick(cols[1], groups[k])}
	}
	r := *reps
	if r == 0 {
		r = -1 // plot.CurveOptions: negative means no band
	}
	p, curves, err := plot.DifficultyCurves(models, plot.CurveOptions{Title: *title, XLabel: *x, Reps: r, Seed: *seed})
	if err != nil {
		return nil, fmt.Errorf("analyze: %s: %w", *in, err)
	}
	if err := plot.Save(p, *out, 0, 0); err != nil {
		return nil, fmt.Errorf("analyze: %w", err)
	}
	res := curveOut{Out: *out}
	for k, c := range curves {
		res.Models = append(res.Models, curveInfo{Model: c.Model, N: len(models[k].X), Coef: nums(c.Fit.Coef), Reps: c.Reps, Missing: c.Missing})
	}
	return res, nil
}

func plotHexbin(args []string, stderr io.Writer) (any, error) {
	fs := newFlags("plot hexbin", stderr)
	in := fs.String("in", "", "input CSV file with a header row")
	y := fs.String("y", "", "0/1 solved column")
	x := fs.String("x", "", "two comma-separated predictor columns")
	radius := fs.Float64("radius", 0.25, "hexagon radius in z units")
	ddof := fs.Int("ddof", 0, "z-score ddof: 0 or 1")
	title := fs.String("title", "", "chart title")
	out := fs.String("out", "", "output file, .png or .svg")
	if err := parse(fs, args, "in", "y", "x", "out"); err != nil {
		return nil, err
	}
	xs := splitList(*x)
	if len(xs) != 2 {
		return nil, usagef("plot hexbin: -x %q: want two columns", *x)
	}
	if *ddof != 0 && *ddof != 1 {
		return nil, usagef("plot hexbin: -ddof %d, want 0 or 1", *ddof)
	}
	if !(*radius > 0) {
		return nil, usagef("plot hexbin: -radius %v, want > 0", *radius)
	}
	if err := checkOut(*out); err != nil {
		return nil, err
	}
	t, err := readTable(*in)
	if err != nil {
		return nil, err
	}
	cols, err := t.paired(*y, xs[0], xs[1])
	if err != nil {
		return nil, err
	}
	p, hb, err := plot.SuccessHexbin(cols[1], cols[2], cols[0], plot.HexbinOptions{
		Title: *title, XLabel: "z " + xs[0], YLabel: "z " + xs[1], Radius: *radius, DDoF: *ddof,
	})
	if err != nil {
		return nil, fmt.Errorf("analyze: %s: %w", *in, err)
	}
	if err := plot.Save(p, *out, 0, 0); err != nil {
		return nil, fmt.Errorf("analyze: %w", err)
	}
	return hexbinOut{Out: *out, Bins: len(hb.Bins), Coef: nums(hb.Fit.Coef), N: hb.Fit.N}, nil
}

func plotDist(args []string, stderr io.Writer) (any, error) {
	fs := newFlags("plot dist", stderr)
	in := fs.String("in", "", "input CSV file with a header row")
	value := fs.String("value", "", "difficulty metric column")
	model := fs.String("model", "", "model name column (default one distribution)")
	solved := fs.String("solved", "", "0/1 solved column; when given, only solved rows are drawn")
	kind := fs.String("kind", "box", "box or violin")
	title := fs.String("title", "", "chart title")
	out := fs.String("out", "", "output file, .png or .svg")
	if err := parse(fs, args, "in", "value", "out"); err != nil {
		return nil, err
	}
	k, err := plot.ParseDistKind(*kind)
	if err != nil {
		return nil, usagef("plot dist: -kind %q: want box or violin", *kind)
	}
	if err := checkOut(*out); err != nil {
		return nil, err
	}
	t, err := readTable(*in)
	if err != nil {
		return nil, err
	}
	names := []string{*value}
	if *solved != "" {
		names = append(names, *solved)
	}
	cols, err := t.paired(names...)
	if err != nil {
		return nil, err
	}
	if *solved != "" {
		for i, v := range cols[1] {
			if v != 0 && v != 1 {
				return nil, t.cellError(i, mustColumn(t, *solved), fmt.Errorf("solved flag %v is not 0 or 1", v))
			}
		}
	}
	labels, groups, err := groupBy(t, *model)
	if err != nil {
		return nil, err
	}
	var res distOut
	res.Out = *out
	var vals []plot.Values
	for g, name := range labels {
		var v []float64
		for _, i := range groups[g] {
			if *solved == "" || cols[1][i] == 1 {
				v = append(v, cols[0][i])
			}
		}
		vals = append(vals, plot.Values{Model: name, Values: v})
		res.Models = append(res.Models, struct {
			Model string `json:"model"`
			N     int    `json:"n"`
		}{name, len(v)})
	}
	p, err := plot.SolvedDistribution(vals, plot.DistOptions{Title: *title, YLabel: *value, Kind: k})
	if err != nil {
		return nil, fmt.Errorf("analyze: %s: %w", *in, err)
	}
	if err := plot.Save(p, *out, 0, 0); err != nil {
		return nil, fmt.Errorf("analyze: %w", err)
	}
	return res, nil
}
