// Package verdicts checks FAIL_TO_PASS and PASS_TO_PASS against the reference verdicts of
// package alone (each test run by itself): a test is FAIL_TO_PASS only if it fails when run
// alone on the corrupted tree, and passes alone with the gold patch; a test that fails
// alone is never PASS_TO_PASS. The fixtures here corrupt a function so that the first test
// panics (Go), or the interpreter dies, or collection breaks (pytest): the tests that run
// after it in the same process get no verdict of their own from that run.
//
// TestRealModules does the same, sampled, on Go modules from the module proxy that no one
// here wrote; it runs when FAULTLINE_ACCEPTANCE is set (CI sets it) and the modules are in
// the module cache (`go mod download` them, see its doc).
package verdicts

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/bench/internal/alone"
	"github.com/faultline-dev/faultline/bench/internal/twice"
	"github.com/faultline-dev/faultline/callgraph"
	"github.com/faultline-dev/faultline/callgraph/golang"
	"github.com/faultline-dev/faultline/corrupt"
	"github.com/faultline-dev/faultline/internal/fstree"
	"github.com/faultline-dev/faultline/sandbox"
	"github.com/faultline-dev/faultline/task"
)

const pythonExe = "/usr/bin/python3"

func write(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, s := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// check compares a validation with the tests run alone on the corrupted tree (bad) and on
// the clean one (good), over the tests in ids (all of them in bad and good). strict
// requires FAIL_TO_PASS to be exactly the tests that fail alone — possible only when
// the runner gave every test a verdict.
func check(t *testing.T, v *corrupt.Validation, ids []string, bad, good map[string]alone.Verdict) {
	t.Helper()
	f2p, p2p, notRun := set(v.FailToPass), set(v.PassToPass), set(v.NotRun)
	for i, id := range v.NotRun {
		if f2p[id] || p2p[id] {
			t.Errorf("%s has no verdict, yet it is in FAIL_TO_PASS or PASS_TO_PASS", id)
		}
		if i >= len(v.NotRunWhy) || strings.TrimSpace(v.NotRunWhy[i]) == "" || strings.Contains(v.NotRunWhy[i], "\n") {
			t.Errorf("%s has no verdict and no one-line reason beside it (%d reasons for %d tests)", id, len(v.NotRunWhy), len(v.NotRun))
		}
	}
	for _, id := range ids {
		switch {
		case f2p[id] && bad[id] != task.Fail:
			t.Errorf("%s is FAIL_TO_PASS but passes when run alone on the corrupted tree", id)
		case f2p[id] && good[id] != task.Pass:
			t.Errorf("%s is FAIL_TO_PASS but does not pass alone with the gold patch", id)
		case p2p[id] && bad[id] != task.Pass:
			t.Errorf("%s is PASS_TO_PASS but fails when run alone on the corrupted tree", id)
		case bad[id] == task.Fail && !f2p[id] && !notRun[id] && v.State == task.RunOK:
			t.Errorf("%s fails alone on the corrupted tree but is neither FAIL_TO_PASS nor without a verdict", id)
		}
	}
	var failAlone []string
	for _, id := range ids {
		if bad[id] == task.Fail {
			failAlone = append(failAlone, id)
		}
	}
	if len(v.NotRun) == 0 && v.State == task.RunOK && !slices.Equal(v.FailToPass, failAlone) {
		t.Errorf("every test has a verdict, yet FAIL_TO_PASS %v differs from the tests that fail alone %v", v.FailToPass, failAlone)
	}
	t.Logf("run %s: FAIL_TO_PASS %d, PASS_TO_PASS %d, without a verdict %d; %d of %d checked tests fail alone", v.State, len(v.FailToPass), len(v.PassToPass), len(v.NotRun), len(failAlone), len(ids))
}

func set(ids []string) map[string]bool {
	m := map[string]bool{}
	for _, id := range ids {
		m[id] = true
	}
	return m
}

// TestGoFirstTestPanics: REMOVE of Parse makes MustParse return nil, so the first test
// dereferences nil and panics, taking the test binary down.
func TestGoFirstTestPanics(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH")
	}
	root := t.TempDir()
	lib := `package cfg

import (
	"errors"
	"strconv"
	"strings"
)

// Config is a parsed "name:size".
type Config struct {
	Name string
	Size int
}

// Parse reads "name:size".
func Parse(s string) (*Config, error) {
	name, size, ok := strings.Cut(s, ":")
	if !ok || name == "" {
		return nil, errors.New("cfg: want name:size")
	}
	n, err := strconv.Atoi(size)
	if err != nil {
		return nil, err
	}
	return &Config{Name: name, Size: n}, nil
}

// MustParse is Parse that panics on an error.
func MustParse(s string) *Config {
	c, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return c
}

// Double returns twice the size.
func (c *Config) Double() int { return 2 * c.Size }

// Sum adds the numbers.
func Sum(xs ...int) int {
	t := 0
	for _, x := range xs {
		t += x
	}
	return t
}
`
	tests := `package cfg

import "testing"

func TestMustParse(t *testing.T) {
	if c := MustParse("a:1"); c.Name != "a" {
		t.Fatal(c)
	}
}

func TestSum(t *testing.T) {
	if Sum(1, 2, 3) != 6 {
		t.Fatal("sum")
	}
}

func TestParse(t *testing.T) {
	c, err := Parse("b:2")
	if err != nil || c == nil || c.Size != 2 {
		t.Fatalf("Parse = %v, %v", c, err)
	}
}

func TestTable(t *testing.T) {
	for _, tc := range []struct{ in string; bad bool }{{"x:1", false}, {"nocolon", true}, {":3", true}} {
		t.Run(tc.in, func(t *testing.T) {
			_, err := Parse(tc.in)
			if (err != nil) != tc.bad {
				t.Errorf("Parse(%q): err %v", tc.in, err)
			}
		})
	}
}

func TestDouble(t *testing.T) {
	if MustParse("d:4").Double() != 8 {
		t.Fatal("double")
	}
}

func TestSumEmpty(t *testing.T) {
	if Sum() != 0 {
		t.Fatal("empty")
	}
}
`
	write(t, root, map[string]string{"go.mod": "module example.com/cfg\n\ngo 1.22\n", "cfg.go": lib, "cfg_test.go": tests})
	src := []byte(lib)
	a, err := golang.New(golang.Options{}).Analyze(context.Background(), []callgraph.SourceFile{{Path: "cfg.go", Src: src}})
	if err != nil {
		t.Fatal(err)
	}
	var fn task.Function
	for _, d := range a.Definitions {
		if d.Name == "Parse" {
			fn = d.Function
		}
	}
	stub, err := corrupt.Stub("go", src, fn)
	if err != nil {
		t.Fatal(err)
	}
	// The checker prunes the imports the stub no longer uses, as Generate does.
	checker, err := corrupt.NewGoChecker(root)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := checker.Accept(&stub, src); err != nil || !ok {
		t.Fatalf("the stub does not compile: %v", err)
	}
	over := task.Overlay{}
	over.Set("cfg.go", stub.Apply(src))
	v := validateAgainstAlone(t, root, task.GoTest, over, nil)
	// The runner re-runs what the panic left without a verdict: every test gets its own,
	// and FAIL_TO_PASS is exactly what fails alone (check).
	if v.State != task.RunOK || len(v.NotRun) > 0 || !slices.Contains(v.FailToPass, "example.com/cfg.TestMustParse") || len(v.FailToPass) < 3 {
		t.Errorf("run %s, FAIL_TO_PASS %v, without a verdict %v", v.State, v.FailToPass, v.NotRun)
	}
}

