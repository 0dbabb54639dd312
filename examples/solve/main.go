// Command solve runs a solver on Breakpoint tasks and scores it (spec/breakpoint.md
// §Solver interaction, §Scoring). It reads task.BreakpointProblem records (JSONL, as written
// by examples/breakpoint), builds the agent environment of each task over the repository —
// the tools, the budgets — and lets either a model (chat completions with function calling;
// the endpoint comes from FAULTLINE_LLM_BASE_URL, FAULTLINE_LLM_API_KEY and
// FAULTLINE_LLM_MODEL) or the gold solver (-gold: the task's gold patch, applied through the
// same tools; an upper bound and a check that every task can be solved) work on it.
//
//	go run ./examples/solve -repo DIR -tasks tasks.jsonl [-tools 16 -attempts 4] [-gold]
//	    [-lang auto|go|python] [-out results.jsonl] [-trajectories FILE] [-timeout 1m]
//
// It writes one JSON line per task to -out (- for stdout):
//
//	{"id", "mode", "solver", "success", "partial", "best", "diagnosed", "hacked",
//	 "tool_uses", "attempts", "turns", "total_tokens", "stop", "error"}
//
// then a last line {"summary": {"tasks", "success_rate", "mean_partial", "mean_best",
// "diagnosis_rate", "hacked", "errors"}}. A task whose run failed (an endpoint error, say)
// keeps its line, with "error" set, and counts as unsolved; the exit status is then 1.
//
// Tests run with the local sandbox runner on private copies (no Docker); the repository is
// only read. Progress goes to stderr.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/faultline-dev/faultline/callgraph"
	"github.com/faultline-dev/faultline/callgraph/golang"
	"github.com/faultline-dev/faultline/callgraph/python"
	"github.com/faultline-dev/faultline/corrupt"
	"github.com/faultline-dev/faultline/sandbox"
	"github.com/faultline-dev/faultline/task"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

type config struct {
	repo, tasks, lang, out, trajectories string
	tools, attempts, maxTurns            int
	temperature                          float64
	gold                                 bool
	timeout                              time.Duration
}

// Result is the output line of one task.
type Result struct {
	ID          string  `json:"id"`
	Mode        string  `json:"mode"`
	Solver      string  `json:"solver"`
	Success     bool    `json:"success"`
	Partial     float64 `json:"partial"`
	Best        float64 `json:"best"`
	Diagnosed   bool    `json:"diagnosed"`
	Hacked      bool    `json:"hacked"`
	ToolUses    int     `json:"tool_uses"`
	Attempts    int     `json:"attempts"`
	Turns       int     `json:"turns"`
	TotalTokens int     `json:"total_tokens"`
	Stop        string  `json:"stop,omitempty"`
	Error       string  `json:"error,omitempty"`
}

