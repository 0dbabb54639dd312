// Command breakpoint builds Breakpoint tasks from a repository whose tests pass: it builds
// the call graph, prints the most central functions, corrupts functions (REMOVE: delete the
// body; DISCOVERY: a rule-based subtle bug), keeps the corruptions that make enough tests
// fail, and writes the validated tasks as JSONL (task.BreakpointProblem records).
//
//	go run ./examples/breakpoint -repo DIR [-mode remove|discovery] [-multi k -distance d]
//	    [-hard] [-n N] [-seed S] [-jobs J] [-timeout D] [-env KEY=VALUE]... [-python PATH]
//	    [-out tasks.jsonl] [-swe instances.jsonl]
//
// Tests run with the local sandbox runner (no Docker, no network). It follows the
// convention of internal/cli: every flag is checked before any work (a bad one exits 2
// naming it); stdout carries only the JSONL when -out or -swe is "-"; progress (phase,
// done/total, elapsed, time left), the central-function table and the summary — how many
// tasks of -n were made, and why candidates were rejected when they ran out — go to
// stderr; outputs are written whole at the end or not at all; it exits 1 when no task
// could be made, and 130/143 when interrupted (SIGINT/SIGTERM), after stopping its runs
// and removing its private copies.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/faultline-dev/faultline/callgraph"
	"github.com/faultline-dev/faultline/callgraph/golang"
	"github.com/faultline-dev/faultline/callgraph/python"
	"github.com/faultline-dev/faultline/corrupt"
	"github.com/faultline-dev/faultline/internal/cli"
	"github.com/faultline-dev/faultline/sandbox"
	"github.com/faultline-dev/faultline/task"
)

func main() { os.Exit(cli.Main(run)) }

type config struct {
	root, mode, out, swe, lang, name, commit, python string
	multi, distance, n, top, minFailures, jobs       int
	env                                              cli.EnvFlag
	seed                                             uint64
	hard, undirected                                 bool
	timeout                                          time.Duration
}

