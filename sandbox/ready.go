package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/faultline-dev/faultline/sandbox/internal/testrun"
	"github.com/faultline-dev/faultline/task"
	"github.com/faultline-dev/faultline/task/repo"
)

// Severity says whether a problem makes a project unusable.
type Severity string

// The severities of a Finding.
const (
	Blocking Severity = "error"   // the project cannot be used until it is fixed
	Warning  Severity = "warning" // the project can be used; results may be weaker
)

// Finding is a Problem with its severity.
type Finding struct {
	Problem
	Severity Severity `json:"severity"`
}

// Readiness is what Check found out about a prepared project: where it is, how its tests run,
// what isolation the runner has, what the clean tests do, and every problem with its fix.
type Readiness struct {
	Root    string   `json:"root"`
	Target  string   `json:"target"`
	Lang    string   `json:"lang"`
	Reason  string   `json:"reason"` // why Root was chosen
	Module  string   `json:"module,omitempty"`
	Include []string `json:"include,omitempty"`
	// RunRoot is what runs copy (Root, or the staging copy of Include).
	RunRoot string `json:"run_root"`
	Kind    string `json:"runner_kind"`
	Python  string `json:"python,omitempty"`
	// Prepared lists what Prepare did.
	Prepared []string `json:"prepared,omitempty"`
	// Isolation lists the layers of isolation the runner lacks ("" entries never); empty
	// means every layer is there.
	Isolation []string `json:"isolation"`
	// Docker says whether a Docker engine answers (for the container runner).
	Docker string `json:"docker"`
	// Tests is the number of tests collected, -1 when collection failed.
	Tests int `json:"tests"`
	// Baseline is what the clean tests did, nil when they could not run.
	Baseline *BaselineSummary `json:"baseline,omitempty"`
	// Findings are the problems, blocking ones first.
	Findings []Finding `json:"findings"`
	// Ready reports no blocking finding.
	Ready bool `json:"ready"`
	// Result is the baseline itself (the test ids by class, the reports), nil when it did
	// not run: what a program that goes on to use the project needs.
	Result *BaselineResult `json:"-"`
}

// BaselineSummary condenses a BaselineResult.
type BaselineSummary struct {
	Runs    int             `json:"runs"`
	Passing int             `json:"passing"`
	Failing []string        `json:"failing,omitempty"`
	Flaky   []string        `json:"flaky,omitempty"`
	Walls   []time.Duration `json:"walls"`
	// Timeout is the limit corrupted runs would get (CheckOptions.Rule over the slowest run).
	Timeout time.Duration `json:"timeout"`
}

// CheckOptions configure Check. The zero value works.
type CheckOptions struct {
	// Runs is the number of baseline runs (default 2).
	Runs int
	// Limits bound the collection and baseline runs (zero fields: the runner's defaults).
	Limits task.Limits
	// Rule turns the baseline time into the timeout later runs would get.
	Rule TimeoutRule
	// NoBaseline skips the baseline runs (collection and the other checks still run).
	NoBaseline bool
	// NoVet runs a Go baseline with -vet=off. By default it runs with go test's default vet
	// checks (WithGoVet): a module whose own `go test` fails on vet is not ready.
	NoVet bool
	// AllowFailing makes tests that fail on the clean tree a warning instead of a blocking
	// finding: the caller leaves them out of every task's FAIL_TO_PASS and PASS_TO_PASS
	// (the programs' -allow-failing). Tests that time out on the clean tree still block.
	AllowFailing bool
}

