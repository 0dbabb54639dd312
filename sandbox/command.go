package sandbox

import (
	"bytes"
	"fmt"
	"io"

	"github.com/faultline-dev/faultline/task"
)

// This file exposes the command lines and the report assembly that Local uses, so other
// runners (the Docker runner in sandbox/container, a user's cluster runner) produce the same
// reports from the same commands.

// CheckKind validates the kind of req and what it implies: a known task.TestKind; a Command
// run has a program in Args and no selection. Errors wrap ErrBadRequest.
func CheckKind(req task.RunRequest) error {
	switch req.Kind {
	case task.GoTest, task.Pytest:
		return nil
	case task.Command:
		if len(req.Args) == 0 || req.Args[0] == "" {
			return fmt.Errorf("sandbox: a %s run needs the program in Args: %w", req.Kind, ErrBadRequest)
		}
		if !req.Select.All() {
			return fmt.Errorf("sandbox: a %s run takes no test selection: %w", req.Kind, ErrBadRequest)
		}
		return nil
	}
	return fmt.Errorf("sandbox: unknown test kind %q: %w", req.Kind, ErrBadRequest)
}

// GoTestArgs returns the arguments after `go` for a run (`test -json -count=1 -vet=off
// -timeout=… [-run …] packages… args…`), or for discovery when list is set (`test -json
// -list . packages…`). Limits must be filled (see FillLimits).
func GoTestArgs(sel task.Selection, lim task.Limits, args []string, list bool) ([]string, error) {
	pkgs, runPat, err := goPackages(sel)
	if err != nil {
		return nil, err
	}
	argv := []string{"test", "-json"}
	if list {
		argv = append(argv, "-list", ".")
		return append(argv, pkgs...), nil
	}
	goTimeout := lim.Timeout * 9 / 10
	argv = append(argv, "-count=1", "-vet=off", "-timeout="+goTimeout.String())
	if runPat != "" {
		argv = append(argv, "-run", runPat)
	}
	argv = append(argv, pkgs...)
	return append(argv, args...), nil
}

// PytestArgs returns the arguments after `python -m pytest` for a run with the JUnit XML
// written to junitPath, or for discovery when list is set. rootdir is the tree's path as the
// interpreter sees it.
func PytestArgs(sel task.Selection, rootdir, junitPath string, args []string, list bool) []string {
	argv := []string{"-p", "no:cacheprovider", "--rootdir=" + rootdir}
	if list {
		argv = append(argv, "--collect-only", "-q")
	} else {
		argv = append(argv, "-rA", "-o", "junit_family=xunit1", "--junitxml="+junitPath)
	}
	for _, f := range sel.Files {
		c, _ := task.CleanRelPath(f)
		argv = append(argv, c)
	}
	argv = append(argv, sel.IDs...)
	if !list {
		argv = append(argv, args...)
	}
	return argv
}

// CommandResult is how a test command ended, as a runner observed it.
type CommandResult struct {
	ExitCode int  // -1 when killed by a signal
	TimedOut bool // killed at the run's time limit
	// Stdout and Stderr are the (capped) output streams.
	Stdout, Stderr string
	// Go is the parsed `go test -json` stream (Go runs; parse the whole stream, not the capped
	// Stdout).
	Go *GoResult
	// JUnit is the pytest JUnit XML report, nil when there is none.
	JUnit io.Reader
	// Summary holds the -rA lines of the whole stdout (pytest runs).
	Summary []SummaryLine
}

// BuildReport assembles the report of a finished command exactly as Local does: states,
// outcomes, details and messages truncated to the (filled) limits.
func BuildReport(kind task.TestKind, sel task.Selection, lim task.Limits, res CommandResult) *task.Report {
	rep := &task.Report{ExitCode: res.ExitCode}
	pr := procResult{exitCode: res.ExitCode, timedOut: res.TimedOut}
	switch kind {
	case task.Command:
		commandReport(rep, res.Stdout, res.Stderr, pr, lim)
	case task.GoTest:
		gr := res.Go
		if gr == nil {
			gr = NewGoParser(lim.MessageLen).Result()
		}
		goReport(rep, gr, sel, res.Stderr, pr, lim)
		rep.Output = truncate(joinOutput("", res.Stderr), int(lim.OutputBytes))
	default:
		pytestReport(rep, res.JUnit, res.Summary, res.Stdout, res.Stderr, pr, lim)
		rep.Output = joinOutput(res.Stdout, res.Stderr)
	}
	rep.Sort()
	return rep
}

// SummaryScanner collects -rA lines from a stream written to it in arbitrary pieces.
type SummaryScanner struct {
	buf   []byte
	Lines []SummaryLine
}

// Write feeds bytes; lines longer than 1 MiB are dropped.
func (s *SummaryScanner) Write(p []byte) (int, error) {
	s.buf = append(s.buf, p...)
	for {
		i := bytes.IndexByte(s.buf, '\n')
		if i < 0 {
			if len(s.buf) > 1<<20 {
				s.buf = s.buf[:0]
			}
			return len(p), nil
		}
		if l, ok := parseSummaryLine(string(s.buf[:i])); ok {
			s.Lines = append(s.Lines, l)
		}
		s.buf = s.buf[i+1:]
	}
}

// Close handles a last line without a newline.
func (s *SummaryScanner) Close() error {
	if len(s.buf) > 0 {
		if l, ok := parseSummaryLine(string(s.buf)); ok {
			s.Lines = append(s.Lines, l)
		}
		s.buf = nil
	}
	return nil
}

// ParseList turns the output of a discovery command (GoTestArgs or PytestArgs with list set)
// into sorted test ids, or an error wrapping ErrListFailed.
func ParseList(kind task.TestKind, stdout []byte, stderr string, exitCode int) ([]string, error) {
	if kind == task.GoTest {
		return parseGoList(stdout, stderr, exitCode)
	}
	return parsePytestList(string(stdout), stderr, exitCode, DefaultMessageLen)
}
