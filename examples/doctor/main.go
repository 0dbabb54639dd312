// Command doctor says whether a repository is ready for faultline, and what to do when it is
// not: the project root chosen for the directory given (and why), the language and test
// runner, what preparing it did (dependencies downloaded, a package staged), the isolation the
// local runner has and whether Docker answers, how many tests were collected, what the clean
// tests did over a few runs (passing, failing, flaky, wall time per run, the timeout later
// runs would get), and each problem with its fix.
//
//	go run ./examples/doctor -repo DIR [-lang auto|go|python] [-python PY] [-env KEY=VALUE]...
//	    [-runs 2] [-timeout 10m] [-no-baseline] [-allow-failing] [-json]
//
// The report goes to stdout (JSON with -json); progress goes to stderr. Exit status: 0 when
// the repository is ready, 1 when it is not (or the check failed), 2 for a usage error, 130 /
// 143 when interrupted. The repository is only read.
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

	"github.com/faultline-dev/faultline/internal/cli"
	"github.com/faultline-dev/faultline/sandbox"
	"github.com/faultline-dev/faultline/task"
	"github.com/faultline-dev/faultline/task/repo"
)

func main() {
	ctx, sig := cli.WithSignals(context.Background())
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	sig.Stop()
	os.Exit(sig.Code(code))
}

type config struct {
	repo, lang, python             string
	env                            []string
	runs                           int
	timeout                        time.Duration
	noBaseline, json, allowFailing bool
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c config
	fs.StringVar(&c.repo, "repo", "", "the `DIR` to check (a project root, a package or module subdirectory; required; only read)")
	fs.StringVar(&c.lang, "lang", "auto", "language: auto, go or python")
	fs.StringVar(&c.python, "python", "", "Python interpreter for pytest (default: the first of /usr/bin/python3, python3, python that has pytest)")
	fs.Func("env", "extra `KEY=VALUE` for preparing and running the tests (repeatable; e.g. GOPROXY=off)", func(v string) error {
		if k, _, ok := strings.Cut(v, "="); !ok || k == "" {
			return fmt.Errorf("want KEY=VALUE, got %q", v)
		}
		c.env = append(c.env, v)
		return nil
	})
	fs.IntVar(&c.runs, "runs", 2, "baseline runs of the clean tests (1 to 10)")
	fs.DurationVar(&c.timeout, "timeout", sandbox.DefaultTimeout, "time limit of one clean test run")
	fs.BoolVar(&c.noBaseline, "no-baseline", false, "collect the tests but do not run them")
	fs.BoolVar(&c.allowFailing, "allow-failing", false, "judge readiness as breakpoint -allow-failing does: tests failing on the clean tree are a warning (left out of every task), not a blocking problem")
	fs.BoolVar(&c.json, "json", false, "print the report as JSON")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return cli.ExitOK
		}
		return cli.ExitUsage
	}
	usage := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "doctor: "+format+"\n", a...)
		return cli.ExitUsage
	}
	switch {
	case fs.NArg() > 0:
		return usage("unexpected argument %q (the directory goes in -repo)", fs.Arg(0))
	case c.repo == "":
		return usage("-repo DIR is required")
	case c.runs < 1 || c.runs > 10:
		return usage("-runs %d: want 1 to 10", c.runs)
	case c.timeout <= 0:
		return usage("-timeout %s: want a positive duration", c.timeout)
	}
	lang, err := repo.ParseLanguage(c.lang)
	if err != nil {
		return usage("-lang: %v", err)
	}
	if lang == repo.JavaScript {
		return usage("-lang %s: no test runner for JavaScript (go and python are supported)", c.lang)
	}
	if st, err := os.Stat(c.repo); err != nil || !st.IsDir() {
		return usage("-repo %s: not a directory", c.repo)
	}

	rd, err := check(ctx, c, lang, stderr)
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintln(stderr, "doctor: interrupted")
			return cli.ExitFailure
		}
		fmt.Fprintln(stderr, "doctor:", err)
		return cli.ExitFailure
	}
	if c.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rd); err != nil {
			fmt.Fprintln(stderr, "doctor:", err)
			return cli.ExitFailure
		}
	} else if err := printReport(stdout, rd); err != nil {
		fmt.Fprintln(stderr, "doctor:", err)
		return cli.ExitFailure
	}
	if !rd.Ready {
		return cli.ExitFailure
	}
	return cli.ExitOK
}

