// Command solve runs a solver on Breakpoint tasks and scores it (docs/breakpoint.md, The
// solver's environment and Scoring). It reads task.BreakpointProblem records (JSONL, as
// written by examples/breakpoint), builds the agent environment of each task over the
// repository — the tools, the budgets — and lets either a model (chat completions with
// function calling; the endpoint comes from FAULTLINE_LLM_BASE_URL, FAULTLINE_LLM_API_KEY
// and FAULTLINE_LLM_MODEL) or the gold solver (-gold: the task's gold patch, applied
// through the same tools; an upper bound and a check that every task can be solved) work on
// it.
//
//	go run ./examples/solve -repo DIR -tasks tasks.jsonl [-tools 16 -attempts 4] [-gold]
//	    [-lang auto|go|python] [-out results.jsonl] [-trajectories FILE] [-timeout 1m]
//	    [-env KEY=VALUE]... [-python PATH]
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
// -repo is read as breakpoint reads it (task/repo.Discover, sandbox.Prepare, then
// sandbox.Check without the baseline runs): the project root chosen is printed on stderr, Go
// dependencies are made available before any run (offline, a missing module is named), a
// package directory is staged under its own name, so the task's paths and the tests' imports
// are those the tasks were made with, and a project whose tests do not collect or would
// import an installed copy is refused with examples/doctor's words. Every task must have
// been made from -repo's tree: before any test runs, each task's corruption patch is applied
// (in memory, exactly, as the agent environment applies it) to the prepared project, and a
// task whose patch does not apply refuses the run, exit 2, naming -tasks:line, the task and,
// when -repo is a git work tree at another commit than the task records, both commits.
// Tasks whose patches apply though they record another commit are named in a warning.
// Tests run with the local sandbox runner on private copies (no Docker); the repository is
// only read. It follows the convention of internal/cli: every flag and every task record
// is checked before any work (a bad flag, or a record that does not parse or validate,
// exits 2 naming the flag or file:line); progress (done/total, elapsed, time left) goes to
// stderr; stdout carries only JSONL when -out or -trajectories is "-"; the outputs are
// written whole at the end or not at all; it exits 130/143 when interrupted
// (SIGINT/SIGTERM), after stopping its runs and removing its private copies. Test output
// shown to the model is redacted for the secrets of the environment (the API key above
// all).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/faultline-dev/faultline/callgraph"
	"github.com/faultline-dev/faultline/callgraph/golang"
	"github.com/faultline-dev/faultline/callgraph/python"
	"github.com/faultline-dev/faultline/corrupt"
	"github.com/faultline-dev/faultline/internal/cli"
	"github.com/faultline-dev/faultline/sandbox"
	"github.com/faultline-dev/faultline/task"
	"github.com/faultline-dev/faultline/task/llm"
	"github.com/faultline-dev/faultline/task/repo"
)

func main() { os.Exit(cli.Main(run)) }

