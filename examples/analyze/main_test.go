package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The reference numbers come from the stats package's golden file, produced by statsmodels,
// scipy and numpy (stats/testdata/gen_golden.py).
type goldenFile struct {
	Logit []struct {
		Name                  string
		Y                     []float64
		X                     [][]float64
		ZScore                bool
		DDoF                  int
		Coef, SE, Z, P        []float64
		LLF, LLNull, AIC, BIC float64
		McFadden              float64 `json:"mcfadden_r2"`
		Separation            string
		CILo                  []float64 `json:"ci_lo"`
		CIHi                  []float64 `json:"ci_hi"`
		LLRExact              float64   `json:"llr_exact"`
		LLRPValueExact        float64   `json:"llr_pvalue_exact"`
		DfModel               int       `json:"df_model"`
		DfResid               int       `json:"df_resid"`
	}
	LogitReal []struct {
		Name, Package, YCol string   `json:"-"`
		XCols               []string `json:"x_cols"`
		ZScore              bool
		DDoF                int
		Coef, SE, Z, P      []float64
		CILo                []float64 `json:"ci_lo"`
		CIHi                []float64 `json:"ci_hi"`
		LLF                 float64
		LLRPValueExact      float64 `json:"llr_pvalue_exact"`
		N                   int
		Summary             []string
	} `json:"logit_real"`
	MWU []struct {
		Name, Alternative, Method string
		X, Y                      []float64
		Continuity                bool
		U                         float64
		P                         *float64
	} `json:"mannwhitneyu"`
	Corr []struct {
		Name              string
		X, Y              []float64
		Pearson, Spearman float64
		PearsonP          float64 `json:"pearson_p"`
		SpearmanP         float64 `json:"spearman_p"`
	}
	Percentile []struct {
		Name   string
		X, Q   []float64
		Values []float64
	}
}

func loadGolden(t *testing.T) *goldenFile {
	t.Helper()
	b, err := os.ReadFile("../../stats/testdata/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g goldenFile
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	return &g
}

// writeCSV writes columns (of possibly different lengths; short ones get empty cells) under
// the given header to a temporary file.
func writeCSV(t *testing.T, header []string, cols ...[]float64) string {
	t.Helper()
	n := 0
	for _, c := range cols {
		n = max(n, len(c))
	}
	var b strings.Builder
	b.WriteString(strings.Join(header, ",") + "\n")
	for i := 0; i < n; i++ {
		for j, c := range cols {
			if j > 0 {
				b.WriteByte(',')
			}
			if i < len(c) {
				b.WriteString(strconv.FormatFloat(c[i], 'g', -1, 64))
			}
		}
		b.WriteByte('\n')
	}
	return writeFile(t, b.String())
}

func writeFile(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "data.csv")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// runOK runs the command in-process and decodes its JSON output.
func runOK(t *testing.T, args ...string) map[string]any {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := run(args, &stdout, &stderr); code != 0 {
		t.Fatalf("analyze %s: exit %d: %s", strings.Join(args, " "), code, stderr.String())
	}
	var out map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("output %q: %v", stdout.String(), err)
	}
	return out
}

func runFail(t *testing.T, wantCode int, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	if code != wantCode {
		t.Fatalf("analyze %s: exit %d, want %d; stderr %s", strings.Join(args, " "), code, wantCode, stderr.String())
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout on failure: %s", stdout.String())
	}
	return stderr.String()
}

func near(got any, want float64) bool {
	if got == nil {
		return math.IsNaN(want)
	}
	g := got.(float64)
	return math.Abs(g-want) <= 1e-8*math.Abs(want) || math.Abs(g-want) <= 1e-12
}

func checkNum(t *testing.T, out map[string]any, key string, want float64) {
	t.Helper()
	if !near(out[key], want) {
		t.Errorf("%s = %v, reference %.17g", key, out[key], want)
	}
}

func checkNums(t *testing.T, out map[string]any, key string, want []float64) {
	t.Helper()
	got, ok := out[key].([]any)
	if !ok || len(got) != len(want) {
		t.Fatalf("%s = %v, reference %v", key, out[key], want)
	}
	for i := range want {
		if !near(got[i], want[i]) {
			t.Errorf("%s[%d] = %v, reference %.17g", key, i, got[i], want[i])
		}
	}
}

