package testrun

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/faultline-dev/faultline/task"
)

// GoEvent is one event of the `go test -json` stream (cmd/test2json), including the build
// events `go test -json` emits since Go 1.24 (Action "build-output" / "build-fail", keyed by
// ImportPath).
type GoEvent struct {
	Time        time.Time `json:"Time"`
	Action      string    `json:"Action"`
	Package     string    `json:"Package"`
	Test        string    `json:"Test"`
	Elapsed     float64   `json:"Elapsed"`
	Output      string    `json:"Output"`
	FailedBuild string    `json:"FailedBuild"`
	ImportPath  string    `json:"ImportPath"`
}

// GoResult is what a `go test -json` stream says about a run.
type GoResult struct {
	// Tests holds one result per test id `importpath.TestName/sub` that the stream names,
	// sorted by id. A test with an end event of its own has that verdict. A test that started
	// and got none (its test binary ended first) is classified as GoPackage documents: Fail
	// when it was the only test running when its binary died, Timeout when it had used at
	// least half of its binary's time when a time limit struck, NotRun otherwise.
	Tests []task.TestResult
	// Packages describes every package that started, sorted by import path.
	Packages []GoPackage
	// BuildFailed lists the packages whose test binary did not build, sorted.
	BuildFailed []string
	// BuildOutput is the compiler output of the failed builds (build-output events and
	// non-JSON lines), in stream order.
	BuildOutput string
	// FailedPackages lists packages that ended with "fail", sorted (including build failures).
	FailedPackages []string
	// PackageOutput maps a failed package to its output that belongs to no test (a panic in
	// TestMain or init, the "FAIL" line), truncated.
	PackageOutput map[string]string
	// Incomplete reports that the stream ended before some started package ended.
	Incomplete bool
	// Malformed counts lines that were neither JSON events nor blank.
	Malformed int
	// Output is the output of every package that belongs to no test, by package path,
	// truncated per package.
	Output string
	// Conflicts lists contradictions inside the stream, which the go command never writes
	// and a test forging frames does: a test with two end events, a package that passed
	// with a failing test, events after a package's end. Sorted.
	Conflicts []string
	// Dropped is set when the stream named more tests than the parser keeps
	// (MaxStreamTests, or MaxStreamText bytes of ids): what was left out is not in Tests.
	Dropped bool
	// TextCut is set when messages and output were cut short because the stream's text
	// exceeded MaxStreamText in all.
	TextCut bool
}

// GoPackage is how one package's test binary ended.
type GoPackage struct {
	Path string
	// Ended: go reported the package (a package-level pass or fail event).
	Ended, Passed bool
	// Died says why the binary ended before running all its tests ("" when it ran to its
	// end): "timeout" (the package's -timeout, or the run was killed at its time limit),
	// "crash" (a panic outside a test's own goroutine, os.Exit, a fatal error, a signal) or
	// "incomplete" (the stream ended before go reported the package).
	Died string
	// Culprit is the test that was running alone when the binary crashed: it got Fail
	// without an end event of its own (a re-run alone confirms it).
	Culprit string
	// CutOff lists the tests that started and got no verdict anyone can attribute (NotRun
	// in Tests): several running at once, paused by t.Parallel, or too short at a time-out.
	CutOff []string
	// Crash is the panic or fatal error text (the first line and what follows), truncated.
	Crash string
	// Last is the test started last.
	Last string
}

// Bounds of what a parser keeps from one untrusted stream or file, whatever its size.
const (
	// MaxStreamLine is the longest line kept; longer lines are cut (Go events then fail to
	// decode and count as Malformed; pytest lines are ignored).
	MaxStreamLine = 1 << 20
	// MaxStreamTests is the most test results kept from one stream or report.
	MaxStreamTests = 1 << 18
	// MaxStreamText is the most bytes of test ids, messages and output kept from one stream
	// or report, on top of the per-message cap. More ids than that make the run untrusted;
	// more text is cut (and noted).
	MaxStreamText = 32 << 20
)

