// Command analyze runs the statistical analyses of package stats on a CSV file with a header
// row (one row per task, for example) and draws the charts of package stats/plot.
//
//	analyze logit -in F.csv -y COL -x COL1,COL2 [-zscore] [-ddof 0|1] [-alpha 0.05] [-json] [-out -]
//	    a table laid out like statsmodels' Logit summary (coef, std err, z, P>|z|, the
//	    Wald interval, pseudo R² (McFadden), log-likelihood, LL-null, LLR p-value,
//	    converged, No. Observations, Df Model, Df Residuals) and the odds ratios with their
//	    intervals, one row per parameter (const first); with -json one JSON object whose
//	    arrays are all indexed like "names":
//	    {"dep_var","names","coef","se","z","p","ci_low","ci_high","odds_ratio",
//	     "odds_ratio_ci_low","odds_ratio_ci_high","alpha","llf","llnull","llr","llr_pvalue",
//	     "mcfadden_r2","aic","bic","n","df_model","df_resid","converged","iterations",
//	     "zscore","ddof"}
//	analyze mannwhitney -in F.csv -a COL -b COL [-alternative two-sided|less|greater]
//	    [-method auto|exact|asymptotic] [-continuity=false] [-out -]
//	    {"u","p","r","z","method","n1","n2"} (scipy.stats.mannwhitneyu; r = Z/√N with the
//	    tie-corrected Z without continuity correction)
//	analyze corr -in F.csv -x COL -y COL [-out -]
//	    {"pearson","pearson_p","spearman","spearman_p","n"}
//	analyze percentile -in F.csv -col COL -q 90 [-out -]
//	    {"value"} (numpy's linear percentile)
//	analyze plot curve  -in F.csv -y SOLVED -x COL [-model COL] [-reps 200] [-seed 0] -out F.png
//	analyze plot hexbin -in F.csv -y SOLVED -x COL1,COL2 [-radius 0.25] [-ddof 0|1]
//	    [-min-count 1] [-counts] -out F.png
//	analyze plot dist   -in F.csv -value COL [-model COL] [-solved COL] [-kind box|violin]
//	    [-whis 1.5] -out F.svg
//	    every chart also takes [-title T] [-width 6] [-height 4] (inches) [-dpi 96] (PNG)
//	    [-format png|svg|pdf] (default: the extension of -out); -out - writes the picture
//	    to stdout. The chart's summary (what was drawn: groups and their sizes, quartiles and
//	    whiskers, hexagon counts, fitted coefficients) is one JSON object on stdout, or on
//	    stderr when the picture itself goes to stdout.
//
// Streams: stdout carries only the result (the table, the JSON object or the picture);
// errors and notes go to stderr. -out FILE writes the result to FILE instead, whole or not
// at all (it is written beside FILE under a temporary name and renamed); -out - (the
// default for the analyses) is stdout.
//
// Checks before any work: flag values (ranges, known names), the input file exists, and
// the output path can be created (its directory exists and is writable, it is not the
// input, not a directory). Cells: mannwhitney and percentile skip empty cells (columns of
// different lengths share one file); logit, corr and plot read rows, so an empty cell there
// is an error. A malformed line (a wrong number of fields, a bad quote), a missing column,
// a cell that is not a number, NaN or ±Inf is an error naming the file and line (and the
// column). Same input and flags give the same output bytes.
//
// Exit status: 0 on success and for -h, 1 when the input or the analysis fails (bad CSV,
// separation, too few values), 2 on a usage error (unknown command, bad, missing or
// unusable flag value), 130 or 143 when interrupted by SIGINT or SIGTERM (the partial
// output file is removed).
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/faultline-dev/faultline/internal/cli"
)

func main() {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		s := <-sigs
		removeTemps()
		code := 130
		if s == syscall.SIGTERM {
			code = 143
		}
		fmt.Fprintf(os.Stderr, "analyze: %v: stopped, no output written\n", s)
		os.Exit(code)
	}()
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
	err := dispatch(args, stdout, stderr)
	if err == nil {
		return 0
	}
	if errors.Is(err, flag.ErrHelp) {
		return 0 // the command has printed its flags
	}
	fmt.Fprintln(stderr, err)
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintln(stderr, usage)
		return 2
	}
	return 1
}

func isHelp(s string) bool {
	switch s {
	case "-h", "-help", "--help", "help":
		return true
	}
	return false
}

