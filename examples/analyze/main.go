// Command analyze runs the statistical analyses of package stats on a CSV file (with a header
// row) and prints the result as one JSON object.
//
//	analyze logit -in F.csv -y COL -x COL1,COL2 [-zscore] [-ddof 0|1]
//	    {"names","coef","se","z","p","odds_ratio","llf","llnull","mcfadden_r2","aic","bic","n"}
//	    (intercept first; statsmodels Logit conventions)
//	analyze mannwhitney -in F.csv -a COL -b COL [-alternative two-sided|less|greater]
//	    [-method auto|exact|asymptotic] [-continuity=false]
//	    {"u","p","r","z","method","n1","n2"} (scipy.stats.mannwhitneyu; r = Z/√N with the
//	    tie-corrected Z without continuity correction)
//	analyze corr -in F.csv -x COL -y COL
//	    {"pearson","pearson_p","spearman","spearman_p","n"}
//	analyze percentile -in F.csv -col COL -q 90
//	    {"value"} (numpy's linear percentile)
//	analyze plot curve  -in F.csv -y SOLVED -x COL [-model COL] [-reps 200] [-seed 0] -out F.png
//	analyze plot hexbin -in F.csv -y SOLVED -x COL1,COL2 [-radius 0.25] [-ddof 0|1] -out F.png
//	analyze plot dist   -in F.csv -value COL [-model COL] [-solved COL] [-kind box|violin] -out F.svg
//	    {"out", ...} (PNG or SVG by the extension of -out)
//
// Cells: mannwhitney and percentile skip empty cells (columns of different lengths share one
// file); logit, corr and plot read rows, so an empty cell there is an error. A missing
// column, a cell that is not a number, NaN or ±Inf is an error naming the file, line and
// column. Exit status: 0 on success (and for -h), 1 when the input or the analysis fails (bad CSV,
// separation, too few values), 2 on a usage error (unknown subcommand, bad or missing flag).
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// usageError marks a command-line mistake (exit status 2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return "analyze: " + e.msg }

func usagef(format string, a ...any) error { return &usageError{fmt.Sprintf(format, a...)} }

const usage = `usage: analyze <logit|mannwhitney|corr|percentile|plot> [flags]
       analyze plot <curve|hexbin|dist> [flags]
run "analyze <command> -h" for the flags of a command`

// run executes one command and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	out, err := dispatch(args, stderr)
	if err == nil {
		enc := json.NewEncoder(stdout)
		err = enc.Encode(out)
	}
	if err == nil {
		return 0
	}
	if errors.Is(err, flag.ErrHelp) {
		return 0 // the flag package has printed the command's flags
	}
	fmt.Fprintln(stderr, err)
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintln(stderr, usage)
		return 2
	}
	return 1
}

func dispatch(args []string, stderr io.Writer) (any, error) {
	if len(args) == 0 {
		return nil, usagef("no command")
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "logit":
		return runLogit(rest, stderr)
	case "mannwhitney":
		return runMannWhitney(rest, stderr)
	case "corr":
		return runCorr(rest, stderr)
	case "percentile":
		return runPercentile(rest, stderr)
	case "plot":
		return runPlot(rest, stderr)
	}
	return nil, usagef("unknown command %q", cmd)
}

// newFlags returns a flag set that reports errors instead of exiting.
func newFlags(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// parse parses args and checks that every named string flag is set.
func parse(fs *flag.FlagSet, args []string, required ...string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return &usageError{err.Error()}
	}
	if fs.NArg() > 0 {
		return usagef("%s: unexpected argument %q", fs.Name(), fs.Arg(0))
	}
	for _, name := range required {
		if fs.Lookup(name).Value.String() == "" {
			return usagef("%s: flag -%s is required", fs.Name(), name)
		}
	}
	return nil
}

// splitList splits a comma-separated list of column names.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// num is a float64 that encodes NaN and ±Inf as JSON null (JSON has no such numbers).
type num float64

func (n num) MarshalJSON() ([]byte, error) {
	f := float64(n)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return json.Marshal(f)
}

func nums(x []float64) []num {
	out := make([]num, len(x))
	for i, v := range x {
		out[i] = num(v)
	}
	return out
}
