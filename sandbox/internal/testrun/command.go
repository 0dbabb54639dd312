package testrun

import (
	"encoding/json"
	"fmt"
	"io"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

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
		argv = append(argv, "-list", ".", "-vet=off") // listing is not the place for vet (see WithGoVet)
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

// GoAttemptArgs returns the arguments after `go` for one attempt of a run (`test -json
// -count=1 -vet=off -timeout=… [-run …] [-skip …] packages… args…`), or for listing the
// attempt's unit when a.List is set. The time-out given to go is 90% of a.Limits.Timeout, so
// the testing package's own time-out (which names the running tests) fires before the
// runner's.
func GoAttemptArgs(a Attempt, args []string) ([]string, error) {
	pkgs, runPat, skip, err := GoAttemptPlan(a)
	if err != nil {
		return nil, err
	}
	argv := []string{"test", "-json"}
	if a.List {
		argv = append(argv, "-list", ".", "-vet=off")
		return append(argv, pkgs...), nil
	}
	goTimeout := a.Limits.Timeout * 9 / 10
	argv = append(argv, "-count=1", "-vet=off", "-timeout="+goTimeout.String())
	if runPat != "" {
		argv = append(argv, "-run", runPat)
	}
	if skip != "" {
		argv = append(argv, "-skip", skip)
	}
	argv = append(argv, pkgs...)
	return append(argv, args...), nil
}

// GoBinaryFlags returns the flags go test gives a test binary it runs for `go test -json
// -count=1 -timeout=timeout -run=runPat -skip=skipPat`, in go's order, for a runner that runs
// test binaries itself (empty patterns are left out, as is a zero timeout).
func GoBinaryFlags(timeout time.Duration, runPat, skipPat string) []string {
	flags := []string{"-test.paniconexit0", "-test.v=test2json", "-test.count=1"}
	if timeout > 0 {
		flags = append(flags, "-test.timeout="+timeout.String())
	}
	if runPat != "" {
		flags = append(flags, "-test.run="+runPat)
	}
	if skipPat != "" {
		flags = append(flags, "-test.skip="+skipPat)
	}
	return flags
}

// GoSummary returns what `go test -json` writes into a test binary's stream after the binary
// of pkg ended with status (-1 when killed by the signal named sig), for a runner that runs
// test binaries itself and converts their output with test2json: for status 0 "ok" (on a
// line of its own); otherwise the signal, or the exit status when the binary printed
// nothing, else a newline when its output does not end with one, and then go's marked FAIL
// line. The elapsed time is written as 0.000s (records keep no durations).
func GoSummary(pkg string, status int, sig string, printed, endsLine bool) string {
	var b strings.Builder
	switch {
	case status == 0:
		if printed && !endsLine {
			b.WriteByte('\n')
		}
		b.WriteString("ok  \t" + pkg + "\t0.000s\n")
		return b.String()
	case status < 0 && sig != "":
		b.WriteString("signal: " + sig + "\n")
	case !printed:
		fmt.Fprintf(&b, "exit status %d\n", status)
	case !endsLine:
		b.WriteByte('\n')
	}
	b.WriteString("\x16FAIL\t" + pkg + "\t0.000s\n")
	return b.String()
}

// GoAttemptPlan returns what one attempt of a Go run asks for: the package patterns (the
// unit's import path, or the selection's directories, "./..." for everything), the -run
// pattern and the -skip pattern ("" for none). GoAttemptArgs turns it into a go test
// command; a runner that builds test binaries itself passes the patterns as -test.run and
// -test.skip.
func GoAttemptPlan(a Attempt) (pkgs []string, runPat, skipPat string, err error) {
	if a.Unit != "" {
		pkgs = []string{a.Unit}
		var names []string
		for _, id := range a.Select.IDs {
			_, name, err := splitGoTestID(id)
			if err != nil {
				return nil, "", "", err
			}
			names = append(names, name)
		}
		runPat = GoRunPattern(names)
	} else if pkgs, runPat, err = goPackages(a.Select); err != nil {
		return nil, "", "", err
	}
	skipPat, err = GoSkipPattern(a.Skip)
	return pkgs, runPat, skipPat, err
}

// ListedResult is the CommandResult of a discovery attempt (Attempt.List) whose runner found
// the test ids itself, or failed with err (wrapped as ErrListFailed).
func ListedResult(ids []string, err error) CommandResult {
	l := newListParser(task.GoTest)
	for _, id := range ids {
		l.add(id)
	}
	if err != nil {
		l.err = fmt.Errorf("%w: %w", err, ErrListFailed)
	}
	return CommandResult{list: l}
}

// GoSkipPattern builds a `go test -skip` pattern that leaves out exactly the tests named by
// ids (`pkg.TestName/sub`, package ignored) and their subtests: an alternation of one
// anchored path per test, parents grouped (`^TestA$|^TestB$/^(x|y)$`). A test whose
// ancestor is also named is covered by the ancestor.
func GoSkipPattern(ids []string) (string, error) {
	var paths [][]string
	for _, id := range ids {
		_, name, err := splitGoTestID(id)
		if err != nil {
			return "", err
		}
		paths = append(paths, strings.Split(name, "/"))
	}
	sort.Slice(paths, func(i, j int) bool { return strings.Join(paths[i], "/") < strings.Join(paths[j], "/") })
	// Drop paths under another path; group the rest by parent.
	var kept [][]string
	for _, p := range paths {
		covered := false
		for _, k := range kept {
			if len(k) <= len(p) && slices.Equal(k, p[:len(k)]) {
				covered = true
				break
			}
		}
		if !covered {
			kept = append(kept, p)
		}
	}
	groups := map[string][]string{}
	var parents []string
	for _, k := range kept {
		parent := strings.Join(k[:len(k)-1], "\x00")
		if _, ok := groups[parent]; !ok {
			parents = append(parents, parent)
		}
		groups[parent] = append(groups[parent], k[len(k)-1])
	}
	sort.Strings(parents)
	var alts []string
	for _, parent := range parents {
		var levels []string
		if parent != "" {
			for _, el := range strings.Split(parent, "\x00") {
				levels = append(levels, "^"+regexp.QuoteMeta(el)+"$")
			}
		}
		names := groups[parent]
		quoted := make([]string, len(names))
		for i, n := range names {
			quoted[i] = regexp.QuoteMeta(n)
		}
		last := "^" + quoted[0] + "$"
		if len(quoted) > 1 {
			last = "^(" + strings.Join(quoted, "|") + ")$"
		}
		alts = append(alts, strings.Join(append(levels, last), "/"))
	}
	return strings.Join(alts, "|"), nil
}

// PytestAttemptArgs returns the arguments after the Python interpreter for one attempt of a
// pytest run, and the configuration file to write first at dir/PytestConfigFile. rootdir is
// the tree's path and dir a directory outside the tree, both as the interpreter sees them:
// the run writes its JUnit report (PytestJUnitFile) and the reporter's events
// (PytestEventsFile) there. The program is `-c` with faultline's bootstrap (pytest.main
// with a reporter plugin; see the package doc), then `-p no:cacheprovider -rA -o
// junit_family=xunit1 --junitxml=… --continue-on-collection-errors`, the selection and args.
// The files of a.Select.IDs are collected and the plugin keeps the ids (an id also selects
// its parametrizations and, for a class, its methods), deselects a.Skip and leaves a.Ignore
// uncollected, so no list of ids ever reaches the command line.
func PytestAttemptArgs(a Attempt, rootdir, dir string, args []string) (argv []string, config []byte) {
	cfg := map[string]any{
		"events":      path.Join(dir, PytestEventsFile),
		"deselect":    nonNil(a.Skip),
		"ignore":      nonNil(a.Ignore),
		"select":      nonNil(a.Select.IDs),
		"message_len": a.Limits.MessageLen,
	}
	config, _ = json.Marshal(cfg)
	argv = []string{"-c", pytestBoot, path.Join(dir, PytestConfigFile),
		"-p", "no:cacheprovider", "--rootdir=" + rootdir,
		"-rA", "-o", "junit_family=xunit1", "--junitxml=" + path.Join(dir, PytestJUnitFile),
		"--continue-on-collection-errors"}
	// Node ids are selected by the plugin among their files' tests: given to pytest as
	// arguments, one that does not collect (its file has an import error) would stop the
	// whole run with a usage error.
	seen := map[string]bool{}
	for _, f := range a.Select.Files {
		c, _ := task.CleanRelPath(f)
		argv = append(argv, c)
	}
	for _, id := range a.Select.IDs {
		file, _, _ := strings.Cut(id, "::")
		if !seen[file] {
			seen[file] = true
			argv = append(argv, file)
		}
	}
	return append(argv, args...), config
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// CommandResult is what a runner observed of one attempt's command. Make it with
// AttemptOutput.Result.
type CommandResult struct {
	ExitCode int  // -1 when killed by a signal
	TimedOut bool // killed at the attempt's time limit
	// StartErr is set when the command could not be started (the report is RunSetupFailed).
	StartErr error
	Wall     time.Duration
	// Stdout and Stderr are the (capped) output streams.
	Stdout, Stderr string
	// OutputCapped is set when either stream was cut to the output limit.
	OutputCapped bool
	// Go is the parsed `go test -json` stream (Go runs; parse the whole stream, not the capped
	// Stdout).
	Go *GoResult
	// JUnit is the pytest JUnit XML report, nil when there is none. AttemptOutput.Result
	// parses it at once; BuildReport parses it when JUnitResult is nil.
	JUnit io.Reader
	// Summary holds the -rA lines of the whole stdout (pytest runs).
	Summary []SummaryLine
	// Notes are the runner's notes for the report.
	Notes []string
	// PackageStatus maps a Go package to its test binary's exit status, for a runner that
	// runs test binaries itself: one more channel of evidence (0 if and only if the package
	// passed).
	PackageStatus map[string]int

	junit     *JUnitResult
	junitErr  error
	junitSeen bool
	events    *pytestEvents
	py        *pytestStdout
	killedAt  time.Time
	list      *listParser
}

// AttemptOutput collects what one attempt's command writes, with the parsers of its kind
// (go test -json, pytest's -rA summary and exit marker, a test listing) fed as it streams:
// give Stdout and Stderr to the command, then call Result. Memory stays bounded (see the
// package doc) however much the command prints.
type AttemptOutput struct {
	// Stdout and Stderr keep the head and tail of each stream (Limits.OutputBytes).
	Stdout, Stderr *Capture
	kind           task.TestKind
	lim            task.Limits
	goP            *GoParser
	py             *pytestStdout
	list           *listParser
}

// NewAttemptOutput returns the collector for attempt a of a run of the given kind.
func NewAttemptOutput(kind task.TestKind, a Attempt) *AttemptOutput {
	o := &AttemptOutput{kind: kind, lim: a.Limits}
	var hook func([]byte)
	switch {
	case a.List:
		o.list = newListParser(kind)
		hook = func(p []byte) { o.list.Write(p) }
	case kind == task.GoTest:
		o.goP = NewGoParser(a.Limits.MessageLen)
		hook = func(p []byte) { o.goP.Write(p) }
	case kind == task.Pytest:
		o.py = &pytestStdout{}
		hook = func(p []byte) { o.py.Write(p) }
	}
	o.Stdout = NewCapture(a.Limits.OutputBytes, hook)
	o.Stderr = NewCapture(a.Limits.OutputBytes, nil)
	return o
}

// Exited records a Go test binary's exit status (see GoParser.Exited). Call it before
// Result.
func (o *AttemptOutput) Exited(pkg string, status int) {
	if o.goP != nil {
		o.goP.Exited(pkg, status)
	}
}

// Result finishes the attempt: exit is the command's exit status (-1 for a signal),
// timedOut whether the runner killed it at its time limit, startErr why it could not start.
// For pytest, junit and events are the run's PytestJUnitFile and PytestEventsFile (nil when
// absent); they are read now, within the package's bounds.
func (o *AttemptOutput) Result(exit int, timedOut bool, wall time.Duration, startErr error, junit, events io.Reader) CommandResult {
	res := CommandResult{ExitCode: exit, TimedOut: timedOut, StartErr: startErr, Wall: wall,
		Stdout: o.Stdout.String(), Stderr: o.Stderr.String(), killedAt: time.Now(),
		OutputCapped: o.Stdout.Truncated() || o.Stderr.Truncated()}
	switch {
	case o.list != nil:
		o.list.Close()
		res.list = o.list
	case o.goP != nil:
		if timedOut {
			o.goP.Killed()
		}
		res.Go = o.goP.Result()
	case o.py != nil:
		o.py.Close()
		res.py = o.py
		res.Summary = o.py.all
		if junit != nil {
			res.junitSeen = true
			res.junit, res.junitErr = ParseJUnit(junit, o.lim.MessageLen)
		}
		if events != nil {
			res.events = parsePytestEvents(events, o.lim.MessageLen)
		}
	}
	return res
}

// BuildReport assembles the report of one finished command exactly as Local does for an
// attempt, without re-runs (see Resolve for those): states, outcomes, details, messages
// truncated to the (filled) limits, and the cross-check of the evidence (a disagreement is
// RunUntrusted).
func BuildReport(kind task.TestKind, sel task.Selection, lim task.Limits, res CommandResult) *task.Report {
	if kind == task.Pytest && res.JUnit != nil && !res.junitSeen {
		res.junitSeen = true
		res.junit, res.junitErr = ParseJUnit(res.JUnit, lim.MessageLen)
	}
	if kind == task.GoTest && res.Go == nil {
		res.Go = NewGoParser(lim.MessageLen).Result()
	}
	a := assess(kind, sel, lim, res)
	rep := a.rep
	rep.Tests = filterSelected(rep.Tests, sel)
	if len(a.conflicts) > 0 {
		untrusted(rep, a.conflicts, lim)
	}
	if kind == task.GoTest {
		deriveParents(rep)
	}
	rep.Sort()
	return rep
}

// ParseList turns the output of a discovery command (GoTestArgs or PytestArgs with list set)
// into sorted test ids, or an error wrapping ErrListFailed.
func ParseList(kind task.TestKind, stdout []byte, stderr string, exitCode int) ([]string, error) {
	if kind == task.GoTest {
		return parseGoList(stdout, stderr, exitCode)
	}
	return parsePytestList(string(stdout), stderr, exitCode, DefaultMessageLen)
}

// ListedIDs returns the ids of a discovery attempt (Attempt.List), or its error wrapping
// ErrListFailed.
func (r CommandResult) ListedIDs() ([]string, error) {
	if r.list == nil {
		return nil, fmt.Errorf("sandbox: not a listing: %w", ErrListFailed)
	}
	return r.list.result(r.Stderr, r.ExitCode, DefaultMessageLen)
}

// ListWriter parses a discovery command's stdout as it streams (GoTestArgs or PytestArgs
// with list set), within the package's bounds.
type ListWriter struct{ p *listParser }

// NewListWriter returns a ListWriter for the kind's discovery output.
func NewListWriter(kind task.TestKind) *ListWriter { return &ListWriter{p: newListParser(kind)} }

// Write feeds stdout; it never fails.
func (w *ListWriter) Write(b []byte) (int, error) { return w.p.Write(b) }

// Result returns the sorted ids, or an error wrapping ErrListFailed whose output is cut to
// messageLen bytes.
func (w *ListWriter) Result(stderr string, exitCode, messageLen int) ([]string, error) {
	w.p.Close()
	return w.p.result(stderr, exitCode, messageLen)
}

// goPackages maps a selection to package patterns and a -run pattern.
func goPackages(sel task.Selection) (pkgs []string, runPat string, err error) {
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			pkgs = append(pkgs, p)
		}
	}
	for _, f := range sel.Files {
		c, _ := task.CleanRelPath(f)
		switch {
		case strings.HasSuffix(c, "/...") || c == "...":
			add("./" + c)
		case strings.HasSuffix(c, ".go"):
			add("./" + path.Dir(c))
		default:
			add("./" + c)
		}
	}
	var names []string
	for _, id := range sel.IDs {
		pkg, name, err := splitGoTestID(id)
		if err != nil {
			return nil, "", err
		}
		add(pkg)
		names = append(names, name)
	}
	if len(pkgs) == 0 {
		pkgs = []string{"./..."}
	}
	if len(sel.Files) == 0 {
		runPat = GoRunPattern(names)
	}
	sort.Strings(pkgs)
	return pkgs, runPat, nil
}
