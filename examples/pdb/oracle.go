package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/faultline-dev/faultline/internal/cli"
	"github.com/faultline-dev/faultline/sandbox"
	"github.com/faultline-dev/faultline/task"
	"github.com/faultline-dev/faultline/task/repo"
)

// oracleConfig is how a program is tested: the user's shell command, the directory copied
// into every run and where the program goes in it.
type oracleConfig struct {
	cmd     string        // the -oracle-cmd / -tests template
	root    string        // absolute directory copied into every run (-repo, or an empty one)
	name    string        // slash path of the program inside the run's tree
	python  string        // substituted for {python}
	timeout time.Duration // limit of one run (> 0)
	retry   time.Duration // limit of a second run of one stopped at timeout (none unless > timeout)
}

// shellQuote quotes s as one word for /bin/sh.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// script turns the user's command into the /bin/sh script of one run. The run's tree is
// the shell's working directory; the prelude sets PDB_DIR (the tree), PDB_PROGRAM (the
// program's path in it) and PDB_TASK_ID, and the placeholders {program}, {dir}, {task_id}
// and {python} become those values as single shell words.
func (c oracleConfig) script(taskID string) string {
	prelude := `PDB_DIR=$(pwd) && PDB_PROGRAM="$PDB_DIR"/` + shellQuote(c.name) +
		` && PDB_TASK_ID=` + shellQuote(taskID) + ` && export PDB_DIR PDB_PROGRAM PDB_TASK_ID || exit 126` + "\n"
	return prelude + strings.NewReplacer(
		"{program}", `"$PDB_PROGRAM"`, "{dir}", `"$PDB_DIR"`,
		"{task_id}", shellQuote(taskID), "{python}", shellQuote(c.python),
	).Replace(c.cmd)
}

// runOracle is a task.VerdictOracle that runs the user's command on a program through a
// sandbox runner (task.Command): every call gets a private copy of the root with the
// program written at its path. Exit status 0 is a pass, any other status (a crash of the
// program under test included) a failure, a run stopped at the time limit a timeout —
// all verdicts. Status 126 or 127 (the shell could not find or run a command) and a run
// the runner could not start are errors: the oracle itself is broken. It is safe for
// concurrent use.
type runOracle struct {
	cfg    oracleConfig
	runner task.Runner
	taskID string
}

func (o *runOracle) Passes(ctx context.Context, program string) (bool, error) {
	v, err := o.Verdict(ctx, program)
	return v.Passed(), err
}

// Verdict runs the command on program at the time limit; a run stopped there runs once
// more at the retry limit when that is longer, and its verdict is the answer.
func (o *runOracle) Verdict(ctx context.Context, program string) (task.Verdict, error) {
	v, _, err := o.verdictAt(ctx, program, o.cfg.timeout)
	if err == nil && v.Outcome == task.Timeout && o.cfg.retry > o.cfg.timeout {
		v, _, err = o.verdictAt(ctx, program, o.cfg.retry)
	}
	return v, err
}

// verdictAt runs the command on program once under the time limit and returns the verdict
// and the run's wall time.
func (o *runOracle) verdictAt(ctx context.Context, program string, limit time.Duration) (task.Verdict, time.Duration, error) {
	req := task.RunRequest{
		Root:    o.cfg.root,
		Overlay: task.Overlay{o.cfg.name: {Data: []byte(program)}},
		Kind:    task.Command,
		Args:    []string{"/bin/sh", "-c", o.cfg.script(o.taskID)},
		Limits:  task.Limits{Timeout: limit},
	}
	rep, err := o.runner.Run(ctx, req)
	if err != nil {
		if ctx.Err() != nil {
			return task.Verdict{}, 0, context.Cause(ctx)
		}
		return task.Verdict{}, 0, fmt.Errorf("oracle: %w", err)
	}
	switch rep.State {
	case task.RunTimeout:
		return task.Verdict{Outcome: task.Timeout, Detail: fmt.Sprintf("stopped at the time limit of %v; raise -timeout if the tests need longer", limit)}, rep.Wall, nil
	case task.RunOK:
	default:
		return task.Verdict{}, rep.Wall, fmt.Errorf("oracle: the run did not run (%s): %s", rep.State, tail(rep.Detail))
	}
	t, ok := rep.Result(task.CommandTestID)
	if !ok {
		return task.Verdict{}, rep.Wall, fmt.Errorf("oracle: the run reported no verdict")
	}
	switch {
	case t.Outcome.Passed():
		return task.Verdict{Outcome: task.Pass}, rep.Wall, nil
	case rep.ExitCode == 126 || rep.ExitCode == 127:
		return task.Verdict{}, rep.Wall, fmt.Errorf("oracle: the command could not run (exit status %d): %s", rep.ExitCode, tail(rep.Output))
	case t.Outcome == task.Timeout:
		return task.Verdict{Outcome: task.Timeout, Detail: t.Message}, rep.Wall, nil
	}
	return task.Verdict{Outcome: task.Fail, Detail: t.Message}, rep.Wall, nil
}

