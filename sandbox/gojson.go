package sandbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
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
	// Tests holds one result per test id `importpath.TestName/sub`, sorted by id. A test with
	// a "run" event but no end event gets Timeout when its package timed out (the testing
	// package's "panic: test timed out") or the stream ended early, and Fail when its package
	// ended otherwise (a panic in another goroutine, os.Exit).
	Tests []task.TestResult
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
}

// GoParser consumes a `go test -json` stream incrementally (it is an io.Writer), keeping at
// most messageLen bytes of output per test, so memory stays bounded however much a test
// prints. Lines longer than 1 MiB are split. The zero value is not usable; use NewGoParser.
type GoParser struct {
	messageLen int
	partial    []byte
	tests      map[string]*goTest
	order      int
	pkgs       map[string]*goPkg
	build      strings.Builder
	buildFail  map[string]bool
	malformed  int
	killed     bool
}

type goTest struct {
	pkg, name string
	outcome   task.Outcome // "" while running
	out       strings.Builder
	elapsed   float64
}

type goPkg struct {
	started, ended, failed, timedOut bool
	out                              strings.Builder
}

const maxGoLine = 1 << 20

// NewGoParser returns a parser keeping at most messageLen bytes per test message
// (messageLen <= 0: DefaultMessageLen).
func NewGoParser(messageLen int) *GoParser {
	if messageLen <= 0 {
		messageLen = DefaultMessageLen
	}
	return &GoParser{
		messageLen: messageLen,
		tests:      map[string]*goTest{},
		pkgs:       map[string]*goPkg{},
		buildFail:  map[string]bool{},
	}
}

// Write feeds bytes of the stream. It never fails.
func (p *GoParser) Write(b []byte) (int, error) {
	n := len(b)
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			p.partial = append(p.partial, b...)
			if len(p.partial) > maxGoLine {
				p.line(p.partial)
				p.partial = p.partial[:0]
			}
			break
		}
		if len(p.partial) > 0 {
			p.partial = append(p.partial, b[:i]...)
			p.line(p.partial)
			p.partial = p.partial[:0]
		} else {
			p.line(b[:i])
		}
		b = b[i+1:]
	}
	return n, nil
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
	b = bytes.TrimRight(b, "\r")
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

// Event feeds one decoded event.
func (p *GoParser) Event(ev GoEvent) {
	switch ev.Action {
	case "build-output":
		appendCapped(&p.build, ev.Output, p.messageLen*4)
		return
	case "build-fail":
		if ev.ImportPath != "" {
			p.buildFail[buildPkg(ev.ImportPath)] = true
		}
		return
	}
	if ev.Package == "" {
		return
	}
	pk := p.pkgs[ev.Package]
	if pk == nil {
		pk = &goPkg{}
		p.pkgs[ev.Package] = pk
	}
	if ev.Test == "" {
		switch ev.Action {
		case "start":
			pk.started = true
		case "output":
			if strings.HasPrefix(ev.Output, "panic: test timed out") {
				pk.timedOut = true
			}
			appendCapped(&pk.out, ev.Output, p.messageLen)
		case "pass", "skip":
			pk.ended = true
		case "fail":
			pk.ended, pk.failed = true, true
			if ev.FailedBuild != "" {
				p.buildFail[buildPkg(ev.FailedBuild)] = true
			}
		}
		return
	}
	id := ev.Package + "." + ev.Test
	t := p.tests[id]
	if t == nil {
		t = &goTest{pkg: ev.Package, name: ev.Test}
		p.tests[id] = t
	}
	switch ev.Action {
	case "output":
		if strings.HasPrefix(ev.Output, "panic: test timed out") {
			pk.timedOut = true
		}
		appendCapped(&t.out, ev.Output, p.messageLen)
	case "pass":
		t.outcome, t.elapsed = task.Pass, ev.Elapsed
	case "fail":
		t.outcome, t.elapsed = task.Fail, ev.Elapsed
	case "skip":
		t.outcome, t.elapsed = task.Skip, ev.Elapsed
	}
}

// buildPkg turns "example.com/m/b [example.com/m/b.test]" into "example.com/m/b".
func buildPkg(s string) string {
	if i := strings.Index(s, " ["); i >= 0 {
		return s[:i]
	}
	return s
}

// Killed records that the run was killed at its time limit: tests that started and did not
// end get Timeout even if their package then reported a failure (the kill's signal).
func (p *GoParser) Killed() { p.killed = true }

// Result finishes the stream and returns what it says. It may be called once.
func (p *GoParser) Result() *GoResult {
	if len(p.partial) > 0 {
		p.line(p.partial)
		p.partial = nil
	}
	r := &GoResult{Malformed: p.malformed, BuildOutput: p.build.String()}
	for pkg := range p.buildFail {
		r.BuildFailed = append(r.BuildFailed, pkg)
	}
	sort.Strings(r.BuildFailed)
	for name, pk := range p.pkgs {
		if pk.failed {
			r.FailedPackages = append(r.FailedPackages, name)
			if r.PackageOutput == nil {
				r.PackageOutput = map[string]string{}
			}
			r.PackageOutput[name] = truncate(pk.out.String(), p.messageLen)
		}
		if pk.started && !pk.ended {
			r.Incomplete = true
		}
	}
	sort.Strings(r.FailedPackages)
	for id, t := range p.tests {
		o := t.outcome
		if o == "" {
			pk := p.pkgs[t.pkg]
			switch {
			case pk.timedOut || !pk.ended || p.killed:
				o = task.Timeout
			default:
				o = task.Fail
			}
		}
		msg := ""
		if o != task.Pass {
			msg = truncate(t.out.String(), p.messageLen)
		}
		r.Tests = append(r.Tests, task.TestResult{
			ID: id, Outcome: o, Message: msg,
			Duration: time.Duration(t.elapsed * float64(time.Second)),
		})
	}
	sort.Slice(r.Tests, func(i, j int) bool { return r.Tests[i].ID < r.Tests[j].ID })
	return r
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

// SplitGoTestID splits a Go test id `import/path.TestName/sub` into the package import path
// and the test name `TestName/sub` (task.SplitGoTestID); an id of no such shape is an error
// wrapping ErrBadTestID.
func SplitGoTestID(id string) (pkg, test string, err error) {
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