// Check finds out whether a prepared project can be used: it collects the tests, checks that
// a Python package is imported from the copy (not from an installed version), looks for
// syntax errors in Python files no test may import, runs the clean tests opts.Runs times and
// reports each problem with its fix. r runs the tests; it must also be a task.Lister. An error
// is returned only when the context ends or r refuses the request.
func Check(ctx context.Context, r task.Runner, prep *Prepared, opts CheckOptions) (*Readiness, error) {
	p := prep.Project
	rd := &Readiness{Root: p.Root, Target: p.Target, Lang: string(p.Lang), Reason: p.Reason, Module: p.Module,
		Include: p.Include, RunRoot: prep.Root, Kind: string(prep.Kind), Python: prep.Python, Prepared: prep.Steps,
		Isolation: []string{}, Findings: []Finding{}, Tests: -1}
	add := func(sev Severity, what, fix string) {
		rd.Findings = append(rd.Findings, Finding{Problem{What: what, Fix: fix}, sev})
	}
	if n, ok := r.(interface{ Notes() []string }); ok {
		rd.Isolation = append(rd.Isolation, n.Notes()...)
	}
	rd.Docker = dockerState(ctx)
	req := prep.Request()
	req.Limits = opts.Limits

	lister, ok := r.(task.Lister)
	if !ok {
		return nil, fmt.Errorf("sandbox: check: the runner %T cannot list tests", r)
	}
	ids, err := lister.List(ctx, req)
	if err != nil && prep.Root != p.Root {
		// A staged project's files were collected under the private staging root, at the
		// same relative places as in the user's: name the user's files.
		err = rootedError(err, p.Root, prep.Root)
	}
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case errors.Is(err, ErrListFailed):
		add(Blocking, "the tests cannot be collected on the clean tree: "+task.Abbreviate(err.Error(), 2000), collectFix(prep.Kind, err))
	case err != nil:
		return nil, err
	default:
		rd.Tests = len(ids)
		if len(ids) == 0 {
			add(Blocking, "no tests were found", "point at a project that has tests (pytest: test_*.py files or the testpaths setting; Go: *_test.go files)")
		}
	}
	if prep.Kind == task.Pytest {
		if err := checkPython(ctx, r, prep, add); err != nil {
			return nil, err
		}
	}
	if !opts.NoBaseline && rd.Tests > 0 {
		breq := req
		if !opts.NoVet {
			breq = WithGoVet(req)
		}
		base, err := Baseline(ctx, r, breq, opts.Runs)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		switch {
		case errors.Is(err, ErrBaselineBroken) && vetOnly(ctx, r, req, breq, base):
			last := base.Reports[len(base.Reports)-1]
			add(Blocking, "go vet (the checks `go test` runs by default) fails on the clean tree: "+task.Abbreviate(strings.TrimSpace(last.Detail), 2000),
				"fix the vet finding in the checkout; to accept it, run the baseline without vet (breakpoint -vet=false)")
		case errors.Is(err, ErrBaselineBroken):
			detail := ""
			if n := len(base.Reports); n > 0 {
				detail = base.Reports[n-1].Detail
			}
			add(Blocking, "the clean tests could not run: "+task.Abbreviate(err.Error(), 2000), baselineFix(detail))
		case err != nil:
			return nil, err
		default:
			bs := &BaselineSummary{Runs: len(base.Reports), Passing: len(base.Passing), Failing: base.Failing, Flaky: base.Flaky, Timeout: opts.Rule.For(base.Wall)}
			for _, rep := range base.Reports {
				bs.Walls = append(bs.Walls, rep.Wall)
			}
			rd.Baseline, rd.Result = bs, base
			slow, failing := splitTimedOut(base)
			if len(slow) > 0 {
				add(Blocking, fmt.Sprintf("%d test(s) did not finish within the time limit of a run (e.g. %s)", len(slow), strings.Join(head(slow, 3), ", ")),
					"the clean tests take longer than the limit: raise -timeout, or pick a faster repository")
			}
			if len(failing) > 0 {
				what := fmt.Sprintf("%d test(s) fail on the clean tree (e.g. %s)", len(failing), strings.Join(head(failing, 3), ", "))
				if opts.AllowFailing {
					add(Warning, what, "they are left out of FAIL_TO_PASS and PASS_TO_PASS (-allow-failing); fix them to use them")
				} else {
					add(Blocking, what, "fix them first (a task's failing tests must fail because of the corruption), or pass -allow-failing to leave them out of every task")
				}
			}
			if len(base.Flaky) > 0 {
				add(Warning, fmt.Sprintf("%d flaky test(s) (e.g. %s)", len(base.Flaky), strings.Join(head(base.Flaky, 3), ", ")),
					"they are left out of FAIL_TO_PASS and PASS_TO_PASS; fix them to use them")
			}
			if len(base.Passing) == 0 && len(base.Failing) == 0 {
				add(Blocking, "no test passed on the clean tree (all skipped?)", "run the tests by hand and make some pass")
			}
		}
	}
	// Blocking findings first, each group in the order found.
	var sorted []Finding
	for _, sev := range []Severity{Blocking, Warning} {
		for _, f := range rd.Findings {
			if f.Severity == sev {
				sorted = append(sorted, f)
			}
		}
	}
	rd.Findings = append(rd.Findings[:0], sorted...)
	rd.Ready = len(rd.Findings) == 0 || rd.Findings[0].Severity != Blocking
	return rd, nil
}

// Err returns nil for a ready project and a *NotReadyError listing the blocking findings
// otherwise: the words Breakpoint and FeatureBench refuse a project with.
func (rd *Readiness) Err() error {
	if rd.Ready {
		return nil
	}
	e := &NotReadyError{Root: rd.Root}
	for _, f := range rd.Findings {
		if f.Severity == Blocking {
			e.Problems = append(e.Problems, f.Problem)
		}
	}
	return e
}