// parse reads and checks every flag before any work. It returns the exit status when the
// program must stop (-h: 0; a bad flag: 2), else -1.
func parse(args []string, stderr io.Writer) (config, int) {
	fs := flag.NewFlagSet("breakpoint", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c config
	var repo string
	fs.StringVar(&repo, "repo", "", "repository `DIR` whose tests pass (required; never modified)")
	fs.StringVar(&c.mode, "mode", "remove", "corruption mode: remove or discovery")
	fs.IntVar(&c.multi, "multi", 1, "corrupt `k` ≥ 1 functions at once (pairwise within -distance)")
	fs.IntVar(&c.distance, "distance", 4, "largest call-graph distance (≥ 1) between the functions of a -multi group")
	fs.BoolVar(&c.undirected, "undirected", false, "measure -distance ignoring call direction")
	fs.BoolVar(&c.hard, "hard", false, "only the hard set (≥ 90th percentile of code lines and harmonic centrality)")
	fs.IntVar(&c.n, "n", 5, "number (≥ 1) of validated tasks to write")
	fs.Uint64Var(&c.seed, "seed", 1, "random seed (same seed, same tasks)")
	fs.StringVar(&c.out, "out", "tasks.jsonl", "output `FILE` for task records (- for stdout)")
	fs.StringVar(&c.swe, "swe", "", "also write SWE-bench-style instances to `FILE` (- for stdout)")
	fs.StringVar(&c.lang, "lang", "auto", "language: auto, go or python")
	fs.IntVar(&c.top, "top", 10, "print the `N` most central functions (0: none)")
	fs.IntVar(&c.minFailures, "min-failures", 0, "tests a corruption must break (0: 5 for remove, 2 for discovery or -hard)")
	fs.Var(&c.env, "env", "extra `KEY=VALUE` for the test runs (repeatable; e.g. GOFLAGS=-mod=mod GOPROXY=off)")
	fs.StringVar(&c.python, "python", "", "Python interpreter with pytest (default: detected)")
	fs.IntVar(&c.jobs, "jobs", 0, "candidates validated concurrently (0: the number of CPUs; the output does not depend on it)")
	fs.DurationVar(&c.timeout, "timeout", time.Minute, "time limit (> 0) of one test run (corrupted runs: 2× the clean run + 10 s, at most this)")
	fs.StringVar(&c.name, "name", "", "repository name for the records (default: the directory name)")
	fs.StringVar(&c.commit, "commit", "", "commit for the records (default: git HEAD of -repo, else a hash of the tree)")
	if code := cli.Parse(fs, args, false); code >= 0 {
		return c, code
	}
	usage := func(format string, a ...any) (config, int) { return c, cli.Usage(stderr, "breakpoint", format, a...) }
	root, err := cli.Repo(repo)
	if err != nil {
		return usage("%v", err)
	}
	c.root = root
	switch {
	case c.mode != string(corrupt.Remove) && c.mode != string(corrupt.Discovery):
		return usage("-mode %q: want remove or discovery", c.mode)
	case c.n < 1:
		return usage("-n %d: want at least 1 task", c.n)
	case c.multi < 1:
		return usage("-multi %d: want at least 1 function per task", c.multi)
	case c.distance < 1:
		return usage("-distance %d: want at least 1 (two functions of a group are distinct)", c.distance)
	case c.minFailures < 0:
		return usage("-min-failures %d: want 0 (the mode's default) or more", c.minFailures)
	case c.top < 0:
		return usage("-top %d: want 0 or more", c.top)
	case c.jobs < 0:
		return usage("-jobs %d: want 0 (the number of CPUs) or more", c.jobs)
	case c.timeout <= 0:
		return usage("-timeout %v: want a positive duration", c.timeout)
	}
	if err := cli.CheckOutputs(root, cli.Output{Flag: "out", Path: c.out}, cli.Output{Flag: "swe", Path: c.swe, Optional: true}); err != nil {
		return usage("%v", err)
	}
	if err := cli.Python(c.python); err != nil {
		return usage("%v", err)
	}
	if c.lang, err = cli.Language(root, c.lang); err != nil {
		return usage("%v", err)
	}
	return c, -1
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c, code := parse(args, stderr)
	if code >= 0 {
		return code
	}
	return cli.Fail(ctx, stderr, "breakpoint", generate(ctx, c, stdout, stderr))
}

func generate(ctx context.Context, c config, stdout, stderr io.Writer) error {
	root := c.root
	mode := corrupt.Mode(c.mode)
	var front callgraph.Language
	kind := task.GoTest
	switch c.lang {
	case "go":
		front = golang.New(golang.Options{})
	case "python":
		front, kind = python.New(python.Options{}), task.Pytest
	}
	prog := cli.NewProgress(stderr, "breakpoint")
	stopBeat := prog.Beat(15 * time.Second)
	defer stopBeat()

	prog.Phase(fmt.Sprintf("building the %s call graph of %s", c.lang, root), 0)
	g, err := callgraph.Build(ctx, root, []callgraph.Language{front}, callgraph.BuildOptions{SkipTests: true})
	if err != nil {
		return err
	}
	cent, err := g.Centrality(ctx, callgraph.CentralityOptions{})
	if err != nil {
		return err
	}
	st := g.Stats()
	prog.Printf("call graph: %d files, %d functions, %d call sites (%d resolved), %d edges",
		st.Files, st.Functions, st.Calls, st.Resolved, len(g.Edges()))
	printTop(stderr, g, cent, c.top)

	runner := sandbox.NewLocal(sandbox.Options{Env: c.env, Python: c.python})
	defer runner.Close()
	cached := sandbox.NewCache(runner, sandbox.CacheOptions{})
	req := task.RunRequest{Root: root, Kind: kind, Limits: task.Limits{Timeout: c.timeout}}
	prog.Phase("baseline: running the clean tests twice (flaky tests are excluded)", 2)
	base, err := sandbox.Baseline(ctx, runner, req, 2)
	if err != nil {
		if base != nil && len(base.Reports) > 0 && ctx.Err() == nil {
			last := base.Reports[len(base.Reports)-1]
			why := ""
			switch last.State {
			case task.RunNoTests:
				why = "the repository has no tests to run; Breakpoint needs a passing test suite"
			case task.RunTimeout:
				why = fmt.Sprintf("the test suite is slower than -timeout %v; raise it or pick a faster repository", c.timeout)
			case task.RunBuildFailed, task.RunCollectionError:
				why = "the clean repository's tests do not build or collect"
			}
			if why != "" {
				return fmt.Errorf("%w: %s\n%s", err, why, tail(last.Output, 20))
			}
			return fmt.Errorf("%w\n%s", err, tail(last.Output, 20))
		}
		return err
	}
	if slow := timedOutTests(base.Reports); len(slow) > 0 {
		return fmt.Errorf("%d test(s) did not finish within -timeout %v (e.g. %s): the test suite is slower than -timeout; raise it or pick a faster repository", len(slow), c.timeout, slow[0])
	}
	for _, n := range runner.Notes() {
		prog.Printf("note: %s", n)
	}
	prog.Printf("baseline: %d passing, %d failing, %d flaky tests", len(base.Passing), len(base.Failing), len(base.Flaky))
	// A corrupted run gets twice the clean run's time plus 10 s (at most -timeout): a
	// corruption that hangs is rejected at that limit instead of the repository's.
	req.Limits.Timeout = min(sandbox.TimeoutRule{}.For(base.Wall), c.timeout)

	reasons := corrupt.Reasons{}
	tried, units := 0, 0
	prog.Phase(fmt.Sprintf("validating %s corruptions", mode), c.n)
	opts := corrupt.Options{
		Mode: mode, N: c.n, Seed: c.seed, Run: req, MinFailures: c.minFailures, Jobs: c.jobs,
		Select: corrupt.SelectOptions{Hard: c.hard},
		Progress: func(p corrupt.Progress) {
			tried, units = p.Tried, p.Units
			verdict := "kept"
			if !p.Kept {
				verdict = "rejected: " + p.Reason
				reasons.Add(p.Reason)
			}
			prog.Step(p.Accepted, fmt.Sprintf("%d of %d candidates tried; %s: %s", p.Tried, p.Units, strings.Join(p.Functions, ", "), verdict))
		},
	}
	if c.multi > 1 {
		opts.Group = corrupt.GroupOptions{K: c.multi, Distance: c.distance, Undirected: c.undirected}
	}
	results, err := corrupt.Generate(ctx, root, g, cent, cached, corrupt.Baseline{Passing: base.Passing, Failing: base.Failing, Flaky: base.Flaky}, opts)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}

	name := c.name
	if name == "" {
		name = filepath.Base(root)
	}
	commit := c.commit
	if commit == "" {
		commit = cli.GitHead(root)
	}
	if commit == "" {
		// Not a git checkout: the records name the tree by its content hash.
		if commit, err = sandbox.NewTreeHasher().Hash(root, nil); err != nil {
			return err
		}
	}
	problems := make([]task.BreakpointProblem, len(results))
	for i, r := range results {
		problems[i] = r.Problem(name, commit)
	}
	var insts []*task.SWEInstance
	if c.swe != "" {
		for _, p := range problems {
			s, err := p.ToSWE()
			if err != nil {
				return err
			}
			insts = append(insts, s)
		}
	}
	if err := writeOutputs(c, stdout, problems, insts); err != nil {
		return err
	}
	stats := cached.Stats()
	what := fmt.Sprintf("%d of %d %s task(s)", len(problems), c.n, mode)
	if len(problems) < c.n {
		what += fmt.Sprintf(": candidates exhausted after %d tried", tried)
		if len(reasons) > 0 {
			what += " (" + reasons.String() + ")"
		}
	} else {
		what += fmt.Sprintf(" after %d of %d candidates tried", tried, units)
	}
	prog.Printf("%s; written to %s (%d test runs, %d cache hits)", what, c.out, stats.Runs, stats.CacheHits)
	for i, p := range problems {
		var fns []string
		for _, f := range p.Functions {
			fns = append(fns, f.Path+"::"+f.Name)
		}
		line := fmt.Sprintf("  %s  %-22s %2d failing", p.ID, p.Rule, len(p.FailToPass))
		if n := len(results[i].Validation.NotRun); n > 0 {
			line += fmt.Sprintf(", %d without a verdict", n)
		}
		fmt.Fprintf(stderr, "%s  %s\n", line, strings.Join(fns, ", "))
	}
	return nil
}

