package stats

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// SummaryOptions configures LogitResult.Summary. The zero value works.
type SummaryOptions struct {
	// DepVar names the outcome; "" means "y".
	DepVar string
	// Names names the predictors in the order they were fitted; nil means x1, x2, ….
	// The intercept is always "const".
	Names []string
	// Alpha sets the confidence level 1 - Alpha of the intervals; 0 means 0.05.
	Alpha float64
	// Title replaces "Logit Regression Results".
	Title string
}

// Summary returns the fit as a plain-text report laid out like statsmodels' Logit summary:
// a header block (dependent variable, No. Observations, Df Residuals, Df Model, Pseudo
// R-squ. (McFadden), Log-Likelihood, LL-Null, LLR p-value, converged), the parameter table
// (coef, std err, z, P>|z| and the Wald interval), then a table of odds ratios exp(coef)
// with their intervals, one row per parameter with the intercept labelled const. Numbers
// are printed with statsmodels' formats, so a cell reads the same as in statsmodels'
// summary of the same fit. Unlike statsmodels, the report has no date and time lines (the
// same fit gives the same bytes) and all its blocks have one width. It fails when Names
// does not name every predictor or Alpha is outside (0, 1).
func (r *LogitResult) Summary(opts SummaryOptions) (string, error) {
	alpha := opts.Alpha
	if alpha == 0 {
		alpha = 0.05
	}
	lo, hi, err := r.ConfInt(alpha)
	if err != nil {
		return "", err
	}
	names := opts.Names
	if names == nil {
		for j := 1; j < r.K; j++ {
			names = append(names, "x"+strconv.Itoa(j))
		}
	}
	if len(names) != r.K-1 {
		return "", fmt.Errorf("stats: logit summary: %d names for %d predictors: %w", len(names), r.K-1, ErrLength)
	}
	names = append([]string{"const"}, names...)
	dep := opts.DepVar
	if dep == "" {
		dep = "y"
	}
	title := opts.Title
	if title == "" {
		title = "Logit Regression Results"
	}

	scaling := "raw"
	if r.ZScored {
		scaling = fmt.Sprintf("z-scored, ddof %d", r.DDoF)
	}
	left := [][2]string{
		{"Dep. Variable:", dep},
		{"Model:", "Logit"},
		{"Method:", "MLE"},
		{"Predictors:", scaling},
		{"Iterations:", strconv.Itoa(r.Iterations)},
		{"converged:", pyBool(r.Converged)},
		{"Covariance Type:", "nonrobust"},
	}
	right := [][2]string{
		{"No. Observations:", strconv.Itoa(r.N)},
		{"Df Residuals:", strconv.Itoa(r.DfResid)},
		{"Df Model:", strconv.Itoa(r.DfModel)},
		{"Pseudo R-squ.:", fmt.Sprintf("%#6.4g", r.McFaddenR2)},
		{"Log-Likelihood:", fmt.Sprintf("%#8.5g", r.LLF)},
		{"LL-Null:", fmt.Sprintf("%#8.5g", r.LLNull)},
		{"LLR p-value:", fmt.Sprintf("%#6.4g", r.LLRPValue)},
	}

	// Widths: statsmodels' 78 columns for short names, wider when a name needs it.
	stub := 10
	for _, n := range names {
		stub = max(stub, len(n))
	}
	lw, rw := 37, 38
	for i := range left {
		lw = max(lw, len(left[i][0])+1+len(left[i][1]))
		rw = max(rw, len(right[i][0])+1+len(right[i][1]))
	}
	width := max(stub+68, lw+3+rw)
	lw = width - 3 - rw
	stub = width - 68

	var b strings.Builder
	line := func(s string) { b.WriteString(strings.TrimRight(s, " ") + "\n") }
	rule := func(c string) { line(strings.Repeat(c, width)) }
	line(strings.Repeat(" ", max(0, (width-len(title))/2)) + title)
	rule("=")
	for i := range left {
		line(pad(left[i][0], left[i][1], lw) + "   " + pad(right[i][0], right[i][1], rw))
	}
	rule("=")
	lq, hq := ciLabels(alpha)
	line(fmt.Sprintf("%-*s%11s%11s%11s%11s%12s%12s", stub, "", "coef", "std err", "z", "P>|z|", lq, hq))
	rule("-")
	for j, n := range names {
		line(fmt.Sprintf("%-*s%11s%11s%11s%11s%12s%12s", stub, n,
			forg4(r.Coef[j]), forg3(r.SE[j]), forg3(r.Z[j]), fmt.Sprintf("%#6.3f", r.P[j]),
			forg3(lo[j]), forg3(hi[j])))
	}
	rule("=")
	line(fmt.Sprintf("%-*s%11s%12s%12s", stub, "", "odds ratio", lq, hq))
	rule("-")
	for j, n := range names {
		line(fmt.Sprintf("%-*s%11s%12s%12s", stub, n,
			forg4(math.Exp(r.Coef[j])), forg3(math.Exp(lo[j])), forg3(math.Exp(hi[j]))))
	}
	rule("=")
	note := "Odds ratio: exp(coef), the factor on the odds of " + dep + " = 1 per unit of the predictor; const: the odds when every predictor is 0."
	if r.ZScored {
		note = "Odds ratio: exp(coef), the factor on the odds of " + dep + " = 1 per standard deviation of the predictor; const: the odds at the predictors' means."
	}
	for _, l := range wrap(note, width) {
		line(l)
	}
	return b.String(), nil
}

// wrap breaks text into lines of at most width bytes at spaces (a longer word stays whole).
func wrap(text string, width int) []string {
	var lines []string
	cur := ""
	for _, w := range strings.Fields(text) {
		switch {
		case cur == "":
			cur = w
		case len(cur)+1+len(w) <= width:
			cur += " " + w
		default:
			lines = append(lines, cur)
			cur = w
		}
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	return lines
}

// pad returns label and value separated by spaces so the cell is w wide, the value
// right-aligned.
func pad(label, value string, w int) string {
	return label + strings.Repeat(" ", max(1, w-len(label)-len(value))) + value
}

// ciLabels are statsmodels' interval column headers, "[0.025" and "0.975]" for alpha 0.05.
func ciLabels(alpha float64) (string, string) {
	return "[" + strconv.FormatFloat(alpha/2, 'g', -1, 64), strconv.FormatFloat(1-alpha/2, 'g', -1, 64) + "]"
}

// forg3 and forg4 format a number as statsmodels' summary tables do (iolib forg with
// precision 3 and 4): fixed point, or %g when the magnitude is at least 1e4 or below
// 1e-4.
func forg3(x float64) string {
	if a := math.Abs(x); a >= 1e4 || a < 1e-4 {
		return fmt.Sprintf("%9.3g", x)
	}
	return fmt.Sprintf("%9.3f", x)
}

func forg4(x float64) string {
	if a := math.Abs(x); a >= 1e4 || a < 1e-4 {
		return fmt.Sprintf("%10.4g", x)
	}
	return fmt.Sprintf("%10.4f", x)
}

func pyBool(v bool) string {
	if v {
		return "True"
	}
	return "False"
}