// GoParser consumes a `go test -json` stream incrementally (it is an io.Writer), keeping at
// most messageLen bytes of output per test, MaxStreamLine bytes per line, MaxStreamTests
// tests and MaxStreamText bytes of text in all, so memory stays bounded however much a test
// prints. The zero value is not usable; use NewGoParser.
type GoParser struct {
	messageLen int
	lines      *LineWriter
	tests      map[string]*goTest
	pkgs       map[string]*goPkg
	build      strings.Builder
	buildFail  map[string]bool
	malformed  int
	killed     bool
	killedAt   time.Time
	kept       int64 // bytes of ids and text kept
	dropped    bool
	textCut    bool
	conflicts  map[string]bool
}

type goTest struct {
	pkg, name string
	outcome   task.Outcome // own verdict, "" while running
	out       strings.Builder
	elapsed   float64
	paused    bool
	startAt   time.Time // the run or cont event
	// summary: the test's output carried go's summary line for its package ("ok  \tpkg"):
	// go gives the package's end event to the test that was running when the binary
	// exited without its final line. pending holds that end action.
	summary bool
	pending string
}

type goPkg struct {
	started, ended, failed bool
	ranToEnd               bool // the binary printed its final PASS or FAIL line
	timedOut               bool
	timeoutAfter           time.Duration
	timeoutAt              time.Time
	startAt, lastAt        time.Time
	runningList            bool
	running                map[string]time.Duration // the timeout panic's "running tests:" list
	crashing               bool
	crash                  strings.Builder
	last                   string // the test started last
	out                    strings.Builder
}

// NewGoParser returns a parser keeping at most messageLen bytes per test message
// (messageLen <= 0: DefaultMessageLen).
func NewGoParser(messageLen int) *GoParser {
	if messageLen <= 0 {
		messageLen = DefaultMessageLen
	}
	p := &GoParser{
		messageLen: messageLen,
		tests:      map[string]*goTest{},
		pkgs:       map[string]*goPkg{},
		buildFail:  map[string]bool{},
		conflicts:  map[string]bool{},
	}
	p.lines = NewLineWriter(MaxStreamLine, func(line []byte, ok bool) {
		if ok {
			p.line(line)
		} else {
			p.malformed++
		}
	})
	return p
}

// Write feeds bytes of the stream. It never fails.
func (p *GoParser) Write(b []byte) (int, error) { return p.lines.Write(b) }

// keep appends s to sb within limit bytes and the parser's total budget.
func (p *GoParser) keep(sb *strings.Builder, s string, limit int) {
	room := min(int64(limit+1-sb.Len()), MaxStreamText-p.kept)
	if room <= 0 {
		if room := MaxStreamText - p.kept; room <= 0 && len(s) > 0 {
			p.textCut = true
		}
		return
	}
	if int64(len(s)) > room {
		s = s[:room]
	}
	sb.WriteString(s)
	p.kept += int64(len(s))
}

func appendCapped(sb *strings.Builder, s string, limit int) {
	if room := limit + 1 - sb.Len(); room > 0 {
		if len(s) > room {
			s = s[:room]
		}
		sb.WriteString(s)
	}
}

func (p *GoParser) line(b []byte) {
	if len(bytes.TrimSpace(b)) == 0 {
		return
	}
	if b[0] != '{' {
		// go prints some build errors (e.g. a broken go.mod) as plain text.
		p.malformed++
		appendCapped(&p.build, string(b)+"\n", p.messageLen*4)
		return
	}
	var ev GoEvent
	if err := json.Unmarshal(b, &ev); err != nil {
		p.malformed++
		return
	}
	p.Event(ev)
}

func (p *GoParser) conflict(format string, a ...any) {
	if len(p.conflicts) < 100 {
		p.conflicts[Truncate(fmt.Sprintf(format, a...), 300)] = true
	}
}