func TestLogitCommand(t *testing.T) {
	g := loadGolden(t)
	tested := 0
	for _, c := range g.Logit {
		if c.Separation != "" || (len(c.Y) != 200 && len(c.Y) != 30) {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			header := []string{"solved"}
			var names []string
			for j := range c.X {
				names = append(names, fmt.Sprintf("metric_%d", j))
			}
			path := writeCSV(t, append(header, names...), append([][]float64{c.Y}, c.X...)...)
			args := []string{"logit", "-in", path, "-y", "solved", "-x", strings.Join(names, ",")}
			if c.ZScore {
				args = append(args, "-zscore", "-ddof", strconv.Itoa(c.DDoF))
			}
			args = append(args, "-json")
			out := runOK(t, args...)
			checkNums(t, out, "coef", c.Coef)
			checkNums(t, out, "se", c.SE)
			checkNums(t, out, "z", c.Z)
			checkNums(t, out, "p", c.P)
			checkNums(t, out, "ci_low", c.CILo)
			checkNums(t, out, "ci_high", c.CIHi)
			checkNum(t, out, "llf", c.LLF)
			checkNum(t, out, "llnull", c.LLNull)
			checkNum(t, out, "mcfadden_r2", c.McFadden)
			checkNum(t, out, "aic", c.AIC)
			checkNum(t, out, "bic", c.BIC)
			checkNum(t, out, "llr", c.LLRExact)
			checkNum(t, out, "llr_pvalue", c.LLRPValueExact)
			checkNum(t, out, "n", float64(len(c.Y)))
			checkNum(t, out, "df_model", float64(c.DfModel))
			checkNum(t, out, "df_resid", float64(c.DfResid))
			if out["converged"] != true {
				t.Errorf("converged = %v", out["converged"])
			}
			// Every array is indexed like names, the intercept first; the odds ratios and
			// their intervals are exp of the coefficients and theirs.
			pnames := out["names"].([]any)
			if len(pnames) != len(c.Coef) || pnames[0] != "const" {
				t.Fatalf("names %v for %d parameters", pnames, len(c.Coef))
			}
			or := make([]float64, len(c.Coef))
			orLo := make([]float64, len(c.Coef))
			for j := range c.Coef {
				or[j], orLo[j] = math.Exp(c.Coef[j]), math.Exp(c.CILo[j])
			}
			checkNums(t, out, "odds_ratio", or)
			checkNums(t, out, "odds_ratio_ci_low", orLo)
		})
		tested++
	}
	if tested < 8 {
		t.Fatalf("only %d golden cases", tested)
	}
}

func TestMannWhitneyCommand(t *testing.T) {
	g := loadGolden(t)
	for _, c := range g.MWU {
		if !strings.HasPrefix(c.Name, "cont_8_30") && !strings.HasPrefix(c.Name, "ties_7_9") && !strings.HasPrefix(c.Name, "cont_5_7") {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			// Columns of different lengths: the shorter one ends in empty cells.
			path := writeCSV(t, []string{"a", "b"}, c.X, c.Y)
			args := []string{"mannwhitney", "-in", path, "-a", "a", "-b", "b", "-alternative", c.Alternative, "-method", c.Method}
			if !c.Continuity {
				args = append(args, "-continuity=false")
			}
			out := runOK(t, args...)
			checkNum(t, out, "u", c.U)
			checkNum(t, out, "p", *c.P)
			if r, ok := out["r"].(float64); !ok || math.Abs(r) > 1 {
				t.Errorf("r = %v", out["r"])
			}
		})
	}
}

func TestCorrAndPercentileCommands(t *testing.T) {
	g := loadGolden(t)
	for _, c := range g.Corr {
		t.Run(c.Name, func(t *testing.T) {
			path := writeCSV(t, []string{"lines", "centrality"}, c.X, c.Y)
			out := runOK(t, "corr", "-in", path, "-x", "lines", "-y", "centrality")
			checkNum(t, out, "pearson", c.Pearson)
			checkNum(t, out, "pearson_p", c.PearsonP)
			checkNum(t, out, "spearman", c.Spearman)
			checkNum(t, out, "spearman_p", c.SpearmanP)
		})
	}
	for _, c := range g.Percentile {
		path := writeCSV(t, []string{"v"}, c.X)
		for i, q := range c.Q {
			out := runOK(t, "percentile", "-in", path, "-col", "v", "-q", strconv.FormatFloat(q, 'g', -1, 64))
			if out["value"] != c.Values[i] {
				t.Errorf("%s q=%v: %v, numpy %v", c.Name, q, out["value"], c.Values[i])
			}
		}
	}
}

