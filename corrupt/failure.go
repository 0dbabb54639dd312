package corrupt

import (
	"bytes"
	"os"
	"path"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/faultline-dev/faultline/task"
	"github.com/faultline-dev/faultline/task/repo"
)

// A failing test's output mixes two kinds of text. Its stable part is a fact about the
// program: what kind of failure it is (the exception type, a Go panic and the runtime
// error's class, a t.Error/t.Fatal report, a timeout) and where in the repository it
// happened (the assertion site, the deepest frame inside the repository). Everything else
// is an observation of one run: durations ("66.69ms !>= 200ms"), addresses, goroutine
// numbers, temporary paths, the repr of values — and, through pytest's repr truncation,
// counts that depend on all of these ("obje[16 chars]c520", "[887 chars]"). Observations
// change from run to run of the same program, so they stay out of task records: a record
// holds the stable part only (Failure), and the observed output is kept beside it
// (Validation.Observed) for logs and for solvers, which see live output anyway.

// Failure is the stable part of one failing test's output.
type Failure struct {
	// Kind is what failed: a Python exception type ("AssertionError", "TypeError",
	// "Failed" for pytest.fail); for Go "fail" (the test reported failure with
	// t.Error/t.Fatal and the like), "panic", "panic: runtime error: <class>" (the
	// runtime's own message up to its operands: "index out of range", "invalid memory
	// address or nil pointer dereference"), "fatal error: <message>" (the runtime's
	// fatal errors, e.g. "concurrent map writes"); "timeout" for a test killed at its
	// time limit; "fail" or "error" when the output names nothing more.
	Kind string
	// Site is where it happened, "path:line" relative to the repository root: Go the
	// first call site the test reported through t.Error, t.Fatal or t.Log (go test's
	// output does not tell them apart), or, for a panic, the deepest frame in the
	// repository's module; Python the deepest traceback entry inside the
	// repository. Empty when the output names no such place.
	Site string
	// Sites counts the distinct report sites beyond Site (Go tests that failed at several
	// calls).
	Sites int
	// Source is the repository's source line at Site, trimmed (empty without a Site).
	Source string
}

// String renders the failure as it is recorded: "Kind", "Kind at Site: Source", with
// "(and N more sites)" when the test failed at several.
func (f Failure) String() string {
	s := f.Kind
	if f.Site != "" {
		s += " at " + f.Site
		if f.Sites > 0 {
			s += " (and " + strconv.Itoa(f.Sites) + " more sites)"
		}
		if f.Source != "" {
			s += ": " + f.Source
		}
	}
	return s
}

// failureParser turns failing tests' outputs into Failures for one tree: the repository
// at root with overlay applied (the tree the tests ran on).
type failureParser struct {
	kind    task.TestKind
	root    string
	overlay task.Overlay
	module  string // the Go module path of root ("" for Python or without a go.mod)
}

func newFailureParser(req task.RunRequest) failureParser {
	p := failureParser{kind: req.Kind, root: req.Root, overlay: req.Overlay}
	if req.Kind == task.GoTest && req.Root != "" {
		p.module = repo.ReadGoMod(path.Join(req.Root, "go.mod")).Path
	}
	return p
}

// parse returns the stable part of t's failure.
func (p failureParser) parse(t task.TestResult) Failure {
	var f Failure
	switch {
	case t.Outcome == task.Timeout:
		f.Kind = "timeout"
	case p.kind == task.GoTest:
		f = p.goFailure(t.ID, t.Message)
	case p.kind == task.Pytest:
		f = p.pyFailure(t.Message)
	}
	if f.Kind == "" {
		f.Kind = "fail"
		if t.Outcome == task.Error {
			f.Kind = "error"
		}
	}
	if f.Site != "" {
		f.Source = p.sourceLine(f.Site)
	}
	return f
}

// sourceLine returns the trimmed line at site ("path:line") of the tree, at most 160
// bytes, or "" when the file or line does not exist.
func (p failureParser) sourceLine(site string) string {
	i := strings.LastIndexByte(site, ':')
	if i < 0 {
		return ""
	}
	n, err := strconv.Atoi(site[i+1:])
	if err != nil || n < 1 {
		return ""
	}
	src, ok := p.read(site[:i])
	if !ok {
		return ""
	}
	lines := bytes.Split(src, []byte("\n"))
	if n > len(lines) {
		return ""
	}
	line := strings.TrimSpace(string(lines[n-1]))
	if len(line) > 160 {
		cut := 160
		for cut > 0 && !utf8.RuneStart(line[cut]) {
			cut--
		}
		line = line[:cut] + "…"
	}
	return line
}

// read returns a file of the tree (the overlay first).
func (p failureParser) read(rel string) ([]byte, bool) {
	if ch, ok := p.overlay[rel]; ok {
		return ch.Data, !ch.Delete
	}
	if p.root == "" {
		return nil, false
	}
	full, err := task.SafeJoin(p.root, rel)
	if err != nil {
		return nil, false
	}
	b, err := os.ReadFile(full)
	return b, err == nil
}

// exists reports whether rel names a file of the tree.
func (p failureParser) exists(rel string) bool {
	if _, err := task.CleanRelPath(rel); err != nil {
		return false
	}
	if ch, ok := p.overlay[rel]; ok {
		return !ch.Delete
	}
	if p.root == "" {
		return false
	}
	full, err := task.SafeJoin(p.root, rel)
	if err != nil {
		return false
	}
	st, err := os.Stat(full)
	return err == nil && st.Mode().IsRegular()
}