// check discovers, prepares and checks the project. A project that cannot even be discovered
// or prepared still gets a report: one blocking finding.
func check(ctx context.Context, c config, lang repo.Language, stderr io.Writer) (*sandbox.Readiness, error) {
	start := time.Now()
	step := func(format string, a ...any) {
		fmt.Fprintf(stderr, "doctor: [%5.1fs] %s\n", time.Since(start).Seconds(), fmt.Sprintf(format, a...))
	}
	notReady := func(root string, err error) (*sandbox.Readiness, error) {
		rd := &sandbox.Readiness{Root: root, Tests: -1, Isolation: []string{}}
		var nr *sandbox.NotReadyError
		if !errors.As(sandbox.ProjectError(root, err), &nr) {
			return nil, err
		}
		for _, p := range nr.Problems {
			rd.Findings = append(rd.Findings, sandbox.Finding{Problem: p, Severity: sandbox.Blocking})
		}
		return rd, nil
	}
	step("finding the project root of %s", c.repo)
	p, err := repo.Discover(c.repo, lang)
	if err != nil {
		return notReady(c.repo, err)
	}
	step("root %s (%s), target %s, %s", p.Root, p.Reason, p.Target, p.Lang)
	step("preparing (dependencies, staging)")
	prep, err := sandbox.Prepare(ctx, p, sandbox.PrepareOptions{Python: c.python, Env: c.env})
	if err != nil {
		rd, err2 := notReady(p.Root, err)
		if rd != nil {
			rd.Target, rd.Lang, rd.Reason, rd.Module = p.Target, string(p.Lang), p.Reason, p.Module
		}
		return rd, err2
	}
	defer prep.Close()
	local := sandbox.NewLocal(sandbox.Options{Python: prep.Python, Env: append(append([]string(nil), prep.Env...), c.env...),
		Limits: task.Limits{Timeout: c.timeout}})
	defer local.Close()
	step("collecting tests, checking imports and running the clean tests %d time(s)", c.runs)
	rd, err := sandbox.Check(ctx, local, prep, sandbox.CheckOptions{Runs: c.runs, NoBaseline: c.noBaseline, AllowFailing: c.allowFailing})
	if err != nil {
		return nil, err
	}
	step("done")
	return rd, nil
}

func printReport(w io.Writer, rd *sandbox.Readiness) error {
	var b strings.Builder
	status := "READY"
	if !rd.Ready {
		status = "NOT READY"
	}
	fmt.Fprintf(&b, "%s: %s\n", status, rd.Root)
	if rd.Lang != "" {
		fmt.Fprintf(&b, "  root:       %s (%s)\n", rd.Root, rd.Reason)
		fmt.Fprintf(&b, "  target:     %s\n", rd.Target)
		if rd.Module != "" {
			fmt.Fprintf(&b, "  module:     %s\n", rd.Module)
		}
		if len(rd.Include) > 0 {
			fmt.Fprintf(&b, "  project:    only %s of the root\n", strings.Join(rd.Include, ", "))
		}
		fmt.Fprintf(&b, "  language:   %s\n", rd.Lang)
	}
	if rd.Kind != "" {
		fmt.Fprintf(&b, "  runner:     local %s", rd.Kind)
		if rd.Python != "" {
			fmt.Fprintf(&b, " (%s)", rd.Python)
		}
		b.WriteString("\n")
		for _, s := range rd.Prepared {
			fmt.Fprintf(&b, "  prepared:   %s\n", s)
		}
		if len(rd.Isolation) == 0 {
			b.WriteString("  isolation:  complete\n")
		}
		for _, n := range rd.Isolation {
			fmt.Fprintf(&b, "  isolation:  %s\n", n)
		}
		fmt.Fprintf(&b, "  docker:     %s\n", rd.Docker)
	}
	if rd.Tests >= 0 {
		what := "tests"
		if rd.Kind == string(task.GoTest) {
			what = "top-level tests, examples and fuzz targets (subtests are counted by the baseline)"
		}
		fmt.Fprintf(&b, "  tests:      %d %s collected\n", rd.Tests, what)
	}
	if bs := rd.Baseline; bs != nil {
		walls := make([]string, len(bs.Walls))
		for i, d := range bs.Walls {
			walls[i] = d.Round(10 * time.Millisecond).String()
		}
		fmt.Fprintf(&b, "  baseline:   %d run(s): %d passing, %d failing, %d flaky; wall %s; timeout for later runs %s\n",
			bs.Runs, bs.Passing, len(bs.Failing), len(bs.Flaky), strings.Join(walls, ", "), bs.Timeout.Round(time.Second))
	}
	for _, f := range rd.Findings {
		fmt.Fprintf(&b, "  %-8s    %s\n              fix: %s\n", strings.ToUpper(string(f.Severity))+":", f.What, f.Fix)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