func TestBadInput(t *testing.T) {
	good := "solved,lines,name\n1,10,a\n0,20,b\n1,15,c\n0,40,d\n1,12,e\n0,35,f\n0,11,g\n1,30,h\n"
	cases := []struct {
		name    string
		csv     string
		args    []string
		code    int
		mention []string
	}{
		{"missing column", good, []string{"logit", "-y", "solved", "-x", "size"}, 1, []string{"data.csv:1", `"size"`, "no such column"}},
		{"non-numeric cell", strings.Replace(good, "0,35,f", "0,3x5,f", 1), []string{"logit", "-y", "solved", "-x", "lines"}, 1, []string{"data.csv:7", `"lines" (2)`, "not a number"}},
		{"nan cell", strings.Replace(good, "1,12,e", "1,NaN,e", 1), []string{"corr", "-x", "solved", "-y", "lines"}, 1, []string{"data.csv:6", `"lines"`, "NaN"}},
		{"inf cell", strings.Replace(good, "1,12,e", "1,-Inf,e", 1), []string{"percentile", "-col", "lines"}, 1, []string{"data.csv:6", "infinite"}},
		{"empty cell in paired data", strings.Replace(good, "0,20,b", "0,,b", 1), []string{"logit", "-y", "solved", "-x", "lines"}, 1, []string{"data.csv:3", "empty cell"}},
		{"outcome not binary", strings.Replace(good, "0,20,b", "2,20,b", 1), []string{"logit", "-y", "solved", "-x", "lines"}, 1, []string{"data.csv:3", `"solved"`, "not 0 or 1"}},
		{"separation", "y,x\n0,1\n0,2\n0,3\n1,4\n1,5\n1,6\n", []string{"logit", "-y", "y", "-x", "x"}, 1, []string{"separation"}},
		{"constant predictor", "y,x\n0,1\n1,1\n0,1\n1,1\n", []string{"logit", "-y", "y", "-x", "x"}, 1, []string{"constant"}},
		{"all success", "y,x\n1,1\n1,2\n1,3\n1,4\n", []string{"logit", "-y", "y", "-x", "x"}, 1, []string{"single class"}},
		{"n < 3", "x,y\n1,2\n2,1\n", []string{"corr", "-x", "x", "-y", "y"}, 1, []string{"too few"}},
		{"empty sample", "a,b\n1,\n2,\n", []string{"mannwhitney", "-a", "a", "-b", "b"}, 1, []string{"empty sample"}},
		{"ragged row", "a,b\n1,2\n3\n", []string{"percentile", "-col", "a"}, 1, []string{"data.csv:3:", "wrong number of fields", "header has 2"}},
		{"bad quote", "a,b\n1,2\n3,\"4\n5,6\n", []string{"percentile", "-col", "a"}, 1, []string{"data.csv:4:", "quoted-field", "starts on line 3"}},
		{"empty file", "", []string{"percentile", "-col", "a"}, 1, []string{"empty file"}},
		{"unknown command", good, []string{"anova"}, 2, []string{`unknown command "anova"`}},
		{"missing flag", good, []string{"corr", "-x", "lines"}, 2, []string{"-y is required"}},
		{"bad alternative", good, []string{"mannwhitney", "-a", "lines", "-b", "solved", "-alternative", "bigger"}, 2, []string{"-alternative"}},
		{"bad q", good, []string{"percentile", "-col", "lines", "-q", "101"}, 2, []string{"outside [0, 100]"}},
		{"bad ddof", good, []string{"logit", "-y", "solved", "-x", "lines", "-ddof", "2"}, 2, []string{"-ddof"}},
		{"bad plot format", good, []string{"plot", "dist", "-value", "lines", "-out", "x.jpg"}, 2, []string{"-out", ".png, .svg or .pdf"}},
		{"unknown flag", good, []string{"corr", "-x", "a", "-y", "b", "-method", "kendall"}, 2, []string{"-method"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := writeFile(t, c.csv)
			args := c.args
			if args[0] != "anova" {
				args = append(append([]string(nil), args...), "-in", path)
			}
			msg := runFail(t, c.code, args...)
			for _, m := range c.mention {
				if !strings.Contains(msg, m) {
					t.Errorf("message %q does not mention %q", msg, m)
				}
			}
		})
	}
	if err := (&CSVError{File: "f.csv", Line: 3, Column: "x", Index: 2, Err: errNotNumber}); !errors.Is(err, errNotNumber) {
		t.Error("CSVError does not unwrap")
	}
}

