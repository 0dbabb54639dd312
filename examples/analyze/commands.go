package main

import (
	"fmt"
	"math"

	"github.com/faultline-dev/faultline/stats"
)

// logitOut is the machine form of a logit fit: every slice is indexed like Names, the
// intercept ("const") first.
type logitOut struct {
	DepVar          string   `json:"dep_var"`
	Names           []string `json:"names"`
	Coef            []num    `json:"coef"`
	SE              []num    `json:"se"`
	Z               []num    `json:"z"`
	P               []num    `json:"p"`
	CILow           []num    `json:"ci_low"`
	CIHigh          []num    `json:"ci_high"`
	OddsRatio       []num    `json:"odds_ratio"`
	OddsRatioCILow  []num    `json:"odds_ratio_ci_low"`
	OddsRatioCIHigh []num    `json:"odds_ratio_ci_high"`
	Alpha           float64  `json:"alpha"`
	LLF             num      `json:"llf"`
	LLNull          num      `json:"llnull"`
	LLR             num      `json:"llr"`
	LLRPValue       num      `json:"llr_pvalue"`
	McFaddenR2      num      `json:"mcfadden_r2"`
	AIC             num      `json:"aic"`
	BIC             num      `json:"bic"`
	N               int      `json:"n"`
	DfModel         int      `json:"df_model"`
	DfResid         int      `json:"df_resid"`
	Converged       bool     `json:"converged"`
	Iterations      int      `json:"iterations"`
	ZScore          bool     `json:"zscore"`
	DDoF            int      `json:"ddof"`
}

func exps(x []float64) []num {
	out := make([]num, len(x))
	for i, v := range x {
		out[i] = num(math.Exp(v))
	}
	return out
}