// Summary aggregates the results: rates over all tasks, errored ones counting as unsolved.
type Summary struct {
	Tasks         int     `json:"tasks"`
	SuccessRate   float64 `json:"success_rate"`
	MeanPartial   float64 `json:"mean_partial"`
	MeanBest      float64 `json:"mean_best"`
	DiagnosisRate float64 `json:"diagnosis_rate"`
	Hacked        int     `json:"hacked"`
	Errors        int     `json:"errors"`
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("solve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c config
	fs.StringVar(&c.repo, "repo", "", "the clean repository `DIR` the tasks were made from (required; never modified)")
	fs.StringVar(&c.tasks, "tasks", "", "task records `FILE` (JSONL of Breakpoint problems; required, - for stdin)")
	fs.IntVar(&c.tools, "tools", 16, "tool-use budget per task")
	fs.IntVar(&c.attempts, "attempts", 4, "submission budget per task")
	fs.BoolVar(&c.gold, "gold", false, "use the gold solver (the tasks' gold patches) instead of a model")
	fs.StringVar(&c.lang, "lang", "auto", "language: auto, go or python")
	fs.StringVar(&c.out, "out", "results.jsonl", "output `FILE` (- for stdout)")
	fs.StringVar(&c.trajectories, "trajectories", "", "also write each full trajectory (transcript, tool calls, score) as JSONL to `FILE`")
	fs.DurationVar(&c.timeout, "timeout", time.Minute, "time limit of one test run")
	fs.IntVar(&c.maxTurns, "max-turns", 0, "model responses per task (0: twice the tool budget plus 4)")
	fs.Float64Var(&c.temperature, "temperature", -1, "sampling temperature sent to the model (negative: the endpoint's default)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if c.repo == "" || c.tasks == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "solve: -repo DIR and -tasks FILE are required (and no positional arguments)")
		fs.Usage()
		return 2
	}
	if c.tools <= 0 || c.attempts <= 0 || c.attempts > c.tools {
		fmt.Fprintf(stderr, "solve: budgets need 0 < -attempts ≤ -tools (got %d and %d)\n", c.attempts, c.tools)
		return 2
	}
	failed, err := solveAll(ctx, c, stdout, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "solve:", err)
		return 1
	}
	if failed > 0 {
		return 1
	}
	return 0
}

// solveAll runs every task and returns how many ended with an error.
func solveAll(ctx context.Context, c config, stdout, stderr io.Writer) (int, error) {
	root, err := filepath.Abs(c.repo)
	if err != nil {
		return 0, err
	}
	if st, err := os.Stat(root); err != nil || !st.IsDir() {
		return 0, fmt.Errorf("%s is not a directory", c.repo)
	}
	lang, err := detectLanguage(root, c.lang)
	if err != nil {
		return 0, err
	}
	problems, err := readProblems(c.tasks)
	if err != nil {
		return 0, err
	}
	var agent corrupt.Agent = corrupt.GoldSolver{}
	if !c.gold {
		ep, err := corrupt.EndpointFromEnv()
		if err != nil {
			return 0, fmt.Errorf("%w (or pass -gold)", err)
		}
		s := &corrupt.Solver{Endpoint: ep, MaxTurns: c.maxTurns}
		if c.temperature >= 0 {
			s.Temperature = &c.temperature
		}
		agent = s
	}

	front, kind := callgraph.Language(golang.New(golang.Options{})), task.GoTest
	if lang == "python" {
		front, kind = python.New(python.Options{}), task.Pytest
	}
	runner := sandbox.NewLocal(sandbox.Options{Limits: task.Limits{Timeout: c.timeout}})
	defer runner.Close()
	// The cache serves repeated submissions of the same code (common for the gold solver
	// and for models that resubmit) without running the tests again.
	cached := sandbox.NewCache(runner, sandbox.CacheOptions{})
	opts := corrupt.EnvOptions{MaxToolUses: c.tools, MaxAttempts: c.attempts, Langs: []callgraph.Language{front}, Run: task.RunRequest{Kind: kind}}

	out, closeOut, err := create(c.out, stdout)
	if err != nil {
		return 0, err
	}
	defer closeOut()
	var trajOut io.Writer
	if c.trajectories != "" {
		w, closeTraj, err := create(c.trajectories, stdout)
		if err != nil {
			return 0, err
		}
		defer closeTraj()
		trajOut = w
	}

	var results []Result
	for i, p := range problems {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		res, tr := solveOne(ctx, root, p, agent, cached, opts)
		results = append(results, res)
		verdict := "solved"
		switch {
		case res.Error != "":
			verdict = "error: " + res.Error
		case res.Hacked:
			verdict = "hacked (tests pass, corrupted function untouched)"
		case !res.Success:
			verdict = fmt.Sprintf("unsolved (best partial %.2f)", res.Best)
		}
		fmt.Fprintf(stderr, "[%d/%d] %s: %s after %d tool uses, %d submissions\n", i+1, len(problems), p.ID, verdict, res.ToolUses, res.Attempts)
		if err := writeLine(out, res); err != nil {
			return 0, err
		}
		if trajOut != nil && tr != nil {
			if err := writeLine(trajOut, tr); err != nil {
				return 0, err
			}
		}
	}
	sum := summarize(results)
	if err := writeLine(out, struct {
		Summary Summary `json:"summary"`
	}{sum}); err != nil {
		return 0, err
	}
	if err := closeOut(); err != nil {
		return 0, err
	}
	fmt.Fprintf(stderr, "solve: %d task(s): success rate %.3f, mean partial %.3f, diagnosis rate %.3f, %d hacked, %d error(s)\n",
		sum.Tasks, sum.SuccessRate, sum.MeanPartial, sum.DiagnosisRate, sum.Hacked, sum.Errors)
	return sum.Errors, nil
}

