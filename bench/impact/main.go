// Command impact measures test-impact validation (corrupt.Options.Impact, package
// testimpact) against validation on the whole suite, in one run, on a slow real suite:
// networkx from Debian's python3-networkx, copied under a temporary ROOT/networkx.
//
// It runs the clean baseline, builds the call graph, records the impact (once per
// repository state: one traced run per test file and a traced collection), then generates
// the same Breakpoint tasks twice through counting runners (testimpact.Counter), first with
// the impact, then without, and prints for each the runs, test executions and wall time,
// per accepted task, and the ratios whole-suite / impact (issue 16's goal: ≥ 10× fewer test
// executions, ≥ 5× less wall time per accepted task). The recording's cost is printed on
// its own line and in an amortised ratio. The two sets of tasks must be identical (ids,
// patches, FAIL_TO_PASS, PASS_TO_PASS, failure records); the program exits 1 when they
// are not.
//
// Usage, from the module root:
//
//	go run ./bench/impact [-src DIR] [-python PY] [-n N] [-mode remove|discovery] [-seed S]
//	                      [-tests PATH,...] [-target PATH] [-jobs J] [-timeout D]
//
// -tests restricts the suite to test paths under ROOT (default: the whole package) and
// -target the corrupted functions to files under some paths: together they make a shorter run
// for a loaded machine.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/faultline-dev/faultline/callgraph"
	"github.com/faultline-dev/faultline/callgraph/python"
	"github.com/faultline-dev/faultline/corrupt"
	"github.com/faultline-dev/faultline/sandbox"
	"github.com/faultline-dev/faultline/task"
	"github.com/faultline-dev/faultline/testimpact"
)

type config struct {
	src, python, mode, tests, target string
	n, jobs, baselineRuns            int
	seed                             uint64
	timeout                          time.Duration
}

func main() {
	var c config
	flag.StringVar(&c.src, "src", "/usr/lib/python3/dist-packages/networkx", "package `DIR` to copy under ROOT/<its name> (never written)")
	flag.StringVar(&c.python, "python", "/usr/bin/python3", "Python interpreter with pytest")
	flag.StringVar(&c.mode, "mode", "remove", "corruption mode: remove or discovery")
	flag.IntVar(&c.n, "n", 3, "tasks (≥ 1) to generate in each configuration")
	flag.Uint64Var(&c.seed, "seed", 1, "random seed")
	flag.StringVar(&c.tests, "tests", "", "comma-separated test `PATHS` under ROOT to run (default: everything pytest collects)")
	flag.StringVar(&c.target, "target", "", "corrupt only functions in files under these comma-separated `PATHS` (relative to ROOT)")
	flag.IntVar(&c.jobs, "jobs", 2, "candidates validated (and files traced) concurrently")
	flag.IntVar(&c.baselineRuns, "baseline-runs", 2, "clean runs (≥ 1) for the baseline")
	flag.DurationVar(&c.timeout, "timeout", 30*time.Minute, "time limit (> 0) of one test run")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ok, err := run(ctx, c, os.Stdout, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "impact:", err)
		os.Exit(1)
	}
	if !ok {
		os.Exit(1)
	}
}

