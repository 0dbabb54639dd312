package stats

import (
	"encoding/csv"
	"errors"
	"flag"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/logit_summary.golden")

// functionsTable reads testdata/functions.csv (real call-graph metrics of Debian Python
// packages, gen_functions.py) and returns the named columns of the rows of one package
// ("" for all rows).
func functionsTable(t *testing.T, pkg string, cols ...string) [][]float64 {
	t.Helper()
	f, err := os.Open("testdata/functions.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	idx := map[string]int{}
	for j, h := range recs[0] {
		idx[h] = j
	}
	out := make([][]float64, len(cols))
	for _, r := range recs[1:] {
		if pkg != "" && r[idx["package"]] != pkg {
			continue
		}
		for k, c := range cols {
			j, ok := idx[c]
			if !ok {
				t.Fatalf("functions.csv has no column %q", c)
			}
			v, err := strconv.ParseFloat(r[j], 64)
			if err != nil {
				t.Fatal(err)
			}
			out[k] = append(out[k], v)
		}
	}
	return out
}

// TestGoldenLogitRealData fits the logit models of gen_golden.py on the real task-level data
// and compares every number, and every cell of the summary text, with statsmodels'.
func TestGoldenLogitRealData(t *testing.T) {
	g := loadGolden(t)
	if len(g.LogitReal) < 5 {
		t.Fatalf("%d real-data logit cases in golden.json", len(g.LogitReal))
	}
	for _, c := range g.LogitReal {
		t.Run(c.Name, func(t *testing.T) {
			cols := functionsTable(t, c.Package, append([]string{c.YCol}, c.XCols...)...)
			r, err := Logit(cols[0], cols[1:], &LogitOptions{ZScore: c.ZScore, DDoF: c.DDoF})
			if err != nil {
				t.Fatal(err)
			}
			if r.N != c.N {
				t.Fatalf("n = %d, statsmodels %d", r.N, c.N)
			}
			c.logitEstimates.check(t, r)
			checkClose(t, "intercept odds", math.Exp(r.Coef[0]), c.OddsRatio[0])
			checkSlice(t, "odds ratio", r.OddsRatio, c.OddsRatio[1:])
			c.logitInference.check(t, r)

			text, err := r.Summary(SummaryOptions{DepVar: c.YCol, Names: c.XCols})
			if err != nil {
				t.Fatal(err)
			}
			compareSummaries(t, text, strings.Join(c.Summary, "\n"))
		})
	}
}

var cellRE = regexp.MustCompile(`(\S[^:]*?:)\s+(\S+)`)

// summaryCells parses a statsmodels-style summary into the label: value cells of its
// header block and the rows of its parameter table (name followed by six cells).
func summaryCells(t *testing.T, text string) (map[string]string, [][]string) {
	t.Helper()
	lines := strings.Split(text, "\n")
	top := map[string]string{}
	var params [][]string
	rules := 0
	inParams := false
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "====="):
			rules++
			inParams = false
			continue
		case strings.HasPrefix(l, "-----"):
			inParams = rules == 2
			continue
		}
		switch {
		case rules == 1:
			for _, m := range cellRE.FindAllStringSubmatch(l, -1) {
				top[m[1]] = m[2]
			}
		case inParams:
			params = append(params, strings.Fields(l))
		}
	}
	if len(top) < 10 || len(params) == 0 {
		t.Fatalf("cannot parse summary (%d header cells, %d rows):\n%s", len(top), len(params), text)
	}
	return top, params
}

func compareSummaries(t *testing.T, ours, theirs string) {
	t.Helper()
	oTop, oParams := summaryCells(t, ours)
	sTop, sParams := summaryCells(t, theirs)
	for label, want := range sTop {
		if got, ok := oTop[label]; !ok || got != want {
			t.Errorf("header %q: %q, statsmodels %q", label, got, want)
		}
	}
	if len(oParams) != len(sParams) {
		t.Fatalf("%d parameter rows, statsmodels %d", len(oParams), len(sParams))
	}
	for i := range sParams {
		if strings.Join(oParams[i], " ") != strings.Join(sParams[i], " ") {
			t.Errorf("parameter row %d:\n ours        %q\n statsmodels %q", i, oParams[i], sParams[i])
		}
	}
	if t.Failed() {
		t.Logf("ours:\n%s\nstatsmodels:\n%s", ours, theirs)
	}
}

