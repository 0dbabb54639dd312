// Command outside uses faultline as a program outside its module would: it sets a
// language model on every component that takes one — the LLM corruption loop and the
// solver (corrupt), the classifier (extract), the docstring writer (extract/artifact) and
// the bug source (compose) — and asks each one thing. The model is task/llm's OpenAI,
// configured by llm.FromEnv; each component gets a copy naming its own model, so the
// endpoint (the test's fake server) can tell the components apart. It prints one line per
// component with what the component made of the answer, and exits 1 on the first error.
package main

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"

	"github.com/faultline-dev/faultline/callgraph"
	"github.com/faultline-dev/faultline/callgraph/python"
	"github.com/faultline-dev/faultline/compose"
	"github.com/faultline-dev/faultline/corrupt"
	"github.com/faultline-dev/faultline/extract"
	"github.com/faultline-dev/faultline/extract/artifact"
	"github.com/faultline-dev/faultline/task"
	"github.com/faultline-dev/faultline/task/llm"
)

const program = "def add(a, b):\n    return a + b\n"

func main() {
	if err := run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "outside:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	base, err := llm.FromEnv()
	if err != nil {
		return err
	}
	model := func(name string) *llm.OpenAI {
		m := *base
		m.Model = name
		return &m
	}

	// A one-file Python repository.
	root, err := os.MkdirTemp("", "outside-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(root)
	if err := os.WriteFile(filepath.Join(root, "calc.py"), []byte(program), 0o644); err != nil {
		return err
	}
	front := python.New(python.Options{})
	a, err := front.Analyze(ctx, []callgraph.SourceFile{{Path: "calc.py", Src: []byte(program)}})
	if err != nil || len(a.Definitions) != 1 {
		return fmt.Errorf("analyze calc.py: %d definitions, %v", len(a.Definitions), err)
	}
	fn := a.Definitions[0].Function
	noRuns := task.RunnerFunc(func(context.Context, task.RunRequest) (*task.Report, error) {
		return nil, fmt.Errorf("no test runs in this program")
	})

	// corrupt.LLMCorruptor
	target, err := corrupt.NewTarget("calc.py", []byte(program), fn)
	if err != nil {
		return err
	}
	lc := &corrupt.LLMCorruptor{Model: model("corruptor")}
	cres, err := lc.Corrupt(ctx, corrupt.LLMRequest{Target: target, Lang: "python", Runner: noRuns,
		Run: task.RunRequest{Root: root, Kind: task.Pytest}})
	if err != nil {
		return fmt.Errorf("LLMCorruptor: %w", err)
	}
	fmt.Printf("corruptor: model=%s stop=%q\n", cres.Model, cres.Stop)

	// corrupt.Solver, on a REMOVE task of add.
	stub, err := corrupt.Stub("python", []byte(program), fn)
	if err != nil {
		return err
	}
	o := task.Overlay{}
	o.Set("calc.py", stub.Apply([]byte(program)))
	patch, err := task.DiffOverlay(root, o, task.DiffOptions{})
	if err != nil {
		return err
	}
	problem := task.BreakpointProblem{ID: "outside.remove.add", Mode: string(corrupt.Remove),
		CorruptionPatch: string(patch.Format()), GoldPatch: string(patch.Reverse().Format()),
		Functions:  []task.CorruptedFunction{{Path: "calc.py", Name: "add", Span: fn.Def, Line: fn.Line, EndLine: fn.EndLine}},
		FailToPass: task.TestList{"test_calc.py::test_add"}}
	env, err := corrupt.NewEnv(root, problem, noRuns, corrupt.EnvOptions{Langs: []callgraph.Language{front}, Run: task.RunRequest{Kind: task.Pytest}})
	if err != nil {
		return err
	}
	tr, err := (&corrupt.Solver{Model: model("solver")}).Solve(ctx, env, problem)
	if err != nil {
		return fmt.Errorf("Solver: %w", err)
	}
	fmt.Printf("solver: model=%s stop=%q turns=%d\n", tr.Solver, tr.Stop, tr.Turns)

	// extract.LLMClassifier
	ids, err := (&extract.LLMClassifier{Model: model("classifier")}).Classify(ctx, extract.ClassifyRequest{
		TestFile: "test_calc.py", TestSource: "from calc import add\n\ndef test_add():\n    assert add(1, 2) == 3\n",
		Candidates: []extract.Candidate{{ID: "calc.py::add::1", File: "calc.py", Name: "add", Depth: 1, Imported: true}}})
	if err != nil {
		return fmt.Errorf("LLMClassifier: %w", err)
	}
	fmt.Printf("classifier: %q\n", ids)

	// artifact.LLMDocstrings
	doc, err := (&artifact.LLMDocstrings{Model: model("docstrings")}).Docstring(ctx, artifact.Interface{
		File: "calc.py", Name: "add", Kind: task.KindFunction, Language: "python", ImportPath: "calc",
		Import: "from calc import add", Signature: "def add(a, b):", Source: program})
	if err != nil {
		return fmt.Errorf("LLMDocstrings: %w", err)
	}
	fmt.Printf("docstrings: %q\n", doc)

	// compose.LLM
	cands, err := compose.LLM{Model: model("compose")}.Candidates(ctx, compose.Request{
		Program: program, Lines: task.Lines(program), Marks: compose.MarkPython(program, 0), N: 1}, rand.New(rand.NewSource(1)))
	if err != nil {
		return fmt.Errorf("compose.LLM: %w", err)
	}
	for _, c := range cands {
		fmt.Printf("compose: %s %q\n", c.Source, c.Buggy)
	}
	return nil
}