func run(ctx context.Context, c config, out, log io.Writer) (bool, error) {
	switch {
	case c.n < 1:
		return false, fmt.Errorf("-n %d: want at least 1", c.n)
	case c.mode != string(corrupt.Remove) && c.mode != string(corrupt.Discovery):
		return false, fmt.Errorf("-mode %q: want remove or discovery", c.mode)
	case c.timeout <= 0:
		return false, fmt.Errorf("-timeout %v: want > 0", c.timeout)
	case c.baselineRuns < 1:
		return false, fmt.Errorf("-baseline-runs %d: want at least 1", c.baselineRuns)
	}
	if st, err := os.Stat(c.src); err != nil || !st.IsDir() {
		return false, fmt.Errorf("-src %s: not a directory (apt-get install python3-networkx)", c.src)
	}
	tmp, err := os.MkdirTemp("", "impact-bench-")
	if err != nil {
		return false, err
	}
	defer os.RemoveAll(tmp)
	root := filepath.Join(tmp, "root")
	if err := copyPackage(c.src, filepath.Join(root, filepath.Base(c.src))); err != nil {
		return false, err
	}
	local := sandbox.NewLocal(sandbox.Options{WorkDir: filepath.Join(tmp, "work"), Python: c.python})
	defer local.Close()
	req := task.RunRequest{Root: root, Kind: task.Pytest, Limits: task.Limits{Timeout: c.timeout}}
	if c.tests != "" {
		for _, p := range strings.Split(c.tests, ",") {
			clean, err := task.CleanRelPath(strings.TrimSpace(p))
			if err != nil {
				return false, fmt.Errorf("-tests %q: %w", p, err)
			}
			req.Select.Files = append(req.Select.Files, clean)
		}
	}

	t0 := time.Now()
	b, err := sandbox.Baseline(ctx, local, req, c.baselineRuns)
	if err != nil {
		return false, fmt.Errorf("baseline: %w", err)
	}
	fmt.Fprintf(log, "impact: baseline: %d passing, %d failing, %d flaky; slowest clean run %v (%v for %d runs)\n",
		len(b.Passing), len(b.Failing), len(b.Flaky), b.Wall.Round(time.Second), time.Since(t0).Round(time.Second), c.baselineRuns)
	base := corrupt.Baseline{Passing: b.Passing, Failing: b.Failing, Flaky: b.Flaky}

	g, err := callgraph.Build(ctx, root, []callgraph.Language{python.New(python.Options{})}, callgraph.BuildOptions{SkipTests: true})
	if err != nil {
		return false, err
	}
	cent, err := g.Centrality(ctx, callgraph.CentralityOptions{})
	if err != nil {
		return false, err
	}

	rec := &testimpact.Counter{R: local}
	t0 = time.Now()
	im, st, err := testimpact.Record(ctx, rec, req, b.Passing, testimpact.Options{Jobs: c.jobs, Limits: task.Limits{Timeout: c.timeout},
		Progress: func(done, total int) {
			if done%25 == 0 || done == total {
				fmt.Fprintf(log, "impact: recording: %d of %d test files traced\n", done, total)
			}
		}})
	if err != nil {
		return false, fmt.Errorf("recording the impact: %w", err)
	}
	recWall := time.Since(t0)
	fmt.Fprintf(log, "impact: recorded %d groups, %d regions in %d runs (%d failed) in %v\n", len(im.Groups), len(im.Regions), st.Runs, st.Failed, recWall.Round(time.Second))

	sel := corrupt.SelectOptions{}
	if c.target != "" {
		var prefixes []string
		for _, p := range strings.Split(c.target, ",") {
			prefixes = append(prefixes, strings.TrimSuffix(strings.TrimSpace(p), "/")+"/")
		}
		sel.IsTest = func(p string) bool {
			for _, pre := range prefixes {
				if strings.HasPrefix(p, pre) {
					return callgraph.IsTestPath(p)
				}
			}
			return true
		}
	}
	type outcome struct {
		res   []corrupt.Result
		c     testimpact.Counts
		wall  time.Duration
		tried int
	}
	gen := func(label string, im *corrupt.Impact) (outcome, error) {
		cnt := &testimpact.Counter{R: local}
		var o outcome
		opts := corrupt.Options{Mode: corrupt.Mode(c.mode), N: c.n, Seed: c.seed, Run: req, Jobs: c.jobs, Select: sel, Impact: im,
			Progress: func(p corrupt.Progress) {
				o.tried = p.Tried
				verdict := "kept"
				if !p.Kept {
					verdict = "rejected: " + p.Reason
				}
				fmt.Fprintf(log, "impact: %s: %d/%d tasks, %d tried: %s: %s\n", label, p.Accepted, p.Wanted, p.Tried, strings.Join(p.Functions, ", "), verdict)
			}}
		t0 := time.Now()
		res, err := corrupt.Generate(ctx, root, g, cent, cnt, base, opts)
		o.res, o.c, o.wall = res, cnt.Counts(), time.Since(t0)
		return o, err
	}
	withImpact, err := gen("impact", im)
	if err != nil {
		return false, err
	}
	full, err := gen("full", nil)
	if err != nil {
		return false, err
	}

	same := testimpact.Same(withImpact.res, full.res)
	fmt.Fprintf(out, "suite: %s (%d passing tests); mode %s, seed %d, -n %d, -jobs %d\n", filepath.Base(c.src), len(b.Passing), c.mode, c.seed, c.n, c.jobs)
	fmt.Fprintf(out, "recording (once per repository state): %d runs, %d test executions, %v\n", rec.Counts().Runs, rec.Counts().Tests, recWall.Round(time.Second))
	fmt.Fprintf(out, "%-8s %6s %6s %6s %9s %12s %12s %14s\n", "", "tasks", "tried", "runs", "subsets", "executions", "wall", "per task")
	row := func(label string, o outcome) {
		per := "-"
		if len(o.res) > 0 {
			per = fmt.Sprintf("%d / %v", o.c.Tests/len(o.res), (o.wall / time.Duration(len(o.res))).Round(time.Second))
		}
		fmt.Fprintf(out, "%-8s %6d %6d %6d %9d %12d %12v %14s\n", label, len(o.res), o.tried, o.c.Runs, o.c.SubsetRuns, o.c.Tests, o.wall.Round(time.Second), per)
	}
	row("impact", withImpact)
	row("full", full)
	ratio := func(a, b float64) string {
		if b == 0 {
			return "-"
		}
		return fmt.Sprintf("%.2f×", a/b)
	}
	fmt.Fprintf(out, "full / impact: test executions %s, wall %s (goal ≥ 10× and ≥ 5×)\n",
		ratio(float64(full.c.Tests), float64(withImpact.c.Tests)), ratio(full.wall.Seconds(), withImpact.wall.Seconds()))
	fmt.Fprintf(out, "full / (impact + recording): test executions %s, wall %s\n",
		ratio(float64(full.c.Tests), float64(withImpact.c.Tests+rec.Counts().Tests)), ratio(full.wall.Seconds(), (withImpact.wall+recWall).Seconds()))
	if same {
		fmt.Fprintln(out, "tasks, FAIL_TO_PASS and PASS_TO_PASS: identical")
	} else {
		fmt.Fprintln(out, "tasks, FAIL_TO_PASS and PASS_TO_PASS: DIFFERENT")
	}
	return same, nil
}

// copyPackage copies src to dst without bytecode caches.
func copyPackage(src, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	if out, err := exec.Command("cp", "-R", src, dst).CombinedOutput(); err != nil {
		return fmt.Errorf("cp %s: %v: %s", src, err, out)
	}
	return filepath.WalkDir(dst, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() && d.Name() == "__pycache__" {
			if err := os.RemoveAll(p); err != nil {
				return err
			}
			return filepath.SkipDir
		}
		return err
	})
}