// TestLogitSummaryGolden pins the whole text of the summaries of the real-data fits
// (go test ./stats -run TestLogitSummaryGolden -update rewrites the file).
func TestLogitSummaryGolden(t *testing.T) {
	g := loadGolden(t)
	var b strings.Builder
	for _, c := range g.LogitReal {
		cols := functionsTable(t, c.Package, append([]string{c.YCol}, c.XCols...)...)
		r, err := Logit(cols[0], cols[1:], &LogitOptions{ZScore: c.ZScore, DDoF: c.DDoF})
		if err != nil {
			t.Fatal(err)
		}
		text, err := r.Summary(SummaryOptions{DepVar: c.YCol, Names: c.XCols})
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString("# " + c.Name + "\n" + text + "\n")
	}
	const path = "testdata/logit_summary.golden"
	if *update {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if b.String() != string(want) {
		t.Errorf("summaries differ from %s (run with -update after checking):\n%s", path, b.String())
	}
}

func TestSummaryLayout(t *testing.T) {
	cols := functionsTable(t, "", "tested", "code_lines", "harmonic")
	r, err := Logit(cols[0], cols[1:], &LogitOptions{ZScore: true})
	if err != nil {
		t.Fatal(err)
	}
	long := "harmonic_centrality_of_the_function_in_the_call_graph"
	for _, o := range []SummaryOptions{
		{},
		{DepVar: "tested", Names: []string{"code_lines", long}},
		{DepVar: strings.Repeat("d", 60), Names: []string{"a", "b"}, Alpha: 0.1},
	} {
		text, err := r.Summary(o)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
		width := len(lines[1])
		if width < 78 {
			t.Errorf("width %d", width)
		}
		for i, l := range lines {
			if len(l) > width {
				t.Errorf("line %d is %d wide, the rules %d: %q", i, len(l), width, l)
			}
			if strings.Trim(l, "=-") == "" && len(l) != width {
				t.Errorf("rule %d is %d wide, want %d", i, len(l), width)
			}
			if strings.HasSuffix(l, " ") {
				t.Errorf("trailing space on line %d", i)
			}
		}
		names := o.Names
		if names == nil {
			names = []string{"x1", "x2"}
		}
		// Each name starts a parameter row and an odds-ratio row; the odds ratio of a
		// row is exp of the coefficient of the same row.
		for j, n := range append([]string{"const"}, names...) {
			var rows []string
			for _, l := range lines {
				if f := strings.Fields(l); len(f) > 0 && f[0] == n {
					rows = append(rows, l)
				}
			}
			if len(rows) != 2 {
				t.Fatalf("%q starts %d rows, want 2:\n%s", n, len(rows), text)
			}
			or, err := strconv.ParseFloat(strings.Fields(rows[1])[1], 64)
			if err != nil {
				t.Fatal(err)
			}
			if want := math.Exp(r.Coef[j]); math.Abs(or-want) > 5e-4*want {
				t.Errorf("odds ratio row %q: %v, exp(coef) %v", n, or, want)
			}
		}
		if o.Alpha == 0.1 && !strings.Contains(text, "[0.05") {
			t.Errorf("alpha 0.1: no [0.05 column:\n%s", text)
		}
	}
	if _, err := r.Summary(SummaryOptions{Names: []string{"one"}}); !errors.Is(err, ErrLength) {
		t.Errorf("one name for two predictors: %v", err)
	}
	if _, err := r.Summary(SummaryOptions{Alpha: 1.5}); !errors.Is(err, ErrRange) {
		t.Errorf("alpha 1.5: %v", err)
	}
}