// isSummary reports whether out is go's summary line for pkg ("ok  \tpkg\t0.01s",
// "FAIL\tpkg [build failed]").
func isSummary(out, pkg string) bool {
	for _, pre := range []string{"ok  \t", "FAIL\t"} {
		if rest, ok := strings.CutPrefix(out, pre+pkg); ok && (rest == "" || strings.ContainsAny(rest[:1], "\t \n")) {
			return true
		}
	}
	return false
}

// Event feeds one decoded event.
func (p *GoParser) Event(ev GoEvent) {
	switch ev.Action {
	case "build-output":
		appendCapped(&p.build, ev.Output, p.messageLen*4)
		return
	case "build-fail":
		if ev.ImportPath != "" && len(p.buildFail) < MaxStreamTests {
			p.buildFail[buildPkg(ev.ImportPath)] = true
		}
		return
	}
	if ev.Package == "" {
		return
	}
	pk := p.pkgs[ev.Package]
	if pk == nil {
		if len(p.pkgs) >= MaxStreamTests || p.kept+int64(len(ev.Package)) > MaxStreamText {
			p.dropped = true
			return
		}
		p.kept += int64(len(ev.Package))
		pk = &goPkg{}
		p.pkgs[ev.Package] = pk
	}
	if !ev.Time.IsZero() {
		if pk.startAt.IsZero() {
			pk.startAt = ev.Time
		}
		pk.lastAt = ev.Time
	}
	if pk.ended && ev.Action != "output" {
		p.conflict("%s: %q event after the package ended", ev.Package, ev.Action)
	}
	if ev.Action == "output" {
		p.output(pk, ev)
	}
	if ev.Test == "" {
		switch ev.Action {
		case "start":
			pk.started = true
		case "output":
			if ev.Output == "PASS\n" || ev.Output == "FAIL\n" {
				pk.ranToEnd = true
			}
			p.keep(&pk.out, ev.Output, p.messageLen)
		case "pass", "skip", "fail":
			if pk.ended {
				p.conflict("%s: the package ended twice", ev.Package)
			}
			pk.ended = true
			pk.failed = ev.Action == "fail"
			if ev.FailedBuild != "" {
				p.buildFail[buildPkg(ev.FailedBuild)] = true
			}
		}
		return
	}
	id := ev.Package + "." + ev.Test
	t := p.tests[id]
	if t == nil {
		if len(p.tests) >= MaxStreamTests || p.kept+int64(len(id)) > MaxStreamText {
			p.dropped = true
			return
		}
		p.kept += int64(len(id))
		t = &goTest{pkg: ev.Package, name: ev.Test}
		p.tests[id] = t
	}
	switch ev.Action {
	case "run":
		t.startAt, t.paused = ev.Time, false
		pk.last = id
		pk.crashing = false // the binary went on: what looked like a crash was output
		pk.crash.Reset()
	case "pause":
		t.paused = true
	case "cont":
		t.startAt, t.paused = ev.Time, false
	case "output":
		if isSummary(ev.Output, ev.Package) {
			t.summary = true
		}
		p.keep(&t.out, ev.Output, p.messageLen)
	case "pass", "fail", "skip":
		o := map[string]task.Outcome{"pass": task.Pass, "fail": task.Fail, "skip": task.Skip}[ev.Action]
		switch {
		case t.outcome != "" || t.pending != "":
			prev := t.outcome
			if prev == "" {
				prev = task.Outcome(t.pending)
			}
			p.conflict("%s: two end events (%s, then %s)", id, prev, o)
		case t.summary:
			t.pending = ev.Action
		default:
			t.outcome, t.elapsed = o, ev.Elapsed
		}
	}
}