// writeOutputs writes the records to -out and the instances to -swe (when set), each whole
// or not at all.
func writeOutputs(c config, stdout io.Writer, problems []task.BreakpointProblem, insts []*task.SWEInstance) error {
	out, err := cli.Create(c.out, stdout)
	if err != nil {
		return err
	}
	defer out.Abort()
	if err := task.WriteJSONL(out, problems); err != nil {
		return err
	}
	if c.swe == "" {
		return out.Commit()
	}
	swe, err := cli.Create(c.swe, stdout)
	if err != nil {
		return err
	}
	defer swe.Abort()
	if err := task.WriteJSONL(swe, insts); err != nil {
		return err
	}
	if err := out.Commit(); err != nil {
		return err
	}
	return swe.Commit()
}

func printTop(w io.Writer, g *callgraph.Graph, c *callgraph.Centrality, top int) {
	if top <= 0 {
		return
	}
	var idx []int
	for i := range g.Nodes() {
		if c.Included[i] && !g.Node(i).IsModule() && g.Node(i).Kind != task.KindClass {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool {
		if c.Harmonic[idx[a]] != c.Harmonic[idx[b]] {
			return c.Harmonic[idx[a]] > c.Harmonic[idx[b]]
		}
		return g.Node(idx[a]).ID < g.Node(idx[b]).ID
	})
	if len(idx) > top {
		idx = idx[:top]
	}
	fmt.Fprintf(w, "\ntop %d functions by harmonic centrality:\n", len(idx))
	fmt.Fprintf(w, "  %-8s %-8s %-11s %-4s %-4s %s\n", "harmonic", "pagerank", "betweenness", "in", "out", "function")
	for _, i := range idx {
		n := g.Node(i)
		fmt.Fprintf(w, "  %-8.4f %-8.4f %-11.1f %-4d %-4d %s (%d code lines)\n", c.Harmonic[i], c.PageRank[i], c.Betweenness[i], c.InDegree[i], c.OutDegree[i], n.ID, n.Metrics.CodeLines)
	}
	fmt.Fprintln(w)
}

// timedOutTests lists the tests that timed out in any baseline run, sorted.
func timedOutTests(reports []*task.Report) []string {
	seen := map[string]bool{}
	for _, r := range reports {
		for _, t := range r.Tests {
			if t.Outcome == task.Timeout {
				seen[t.ID] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for id := range seen {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