// validateAgainstAlone validates the corruption over of root with the local runner and
// checks it against every baseline-passing test run alone.
func validateAgainstAlone(t *testing.T, root string, kind task.TestKind, over task.Overlay, env []string) *corrupt.Validation {
	t.Helper()
	ctx := context.Background()
	r := sandbox.NewLocal(sandbox.Options{Python: pythonExe, Env: env})
	defer r.Close()
	req := task.RunRequest{Root: root, Kind: kind}
	b, err := sandbox.Baseline(ctx, r, req, 1)
	if err != nil {
		t.Fatalf("baseline: %v", err)
	}
	req.Overlay = over
	v, err := corrupt.Validate(ctx, r, req, corrupt.Baseline{Passing: b.Passing}, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	ids := append([]string(nil), b.Passing...)
	sort.Strings(ids)
	badTree, err := alone.Tree(t.TempDir(), root, over)
	if err != nil {
		t.Fatal(err)
	}
	var bad, good map[string]alone.Verdict
	if kind == task.GoTest {
		if bad, err = alone.Go(ctx, badTree, ids, env); err == nil {
			good, err = alone.Go(ctx, root, ids, env)
		}
	} else {
		if bad, err = alone.Pytest(ctx, badTree, pythonExe, ids); err == nil {
			good, err = alone.Pytest(ctx, root, pythonExe, ids)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	check(t, v, ids, bad, good)
	return v
}

func needPytest(t *testing.T) {
	t.Helper()
	if err := exec.Command(pythonExe, "-c", "import pytest").Run(); err != nil {
		t.Skip("Debian's /usr/bin/python3 cannot import pytest; apt-get install python3-pytest")
	}
}

// TestPytestInterpreterDies: the corrupted function kills the interpreter (os._exit) in
// the first test; the tests after it did not run in that process and must not become
// failures.
func TestPytestInterpreterDies(t *testing.T) {
	needPytest(t)
	root := t.TempDir()
	lib := "import os\n\n\ndef parse(s):\n    name, _, size = s.partition(\":\")\n    if not name:\n        raise ValueError(s)\n    return name, int(size)\n\n\ndef total(xs):\n    return sum(xs)\n"
	write(t, root, map[string]string{
		"pkg/__init__.py": lib,
		"tests/test_a.py": "from pkg import parse, total\n\n\ndef test_first():\n    assert parse(\"a:1\") == (\"a\", 1)\n\n\ndef test_total():\n    assert total([1, 2]) == 3\n\n\ndef test_parse_again():\n    assert parse(\"b:2\")[1] == 2\n\n\ndef test_bad():\n    try:\n        parse(\":1\")\n    except ValueError:\n        return\n    raise AssertionError(\"no error\")\n",
	})
	bad := strings.Replace(lib, "    if not name:\n", "    if name == \"a\":\n        os._exit(3)\n    if not name:\n", 1)
	bad = strings.Replace(bad, "return name, int(size)", "return name, int(size) + 1", 1)
	over := task.Overlay{}
	over.Set("pkg/__init__.py", []byte(bad))
	v := validateAgainstAlone(t, root, task.Pytest, over, nil)
	// The runner re-runs what the crash left without a verdict; the dying test itself is a
	// failure (its process died), the others have their own verdicts.
	if v.State != task.RunOK || len(v.NotRun) > 0 || !slices.Contains(v.FailToPass, "tests/test_a.py::test_first") {
		t.Errorf("run %s, FAIL_TO_PASS %v, without a verdict %v", v.State, v.FailToPass, v.NotRun)
	}
}

// TestPytestCollectionBreaks: the corrupted function runs when a test module is imported,
// so that module fails to collect; the other module's tests did not run in that session
// and must not become failures.
func TestPytestCollectionBreaks(t *testing.T) {
	needPytest(t)
	root := t.TempDir()
	lib := "def build(n):\n    table = {}\n    for i in range(n):\n        table[i] = i * i\n    return table\n\n\ndef square(i):\n    return i * i\n"
	write(t, root, map[string]string{
		"pkg/__init__.py": lib,
		"pkg/table.py":    "from pkg import build\n\nTABLE = build(4)\n",
		"tests/test_a.py": "from pkg import square\n\n\ndef test_square():\n    assert square(3) == 9\n\n\ndef test_zero():\n    assert square(0) == 0\n",
		"tests/test_b.py": "from pkg.table import TABLE\n\n\ndef test_table():\n    assert TABLE[2] == 4\n",
	})
	bad := strings.Replace(lib, "    table = {}\n", "    table = {}\n    raise RuntimeError(n)\n", 1)
	over := task.Overlay{}
	over.Set("pkg/__init__.py", []byte(bad))
	v := validateAgainstAlone(t, root, task.Pytest, over, nil)
	if slices.Contains(v.FailToPass, "tests/test_a.py::test_square") || slices.Contains(v.FailToPass, "tests/test_a.py::test_zero") {
		t.Errorf("tests unaffected by the corruption are FAIL_TO_PASS: %v", v.FailToPass)
	}
}

// Module is a Go module from the module proxy used by TestRealModules.
type Module struct {
	Path, Version string
	Tuned         bool // used while building the check; the others were held out
}

// RealModules are the modules TestRealModules samples: table-driven suites and
// MustParse-style helpers that panic. `go mod download` each Path@Version.
var RealModules = []Module{
	{"github.com/google/uuid", "v1.6.0", true},
	{"github.com/hashicorp/go-version", "v1.9.0", true},
	{"github.com/Masterminds/semver/v3", "v3.5.0", false},
	{"github.com/dustin/go-humanize", "v1.0.1", false},
	// Held out in the audit of issue 12 (session 9): a table-driven suite whose subtests
	// call MustCompile, and a table-driven suite of small functions.
	{"github.com/gobwas/glob", "v1.1.0", false},
	{"github.com/iancoleman/strcase", "v0.3.0", false},
}

// TestRealModules generates REMOVE and DISCOVERY tasks (seeded) on each module of
// RealModules and checks every task's FAIL_TO_PASS, and a sample of its PASS_TO_PASS,
// against the tests run alone.
func TestRealModules(t *testing.T) {
	twice.Skip(t)
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Skipf("go env GOMODCACHE: %v", err)
	}
	cache := strings.TrimSpace(string(out))
	for _, m := range RealModules {
		t.Run(m.Path, func(t *testing.T) {
			src := filepath.Join(cache, escapeModule(m.Path)+"@"+m.Version)
			if _, err := os.Stat(src); err != nil {
				t.Skipf("%s@%s is not in the module cache: go mod download %[1]s@%[2]s", m.Path, m.Version)
			}
			root := filepath.Join(t.TempDir(), "m")
			if err := fstree.CopySubject(src, root); err != nil {
				t.Fatal(err)
			}
			realModule(t, root)
		})
	}
}

// escapeModule is the module cache's case encoding (upper case → "!" + lower case).
func escapeModule(p string) string {
	var b strings.Builder
	for _, r := range p {
		if r >= 'A' && r <= 'Z' {
			b.WriteByte('!')
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// goGraph builds the Go call graph of root without its tests, and its centralities.
func goGraph(t *testing.T, root string) (*callgraph.Graph, *callgraph.Centrality) {
	t.Helper()
	ctx := context.Background()
	g, err := callgraph.Build(ctx, root, []callgraph.Language{golang.New(golang.Options{})}, callgraph.BuildOptions{SkipTests: true})
	if err != nil {
		t.Fatal(err)
	}
	c, err := g.Centrality(ctx, callgraph.CentralityOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return g, c
}

func realModule(t *testing.T, root string) {
	ctx := context.Background()
	env := []string{"GOFLAGS=-mod=mod", "GOPROXY=off"}
	g, c := goGraph(t, root)
	r := sandbox.NewLocal(sandbox.Options{Env: env})
	defer r.Close()
	cached := sandbox.NewCache(r, sandbox.CacheOptions{})
	req := task.RunRequest{Root: root, Kind: task.GoTest}
	b, err := sandbox.Baseline(ctx, cached, req, 2)
	if err != nil {
		t.Fatalf("baseline: %v", err)
	}
	base := corrupt.Baseline{Passing: b.Passing, Failing: b.Failing, Flaky: b.Flaky}
	good, err := alone.Go(ctx, root, base.Passing, env)
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []corrupt.Mode{corrupt.Remove, corrupt.Discovery} {
		res, err := corrupt.Generate(ctx, root, g, c, cached, base, corrupt.Options{Mode: mode, N: 3, Seed: 11, Run: req, Jobs: 2, MinFailures: 1})
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		for _, x := range res {
			t.Run(fmt.Sprintf("%s/%d", mode, x.Index), func(t *testing.T) {
				checkResult(t, root, x, sample(x.Validation, 20), good, env)
			})
		}
	}
}

// checkResult runs the tests ids alone on the tree corrupted by x (Go, with env) and checks
// x's validation against them and against good, their verdicts alone on the clean tree.
func checkResult(t *testing.T, root string, x corrupt.Result, ids []string, good map[string]alone.Verdict, env []string) {
	t.Helper()
	tree, err := alone.Tree(t.TempDir(), root, x.Overlay)
	if err != nil {
		t.Fatal(err)
	}
	bad, err := alone.Go(context.Background(), tree, ids, env)
	if err != nil {
		t.Fatal(err)
	}
	check(t, x.Validation, ids, bad, good)
}

// sample returns every FAIL_TO_PASS and up to n PASS_TO_PASS and without-verdict tests
// (evenly spaced), sorted.
func sample(v *corrupt.Validation, n int) []string {
	ids := append([]string(nil), v.FailToPass...)
	for _, list := range [][]string{v.PassToPass, v.NotRun} {
		step := max(1, len(list)/n)
		for i := 0; i < len(list); i += step {
			ids = append(ids, list[i])
		}
	}
	sort.Strings(ids)
	return slices.Compact(ids)
}

// TestGoLeakedState: REMOVE of Reset leaves a counter that the tests share, so in one run
// every test after the first fails, yet each passes alone. Those tests are not
// FAIL_TO_PASS (a harness that runs a subset would see them pass before the fix): Generate
// runs each failing test alone, keeps in FAIL_TO_PASS only those that fail alone too, and
// rejects Reset's corruption, whose failures are all of that kind. The corruptions it
// keeps are checked against every test run alone.
func TestGoLeakedState(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH")
	}
	root := t.TempDir()
	lib := `package counter

var n int

// Reset sets the counter back to zero.
func Reset() {
	n = 0
}

// Next counts one more.
func Next() int {
	n++
	return n
}

// Double doubles x.
func Double(x int) int {
	return 2 * x
}
`
	tests := "package counter\n\nimport \"testing\"\n\n"
	for _, name := range []string{"A", "B", "C", "D", "E", "F"} {
		tests += "func TestFresh" + name + "(t *testing.T) {\n\tReset()\n\tif got := Next(); got != 1 {\n\t\tt.Fatalf(\"Next() = %d after Reset, want 1\", got)\n\t}\n}\n\n"
	}
	for _, name := range []string{"A", "B"} {
		tests += "func TestDouble" + name + "(t *testing.T) {\n\tif Double(3) != 6 {\n\t\tt.Fatal(\"Double(3) != 6\")\n\t}\n}\n\n"
	}
	write(t, root, map[string]string{"go.mod": "module example.com/counter\n\ngo 1.22\n", "counter.go": lib, "counter_test.go": tests})
	ctx := context.Background()
	g, c := goGraph(t, root)
	r := sandbox.NewLocal(sandbox.Options{})
	defer r.Close()
	req := task.RunRequest{Root: root, Kind: task.GoTest}
	b, err := sandbox.Baseline(ctx, r, req, 1)
	if err != nil {
		t.Fatalf("baseline: %v", err)
	}
	reasons := map[string]string{}
	res, err := corrupt.Generate(ctx, root, g, c, r, corrupt.Baseline{Passing: b.Passing}, corrupt.Options{
		Mode: corrupt.Remove, N: 3, Seed: 1, Run: req, Jobs: 1, MinFailures: 1,
		// The functions are one line long and called only by tests: keep them all.
		Select:   corrupt.SelectOptions{MinCodeLines: 1, MinDegree: -1},
		Progress: func(p corrupt.Progress) { reasons[strings.Join(p.Functions, ",")] = p.Reason },
	})
	if err != nil && len(res) == 0 {
		t.Fatal(err)
	}
	var resetWhy string
	for fn, why := range reasons {
		if strings.HasSuffix(fn, "Reset") {
			resetWhy = why
		}
	}
	if !strings.Contains(resetWhy, "0 test(s) fail alone") || !strings.Contains(resetWhy, "5 fail only when run with others") {
		t.Errorf("Reset's corruption: reason %q, want it rejected because its 5 failures pass alone (all reasons: %v)", resetWhy, reasons)
	}
	ids := append([]string(nil), b.Passing...)
	sort.Strings(ids)
	good, err := alone.Go(ctx, root, ids, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) == 0 {
		t.Fatal("no corruption kept: Next's and Double's fail alone")
	}
	for _, x := range res {
		checkResult(t, root, x, ids, good, nil)
		if len(x.Validation.OnlyWithOthers) > 0 {
			t.Errorf("%s: tests that fail only with others %v in a kept task whose failures all fail alone", x.Functions[0].Name, x.Validation.OnlyWithOthers)
		}
	}
}