// output tracks the panic and time-out text of a package's binary, whichever test go
// attributes it to.
func (p *GoParser) output(pk *goPkg, ev GoEvent) {
	line := ev.Output
	if after, ok := strings.CutPrefix(line, "panic: test timed out after "); ok {
		pk.timedOut = true
		pk.timeoutAt = ev.Time
		if d, err := time.ParseDuration(strings.TrimSpace(after)); err == nil {
			pk.timeoutAfter = d
		}
	}
	switch {
	case pk.timedOut && strings.TrimSpace(line) == "running tests:":
		pk.runningList = true
	case pk.runningList && strings.HasPrefix(line, "\t\t"):
		// "\t\tTestName (1m2s)"
		s := strings.TrimSpace(line)
		if i := strings.LastIndex(s, " ("); i > 0 && strings.HasSuffix(s, ")") {
			if d, err := time.ParseDuration(s[i+2 : len(s)-1]); err == nil && len(pk.running) < 1024 {
				if pk.running == nil {
					pk.running = map[string]time.Duration{}
				}
				pk.running[s[:i]] = d
			}
		}
	default:
		pk.runningList = false
	}
	if !pk.crashing && (strings.HasPrefix(line, "panic: ") || strings.HasPrefix(line, "fatal error: ")) {
		pk.crashing = true
		pk.crash.Reset()
	}
	if pk.crashing && !isSummary(line, ev.Package) {
		p.keep(&pk.crash, line, p.messageLen)
	}
}

// buildPkg turns "example.com/m/b [example.com/m/b.test]" into "example.com/m/b".
func buildPkg(s string) string {
	if i := strings.Index(s, " ["); i >= 0 {
		return s[:i]
	}
	return s
}

// Exited records that the test binary of pkg exited with status, for a runner that runs
// test binaries itself and converts their output with a test2json reading a pipe (which
// cannot know the exit): a package the stream has not ended ends now, passed if status is
// 0, as go test reports it. Call it after the whole stream was written.
func (p *GoParser) Exited(pkg string, status int) {
	if pk := p.pkgs[pkg]; pk != nil && !pk.ended {
		action := "fail"
		if status == 0 {
			action = "pass"
		}
		p.Event(GoEvent{Action: action, Package: pkg})
	}
}

// Killed records that the run was killed at its time limit (now): a test that started and
// did not end gets Timeout when it had run for at least half of its binary's time, NotRun
// otherwise.
func (p *GoParser) Killed() { p.killed, p.killedAt = true, time.Now() }