// solveOne runs one task; its failures are reported in the result, not returned.
func solveOne(ctx context.Context, root string, p task.BreakpointProblem, agent corrupt.Agent, r task.Runner, opts corrupt.EnvOptions) (Result, *corrupt.Trajectory) {
	res := Result{ID: p.ID, Mode: p.Mode}
	env, err := corrupt.NewEnv(root, p, r, opts)
	if err != nil {
		res.Error = err.Error()
		return res, nil
	}
	tr, err := agent.Solve(ctx, env, p)
	if err != nil {
		res.Error = err.Error()
	}
	if tr == nil {
		return res, nil
	}
	s := tr.Score
	res.Solver, res.Stop, res.Turns, res.TotalTokens = tr.Solver, tr.Stop, tr.Turns, tr.Usage.TotalTokens
	res.Success, res.Partial, res.Best, res.Diagnosed, res.Hacked = s.Success, s.Partial, s.Best, s.Diagnosed, s.Hacked
	res.ToolUses, res.Attempts = s.ToolUses, len(s.Attempts)
	return res, tr
}

func summarize(rs []Result) Summary {
	s := Summary{Tasks: len(rs)}
	if len(rs) == 0 {
		return s
	}
	var success, diagnosed int
	for _, r := range rs {
		if r.Success {
			success++
		}
		if r.Diagnosed {
			diagnosed++
		}
		if r.Hacked {
			s.Hacked++
		}
		if r.Error != "" {
			s.Errors++
		}
		s.MeanPartial += r.Partial
		s.MeanBest += r.Best
	}
	n := float64(len(rs))
	s.SuccessRate, s.DiagnosisRate = float64(success)/n, float64(diagnosed)/n
	s.MeanPartial /= n
	s.MeanBest /= n
	return s
}

func readProblems(path string) ([]task.BreakpointProblem, error) {
	var r io.Reader = os.Stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	ps, err := task.ReadAllJSONL[task.BreakpointProblem](r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(ps) == 0 {
		return nil, fmt.Errorf("%s holds no task", path)
	}
	return ps, nil
}

// create opens an output file ("-" is stdout). The returned close is safe to call twice.
func create(path string, stdout io.Writer) (io.Writer, func() error, error) {
	if path == "-" {
		return stdout, func() error { return nil }, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, nil, err
	}
	closed := false
	return f, func() error {
		if closed {
			return nil
		}
		closed = true
		return f.Close()
	}, nil
}

func writeLine(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// detectLanguage picks the repository's language: Go when it has a go.mod, Python when it
// has .py files.
func detectLanguage(root, flagValue string) (string, error) {
	switch flagValue {
	case "go", "python":
		return flagValue, nil
	case "auto":
	default:
		return "", fmt.Errorf("unknown -lang %q (want auto, go or python)", flagValue)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
		return "go", nil
	}
	found := errors.New("found")
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() && p != root && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".py") {
			return found
		}
		return nil
	})
	if errors.Is(err, found) {
		return "python", nil
	}
	return "", fmt.Errorf("%s has neither a go.mod nor Python files; pass -lang", root)
}
