package corrupt

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/callgraph"
	"github.com/faultline-dev/faultline/callgraph/golang"
	"github.com/faultline-dev/faultline/callgraph/python"
	"github.com/faultline-dev/faultline/task"
)

// sampleProblem corrupts ledger/balance.go::Filter of the sample with a REMOVE stub.
func sampleProblem(t *testing.T, mode Mode, corrupt func(src []byte, fn task.Function) Mutant) (task.BreakpointProblem, string) {
	t.Helper()
	root, err := filepath.Abs("../examples/sample")
	if err != nil {
		t.Fatal(err)
	}
	src := readFile(t, filepath.Join(root, "ledger/balance.go"))
	var fn task.Function
	for _, f := range goFuncs(t, "ledger/balance.go", src) {
		if f.Name == "Filter" {
			fn = f
		}
	}
	m := corrupt(src, fn)
	o := task.Overlay{}
	o.Set("ledger/balance.go", m.Apply(src))
	p, err := task.DiffOverlay(root, o, task.DiffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return task.BreakpointProblem{ID: "sample.test", Mode: string(mode), CorruptionPatch: string(p.Format()), GoldPatch: string(p.Reverse().Format()),
		Functions:  []task.CorruptedFunction{{Path: "ledger/balance.go", Name: "Filter", Span: fn.Def, Line: fn.Line, EndLine: fn.EndLine}},
		FailToPass: task.TestList{"example.com/ledger/ledger.TestFilter", "example.com/ledger/ledger.TestFilter/all", "example.com/ledger/ledger.TestFilter/expenses"},
		PassToPass: task.TestList{"example.com/ledger/ledger.TestBalances", "example.com/ledger/ledger.TestParseAmount"}}, string(src[fn.Def.Start:fn.Def.End])
}

func newSampleEnv(t *testing.T, p task.BreakpointProblem, tools, attempts int) *Env {
	t.Helper()
	r, _, req := sampleRun(t)
	e, err := NewEnv(req.Root, p, r, EnvOptions{MaxToolUses: tools, MaxAttempts: attempts, Langs: []callgraph.Language{golang.New(golang.Options{})}, Run: task.RunRequest{Kind: task.GoTest}})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestEnvRemove(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the sample's tests")
	}
	ctx := context.Background()
	p, original := sampleProblem(t, Remove, func(src []byte, fn task.Function) Mutant {
		m, err := Stub("go", src, fn)
		if err != nil {
			t.Fatal(err)
		}
		return m
	})
	e := newSampleEnv(t, p, 8, 3)
	before := hashTree(t, "../examples/sample")

	if out, err := e.ListDirectory("."); err != nil || !strings.Contains(out, "ledger/") || !strings.Contains(out, "go.mod") {
		t.Errorf("list_directory(.) = %q, %v", out, err)
	}
	if out, err := e.SearchCode(`func Filter\(`); err != nil || !strings.HasPrefix(out, "ledger/balance.go:") {
		t.Errorf("search_code = %q, %v", out, err)
	}
	stub, err := e.ReadFunction("ledger/balance.go", "Filter")
	if err != nil || !strings.Contains(stub, "return *new([]Entry)") {
		t.Errorf("read_function shows %q, %v; want the stub", stub, err)
	}
	if out, err := e.ListFileFunctions("ledger/balance.go"); err != nil || !strings.Contains(out, "Filter") || !strings.Contains(out, "MonthlyTotals") {
		t.Errorf("list_file_functions = %q, %v", out, err)
	}
	if _, err := e.ReadFile("../etc/passwd"); !errors.Is(err, ErrToolArgs) {
		t.Errorf("read_file outside the repository: err = %v", err)
	}
	// A wrong implementation: some tests fail, partial score below 1.
	a, err := e.SubmitAttempt(ctx, "func Filter(entries []Entry, prefix string, from, to time.Time) []Entry {\n\treturn entries\n}")
	if err != nil || a.Passed || a.Failures == 0 || a.Partial >= 1 || !strings.Contains(a.Feedback, "FAILED") {
		t.Errorf("wrong attempt = %+v, %v", a, err)
	}
	// REMOVE restores the file after each attempt.
	if again, _ := e.ReadFunction("ledger/balance.go", "Filter"); again != stub {
		t.Error("the working copy kept the attempt")
	}
	// The original body passes.
	a, err = e.SubmitAttempt(ctx, original)
	if err != nil || !a.Passed || a.Partial != 1 {
		t.Fatalf("correct attempt = %+v, %v", a, err)
	}
	s := e.Score()
	// Eight calls, the failed read_file included: a call is a call.
	if !s.Success || s.Best != 1 || !s.Diagnosed || len(s.Attempts) != 2 || s.ToolUses != 8 {
		t.Errorf("score = %+v", s)
	}
	if _, err := e.ReadFile("go.mod"); !errors.Is(err, ErrBudget) {
		t.Errorf("9th tool use: err = %v, want ErrBudget", err)
	}
	if tools := e.Tools(); len(tools) != 0 {
		t.Errorf("tools after the budget = %v", tools)
	}
	if _, err := e.SubmitAttempt(ctx, original); !errors.Is(err, ErrBudget) {
		t.Errorf("over budget: err = %v", err)
	}
	if !equalTrees(before, hashTree(t, "../examples/sample")) {
		t.Error("the repository was written")
	}
}

func equalTrees(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestEnvLastToolMustSubmit(t *testing.T) {
	p, _ := sampleProblem(t, Remove, func(src []byte, fn task.Function) Mutant {
		m, _ := Stub("go", src, fn)
		return m
	})
	e := newSampleEnv(t, p, 2, 1)
	if _, err := e.ListDirectory("ledger"); err != nil {
		t.Fatal(err)
	}
	tools := e.Tools()
	if len(tools) != 1 || tools[0].Name != ToolSubmitAttempt {
		t.Errorf("tools at the last use = %v, want only submit_attempt", tools)
	}
	if _, err := e.SearchCode("x"); !errors.Is(err, ErrBudget) {
		t.Errorf("non-submission at the last use: err = %v", err)
	}
	var schema map[string]any
	if err := json.Unmarshal(tools[0].Parameters, &schema); err != nil || schema["type"] != "object" {
		t.Errorf("schema = %s", tools[0].Parameters)
	}
}

func TestEnvDiscoveryAntiHack(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the sample's tests")
	}
	ctx := context.Background()
	// A "corruption" that changes nothing observable: the tests pass without touching it,
	// which must score as a failure (the solver did not modify the corrupted function).
	p, original := sampleProblem(t, Discovery, func(src []byte, fn task.Function) Mutant {
		at := fn.Body.Start + 1
		return Mutant{File: fn.File, Edits: []Edit{{Start: at, End: at, Text: "\n\t_ = 0"}}}
	})
	e := newSampleEnv(t, p, 10, 3)
	if _, err := e.ReplaceFunction("ledger/balance_test.go", "TestFilter", "func TestFilter(t *testing.T) {}"); !errors.Is(err, ErrToolArgs) {
		t.Errorf("replacing a test: err = %v", err)
	}
	a, err := e.Submit(ctx)
	if err != nil || !a.Passed {
		t.Fatalf("submit = %+v, %v", a, err)
	}
	if s := e.Score(); s.Success || !s.Hacked || s.Diagnosed {
		t.Errorf("unmodified corrupted function: score = %+v, want failure by the anti-hack rule", s)
	}
	// Restoring the function persists and passes.
	if _, err := e.ReplaceFunction("ledger/balance.go", "Filter", original); err != nil {
		t.Fatal(err)
	}
	if got, _ := e.ReadFunction("ledger/balance.go", "Filter"); got != original {
		t.Errorf("replace_function did not persist:\n%s", got)
	}
	a, err = e.Submit(ctx)
	if err != nil || !a.Passed {
		t.Fatalf("submit = %+v, %v", a, err)
	}
	if s := e.Score(); !s.Success || s.Hacked || !s.Diagnosed {
		t.Errorf("score = %+v", s)
	}
	if _, err := e.ReplaceFunction("ledger/balance.go", "Filter", "func Filter( {"); !errors.Is(err, ErrToolArgs) {
		t.Errorf("code that does not parse: err = %v", err)
	}
	if _, err := e.Call(ctx, "no_such_tool", nil); !errors.Is(err, ErrToolArgs) {
		t.Errorf("unknown tool: err = %v", err)
	}
}

// TestEnvPythonMethodRoundTrip replaces a method with the text read_function shows (first
// line unindented, the rest as in the file) and with the same code written from column 0:
// both must restore the file byte for byte.
func TestEnvPythonMethodRoundTrip(t *testing.T) {
	root := t.TempDir()
	orig := "class Box:\n    def get(self, k):\n        \"\"\"Return k.\n\n        Indented docstring line.\n        \"\"\"\n        if k < 0:\n            return None\n        return k\n"
	if err := os.WriteFile(filepath.Join(root, "box.py"), []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	corrupted := strings.Replace(orig, "k < 0", "k <= 0", 1)
	o := task.Overlay{}
	o.Set("box.py", []byte(corrupted))
	p, err := task.DiffOverlay(root, o, task.DiffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	prob := task.BreakpointProblem{ID: "box", Mode: string(Discovery), CorruptionPatch: string(p.Format()), GoldPatch: string(p.Reverse().Format()),
		Functions: []task.CorruptedFunction{{Path: "box.py", Name: "Box.get"}}, PassToPass: task.TestList{"t"}}
	never := task.RunnerFunc(func(context.Context, task.RunRequest) (*task.Report, error) { return nil, errors.New("runner down") })
	e, err := NewEnv(root, prob, never, EnvOptions{Langs: []callgraph.Language{python.New(python.Options{})}, Run: task.RunRequest{Kind: task.Pytest}})
	if err != nil {
		t.Fatal(err)
	}
	shown, err := e.ReadFunction("box.py", "Box.get")
	if err != nil || !strings.HasPrefix(shown, "def get(self, k):\n        ") {
		t.Fatalf("read_function = %q, %v", shown, err)
	}
	fixed := strings.Replace(shown, "k <= 0", "k < 0", 1)
	column0 := "def get(self, k):\n    \"\"\"Return k.\n\n    Indented docstring line.\n    \"\"\"\n    if k < 0:\n        return None\n    return k\n"
	for _, code := range []string{fixed, column0} {
		if _, err := e.ReplaceFunction("box.py", "Box.get", code); err != nil {
			t.Fatal(err)
		}
		if got := string(e.work["box.py"].Data); got != orig {
			t.Errorf("after replace_function:\n%s\nwant:\n%s", got, orig)
		}
	}
	// A runner failure is the environment's, not the solver's: no tool use is charged.
	before, _ := e.Remaining()
	if _, err := e.Submit(context.Background()); err == nil {
		t.Fatal("runner failure not reported")
	}
	if after, _ := e.Remaining(); after != before {
		t.Errorf("tool uses left %d → %d after a runner failure", before, after)
	}
}

// TestEnvRemoveGroup solves a two-function REMOVE task: one submission must define both.
func TestEnvRemoveGroup(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the sample's tests")
	}
	ctx := context.Background()
	r, base, req := sampleRun(t)
	g, c := sampleGraph(t)
	res, err := Generate(ctx, req.Root, g, c, r, base, Options{Mode: Remove, N: 1, Seed: 5, Run: req,
		Group: GroupOptions{K: 2, Distance: 3, Undirected: true}, Select: SelectOptions{MinCodeLines: 1},
		SkipAlone: true}) // the environment is tested here; TestConfirmAlone and TestGoLeakedState test the confirmation
	if err != nil {
		t.Fatal(err)
	}
	p := res[0].Problem("sample", "")
	e, err := NewEnv(req.Root, p, r, EnvOptions{Langs: []callgraph.Language{golang.New(golang.Options{})}, Run: task.RunRequest{Kind: task.GoTest}})
	if err != nil {
		t.Fatal(err)
	}
	tools := e.Tools()
	if d := tools[len(tools)-1].Description; !strings.Contains(d, p.Functions[0].Name) || !strings.Contains(d, p.Functions[1].Name) {
		t.Errorf("submit_attempt description names only some functions: %s", d)
	}
	tr, err := (GoldSolver{}).Solve(ctx, e, p)
	if err != nil {
		t.Fatal(err)
	}
	if !tr.Score.Success || tr.Score.ToolUses != 1 {
		t.Fatalf("gold solver on a 2-function REMOVE task: %+v", tr.Score)
	}
	e2, _ := NewEnv(req.Root, p, r, EnvOptions{Langs: []callgraph.Language{golang.New(golang.Options{})}, Run: task.RunRequest{Kind: task.GoTest}})
	var args struct{ Code string }
	json.Unmarshal([]byte(tr.Calls[0].Arguments), &args)
	// Only one of the two definitions: refused as an execution error naming what is missing.
	one := args.Code[:strings.Index(args.Code, "\n\nfunc ")]
	a, err := e2.SubmitAttempt(ctx, one)
	if err != nil || a.Passed || !strings.Contains(a.Feedback, "missing") {
		t.Errorf("a submission with one of two definitions: %+v, %v", a, err)
	}
}