// Result finishes the stream and returns what it says. It may be called once.
func (p *GoParser) Result() *GoResult {
	p.lines.Close()
	r := &GoResult{Malformed: p.malformed, BuildOutput: p.build.String(), Dropped: p.dropped, TextCut: p.textCut}
	for pkg := range p.buildFail {
		r.BuildFailed = append(r.BuildFailed, pkg)
	}
	sort.Strings(r.BuildFailed)
	// A test whose end event came with go's summary line ended its package, not itself —
	// unless the package had an end of its own (then the line was the test's output).
	for id, t := range p.tests {
		if t.pending == "" {
			continue
		}
		pk := p.pkgs[t.pkg]
		if pk.ended {
			t.outcome = map[string]task.Outcome{"pass": task.Pass, "fail": task.Fail, "skip": task.Skip}[t.pending]
			continue
		}
		// The binary exited in the middle of the test (with status 0, go calls the
		// package passed): the test has no verdict of its own.
		pk.ended, pk.failed = true, t.pending == "fail"
		_ = id
	}
	byPkg := map[string][]string{}
	for id, t := range p.tests {
		byPkg[t.pkg] = append(byPkg[t.pkg], id)
	}
	res := map[string]*task.TestResult{}
	for id, t := range p.tests {
		if t.outcome != "" {
			msg := ""
			if t.outcome != task.Pass {
				msg = Truncate(t.out.String(), p.messageLen)
			}
			res[id] = &task.TestResult{ID: id, Outcome: t.outcome, Message: msg,
				Duration: time.Duration(t.elapsed * float64(time.Second))}
		}
	}
	names := make([]string, 0, len(p.pkgs))
	for name := range p.pkgs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		pk := p.pkgs[name]
		if pk.failed {
			r.FailedPackages = append(r.FailedPackages, name)
			if r.PackageOutput == nil {
				r.PackageOutput = map[string]string{}
			}
			r.PackageOutput[name] = Truncate(pk.out.String(), p.messageLen)
		}
		if pk.started && !pk.ended {
			r.Incomplete = true
		}
		r.Output += Truncate(pk.out.String(), p.messageLen)
		if !pk.started && !pk.ended {
			continue
		}
		gp := GoPackage{Path: name, Ended: pk.ended, Passed: pk.ended && !pk.failed,
			Crash: Truncate(pk.crash.String(), p.messageLen), Last: pk.last}
		ids := byPkg[name]
		sort.Strings(ids)
		gp.Died, gp.Culprit, gp.CutOff = p.classify(name, pk, ids, res)
		if gp.Passed && gp.Died == "" {
			for _, id := range ids {
				if tr := res[id]; tr != nil && tr.Outcome == task.Fail {
					p.conflict("%s: the package passed although %s failed", name, id)
					break
				}
			}
		}
		r.Packages = append(r.Packages, gp)
	}
	sort.Strings(r.FailedPackages)
	for _, tr := range res {
		r.Tests = append(r.Tests, *tr)
	}
	sort.Slice(r.Tests, func(i, j int) bool { return r.Tests[i].ID < r.Tests[j].ID })
	for c := range p.conflicts {
		r.Conflicts = append(r.Conflicts, c)
	}
	sort.Strings(r.Conflicts)
	return r
}

// classify decides how pkg's binary ended and gives every test of it that started without a
// verdict of its own one (in res): see GoResult.Tests.
func (p *GoParser) classify(pkg string, pk *goPkg, ids []string, res map[string]*task.TestResult) (died, culprit string, cutOff []string) {
	var open []string // started, no verdict
	for _, id := range ids {
		if res[id] == nil {
			open = append(open, id)
		}
	}
	timedOut := pk.timedOut || (p.killed && !pk.ended)
	switch {
	case timedOut:
		died = "timeout"
	case !pk.ended:
		died = "incomplete"
	case len(open) > 0 || !pk.ranToEnd && pk.failed:
		died = "crash"
	case !pk.ranToEnd && len(ids) > 0:
		// Passed without the binary's final line: the binary exited 0 early.
		died = "crash"
	}
	if len(open) == 0 {
		return died, "", nil
	}
	// The running leaves: open, not paused, with no open descendant running.
	var leaves []string
	for _, id := range open {
		t := p.tests[id]
		if t.paused {
			continue
		}
		leaf := true
		for _, o := range open {
			if strings.HasPrefix(o, id+"/") && !p.tests[o].paused {
				leaf = false
				break
			}
		}
		if leaf {
			leaves = append(leaves, id)
		}
	}
	verdict := map[string]task.TestResult{}
	crash := pk.crash.String()
	switch died {
	case "timeout":
		limit, at := pk.timeoutAfter, pk.timeoutAt
		if !pk.timedOut {
			at = p.killedAt
			if !pk.startAt.IsZero() {
				limit = at.Sub(pk.startAt)
			}
		}
		for _, id := range leaves {
			t := p.tests[id]
			ran, known := pk.running[t.name]
			if !known && !t.startAt.IsZero() && !at.IsZero() {
				ran, known = at.Sub(t.startAt), true
			}
			if (known && limit > 0 && ran >= limit/2) || (!known && len(leaves) == 1) {
				msg := strings.TrimSpace(t.out.String())
				if known {
					// No duration in the message: it would differ from run to run.
					msg = strings.TrimSpace(msg + "\nstill running when the time limit struck, after at least half of its binary's time")
				}
				verdict[id] = task.TestResult{ID: id, Outcome: task.Timeout, Message: msg}
			}
		}
	case "crash":
		if len(leaves) == 1 {
			culprit = leaves[0]
			t := p.tests[culprit]
			msg := strings.TrimSpace(t.out.String())
			if crash != "" && !strings.Contains(msg, strings.TrimSpace(crash)) {
				msg += "\n" + crash
			}
			if crash == "" {
				msg += "\nthe test binary exited while this test was running"
			}
			verdict[culprit] = task.TestResult{ID: culprit, Outcome: task.Fail, Message: strings.TrimSpace(msg)}
		}
	}
	// Everything else open was cut off (an open parent gets its verdict from its subtests
	// once they have theirs: see deriveParents).
	for _, id := range open {
		if v, ok := verdict[id]; ok {
			v.Message = Truncate(v.Message, p.messageLen)
			res[id] = &v
			continue
		}
		why := map[string]string{
			"timeout":    "the time limit struck",
			"incomplete": "the go command's output ended",
			"crash":      "the test binary died",
			"":           "the package ended",
		}[died]
		how := "while it was running"
		switch {
		case p.tests[id].paused:
			how = "while it was paused by t.Parallel"
		case !slices.Contains(leaves, id):
			how = "while its subtests were running"
		case died == "crash" && len(leaves) > 1:
			how = fmt.Sprintf("while it was running with %d other tests", len(leaves)-1)
		}
		res[id] = &task.TestResult{ID: id, Outcome: task.NotRun, Message: Truncate("cut off: "+why+" "+how, p.messageLen)}
		cutOff = append(cutOff, id)
	}
	return died, culprit, cutOff
}