// splitTimedOut splits the baseline's failing tests into those that timed out in some run
// (the suite is slower than the limit: not a failure to fix) and the others.
func splitTimedOut(base *BaselineResult) (slow, failing []string) {
	timedOut := map[string]bool{}
	for _, rep := range base.Reports {
		for _, t := range rep.Tests {
			if t.Outcome == task.Timeout {
				timedOut[t.ID] = true
			}
		}
	}
	for _, id := range base.Failing {
		if timedOut[id] {
			slow = append(slow, id)
		} else {
			failing = append(failing, id)
		}
	}
	return slow, failing
}

// vetOnly reports whether a Go baseline with vet (breq) broke because of vet alone: it did
// not build, and the same tests without vet (req) run.
func vetOnly(ctx context.Context, r task.Runner, req, breq task.RunRequest, base *BaselineResult) bool {
	if req.Kind != task.GoTest || len(breq.Args) == len(req.Args) || base == nil || len(base.Reports) == 0 {
		return false
	}
	if base.Reports[len(base.Reports)-1].State != task.RunBuildFailed {
		return false
	}
	rep, err := r.Run(WithoutCache(ctx), req)
	return err == nil && rep.Ran()
}

// ProjectError turns an error of repo.Discover or Prepare into the words a program refuses
// the project with: a *NotReadyError naming the problem and its fix when the project is
// unusable (no go.mod, no source, a missing module, no interpreter), err itself otherwise.
func ProjectError(dir string, err error) error {
	var nr *NotReadyError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &nr):
		return nr
	case errors.Is(err, repo.ErrNoGoMod):
		return &NotReadyError{Root: dir, Problems: []Problem{{What: "no go.mod in the directory or any parent",
			Fix: "run `go mod init MODULE-PATH` at the project's root (or point -repo inside a module); for a Python project pass -lang python"}}}
	case errors.Is(err, repo.ErrNoSource):
		return &NotReadyError{Root: dir, Problems: []Problem{{What: "no Go, Python or JavaScript source files",
			Fix: "point -repo at the repository's source"}}}
	}
	return err
}

func head(ids []string, n int) []string {
	if len(ids) > n {
		return ids[:n]
	}
	return ids
}

func collectFix(kind task.TestKind, err error) string {
	if strings.Contains(err.Error(), "timed out") {
		return "collecting the tests takes longer than the limit: raise -timeout"
	}
	if kind == task.GoTest {
		return "make `go test -vet=off -list . ./...` succeed in the checkout (a build error, or a missing module: see the dependency findings)"
	}
	return "make `python3 -m pytest --collect-only` succeed in the checkout (an import error or a missing third-party module: install it for the interpreter shown)"
}

// baselineFix reads a broken baseline's detail for a known cause.
func baselineFix(detail string) string {
	switch {
	case strings.Contains(detail, "module lookup disabled"), strings.Contains(detail, "network is unreachable"),
		strings.Contains(detail, "cannot find module"), strings.Contains(detail, "missing go.sum entry"):
		return "a module the tests need is missing: prepare the project (`go mod download` with network access) before running"
	case strings.Contains(detail, "No module named"), strings.Contains(detail, "ModuleNotFoundError"):
		return "a Python module the tests import is missing for this interpreter: install it (Debian: apt-get install python3-NAME), or choose another interpreter with -python"
	case strings.Contains(detail, "timeout"), strings.Contains(detail, "time limit"):
		return "the clean tests take longer than the limit, or a test named above hangs: raise -timeout, or run that test by hand (a test that hangs outside faultline too cannot be used)"
	}
	return "run the tests by hand in the checkout and fix what they report"
}