func dispatch(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usagef("no command")
	}
	cmd, rest := args[0], args[1:]
	if isHelp(cmd) {
		fmt.Fprintln(stderr, usage)
		return flag.ErrHelp
	}
	st := streams{stdout: stdout, stderr: stderr}
	switch cmd {
	case "logit":
		return runLogit(rest, st)
	case "mannwhitney":
		return runMannWhitney(rest, st)
	case "corr":
		return runCorr(rest, st)
	case "percentile":
		return runPercentile(rest, st)
	case "plot":
		return runPlot(rest, st)
	}
	return usagef("unknown command %q", cmd)
}

// streams are the standard output and error of a command.
type streams struct{ stdout, stderr io.Writer }

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
		return &usageError{fs.Name() + ": " + err.Error()}
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

// checkPaths checks, before any work, that the input file can be opened and that the
// output path can be written without touching the input: its directory exists and is
// writable, and it is neither a directory nor the input file. "-" is stdout.
func checkPaths(cmd, in, out string) error {
	f, err := os.Open(in)
	if err != nil {
		return fmt.Errorf("analyze: %s: -in: %w", cmd, err)
	}
	inInfo, err := f.Stat()
	f.Close()
	if err != nil {
		return fmt.Errorf("analyze: %s: -in: %w", cmd, err)
	}
	if inInfo.IsDir() {
		return fmt.Errorf("analyze: %s: -in %s is a directory", cmd, in)
	}
	if out == "-" {
		return nil
	}
	if out == "" {
		return usagef("%s: -out is empty (use - for stdout)", cmd)
	}
	dir := filepath.Dir(out)
	if di, err := os.Stat(dir); err != nil {
		return usagef("%s: -out %s: directory %s: %v", cmd, out, dir, errors.Unwrap(err))
	} else if !di.IsDir() {
		return usagef("%s: -out %s: %s is not a directory", cmd, out, dir)
	}
	if oi, err := os.Stat(out); err == nil {
		if oi.IsDir() {
			return usagef("%s: -out %s is a directory", cmd, out)
		}
		if os.SameFile(oi, inInfo) {
			return usagef("%s: -out %s is the input file", cmd, out)
		}
		if cli.InPlace(out) { // a device or a pipe: written in place, nothing made in dir
			if oi.Mode()&fs.ModeNamedPipe != 0 {
				return nil // opening a pipe waits for its reader
			}
			f, err := os.OpenFile(out, os.O_WRONLY, 0)
			if err != nil {
				return usagef("%s: -out %s: not writable: %v", cmd, out, errors.Unwrap(err))
			}
			f.Close()
			return nil
		}
	}
	probe, err := os.CreateTemp(dir, ".analyze-probe-*")
	if err != nil {
		return usagef("%s: -out %s: cannot create files in %s: %v", cmd, out, dir, errors.Unwrap(err))
	}
	probe.Close()
	os.Remove(probe.Name())
	return nil
}

// temps are the temporary output files being written, removed if a signal stops the run.
var temps struct {
	sync.Mutex
	paths map[string]bool
}

func removeTemps() {
	temps.Lock()
	defer temps.Unlock()
	for p := range temps.paths {
		os.Remove(p)
	}
}

// emit writes data to stdout when out is "-", otherwise to the file out, whole or not at
// all: it is written beside out under a temporary name and renamed.
func emit(out string, stdout io.Writer, data []byte) error {
	if out == "-" {
		if _, err := stdout.Write(data); err != nil {
			return fmt.Errorf("analyze: stdout: %w", err)
		}
		return nil
	}
	if cli.InPlace(out) {
		f, err := os.OpenFile(out, os.O_WRONLY, 0)
		if err == nil {
			_, err = f.Write(data)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			return fmt.Errorf("analyze: %w", err)
		}
		return nil
	}
	tmp, err := os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+".*.tmp")
	if err != nil {
		return fmt.Errorf("analyze: %w", err)
	}
	temps.Lock()
	if temps.paths == nil {
		temps.paths = map[string]bool{}
	}
	temps.paths[tmp.Name()] = true
	temps.Unlock()
	defer func() {
		temps.Lock()
		delete(temps.paths, tmp.Name())
		temps.Unlock()
	}()
	_, werr := tmp.Write(data)
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(tmp.Name(), 0o644)
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), out)
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("analyze: %w", werr)
	}
	return nil
}

// jsonLine is v as one line of JSON.
func jsonLine(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("analyze: %w", err)
	}
	return append(b, '\n'), nil
}

// emitJSON writes v as one JSON line to out.
func emitJSON(out string, stdout io.Writer, v any) error {
	b, err := jsonLine(v)
	if err != nil {
		return err
	}
	return emit(out, stdout, b)
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