func tail(s string) string {
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > 300 {
		s = "…" + string(r[len(r)-300:])
	}
	return s
}

// sandboxFlags are the flags that say how programs run.
type sandboxFlags struct {
	repo       string
	python     string
	timeout    time.Duration
	derive     bool // -timeout 0 derives the limits from the clean program's run (compose)
	jobs       int
	env        envFlag
	unsafeHost bool
	cacheDir   string
}

// envFlag collects repeated -env KEY=VALUE flags.
type envFlag []string

func (e *envFlag) String() string { return strings.Join(*e, " ") }

func (e *envFlag) Set(s string) error {
	k, _, ok := strings.Cut(s, "=")
	if !ok || k == "" || strings.ContainsAny(k, " \t\n") {
		return fmt.Errorf("want KEY=VALUE, got %q", s)
	}
	*e = append(*e, s)
	return nil
}

// runners is the sandbox a command uses and what it must clean up.
type runners struct {
	runner  task.Runner
	local   *sandbox.Local
	root    string // absolute directory every run copies
	ownRoot bool   // root was made for this run: close removes it
	notes   []string
}

// newRunners sets up the local sandbox (isolated unless unsafeHost) with jobs slots,
// optionally behind a disk cache, and the root every run copies: -repo or a fresh empty
// directory.
func newRunners(sf sandboxFlags) (*runners, error) {
	rs := &runners{root: sf.repo}
	if rs.root == "" {
		d, err := os.MkdirTemp("", "pdb-root-")
		if err != nil {
			return nil, err
		}
		rs.root, rs.ownRoot = d, true
	}
	abs, err := filepath.Abs(rs.root)
	if err != nil {
		rs.close()
		return nil, err
	}
	rs.root = abs
	rs.local = sandbox.NewLocal(sandbox.Options{Jobs: sf.jobs, Env: sf.env, NoIsolation: sf.unsafeHost})
	rs.runner = rs.local
	if sf.cacheDir != "" {
		rs.runner = sandbox.NewCache(rs.local, sandbox.CacheOptions{Dir: sf.cacheDir, Jobs: sf.jobs})
	}
	rs.notes = rs.local.Notes()
	return rs, nil
}

func (rs *runners) close() error {
	var errs []error
	if rs.local != nil {
		errs = append(errs, rs.local.Close())
	}
	if rs.ownRoot {
		errs = append(errs, os.RemoveAll(rs.root))
	}
	return errors.Join(errs...)
}

// session is what a command that runs programs holds while it works: its output, the
// sandbox and the oracle configuration.
type session struct {
	out *cli.File
	rs  *runners
	cfg oracleConfig
}

// openSession prepares -out (before any run, so an unwritable path fails first) and the
// sandbox, and reports the sandbox's notes (isolation it could not set up) on stderr.
func openSession(label, outPath string, stdout, stderr io.Writer, sb sandboxFlags, cmd, name string) (*session, error) {
	out, err := openOutput(outPath, stdout)
	if err != nil {
		return nil, err
	}
	rs, err := newRunners(sb)
	if err != nil {
		out.Abort()
		return nil, err
	}
	for _, n := range rs.notes {
		fmt.Fprintf(stderr, "%s: sandbox: %s\n", label, n)
	}
	if !rs.ownRoot {
		if n := packageDirNote(rs.root); n != "" {
			fmt.Fprintf(stderr, "%s: note: %s\n", label, n)
		}
	}
	return &session{out: out, rs: rs, cfg: oracleConfig{cmd: cmd, root: rs.root, name: name, python: sb.python, timeout: sb.timeout}}, nil
}

// oracle returns the oracle of one task.
func (s *session) oracle(taskID string) *runOracle {
	return &runOracle{cfg: s.cfg, runner: s.rs.runner, taskID: taskID}
}

// close removes the sandbox and an uncommitted output.
func (s *session) close() {
	s.out.Abort()
	s.rs.close()
}

// packageDirNote says when dir (-repo) is a package directory inside a Python project, as
// the programs' root discovery (repo.Discover) finds it: every run copies dir alone, so the
// tests' `import NAME` of that package finds an installed copy, or nothing, instead of the
// program written into the copy. The note names the project root and the flags that run
// the program as part of its package.
func packageDirNote(dir string) string {
	if _, err := os.Stat(filepath.Join(dir, "__init__.py")); err != nil {
		return ""
	}
	p, err := repo.Discover(dir, repo.Python)
	if err != nil || p.Root == dir || p.Target == "" {
		return ""
	}
	return fmt.Sprintf("-repo %s is the package directory %s of the Python project rooted at %s (%s); every run copies -repo alone, so the tests' imports of %s do not find the program written into it: "+
		"to test the program as part of its package, give -repo %s and a -program-name under %s/",
		dir, p.Target, p.Root, p.Reason, strings.ReplaceAll(p.Target, "/", "."), p.Root, p.Target)
}