func runLogit(args []string, st streams) error {
	fs := newFlags("logit", st.stderr)
	in := fs.String("in", "", "input CSV file with a header row")
	y := fs.String("y", "", "0/1 outcome column")
	x := fs.String("x", "", "comma-separated predictor columns")
	zscore := fs.Bool("zscore", false, "z-score the predictors before fitting")
	ddof := fs.Int("ddof", 0, "z-score ddof: 0 (scipy/numpy) or 1 (pandas)")
	alpha := fs.Float64("alpha", 0.05, "confidence intervals at level 1 - alpha")
	asJSON := fs.Bool("json", false, "print one JSON object instead of the summary table")
	out := fs.String("out", "-", "output file, - for stdout")
	if err := parse(fs, args, "in", "y", "x"); err != nil {
		return err
	}
	if *ddof != 0 && *ddof != 1 {
		return usagef("logit: -ddof %d, want 0 or 1", *ddof)
	}
	if !(*alpha > 0 && *alpha < 1) {
		return usagef("logit: -alpha %v outside (0, 1)", *alpha)
	}
	xs := splitList(*x)
	if len(xs) == 0 {
		return usagef("logit: -x names no column")
	}
	if err := checkPaths("logit", *in, *out); err != nil {
		return err
	}
	t, err := readTable(*in)
	if err != nil {
		return err
	}
	cols, err := t.paired(append([]string{*y}, xs...)...)
	if err != nil {
		return err
	}
	for i, v := range cols[0] {
		if v != 0 && v != 1 {
			return t.cellError(i, mustColumn(t, *y), fmt.Errorf("outcome %v is not 0 or 1", v))
		}
	}
	r, err := stats.Logit(cols[0], cols[1:], &stats.LogitOptions{ZScore: *zscore, DDoF: *ddof})
	if err != nil {
		return fmt.Errorf("analyze: %s: %w", *in, err)
	}
	if !*asJSON {
		text, err := r.Summary(stats.SummaryOptions{DepVar: *y, Names: xs, Alpha: *alpha})
		if err != nil {
			return fmt.Errorf("analyze: %w", err)
		}
		return emit(*out, st.stdout, []byte(text))
	}
	lo, hi, err := r.ConfInt(*alpha)
	if err != nil {
		return fmt.Errorf("analyze: %w", err)
	}
	res := logitOut{
		DepVar: *y, Names: append([]string{"const"}, xs...),
		Coef: nums(r.Coef), SE: nums(r.SE), Z: nums(r.Z), P: nums(r.P),
		CILow: nums(lo), CIHigh: nums(hi),
		OddsRatio: exps(r.Coef), OddsRatioCILow: exps(lo), OddsRatioCIHigh: exps(hi),
		Alpha: *alpha, LLF: num(r.LLF), LLNull: num(r.LLNull), LLR: num(r.LLR), LLRPValue: num(r.LLRPValue),
		McFaddenR2: num(r.McFaddenR2), AIC: num(r.AIC), BIC: num(r.BIC),
		N: r.N, DfModel: r.DfModel, DfResid: r.DfResid, Converged: r.Converged, Iterations: r.Iterations,
		ZScore: r.ZScored, DDoF: r.DDoF,
	}
	return emitJSON(*out, st.stdout, res)
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

func runMannWhitney(args []string, st streams) error {
	fs := newFlags("mannwhitney", st.stderr)
	in := fs.String("in", "", "input CSV file with a header row")
	a := fs.String("a", "", "column of the first sample")
	b := fs.String("b", "", "column of the second sample")
	alt := fs.String("alternative", "two-sided", "two-sided, less or greater")
	method := fs.String("method", "auto", "auto, exact or asymptotic")
	cont := fs.Bool("continuity", true, "continuity correction of the asymptotic method")
	out := fs.String("out", "-", "output file, - for stdout")
	if err := parse(fs, args, "in", "a", "b"); err != nil {
		return err
	}
	opts := stats.MannWhitneyOptions{NoContinuity: !*cont}
	var err error
	if opts.Alternative, err = stats.ParseAlternative(*alt); err != nil {
		return usagef("mannwhitney: -alternative %q: want two-sided, less or greater", *alt)
	}
	if opts.Method, err = stats.ParseMWUMethod(*method); err != nil {
		return usagef("mannwhitney: -method %q: want auto, exact or asymptotic", *method)
	}
	if err := checkPaths("mannwhitney", *in, *out); err != nil {
		return err
	}
	t, err := readTable(*in)
	if err != nil {
		return err
	}
	xa, err := t.numbers(*a)
	if err != nil {
		return err
	}
	xb, err := t.numbers(*b)
	if err != nil {
		return err
	}
	r, err := stats.MannWhitneyU(xa, xb, &opts)
	if err != nil {
		return fmt.Errorf("analyze: %s: columns %q and %q: %w", *in, *a, *b, err)
	}
	return emitJSON(*out, st.stdout, mwuOut{U: num(r.U), P: num(r.P), R: num(r.R), Z: num(r.Z), Method: r.Method.String(), N1: r.N1, N2: r.N2})
}

type corrOut struct {
	Pearson   num `json:"pearson"`
	PearsonP  num `json:"pearson_p"`
	Spearman  num `json:"spearman"`
	SpearmanP num `json:"spearman_p"`
	N         int `json:"n"`
}

func runCorr(args []string, st streams) error {
	fs := newFlags("corr", st.stderr)
	in := fs.String("in", "", "input CSV file with a header row")
	x := fs.String("x", "", "first column")
	y := fs.String("y", "", "second column")
	out := fs.String("out", "-", "output file, - for stdout")
	if err := parse(fs, args, "in", "x", "y"); err != nil {
		return err
	}
	if err := checkPaths("corr", *in, *out); err != nil {
		return err
	}
	t, err := readTable(*in)
	if err != nil {
		return err
	}
	cols, err := t.paired(*x, *y)
	if err != nil {
		return err
	}
	p, err := stats.Pearson(cols[0], cols[1])
	if err != nil {
		return fmt.Errorf("analyze: %s: columns %q and %q: %w", *in, *x, *y, err)
	}
	s, err := stats.Spearman(cols[0], cols[1])
	if err != nil {
		return fmt.Errorf("analyze: %s: columns %q and %q: %w", *in, *x, *y, err)
	}
	return emitJSON(*out, st.stdout, corrOut{Pearson: num(p.R), PearsonP: num(p.P), Spearman: num(s.R), SpearmanP: num(s.P), N: p.N})
}

type percentileOut struct {
	Value num `json:"value"`
}

func runPercentile(args []string, st streams) error {
	fs := newFlags("percentile", st.stderr)
	in := fs.String("in", "", "input CSV file with a header row")
	col := fs.String("col", "", "column")
	q := fs.Float64("q", 50, "percentile in [0, 100]")
	out := fs.String("out", "-", "output file, - for stdout")
	if err := parse(fs, args, "in", "col"); err != nil {
		return err
	}
	if !(*q >= 0 && *q <= 100) {
		return usagef("percentile: -q %v outside [0, 100]", *q)
	}
	if err := checkPaths("percentile", *in, *out); err != nil {
		return err
	}
	t, err := readTable(*in)
	if err != nil {
		return err
	}
	x, err := t.numbers(*col)
	if err != nil {
		return err
	}
	v, err := stats.Percentile(x, *q)
	if err != nil {
		return fmt.Errorf("analyze: %s: column %q: %w", *in, *col, err)
	}
	return emitJSON(*out, st.stdout, percentileOut{Value: num(v)})
}