func TestPlotCommands(t *testing.T) {
	var b strings.Builder
	b.WriteString("model,solved,lines,centrality\n")
	for i := 0; i < 240; i++ {
		model := []string{"alpha", "beta"}[i%2]
		lines := float64(5 + (i*37)%90)
		cent := float64((i*53)%100) / 100
		// Deterministic but overlapping outcomes: success falls with size.
		solved := 0
		if (i*7919)%100 > int(lines)-10+int(cent*20) {
			solved = 1
		}
		fmt.Fprintf(&b, "%s,%d,%g,%g\n", model, solved, lines, cent)
	}
	path := writeFile(t, b.String())
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		key  string
	}{
		{[]string{"plot", "curve", "-in", path, "-y", "solved", "-x", "lines", "-model", "model", "-reps", "40", "-out", filepath.Join(dir, "curve.png")}, "models"},
		{[]string{"plot", "curve", "-in", path, "-y", "solved", "-x", "lines", "-reps", "0", "-out", filepath.Join(dir, "curve.svg")}, "models"},
		{[]string{"plot", "hexbin", "-in", path, "-y", "solved", "-x", "lines,centrality", "-out", filepath.Join(dir, "hex.png")}, "bins"},
		{[]string{"plot", "dist", "-in", path, "-value", "lines", "-model", "model", "-solved", "solved", "-kind", "violin", "-out", filepath.Join(dir, "dist.png")}, "models"},
		{[]string{"plot", "dist", "-in", path, "-value", "lines", "-model", "model", "-out", filepath.Join(dir, "dist.svg")}, "models"},
	} {
		out := runOK(t, c.args...)
		if out[c.key] == nil {
			t.Errorf("%v: output %v lacks %q", c.args, out, c.key)
		}
		file := c.args[len(c.args)-1]
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(file, ".png") {
			img, err := png.Decode(bytes.NewReader(data))
			if err != nil || img.Bounds().Dx() < 300 {
				t.Errorf("%s: %v", file, err)
			}
		} else if !bytes.Contains(data, []byte("<svg")) {
			t.Errorf("%s is not SVG", file)
		}
	}
	out := runOK(t, "plot", "dist", "-in", path, "-value", "lines", "-model", "model", "-solved", "solved", "-out", filepath.Join(dir, "d.png"))
	models := out["models"].([]any)
	if len(models) != 2 || models[0].(map[string]any)["model"] != "alpha" {
		t.Errorf("models %v", models)
	}
	runFail(t, 2, "plot", "pie", "-in", path)
	var stdout, stderr bytes.Buffer
	if code := run([]string{"plot", "hexbin", "-h"}, &stdout, &stderr); code != 0 || !strings.Contains(stderr.String(), "-radius") {
		t.Errorf("-h: exit %d, %q", code, stderr.String())
	}
	runFail(t, 2, "plot")
}

// TestExitStatus builds the command and checks the process exit status and streams.
func TestExitStatus(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	path := writeFile(t, "v\n1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n")
	out, err := exec.Command(bin, "percentile", "-in", path, "-col", "v", "-q", "90").Output()
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(string(out)) != `{"value":9.1}` {
		t.Errorf("output %q", out)
	}
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"percentile", "-in", path, "-col", "w"}, 1},
		{[]string{"percentile", "-col", "v"}, 2},
		{[]string{"frobnicate"}, 2},
		{[]string{"-h"}, 0},
		{[]string{"plot", "hexbin", "-h"}, 0},
		{[]string{"logit", "-in", path, "-y", "v", "-x", "v", "-alpha", "2"}, 2},
	} {
		err := exec.Command(bin, c.args...).Run()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != c.code {
			t.Errorf("%v: exit status %d, want %d", c.args, code, c.code)
		}
	}
}