type config struct {
	root, tasks, lang, out, trajectories, python string
	tools, attempts, maxTurns                    int
	temperature                                  float64
	gold                                         bool
	env                                          cli.EnvFlag
	timeout                                      time.Duration
	problems                                     []task.BreakpointProblem
	lines                                        []int  // each problem's line in -tasks
	tasksName                                    string // -tasks as messages name it ("stdin" for -)
	repoFlag                                     string // -repo as given
	model                                        *llm.OpenAI
	project                                      *repo.Project
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

// parse reads and checks every flag and the task records before any work. It returns the
// exit status when the program must stop (-h: 0; a bad flag or input: 2), else -1.
func parse(args []string, stdin io.Reader, stderr io.Writer) (config, int) {
	fs := flag.NewFlagSet("solve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c config
	var dir string
	fs.StringVar(&dir, "repo", "", "the clean repository `DIR` the tasks were made from, as given to breakpoint (required; never modified)")
	fs.StringVar(&c.tasks, "tasks", "", "task records `FILE` (JSONL of Breakpoint problems; required, - for stdin)")
	fs.IntVar(&c.tools, "tools", 16, "tool-use budget per task (≥ 1)")
	fs.IntVar(&c.attempts, "attempts", 4, "submission budget per task (1 to -tools)")
	fs.BoolVar(&c.gold, "gold", false, "use the gold solver (the tasks' gold patches) instead of a model")
	fs.StringVar(&c.lang, "lang", "auto", "language: auto, go or python")
	fs.StringVar(&c.out, "out", "results.jsonl", "output `FILE` (- for stdout)")
	fs.StringVar(&c.trajectories, "trajectories", "", "also write each full trajectory (transcript, tool calls, score) as JSONL to `FILE` (- for stdout)")
	fs.DurationVar(&c.timeout, "timeout", time.Minute, "time limit (> 0) of one test run")
	fs.Var(&c.env, "env", "extra `KEY=VALUE` for the test runs (repeatable)")
	fs.StringVar(&c.python, "python", "", "Python interpreter with pytest (default: detected)")
	fs.IntVar(&c.maxTurns, "max-turns", 0, "model responses per task (0: twice the tool budget plus 4)")
	fs.Float64Var(&c.temperature, "temperature", -1, "sampling temperature sent to the model (negative: the endpoint's default)")
	if code := cli.Parse(fs, args, false); code >= 0 {
		return c, code
	}
	usage := func(format string, a ...any) (config, int) { return c, cli.Usage(stderr, "solve", format, a...) }
	root, err := cli.Repo(dir)
	if err != nil {
		return usage("%v", err)
	}
	c.root = root
	switch {
	case c.tasks == "":
		return usage("-tasks FILE is required (- for stdin)")
	case c.tools < 1:
		return usage("-tools %d: want at least 1", c.tools)
	case c.attempts < 1 || c.attempts > c.tools:
		return usage("-attempts %d: want 1 to -tools (%d)", c.attempts, c.tools)
	case c.maxTurns < 0:
		return usage("-max-turns %d: want 0 (the default) or more", c.maxTurns)
	case c.timeout <= 0:
		return usage("-timeout %v: want a positive duration", c.timeout)
	}
	if err := cli.CheckOutputs(root, cli.Output{Flag: "out", Path: c.out}, cli.Output{Flag: "trajectories", Path: c.trajectories, Optional: true}); err != nil {
		return usage("%v", err)
	}
	if err := cli.Python(c.python); err != nil {
		return usage("%v", err)
	}
	lang, err := repo.ParseLanguage(c.lang)
	if err != nil || lang == repo.JavaScript {
		return usage("-lang %q: want auto, go or python", c.lang)
	}
	// The same project Breakpoint found for this directory: the tasks' paths are relative to
	// its root (or to its staged package).
	if c.project, err = repo.Discover(root, lang); err != nil {
		return usage("-repo %s: %v", dir, sandbox.ProjectError(root, err))
	}
	if c.project.Lang != repo.Go && c.project.Lang != repo.Python {
		return usage("-repo %s: a %s project; solve runs Go and Python tests (pass -lang)", dir, c.project.Lang)
	}
	c.lang = string(c.project.Lang)
	if !c.gold {
		if c.model, err = llm.FromEnv(); err != nil {
			return usage("%v (or pass -gold)", err)
		}
	}
	c.repoFlag = dir
	if c.problems, c.lines, c.tasksName, err = readProblems(c.tasks, stdin); err != nil {
		return usage("%v", err)
	}
	return c, -1
}

// mismatchError is a task made from another tree than -repo's: a bad input, exit status 2.
type mismatchError struct{ error }

// checkTrees makes sure, before any test runs, that every task was made from the tree of
// -repo: its corruption patch must apply to the prepared project at root exactly (no fuzz,
// as the agent environment applies it), or the run is refused naming the file, line and
// task, and the commit the task records when -repo's git HEAD is another. Tasks whose patch
// applies though their recorded commit is not -repo's HEAD are named in the returned
// warning (their verdicts are those of -repo's tree).
func checkTrees(c config, root string) (warning string, err error) {
	head := cli.GitHead(c.project.Root)
	var others []string
	for i, p := range c.problems {
		moved := p.Commit != "" && head != "" && p.Commit != head
		patch, err := task.ParsePatch([]byte(p.CorruptionPatch))
		if err == nil {
			_, err = patch.Apply(task.DirReader(root))
		}
		if err != nil {
			msg := fmt.Sprintf("%s:%d: task %s: its corruption patch does not apply to -repo %s", c.tasksName, c.lines[i], p.ID, c.repoFlag)
			if moved {
				msg += fmt.Sprintf(" (the task was made at commit %s, -repo is at %s)", p.Commit, head)
			}
			return "", mismatchError{fmt.Errorf("%s: %w", msg, err)}
		}
		if moved {
			others = append(others, p.ID)
		}
	}
	if len(others) == 0 {
		return "", nil
	}
	return fmt.Sprintf("warning: %d of %d tasks record another commit than -repo's HEAD %s (their patches apply; they are scored on -repo's tree): %s",
		len(others), len(c.problems), head, strings.Join(others[:min(len(others), 5)], ", ")), nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c, code := parse(args, os.Stdin, stderr)
	if code >= 0 {
		return code
	}
	failed, err := solveAll(ctx, c, stdout, stderr)
	var mismatch mismatchError
	if errors.As(err, &mismatch) {
		fmt.Fprintf(stderr, "solve: %v\n", mismatch.error)
		return cli.ExitUsage
	}
	if code := cli.Fail(ctx, stderr, "solve", err); code != cli.ExitOK || failed == 0 {
		return code
	}
	return cli.ExitFailure // some tasks ended with an error (their lines say which)
}

// solveAll runs every task and returns how many ended with an error.
func solveAll(ctx context.Context, c config, stdout, stderr io.Writer) (int, error) {
	problems := c.problems
	var agent corrupt.Agent = corrupt.GoldSolver{}
	if !c.gold {
		s := &corrupt.Solver{Model: c.model, MaxTurns: c.maxTurns}
		if c.temperature >= 0 {
			s.Temperature = &c.temperature
		}
		agent = s
	}

	front := callgraph.Language(golang.New(golang.Options{}))
	if c.project.Lang == repo.Python {
		front = python.New(python.Options{})
	}
	prog := cli.NewProgress(stderr, "solve")
	// Intake as breakpoint does it: the same root, dependencies ready before any run, a
	// package directory staged under its own name.
	p := c.project
	prog.Printf("root %s (%s); target %s; %s", p.Root, p.Reason, p.Target, p.Lang)
	prep, err := sandbox.Prepare(ctx, p, sandbox.PrepareOptions{Python: c.python, Env: c.env})
	if err != nil {
		return 0, sandbox.ProjectError(p.Root, err)
	}
	defer prep.Close()
	root := prep.Root
	warning, err := checkTrees(c, root)
	if err != nil {
		return 0, err
	}
	if warning != "" {
		prog.Printf("%s", warning)
	}
	runner := sandbox.NewLocal(sandbox.Options{Env: append(append([]string(nil), prep.Env...), c.env...), Python: prep.Python, Limits: task.Limits{Timeout: c.timeout}})
	defer runner.Close()
	// The readiness check without the baseline runs (the tasks were validated when they were
	// made): the tests collect, and a package's tests import the copy, not an installed one.
	rd, err := sandbox.Check(ctx, runner, prep, sandbox.CheckOptions{NoBaseline: true, Limits: task.Limits{Timeout: c.timeout}})
	if err != nil {
		return 0, err
	}
	if !rd.Ready {
		return 0, rd.Err()
	}
	// The cache serves repeated submissions of the same code (common for the gold solver
	// and for models that resubmit) without running the tests again.
	cached := sandbox.NewCache(runner, sandbox.CacheOptions{})
	opts := corrupt.EnvOptions{MaxToolUses: c.tools, MaxAttempts: c.attempts, Langs: []callgraph.Language{front}, Run: prep.Request()}

	out, err := cli.Create(c.out, stdout)
	if err != nil {
		return 0, err
	}
	defer out.Abort()
	var traj *cli.File
	if c.trajectories != "" {
		if traj, err = cli.Create(c.trajectories, stdout); err != nil {
			return 0, err
		}
		defer traj.Abort()
	}

	stopBeat := prog.Beat(30 * time.Second)
	defer stopBeat()
	prog.Phase("solving", len(problems))
	var results []Result
	for i, p := range problems {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		res, tr := solveOne(ctx, root, p, agent, cached, opts)
		if err := ctx.Err(); err != nil {
			return 0, err // an interrupted task is not a result
		}
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
		prog.Step(i+1, fmt.Sprintf("%s: %s after %d tool uses, %d submissions", p.ID, verdict, res.ToolUses, res.Attempts))
		if err := writeLine(out, res); err != nil {
			return 0, err
		}
		if traj != nil && tr != nil {
			if err := writeLine(traj, tr); err != nil {
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
	if err := out.Commit(); err != nil {
		return 0, err
	}
	if traj != nil {
		if err := traj.Commit(); err != nil {
			return 0, err
		}
	}
	prog.Printf("%d task(s): success rate %.3f, mean partial %.3f, diagnosis rate %.3f, %d hacked, %d error(s)",
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

// readProblems reads and checks the task records of path ("-": stdin): a line that does
// not parse, or a record that is not a valid Breakpoint problem, is an error naming the
// file and line; so is a file without a record.
func readProblems(path string, stdin io.Reader) (ps []task.BreakpointProblem, lines []int, name string, err error) {
	r, name := stdin, "stdin"
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, nil, "", fmt.Errorf("-tasks: %w", err)
		}
		defer f.Close()
		r, name = f, path
	}
	err = task.ReadJSONL(r, func(line int, p task.BreakpointProblem) error {
		if err := p.Validate(); err != nil {
			return fmt.Errorf("%s:%d: %s: %w", name, line, p.ID, err)
		}
		ps = append(ps, p)
		lines = append(lines, line)
		return nil
	})
	if err != nil {
		if strings.HasPrefix(err.Error(), name+":") {
			return nil, nil, "", err
		}
		return nil, nil, "", fmt.Errorf("%s: %w", name, err)
	}
	if len(ps) == 0 {
		return nil, nil, "", fmt.Errorf("%s holds no task", name)
	}
	return ps, lines, name, nil
}

func writeLine(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
