package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/faultline-dev/faultline/internal/cli"
	"github.com/faultline-dev/faultline/sandbox"
	"github.com/faultline-dev/faultline/task"
)

// usageError is a bad command line: exit status 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// flagErr is a usage error naming the flag.
func flagErr(name, format string, args ...any) error {
	return usageError{fmt.Errorf("-%s: %s", name, fmt.Sprintf(format, args...))}
}

// newFlagSet returns a flag set whose errors and usage go to stderr.
func newFlagSet(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: pdb %s\n\nflags:\n", synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args; a parse error or a positional argument is a usage error.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("unexpected argument %q (flags only)", fs.Arg(0))}
	}
	return nil
}

// explicit returns the names of the flags set on the command line.
func explicit(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}

// addSandboxFlags registers the flags of how programs run.
func addSandboxFlags(fs *flag.FlagSet, sf *sandboxFlags) {
	fs.StringVar(&sf.repo, "repo", "", "`DIR` copied into every run (the tests and what they need; only read); the program is written into the copy. Default: an empty directory")
	fs.StringVar(&sf.python, "python", "", "interpreter substituted for {python} in the command (default: the first of /usr/bin/python3, python3, python that can import pytest)")
	fs.DurationVar(&sf.timeout, "timeout", 60*time.Second, "time limit of one run; a run stopped at the limit is a failing verdict (timeout)")
	fs.IntVar(&sf.jobs, "jobs", 0, "concurrent runs (0: GOMAXPROCS, the number of CPUs the process may use; the output does not depend on it)")
	fs.Var(&sf.env, "env", "`KEY=VALUE` set in every run's environment (repeatable; runs get a scrubbed environment)")
	fs.BoolVar(&sf.unsafeHost, "unsafe-host", false, "run the command without the sandbox's isolation (no namespaces, the host's filesystem writable): only for trusted programs")
	fs.StringVar(&sf.cacheDir, "cache", "", "directory of a run cache: a run of the same command on the same files is answered from it")
}

// checkSandboxFlags validates them before any work.
func checkSandboxFlags(sf *sandboxFlags) error {
	switch {
	case sf.derive && sf.timeout < 0:
		return flagErr("timeout", "want 0 (derived from the clean program's run) or a positive duration, got %v", sf.timeout)
	case !sf.derive && sf.timeout <= 0:
		return flagErr("timeout", "must be positive, got %v", sf.timeout)
	}
	if sf.jobs < 0 {
		return flagErr("jobs", "want 0 (GOMAXPROCS) or more, got %d", sf.jobs)
	}
	if sf.jobs == 0 {
		sf.jobs = runtime.GOMAXPROCS(0)
	}
	if sf.python == "" {
		// The interpreter with pytest, as the sandbox chooses it; without one, python3 (a
		// test command that does not use pytest may still run).
		sf.python = "python3"
		if py, err := sandbox.DefaultPython(); err == nil {
			sf.python = py
		}
	} else if strings.TrimSpace(sf.python) == "" {
		return flagErr("python", "must name an interpreter")
	}
	if sf.repo != "" {
		st, err := os.Stat(sf.repo)
		if err != nil {
			return flagErr("repo", "%v", err)
		}
		if !st.IsDir() {
			return flagErr("repo", "%s is not a directory", sf.repo)
		}
	}
	if sf.cacheDir != "" {
		if err := os.MkdirAll(sf.cacheDir, 0o755); err != nil {
			return flagErr("cache", "%v", err)
		}
	}
	return nil
}

// checkProgramName validates the path a program is written to inside a run's tree.
func checkProgramName(flagName, name string) (string, error) {
	clean, err := task.CleanRelPath(name)
	if err != nil || clean == "" || clean == "." {
		return "", flagErr(flagName, "must be a relative path inside the run's tree, got %q", name)
	}
	return clean, nil
}

// checkInput checks that a file flag names a readable regular file.
func checkInput(flagName, path string, required bool) error {
	if path == "" {
		if required {
			return flagErr(flagName, "is required")
		}
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return flagErr(flagName, "%v", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return flagErr(flagName, "%v", err)
	}
	if !st.Mode().IsRegular() {
		return flagErr(flagName, "%s is not a regular file", path)
	}
	return nil
}

// checkOut checks -out with the flags, before any input is read: "" and a directory are
// refused, an existing file must be writable and its directory must accept a new file
// (cli.CheckOutputFile; nothing stays written). "-" is stdout.
func checkOut(path string) error {
	if path == "" {
		return flagErr("out", "must name a file, or - for standard output")
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return flagErr("out", "%s is a directory", path)
	}
	if err := cli.CheckOutputFile("out", path); err != nil {
		return flagErr("out", "cannot write there: %s", strings.TrimPrefix(err.Error(), "-out "+path+": "))
	}
	return nil
}

// openOutput creates -out, already checked with the flags (checkOut): cli.File writes a
// temporary file beside the target, renamed over it by Commit, so an interrupted or failed
// run leaves the target as it was. "-" is stdout.
func openOutput(path string, stdout io.Writer) (*cli.File, error) {
	f, err := cli.Create(path, stdout)
	if err != nil {
		return nil, flagErr("out", "cannot write there: %v", err)
	}
	return f, nil
}

// progress reports a phase on stderr: done/total, elapsed and the estimated time left, at
// most once a second and always at the end of the phase.
type progress struct {
	mu    sync.Mutex
	w     io.Writer
	label string
	phase string
	start time.Time
	last  time.Time
	every time.Duration
}

func newProgress(w io.Writer, label string) *progress {
	return &progress{w: w, label: label, every: time.Second}
}

// update reports done of total units; unit names them ("tasks"). A new phase restarts the
// clock.
func (p *progress) update(phase string, done, total int, unit string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if phase != p.phase || p.start.IsZero() {
		p.phase, p.start, p.last = phase, now, time.Time{}
	}
	if done < total && now.Sub(p.last) < p.every {
		return
	}
	p.last = now
	el := now.Sub(p.start)
	eta := "?"
	if done > 0 {
		eta = fmtDur(time.Duration(float64(el) / float64(done) * float64(total-done)))
	}
	if phase != "" {
		phase += ": "
	}
	fmt.Fprintf(p.w, "%s: %s%d/%d %s, elapsed %s, ETA %s\n", p.label, phase, done, total, unit, fmtDur(el), eta)
}

func fmtDur(d time.Duration) string {
	d = d.Round(time.Second)
	h, m, s := int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60
	if h > 0 {
		return fmt.Sprintf("%dh%02dm%02ds", h, m, s)
	}
	if m > 0 {
		return fmt.Sprintf("%dm%02ds", m, s)
	}
	return fmt.Sprintf("%ds", s)
}