// goReport matches the prefix go test puts before a t.Log/t.Error line: four spaces (more
// for subtests), the file's base name and the line of the call.
var goReport = regexp.MustCompile(`(?m)^\s+([\w.+-]+\.go):(\d+): `)

// goFailure reads a Go test's output: a panic or fatal error with its stack, else the
// t.Error/t.Fatal sites.
func (p failureParser) goFailure(id, msg string) Failure {
	var f Failure
	lines := strings.Split(msg, "\n")
	for i, l := range lines {
		var rest string
		var ok bool
		if rest, ok = strings.CutPrefix(l, "panic: "); ok {
			f.Kind = "panic"
			if class, ok := strings.CutPrefix(rest, "runtime error: "); ok {
				class, _, _ = strings.Cut(class, " [")
				f.Kind = "panic: runtime error: " + strings.TrimSpace(class)
			}
		} else if rest, ok = strings.CutPrefix(l, "fatal error: "); ok {
			rest, _, _ = strings.Cut(rest, " [")
			f.Kind = "fatal error: " + strings.TrimSpace(rest)
		} else {
			continue
		}
		f.Site = p.goFrame(lines[i+1:])
		return f
	}
	pkg, _, _ := task.SplitGoTestID(id)
	seen := map[string]bool{}
	for _, m := range goReport.FindAllStringSubmatch(msg, -1) {
		site := p.goFile(pkg, m[1]) + ":" + m[2]
		if seen[site] {
			continue
		}
		seen[site] = true
		if f.Site == "" {
			f.Kind, f.Site = "fail", site
		} else {
			f.Sites++
		}
	}
	return f
}

// goFile returns the repository path of a file named base in the package pkg (base alone
// when the package does not lie in the repository's module).
func (p failureParser) goFile(pkg, base string) string {
	if dir, ok := p.goDir(pkg); ok {
		return path.Join(dir, base)
	}
	return base
}

// goDir returns the repository directory of the package at import path pkg.
func (p failureParser) goDir(pkg string) (string, bool) {
	if p.module == "" {
		return "", false
	}
	if pkg == p.module {
		return ".", true
	}
	if rest, ok := strings.CutPrefix(pkg, p.module+"/"); ok {
		return rest, true
	}
	return "", false
}

// goFrame returns the deepest frame of the first goroutine's stack (the lines after a
// panic) whose function belongs to the repository's module, as "path:line".
func (p failureParser) goFrame(lines []string) string {
	started := false
	for i := 0; i+1 < len(lines); i++ {
		l := lines[i]
		if strings.HasPrefix(l, "goroutine ") {
			if started {
				return "" // the next goroutine: the panicking one had no frame of ours
			}
			started = true
			continue
		}
		if !started || l == "" || strings.HasPrefix(l, "\t") {
			continue
		}
		at, ok := strings.CutPrefix(lines[i+1], "\t")
		if !ok {
			continue
		}
		pkg := goFuncPackage(l)
		dir, ok := p.goDir(pkg)
		if !ok {
			continue
		}
		file, _, _ := strings.Cut(at, " +0x")
		j := strings.LastIndexByte(file, ':')
		if j < 0 {
			continue
		}
		rel := path.Join(dir, path.Base(file[:j]))
		if p.exists(rel) {
			return rel + file[j:]
		}
	}
	return ""
}

// goFuncPackage returns the import path of a stack frame's function line
// ("example.com/m/pkg.(*T).Method(0x1, ...)" → "example.com/m/pkg").
func goFuncPackage(line string) string {
	name := line
	if strings.HasSuffix(name, ")") {
		if i := strings.LastIndexByte(name, '('); i > 0 {
			name = name[:i]
		}
	}
	name = strings.TrimPrefix(name, "created by ")
	dir, last := "", name
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		dir, last = name[:i+1], name[i+1:]
	}
	pkg, _, _ := strings.Cut(last, ".")
	return dir + pkg
}

// pyLocation matches a pytest traceback entry's location line: "path.py:42: " followed by
// the exception type on the last entry (empty or "in name" on the others).
var pyLocation = regexp.MustCompile(`(?m)^([^\s:][^:\n]*\.py):(\d+):(?: (.*))?$`)

// pyExcName is a (possibly dotted) exception type.
var pyExcName = regexp.MustCompile(`^[A-Za-z_][\w.]*$`)

// pyELine is pytest's first "E   Type: message" line.
var pyELine = regexp.MustCompile(`(?m)^E\s+([A-Za-z_][\w.]*)(?::|$)`)

// pyFailure reads a pytest failure: the exception type from the last traceback entry
// (or the first E line, or the message's first line), the deepest entry inside the
// repository as the site.
func (p failureParser) pyFailure(msg string) Failure {
	var f Failure
	for _, m := range pyLocation.FindAllStringSubmatch(msg, -1) {
		if t := strings.TrimSpace(m[3]); pyExcName.MatchString(t) && !strings.HasPrefix(t, "in ") {
			f.Kind = t
		}
		if p.exists(m[1]) {
			f.Site = m[1] + ":" + m[2]
		}
	}
	if f.Kind == "" {
		if m := pyELine.FindStringSubmatch(msg); m != nil {
			f.Kind = m[1]
		} else if first, _, _ := strings.Cut(msg, "\n"); first != "" {
			name, _, _ := strings.Cut(first, ":")
			if pyExcName.MatchString(name) && name != first {
				f.Kind = name
			}
		}
	}
	return f
}
