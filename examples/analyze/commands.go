package main

import (
	"fmt"
	"io"

	"github.com/faultline-dev/faultline/stats"
)

type logitOut struct {
	Names      []string `json:"names"`
	Coef       []num    `json:"coef"`
	SE         []num    `json:"se"`
	Z          []num    `json:"z"`
	P          []num    `json:"p"`
	OddsRatio  []num    `json:"odds_ratio"`
	LLF        num      `json:"llf"`
	LLNull     num      `json:"llnull"`
	McFaddenR2 num      `json:"mcfadden_r2"`
	AIC        num      `json:"aic"`
	BIC        num      `json:"bic"`
	N          int      `json:"n"`
}

func runLogit(args []string, stderr io.Writer) (any, error) {
	fs := newFlags("logit", stderr)
	in := fs.String("in", "", "input CSV file with a header row")
	y := fs.String("y", "", "0/1 outcome column")
	x := fs.String("x", "", "comma-separated predictor columns")
	zscore := fs.Bool("zscore", false, "z-score the predictors before fitting")
	ddof := fs.Int("ddof", 0, "z-score ddof: 0 (scipy/numpy) or 1 (pandas)")
	if err := parse(fs, args, "in", "y", "x"); err != nil {
		return nil, err
	}
	if *ddof != 0 && *ddof != 1 {
		return nil, usagef("logit: -ddof %d, want 0 or 1", *ddof)
	}
	xs := splitList(*x)
	if len(xs) == 0 {
		return nil, usagef("logit: -x names no column")
	}
	t, err := readTable(*in)
	if err != nil {
		return nil, err
	}
	cols, err := t.paired(append([]string{*y}, xs...)...)
	if err != nil {
		return nil, err
	}
	for i, v := range cols[0] {
		if v != 0 && v != 1 {
			return nil, t.cellError(i, mustColumn(t, *y), fmt.Errorf("outcome %v is not 0 or 1", v))
		}
	}
	r, err := stats.Logit(cols[0], cols[1:], &stats.LogitOptions{ZScore: *zscore, DDoF: *ddof})
	if err != nil {
		return nil, fmt.Errorf("analyze: %s: %w", *in, err)
	}
	return logitOut{
		Names: append([]string{"const"}, xs...),
		Coef:  nums(r.Coef), SE: nums(r.SE), Z: nums(r.Z), P: nums(r.P), OddsRatio: nums(r.OddsRatio),
		LLF: num(r.LLF), LLNull: num(r.LLNull), McFaddenR2: num(r.McFaddenR2),
		AIC: num(r.AIC), BIC: num(r.BIC), N: r.N,
	}, nil
}

func mustColumn(t *table, name string) int {
	j, err := t.column(name)
	if err != nil {
		panic(err) // callers looked the column up already
	}
	return j
}

type mwuOut struct {
	U      num    `json:"u"`
	P      num    `json:"p"`
	R      num    `json:"r"`
	Z      num    `json:"z"`
	Method string `json:"method"`
	N1     int    `json:"n1"`
	N2     int    `json:"n2"`
}

func runMannWhitney(args []string, stderr io.Writer) (any, error) {
	fs := newFlags("mannwhitney", stderr)
	in := fs.String("in", "", "input CSV file with a header row")
	a := fs.String("a", "", "column of the first sample")
	b := fs.String("b", "", "column of the second sample")
	alt := fs.String("alternative", "two-sided", "two-sided, less or greater")
	method := fs.String("method", "auto", "auto, exact or asymptotic")
	cont := fs.Bool("continuity", true, "continuity correction of the asymptotic method")
	if err := parse(fs, args, "in", "a", "b"); err != nil {
		return nil, err
	}
	opts := stats.MannWhitneyOptions{NoContinuity: !*cont}
	var err error
	if opts.Alternative, err = stats.ParseAlternative(*alt); err != nil {
		return nil, usagef("mannwhitney: -alternative %q: want two-sided, less or greater", *alt)
	}
	if opts.Method, err = stats.ParseMWUMethod(*method); err != nil {
		return nil, usagef("mannwhitney: -method %q: want auto, exact or asymptotic", *method)
	}
	t, err := readTable(*in)
	if err != nil {
		return nil, err
	}
	xa, err := t.numbers(*a)
	if err != nil {
		return nil, err
	}
	xb, err := t.numbers(*b)
	if err != nil {
		return nil, err
	}
	r, err := stats.MannWhitneyU(xa, xb, &opts)
	if err != nil {
		return nil, fmt.Errorf("analyze: %s: columns %q and %q: %w", *in, *a, *b, err)
	}
	return mwuOut{U: num(r.U), P: num(r.P), R: num(r.R), Z: num(r.Z), Method: r.Method.String(), N1: r.N1, N2: r.N2}, nil
}

type corrOut struct {
	Pearson   num `json:"pearson"`
	PearsonP  num `json:"pearson_p"`
	Spearman  num `json:"spearman"`
	SpearmanP num `json:"spearman_p"`
	N         int `json:"n"`
}

func runCorr(args []string, stderr io.Writer) (any, error) {
	fs := newFlags("corr", stderr)
	in := fs.String("in", "", "input CSV file with a header row")
	x := fs.String("x", "", "first column")
	y := fs.String("y", "", "second column")
	if err := parse(fs, args, "in", "x", "y"); err != nil {
		return nil, err
	}
	t, err := readTable(*in)
	if err != nil {
		return nil, err
	}
	cols, err := t.paired(*x, *y)
	if err != nil {
		return nil, err
	}
	p, err := stats.Pearson(cols[0], cols[1])
	if err != nil {
		return nil, fmt.Errorf("analyze: %s: columns %q and %q: %w", *in, *x, *y, err)
	}
	s, err := stats.Spearman(cols[0], cols[1])
	if err != nil {
		return nil, fmt.Errorf("analyze: %s: columns %q and %q: %w", *in, *x, *y, err)
	}
	return corrOut{Pearson: num(p.R), PearsonP: num(p.P), Spearman: num(s.R), SpearmanP: num(s.P), N: p.N}, nil
}

type percentileOut struct {
	Value num `json:"value"`
}

func runPercentile(args []string, stderr io.Writer) (any, error) {
	fs := newFlags("percentile", stderr)
	in := fs.String("in", "", "input CSV file with a header row")
	col := fs.String("col", "", "column")
	q := fs.Float64("q", 50, "percentile in [0, 100]")
	if err := parse(fs, args, "in", "col"); err != nil {
		return nil, err
	}
	if !(*q >= 0 && *q <= 100) {
		return nil, usagef("percentile: -q %v outside [0, 100]", *q)
	}
	t, err := readTable(*in)
	if err != nil {
		return nil, err
	}
	x, err := t.numbers(*col)
	if err != nil {
		return nil, err
	}
	v, err := stats.Percentile(x, *q)
	if err != nil {
		return nil, fmt.Errorf("analyze: %s: column %q: %w", *in, *col, err)
	}
	return percentileOut{Value: num(v)}, nil
}