// ParseGoJSON reads a whole `go test -json` stream. Garbage lines are counted in
// GoResult.Malformed, never fatal; the error is the reader's.
func ParseGoJSON(r io.Reader, messageLen int) (*GoResult, error) {
	p := NewGoParser(messageLen)
	if _, err := io.Copy(p, r); err != nil {
		return p.Result(), fmt.Errorf("sandbox: reading go test output: %w", err)
	}
	return p.Result(), nil
}

// ErrBadTestID is wrapped by errors about a test id that has no recognisable shape.
var ErrBadTestID = errors.New("bad test id")

// splitGoTestID splits a Go test id `import/path.TestName/sub` into the package import path
// and the test name `TestName/sub` (task.SplitGoTestID); an id of no such shape is an error
// wrapping ErrBadTestID.
func splitGoTestID(id string) (pkg, test string, err error) {
	pkg, test, ok := task.SplitGoTestID(id)
	if !ok {
		return "", "", fmt.Errorf("sandbox: go test id %q: %w", id, ErrBadTestID)
	}
	return pkg, test, nil
}

// GoRunPattern builds a `go test -run` pattern selecting the tests named (TestName or
// TestName/sub/...; no package). Each slash-separated level becomes an anchored alternation
// of the quoted names at that level. Levels deeper than the shallowest name are left out,
// because `-run` cannot say "all of TestA but only TestB/x": the pattern may select more
// subtests than asked (callers filter the report), never fewer.
func GoRunPattern(names []string) string {
	if len(names) == 0 {
		return ""
	}
	depth := -1
	split := make([][]string, len(names))
	for i, n := range names {
		split[i] = strings.Split(n, "/")
		if depth < 0 || len(split[i]) < depth {
			depth = len(split[i])
		}
	}
	levels := make([]string, depth)
	for l := range depth {
		seen := map[string]bool{}
		var alts []string
		for _, s := range split {
			if !seen[s[l]] {
				seen[s[l]] = true
				alts = append(alts, regexp.QuoteMeta(s[l]))
			}
		}
		sort.Strings(alts)
		levels[l] = "^(" + strings.Join(alts, "|") + ")$"
	}
	return strings.Join(levels, "/")
}
