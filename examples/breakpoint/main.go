// Command breakpoint builds Breakpoint tasks from a repository whose tests pass: it builds
// the call graph, prints the most central functions, corrupts functions (REMOVE: delete the
// body; DISCOVERY: a rule-based subtle bug), keeps the corruptions that make enough tests
// fail, and writes the validated tasks as JSONL (task.BreakpointProblem records).
//
//	go run ./examples/breakpoint -repo DIR [-mode remove|discovery] [-multi k -distance d]
//	    [-hard] [-n N] [-seed S] [-jobs J] [-env KEY=VALUE]... [-out tasks.jsonl]
//	    [-swe instances.jsonl]
//
// Tests run with the local sandbox runner (no Docker, no network). Progress goes to
// stderr; the central-function table and a summary go to stdout.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
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
	repo, mode, out, swe, lang, name, commit string
	multi, distance, n, top, minFailures     int
	jobs                                     int
	env                                      []string
	seed                                     uint64
	hard, undirected                         bool
	timeout                                  time.Duration
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("breakpoint", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c config
	fs.StringVar(&c.repo, "repo", "", "repository `DIR` whose tests pass (required; never modified)")
	fs.StringVar(&c.mode, "mode", "remove", "corruption mode: remove or discovery")
	fs.IntVar(&c.multi, "multi", 1, "corrupt `k` functions at once (pairwise within -distance)")
	fs.IntVar(&c.distance, "distance", 4, "largest call-graph distance between the functions of a -multi group")
	fs.BoolVar(&c.undirected, "undirected", false, "measure -distance ignoring call direction")
	fs.BoolVar(&c.hard, "hard", false, "only the hard set (≥ 90th percentile of code lines and harmonic centrality)")
	fs.IntVar(&c.n, "n", 5, "number of validated tasks to write")
	fs.Uint64Var(&c.seed, "seed", 1, "random seed (same seed, same tasks)")
	fs.StringVar(&c.out, "out", "tasks.jsonl", "output `FILE` for task records (- for stdout)")
	fs.StringVar(&c.swe, "swe", "", "also write SWE-bench-style instances to `FILE`")
	fs.StringVar(&c.lang, "lang", "auto", "language: auto, go or python")
	fs.IntVar(&c.top, "top", 10, "print the `N` most central functions")
	fs.IntVar(&c.minFailures, "min-failures", 0, "tests a corruption must break (0: 5 for remove, 2 for discovery or -hard)")
	fs.Func("env", "extra `KEY=VALUE` for the test runs (repeatable; e.g. GOFLAGS=-mod=mod GOPROXY=off)", func(v string) error {
		if k, _, ok := strings.Cut(v, "="); !ok || k == "" {
			return fmt.Errorf("want KEY=VALUE, got %q", v)
		}
		c.env = append(c.env, v)
		return nil
	})
	fs.IntVar(&c.jobs, "jobs", 0, "candidates validated concurrently (0: the number of CPUs; the output does not depend on it)")
	fs.DurationVar(&c.timeout, "timeout", time.Minute, "time limit of one test run (corrupted runs: 2× the clean run + 10 s, at most this)")
	fs.StringVar(&c.name, "name", "", "repository name for the records (default: the directory name)")
	fs.StringVar(&c.commit, "commit", "", "commit for the records (default: git HEAD of -repo, if any)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if c.repo == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "breakpoint: -repo DIR is required (and no positional arguments)")
		fs.Usage()
		return 2
	}
	if err := generate(ctx, c, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "breakpoint:", err)
		return 1
	}
	return 0
}