// checkPython runs the Python-only checks in the sandbox: the package under test is imported
// from the copy, and every project file compiles.
func checkPython(ctx context.Context, r task.Runner, prep *Prepared, add func(Severity, string, string)) error {
	p := prep.Project
	env := []string{"env"}
	if len(p.PythonPath) > 0 {
		env = append(env, "PYTHONPATH="+strings.Join(p.PythonPath, ":"))
	}
	run := func(script string, args ...string) (*task.Report, error) {
		argv := append(append(append([]string{}, env...), prep.Python, "-c", script), args...)
		return r.Run(ctx, task.RunRequest{Root: prep.Root, Kind: task.Command, Args: argv})
	}
	if p.Module != "" {
		rep, err := run(pyWhereScript, p.Module)
		if err != nil {
			return err
		}
		msg := commandMessage(rep)
		switch {
		case !rep.Ran() || len(rep.Tests) != 1:
			add(Warning, "could not check where "+p.Module+" is imported from: "+string(rep.State)+" "+rep.Detail, "run the doctor again; if it persists, report it")
		case rep.Tests[0].Outcome != task.Pass:
			add(Blocking, fmt.Sprintf("`import %s` fails in the copy: %s", p.Module, lastLine(msg)),
				"install what the package imports for "+prep.Python+", or choose another interpreter with -python")
		case outsideCopy(rep.Output) != "":
			where := outsideCopy(rep.Output)
			add(Blocking, fmt.Sprintf("the tests would import %s from %s, not from the copy under test", p.Module, where), shadowFix(p.Module, where))
		}
	}
	rep, err := run(pyCompileScript)
	if err != nil {
		return err
	}
	if rep.Ran() && len(rep.Tests) == 1 && rep.Tests[0].Outcome != task.Pass {
		var bad []string
		for _, line := range strings.Split(rep.Output, "\n") {
			if rest, ok := strings.CutPrefix(line, "SYNTAX "); ok {
				bad = append(bad, rest)
			}
		}
		if len(bad) > 0 {
			add(Warning, fmt.Sprintf("%d Python file(s) do not compile (e.g. %s)", len(bad), strings.Join(head(bad, 3), "; ")),
				"fix them: functions in them cannot be corrupted or traced, and a test importing them fails")
		}
	}
	return nil
}

// shadowFix is the fix for a package the copy cannot shadow. A namespace package that
// *-nspkg.pth files in its site directory declare is bound when the interpreter starts,
// before any path the runs set is searched: no layout of the copy helps.
func shadowFix(module, where string) string {
	if i := strings.LastIndex(where, string(filepath.Separator)+module+string(filepath.Separator)); i >= 0 {
		site := where[:i]
		if pth, _ := filepath.Glob(filepath.Join(site, module+".*-nspkg.pth")); len(pth) > 0 {
			return fmt.Sprintf("%s is a namespace package that %s (in %s) binds when the interpreter starts, so no copy can shadow it: "+
				"test the project's source checkout with an interpreter where it is not installed (a virtual environment, chosen with -python)",
				module, filepath.Base(pth[0]), site)
		}
	}
	return "point -repo at the directory that holds the package (or its project root), so the copy shadows the installed one"
}

// outsideCopy reads pyWhereScript's output: the real path of the module when it lies
// outside the copy, "" when inside.
func outsideCopy(out string) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) >= 2 && (lines[0] == ".." || strings.HasPrefix(lines[0], "../")) {
		return strings.TrimSpace(lines[1])
	}
	return ""
}

func commandMessage(rep *task.Report) string {
	if len(rep.Tests) == 1 {
		return rep.Tests[0].Message
	}
	return rep.Detail
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// pyWhereScript prints where a module is imported from: its path relative to the working
// directory (the copy's root), then the real path.
const pyWhereScript = `import importlib, os, sys
m = importlib.import_module(sys.argv[1])
f = os.path.realpath(getattr(m, "__file__", None) or list(m.__path__)[0])
print(os.path.relpath(f, os.path.realpath(os.getcwd())))
print(f)
`

// pyCompileScript compiles every .py file below the working directory (non-source
// directories left out, as repo.SkipSourceDir says) and prints "SYNTAX path:line: message"
// for each that does not compile; it exits 1 when any does.
var pyCompileScript = `import os, sys
skip = set(` + pySet(repo.NonSourceDirNames()) + `)
bad = 0
for d, dirs, files in os.walk("."):
    dirs[:] = sorted(x for x in dirs if not x.startswith(".") and x not in skip and not os.path.exists(os.path.join(d, x, "pyvenv.cfg")))
    for f in sorted(files):
        if f.endswith(".py"):
            p = os.path.join(d, f)[2:]
            try:
                with open(p, "rb") as fh:
                    compile(fh.read(), p, "exec", dont_inherit=True)
            except SyntaxError as e:
                bad += 1
                print("SYNTAX %s:%s: %s" % (p, e.lineno, e.msg))
            except (ValueError, OSError):
                pass
sys.exit(1 if bad else 0)
`

func pySet(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "'" + n + "'"
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// dockerState says whether a Docker engine answers `docker version` within five seconds.
func dockerState(ctx context.Context) string {
	bin, err := exec.LookPath("docker")
	if err != nil {
		return "unavailable: the docker command is not installed"
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "version", "--format", "{{.Server.Version}}").Output()
	if err != nil {
		return "unavailable: no engine answers (" + errText(err) + ")"
	}
	return "available (engine " + strings.TrimSpace(string(out)) + ")"
}

func errText(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) && len(ee.Stderr) > 0 {
		return testrun.FirstLine(string(ee.Stderr))
	}
	return err.Error()
}