func generate(ctx context.Context, c config, stdout, stderr io.Writer) error {
	root, err := filepath.Abs(c.repo)
	if err != nil {
		return err
	}
	if st, err := os.Stat(root); err != nil || !st.IsDir() {
		return fmt.Errorf("%s is not a directory", c.repo)
	}
	mode := corrupt.Mode(c.mode)
	if mode != corrupt.Remove && mode != corrupt.Discovery {
		return fmt.Errorf("unknown -mode %q (want remove or discovery)", c.mode)
	}
	lang, err := detectLanguage(root, c.lang)
	if err != nil {
		return err
	}
	var front callgraph.Language
	kind := task.GoTest
	switch lang {
	case "go":
		front = golang.New(golang.Options{})
	case "python":
		front, kind = python.New(python.Options{}), task.Pytest
	}

	fmt.Fprintf(stderr, "breakpoint: building the %s call graph of %s\n", lang, root)
	g, err := callgraph.Build(ctx, root, []callgraph.Language{front}, callgraph.BuildOptions{SkipTests: true})
	if err != nil {
		return err
	}
	cent, err := g.Centrality(ctx, callgraph.CentralityOptions{})
	if err != nil {
		return err
	}
	st := g.Stats()
	fmt.Fprintf(stdout, "call graph: %d files, %d functions, %d call sites (%d resolved), %d edges\n",
		st.Files, st.Functions, st.Calls, st.Resolved, len(g.Edges()))
	printTop(stdout, g, cent, c.top)

	runner := sandbox.NewLocal(sandbox.Options{Env: c.env})
	defer runner.Close()
	cached := sandbox.NewCache(runner, sandbox.CacheOptions{})
	req := task.RunRequest{Root: root, Kind: kind, Limits: task.Limits{Timeout: c.timeout}}
	fmt.Fprintln(stderr, "breakpoint: running the clean tests twice (flaky tests are excluded)")
	base, err := sandbox.Baseline(ctx, runner, req, 2)
	if err != nil {
		if base != nil && len(base.Reports) > 0 {
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
		fmt.Fprintln(stderr, "breakpoint: note:", n)
	}
	fmt.Fprintf(stdout, "baseline: %d passing, %d failing, %d flaky tests\n", len(base.Passing), len(base.Failing), len(base.Flaky))
	// A corrupted run gets twice the clean run's time plus 10 s (at most -timeout): a
	// corruption that hangs is rejected at that limit instead of the repository's.
	req.Limits.Timeout = min(sandbox.TimeoutRule{}.For(base.Wall), c.timeout)

	opts := corrupt.Options{
		Mode: mode, N: c.n, Seed: c.seed, Run: req, MinFailures: c.minFailures, Jobs: c.jobs,
		Select: corrupt.SelectOptions{Hard: c.hard},
		Progress: func(p corrupt.Progress) {
			verdict := "kept"
			if !p.Kept {
				verdict = "rejected: " + p.Reason
			}
			fmt.Fprintf(stderr, "[%d/%d tasks, %d tried] %s: %s\n", p.Accepted, p.Wanted, p.Tried, strings.Join(p.Functions, ", "), verdict)
		},
	}
	if c.multi > 1 {
		opts.Group = corrupt.GroupOptions{K: c.multi, Distance: c.distance, Undirected: c.undirected}
	}
	results, err := corrupt.Generate(ctx, root, g, cent, cached, corrupt.Baseline{Passing: base.Passing, Failing: base.Failing, Flaky: base.Flaky}, opts)
	if err != nil {
		return err
	}

	name := c.name
	if name == "" {
		name = filepath.Base(root)
	}
	commit := c.commit
	if commit == "" {
		commit = gitHead(root)
	}
	problems := make([]task.BreakpointProblem, len(results))
	for i, r := range results {
		problems[i] = r.Problem(name, commit)
	}
	if err := writeJSONL(c.out, stdout, problems); err != nil {
		return err
	}
	if c.swe != "" {
		var inst []*task.SWEInstance
		for _, p := range problems {
			s, err := p.ToSWE()
			if err != nil {
				return err
			}
			inst = append(inst, s)
		}
		if err := writeJSONL(c.swe, stdout, inst); err != nil {
			return err
		}
	}
	stats := cached.Stats()
	fmt.Fprintf(stdout, "wrote %d validated %s task(s) to %s (%d test runs, %d cache hits)\n", len(problems), mode, c.out, stats.Runs, stats.CacheHits)
	for _, p := range problems {
		var fns []string
		for _, f := range p.Functions {
			fns = append(fns, f.Path+"::"+f.Name)
		}
		fmt.Fprintf(stdout, "  %s  %-22s %2d failing  %s\n", p.ID, p.Rule, len(p.FailToPass), strings.Join(fns, ", "))
	}
	return nil
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

func writeJSONL[T any](path string, stdout io.Writer, vs []T) error {
	if path == "-" {
		return task.WriteJSONL(stdout, vs)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := task.WriteJSONL(f, vs); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// gitHead returns the commit checked out in root, or "" when root is not a git work tree.
func gitHead(root string) string {
	out, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
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
