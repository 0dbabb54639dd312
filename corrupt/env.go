package corrupt

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/faultline-dev/faultline/callgraph"
	"github.com/faultline-dev/faultline/task"
	"github.com/faultline-dev/faultline/task/llm"
	"github.com/faultline-dev/faultline/task/repo"
)

// The solver environment (docs/breakpoint.md, The solver's environment): the tools a solver
// gets over a working copy of the corrupted repository, with budgets, and the scoring of
// its submissions. The working copy is an overlay on the repository root: the root is only
// read.

// Tool names, as exposed for function calling.
const (
	ToolListDirectory     = "list_directory"
	ToolSearchCode        = "search_code"
	ToolReadFile          = "read_file"
	ToolListFileFunctions = "list_file_functions"
	ToolReadFunction      = "read_function"
	ToolSubmitAttempt     = "submit_attempt"
	ToolReplaceFunction   = "replace_function"
)

// ErrBudget is wrapped when a tool call exceeds the tool-use or submission budget.
var ErrBudget = errors.New("corrupt: budget exhausted")

// ErrToolArgs is wrapped when a tool call's arguments are invalid.
var ErrToolArgs = errors.New("corrupt: invalid tool arguments")

// EnvOptions configures an Env. Zero budgets take the paper's defaults (16 tool uses,
// 4 submissions).
type EnvOptions struct {
	MaxToolUses int
	MaxAttempts int
	// Langs find functions for list_file_functions, read_function and the submissions.
	Langs []callgraph.Language
	// Run is the template of each test run (Kind, Limits, Args); Root, Overlay and the
	// selection (FAIL_TO_PASS ∪ PASS_TO_PASS) are set by the Env.
	Run task.RunRequest
	// MaxFileBytes is the size above which read_file returns the file's functions instead
	// (default 40,000 bytes).
	MaxFileBytes int
	// FeedbackLen truncates the failures returned after a submission (default 4,000 bytes).
	FeedbackLen int
	// IsTest classifies test files, which replace_function refuses (default
	// callgraph.IsTestPath).
	IsTest func(string) bool
	// Redact is applied to every feedback text before the solver sees it (default: an
	// llm.Redactor for the secret-looking values of the environment, llm.SecretsFromEnv,
	// read when the Env is made): test output is written by the code under test, which may
	// print a secret it can read.
	Redact func(string) string
}

// Attempt is the outcome of one submission. Only a test that ran and passed earns
// credit: a selected test that got no verdict (task.NotRun, or missing from the report)
// or was skipped is not a failure, but it is not a pass either.
type Attempt struct {
	Failures int // selected tests that ran and failed (every selected test when the run broke)
	// Unverified counts the selected tests that neither passed nor failed: skipped, or
	// without a verdict.
	Unverified int
	// Partial is 1 − min((Failures + Unverified) / failures-when-corrupted, 1); 0 on an
	// execution error or an untrusted run.
	Partial  float64
	Passed   bool // every selected test ran and passed
	State    task.RunState
	Feedback string // what the solver was told
}

// Score is the result of a trajectory.
type Score struct {
	// Success: the final submission passed every selected test (and, in DISCOVERY, every
	// corrupted function was modified — the anti-hack rule).
	Success bool
	// Partial is the last submission's partial score; Best the highest over submissions.
	Partial, Best float64
	// Diagnosed: the solver modified at least one corrupted function.
	Diagnosed bool
	// Hacked: the tests passed but some corrupted function was left unmodified (DISCOVERY).
	Hacked   bool
	Attempts []Attempt
	ToolUses int
}

// Env is a solver environment for one Breakpoint task. It is safe for concurrent use, but a
// trajectory is a sequence: calls are serialised.
type Env struct {
	root    string
	problem task.BreakpointProblem
	mode    Mode
	runner  task.Runner
	o       EnvOptions

	mu           sync.Mutex
	work         task.Overlay // corrupted files + persistent DISCOVERY edits
	corrupted    map[string][]byte
	toolUses     int
	attempts     []Attempt
	failsAtStart int
}

// NewEnv returns the environment of problem (a record made by Generate) over the
// repository at root.
func NewEnv(root string, problem task.BreakpointProblem, r task.Runner, opts EnvOptions) (*Env, error) {
	if opts.MaxToolUses <= 0 {
		opts.MaxToolUses = 16
	}
	if opts.MaxAttempts <= 0 {
		opts.MaxAttempts = 4
	}
	if opts.MaxFileBytes <= 0 {
		opts.MaxFileBytes = 40000
	}
	if opts.FeedbackLen <= 0 {
		opts.FeedbackLen = 4000
	}
	if opts.IsTest == nil {
		opts.IsTest = callgraph.IsTestPath
	}
	if opts.Redact == nil {
		opts.Redact = llm.EnvRedactor().Redact
	}
	if opts.Run.Kind == "" {
		return nil, fmt.Errorf("corrupt: env: EnvOptions.Run.Kind is required")
	}
	mode := Mode(problem.Mode)
	if mode != Remove && mode != Discovery {
		return nil, fmt.Errorf("corrupt: env: problem %s has mode %q", problem.ID, problem.Mode)
	}
	if len(problem.Functions) == 0 {
		return nil, fmt.Errorf("corrupt: env: problem %s names no corrupted function", problem.ID)
	}
	p, err := task.ParsePatch([]byte(problem.CorruptionPatch))
	if err != nil {
		return nil, fmt.Errorf("corrupt: env: corruption patch of %s: %w", problem.ID, err)
	}
	work, err := p.Apply(task.DirReader(root))
	if err != nil {
		return nil, fmt.Errorf("corrupt: env: corruption patch of %s does not apply: %w", problem.ID, err)
	}
	e := &Env{root: root, problem: problem, mode: mode, runner: r, o: opts, work: work, corrupted: map[string][]byte{}}
	for _, f := range problem.Functions {
		src, err := e.read(f.Path)
		if err != nil {
			return nil, err
		}
		def, err := e.findFunction(f.Path, f.Name, src)
		if err != nil {
			return nil, fmt.Errorf("%w (the corrupted functions of problem %s)", err, problem.ID)
		}
		e.corrupted[f.Path+"::"+f.Name] = append([]byte(nil), def...)
	}
	e.failsAtStart = len(problem.FailToPass)
	return e, nil
}

// read returns a file of the working copy.
func (e *Env) read(p string) ([]byte, error) {
	c, err := task.CleanRelPath(p)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrToolArgs, err)
	}
	if ch, ok := e.work[c]; ok {
		if ch.Delete {
			return nil, fmt.Errorf("%s: %w", c, fs.ErrNotExist)
		}
		return ch.Data, nil
	}
	full, err := task.SafeJoin(e.root, c)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrToolArgs, err)
	}
	return os.ReadFile(full)
}

func (e *Env) lang(p string) (callgraph.Language, error) {
	for _, l := range e.o.Langs {
		if l.Match(p) {
			return l, nil
		}
	}
	return nil, fmt.Errorf("%w: no language front end for %s", ErrToolArgs, p)
}

// functions lists the definitions of a working-copy file.
func (e *Env) functions(p string, src []byte) ([]callgraph.Definition, error) {
	l, err := e.lang(p)
	if err != nil {
		return nil, err
	}
	a, err := l.Analyze(context.Background(), []callgraph.SourceFile{{Path: p, Src: src}})
	if err != nil {
		return nil, err
	}
	var out []callgraph.Definition
	for _, d := range a.Definitions {
		if d.Kind != task.KindModule {
			out = append(out, d)
		}
	}
	return out, nil
}

// locate returns the definition named name (a qualified name, or an ID suffix) in src.
func (e *Env) locate(p, name string, src []byte) (callgraph.Definition, error) {
	defs, err := e.functions(p, src)
	if err != nil {
		return callgraph.Definition{}, err
	}
	for _, d := range defs {
		if d.Name == name || d.ID == name || strings.TrimPrefix(d.ID, p+"::") == name {
			return d, nil
		}
	}
	return callgraph.Definition{}, fmt.Errorf("%w: no function %q in %s", ErrToolArgs, name, p)
}

func (e *Env) findFunction(p, name string, src []byte) ([]byte, error) {
	d, err := e.locate(p, name, src)
	if err != nil {
		return nil, err
	}
	return src[d.Def.Start:d.Def.End], nil
}

// spend charges one tool use; submit tools also charge an attempt.
func (e *Env) spend(submit bool) error {
	if e.toolUses >= e.o.MaxToolUses {
		return fmt.Errorf("%w: all %d tool uses spent", ErrBudget, e.o.MaxToolUses)
	}
	if submit && len(e.attempts) >= e.o.MaxAttempts {
		return fmt.Errorf("%w: all %d submissions made", ErrBudget, e.o.MaxAttempts)
	}
	if !submit && e.toolUses == e.o.MaxToolUses-1 && len(e.attempts) == 0 {
		return fmt.Errorf("%w: the last tool use must be a submission", ErrBudget)
	}
	e.toolUses++
	return nil
}

// ListDirectory lists the first 100 entries of a working-copy directory ("" or "." for the
// root), sorted, directories with a trailing slash.
func (e *Env) ListDirectory(p string) (string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.spend(false); err != nil {
		return "", err
	}
	dir := path.Clean(strings.TrimPrefix(p, "/"))
	if dir != "." {
		if _, err := task.CleanRelPath(dir); err != nil {
			return "", fmt.Errorf("%w: %v", ErrToolArgs, err)
		}
	}
	names := map[string]bool{}
	full := e.root
	if dir != "." {
		j, err := task.SafeJoin(e.root, dir)
		if err != nil {
			return "", fmt.Errorf("%w: %v", ErrToolArgs, err)
		}
		full = j
	}
	ents, _ := os.ReadDir(full)
	for _, de := range ents {
		n := de.Name()
		if de.IsDir() {
			n += "/"
		}
		names[n] = true
	}
	for fp, ch := range e.work {
		rel := fp
		if dir != "." {
			if !strings.HasPrefix(fp, dir+"/") {
				continue
			}
			rel = strings.TrimPrefix(fp, dir+"/")
		}
		first, rest, isDir := strings.Cut(rel, "/")
		switch {
		case isDir && rest != "":
			names[first+"/"] = true
		case ch.Delete:
			delete(names, first)
		default:
			names[first] = true
		}
	}
	if len(names) == 0 {
		return "", fmt.Errorf("%w: no directory %q", ErrToolArgs, p)
	}
	list := make([]string, 0, len(names))
	for n := range names {
		list = append(list, n)
	}
	sort.Strings(list)
	more := ""
	if len(list) > 100 {
		more = fmt.Sprintf("\n… %d more entries", len(list)-100)
		list = list[:100]
	}
	return strings.Join(list, "\n") + more, nil
}

// SearchCode searches the working copy's source files for pattern (a regular expression;
// a pattern that does not compile is searched as plain text) and returns up to 100
// matching lines as "path:line: text".
func (e *Env) SearchCode(pattern string) (string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.spend(false); err != nil {
		return "", err
	}
	if pattern == "" {
		return "", fmt.Errorf("%w: empty pattern", ErrToolArgs)
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		re = regexp.MustCompile(regexp.QuoteMeta(pattern))
	}
	files := map[string]bool{}
	filepath.WalkDir(e.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		name := d.Name()
		if d.IsDir() {
			if p != e.root && repo.SkipSourceDir(name) {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && LanguageOf(name) != "" {
			rel, _ := filepath.Rel(e.root, p)
			files[filepath.ToSlash(rel)] = true
		}
		return nil
	})
	for p, ch := range e.work {
		files[p] = !ch.Delete && LanguageOf(p) != ""
	}
	var paths []string
	for p, ok := range files {
		if ok {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	var out []string
	for _, p := range paths {
		src, err := e.read(p)
		if err != nil || bytes.IndexByte(src, 0) >= 0 {
			continue
		}
		for i, line := range strings.Split(string(src), "\n") {
			if re.MatchString(line) {
				out = append(out, fmt.Sprintf("%s:%d: %s", p, i+1, strings.TrimSpace(line)))
				if len(out) == 100 {
					return strings.Join(out, "\n") + "\n… more matches not shown", nil
				}
			}
		}
	}
	if len(out) == 0 {
		return "no matches", nil
	}
	return strings.Join(out, "\n"), nil
}

// ReadFile returns a working-copy file, or, when it is larger than MaxFileBytes, the list
// of its functions (read those with ReadFunction).
func (e *Env) ReadFile(p string) (string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.spend(false); err != nil {
		return "", err
	}
	src, err := e.read(p)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrToolArgs, err)
	}
	if len(src) <= e.o.MaxFileBytes {
		return string(src), nil
	}
	list, err := e.functionList(p, src)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s is %d bytes, too large to show; its functions:\n%s", p, len(src), list), nil
}

func (e *Env) functionList(p string, src []byte) (string, error) {
	defs, err := e.functions(p, src)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, d := range defs {
		fmt.Fprintf(&b, "%s %s (lines %d-%d)\n", d.Kind, d.Name, d.Line, d.EndLine)
	}
	if b.Len() == 0 {
		return "no functions", nil
	}
	return b.String(), nil
}

// ListFileFunctions lists the functions, methods and classes of a working-copy file.
func (e *Env) ListFileFunctions(p string) (string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.spend(false); err != nil {
		return "", err
	}
	src, err := e.read(p)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrToolArgs, err)
	}
	return e.functionList(p, src)
}

// ReadFunction returns the source of one definition of a working-copy file.
func (e *Env) ReadFunction(p, name string) (string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.spend(false); err != nil {
		return "", err
	}
	src, err := e.read(p)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrToolArgs, err)
	}
	def, err := e.findFunction(p, name, src)
	if err != nil {
		return "", err
	}
	return string(def), nil
}

// replaceIn returns src with the definition name replaced by code, checked to parse.
func (e *Env) replaceIn(p, name string, src []byte, code string) ([]byte, error) {
	d, err := e.locate(p, name, src)
	if err != nil {
		return nil, err
	}
	code = strings.TrimRight(code, "\n")
	// A nested definition (a method) is written from its own column. Code comes in one of
	// two shapes: as read_function shows it (first line unindented, the rest as in the
	// file, so the first body line is indented deeper than the definition), or written
	// from column 0 (body indented relative to the def line). Only the second needs the
	// definition's indentation added to its continuation lines.
	code = strings.TrimLeft(code, " \t")
	if ind := indentOf(src, d.Def.Start); ind != "" {
		lines := strings.Split(code, "\n")
		fileShaped := false
		for _, l := range lines[1:] {
			if strings.TrimSpace(l) != "" {
				fileShaped = len(l)-len(strings.TrimLeft(l, " \t")) > len(ind)
				break
			}
		}
		if !fileShaped {
			for i := 1; i < len(lines); i++ {
				if strings.TrimSpace(lines[i]) != "" {
					lines[i] = ind + lines[i]
				}
			}
			code = strings.Join(lines, "\n")
		}
	}
	var out bytes.Buffer
	out.Write(src[:d.Def.Start])
	out.WriteString(code)
	out.Write(src[d.Def.End:])
	res := out.Bytes()
	if err := e.oneDefinition(p, name, d, res, d.Def.Start, d.Def.Start+len(code)); err != nil {
		return nil, err
	}
	if LanguageOf(p) == "go" {
		// Imports the REMOVE stub pruned come back when the new code uses them.
		if full, err := task.SafeJoin(e.root, p); err == nil {
			if orig, err := os.ReadFile(full); err == nil {
				res = restoreGoImports(orig, res)
			}
		}
	}
	l, _ := e.lang(p)
	a, err := l.Analyze(context.Background(), []callgraph.SourceFile{{Path: p, Src: res}})
	if err != nil {
		return nil, err
	}
	if len(a.Errors) > 0 {
		return nil, fmt.Errorf("%w: the new code does not parse: %v", ErrToolArgs, a.Errors[0])
	}
	return res, nil
}

// oneDefinition checks that the code written into res at [start, end) is exactly one
// definition of the function orig was (the same qualified name), with nothing around it
// but white space and comments: no second function, no trailing `func init()`, no
// statement that would run when the file is loaded.
func (e *Env) oneDefinition(p, name string, orig callgraph.Definition, res []byte, start, end int) error {
	defs, err := e.functions(p, res)
	if err != nil {
		return err
	}
	var inside []callgraph.Definition
	for _, d := range defs {
		if d.Def.Start >= start && d.Def.End <= end && d.Def.End > d.Def.Start {
			inside = append(inside, d)
		}
	}
	var outer []callgraph.Definition
	for _, d := range inside {
		nested := false
		for _, o := range inside {
			if o.ID != d.ID && o.Def.Start <= d.Def.Start && d.Def.End <= o.Def.End && (o.Def.Start < d.Def.Start || d.Def.End < o.Def.End) {
				nested = true
				break
			}
		}
		if !nested {
			outer = append(outer, d)
		}
	}
	if len(outer) != 1 {
		var names []string
		for _, d := range outer {
			names = append(names, d.Name)
		}
		what := "none"
		if len(names) > 0 {
			what = strings.Join(names, ", ")
		}
		return fmt.Errorf("%w: the code must be exactly one definition, of %s; it defines %s", ErrToolArgs, name, what)
	}
	d := outer[0]
	if d.Name != orig.Name {
		return fmt.Errorf("%w: the code defines %s, not %s", ErrToolArgs, d.Name, name)
	}
	rest := string(res[start:d.Def.Start]) + "\n" + string(res[d.Def.End:end])
	if extra := codeOutsideComments(rest, LanguageOf(p)); extra != "" {
		return fmt.Errorf("%w: the code holds more than the definition of %s: %q", ErrToolArgs, name, truncate(extra, 80))
	}
	return nil
}

// codeOutsideComments returns the first text of s that is neither white space nor a
// comment of lang (Python and shell-style "#"; Go, JavaScript and TypeScript "//" and
// "/* */"), from there to the end of its line, or "" when there is none. A Python
// decorator ("@…") is part of a definition and never left outside it.
func codeOutsideComments(s, lang string) string {
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			i++
		case lang == "python" && c == '#':
			i = lineEnd(s, i)
		case lang != "python" && strings.HasPrefix(s[i:], "//"):
			i = lineEnd(s, i)
		case lang != "python" && strings.HasPrefix(s[i:], "/*"):
			j := strings.Index(s[i+2:], "*/")
			if j < 0 {
				return s[i:lineEnd(s, i)]
			}
			i += j + 4
		default:
			return s[i:lineEnd(s, i)]
		}
	}
	return ""
}

func lineEnd(s string, i int) int {
	if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
		return i + j
	}
	return len(s)
}

// SubmitAttempt (REMOVE) replaces the removed function by code, runs the selected tests,
// restores the file, and returns the feedback. code is the whole definition (signature
// included); for a task with several removed functions it holds the definitions of all of
// them (a method may be written without its class).
func (e *Env) SubmitAttempt(ctx context.Context, code string) (Attempt, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.mode != Remove {
		return Attempt{}, fmt.Errorf("%w: submit_attempt(code) is a REMOVE tool; use replace_function and submit_attempt()", ErrToolArgs)
	}
	if err := e.spend(true); err != nil {
		return Attempt{}, err
	}
	defs, err := e.submittedDefinitions(code)
	trial := e.work.Clone()
	for i, f := range e.problem.Functions {
		if err != nil {
			break
		}
		var src, out []byte
		if ch, ok := trial[f.Path]; ok && !ch.Delete {
			src = ch.Data
		} else if src, err = e.read(f.Path); err != nil {
			return Attempt{}, err
		}
		if out, err = e.replaceIn(f.Path, f.Name, src, defs[i]); err == nil {
			trial.Set(f.Path, out)
		}
	}
	if err != nil {
		// A submission that does not parse still counts: it is an execution error.
		a := Attempt{State: task.RunCollectionError, Feedback: err.Error(), Failures: e.failsAtStart}
		e.attempts = append(e.attempts, a)
		return a, nil
	}
	return e.runAttempt(ctx, trial) // the working copy itself is unchanged: REMOVE restores
}

// submittedDefinitions splits a REMOVE submission into one definition per corrupted
// function, in the problem's order. With one function the whole code is its definition;
// with several, the code must define each of them (matched by qualified name, or by its
// last element for a method written without its class).
func (e *Env) submittedDefinitions(code string) ([]string, error) {
	fs := e.problem.Functions
	if len(fs) == 1 {
		return []string{code}, nil
	}
	l, err := e.lang(fs[0].Path)
	if err != nil {
		return nil, err
	}
	src := code
	if LanguageOf(fs[0].Path) == "go" && !strings.HasPrefix(strings.TrimSpace(code), "package ") {
		src = "package submission\n\n" + code
	}
	a, err := l.Analyze(context.Background(), []callgraph.SourceFile{{Path: "submission" + path.Ext(fs[0].Path), Src: []byte(src)}})
	if err != nil {
		return nil, err
	}
	if len(a.Errors) > 0 {
		return nil, fmt.Errorf("%w: the submission does not parse: %v", ErrToolArgs, a.Errors[0])
	}
	out := make([]string, len(fs))
	used := map[string]bool{}
	var missing []string
	for i, f := range fs {
		last := f.Name[strings.LastIndexByte(f.Name, '.')+1:]
		for _, d := range a.Definitions {
			if d.Parent == "" && d.Kind != task.KindModule && (d.Name == f.Name || d.Name == last) {
				out[i] = src[d.Def.Start:d.Def.End]
				used[d.ID] = true
				break
			}
		}
		if out[i] == "" {
			missing = append(missing, f.Name)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%w: the submission must define every removed function; missing: %s", ErrToolArgs, strings.Join(missing, ", "))
	}
	for _, d := range a.Definitions {
		if d.Parent == "" && d.Kind != task.KindModule && !used[d.ID] {
			return nil, fmt.Errorf("%w: the submission defines %s, which is not a removed function; submit only the removed functions", ErrToolArgs, d.Name)
		}
	}
	return out, nil
}

// ReplaceFunction (DISCOVERY) replaces a definition of the working copy persistently.
// Test files are refused.
func (e *Env) ReplaceFunction(p, name, code string) (string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.mode != Discovery {
		return "", fmt.Errorf("%w: replace_function is a DISCOVERY tool", ErrToolArgs)
	}
	if err := e.spend(false); err != nil {
		return "", err
	}
	c, err := task.CleanRelPath(p)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrToolArgs, err)
	}
	if e.o.IsTest(c) {
		return "", fmt.Errorf("%w: %s is a test file; tests may not be changed", ErrToolArgs, c)
	}
	src, err := e.read(c)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrToolArgs, err)
	}
	out, err := e.replaceIn(c, name, src, code)
	if err != nil {
		return "", err
	}
	e.work.Set(c, out)
	return fmt.Sprintf("replaced %s in %s", name, c), nil
}

// Submit (DISCOVERY) runs the selected tests on the working copy as it is.
func (e *Env) Submit(ctx context.Context) (Attempt, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.mode != Discovery {
		return Attempt{}, fmt.Errorf("%w: submit_attempt() without code is a DISCOVERY tool", ErrToolArgs)
	}
	if err := e.spend(true); err != nil {
		return Attempt{}, err
	}
	return e.runAttempt(ctx, e.work.Clone())
}

func (e *Env) runAttempt(ctx context.Context, o task.Overlay) (Attempt, error) {
	req := e.o.Run
	req.Root, req.Overlay = e.root, o
	req.Select = task.Selection{IDs: e.selected()}
	rep, err := e.runner.Run(ctx, req)
	if err != nil {
		e.toolUses-- // the runner failed, not the solver: the call is not charged
		return Attempt{}, err
	}
	a := Attempt{State: rep.State}
	rel := relativizer{root: e.root, overlay: o, known: map[string]string{}}
	var lines []string
	for _, id := range req.Select.IDs {
		t, ok := rep.Result(id)
		switch {
		case ok && t.Outcome.Passed():
			continue
		case ok && t.Outcome.Failed():
			a.Failures++
			lines = append(lines, fmt.Sprintf("FAILED %s\n%s", id, truncate(rel.relativize(t.Message), 600)))
		case ok && t.Outcome.Decided():
			a.Unverified++
			lines = append(lines, fmt.Sprintf("SKIPPED %s", id))
		default:
			a.Unverified++
			why := "missing from the test report"
			if ok && t.Message != "" {
				why = truncate(rel.relativize(t.Message), 300)
			}
			lines = append(lines, fmt.Sprintf("NOT RUN %s (%s)", id, why))
		}
	}
	switch {
	case !rep.Ran():
		a.Failures, a.Unverified = len(req.Select.IDs), 0
		a.Feedback = fmt.Sprintf("the tests could not run (%s):\n%s", rep.State, truncate(rel.relativize(rep.Detail), e.o.FeedbackLen))
		if rep.State == task.RunUntrusted {
			a.Feedback = fmt.Sprintf("the test run's evidence is inconsistent (%s): no test counts as passed:\n%s", rep.State, truncate(rel.relativize(rep.Detail), e.o.FeedbackLen))
		}
	case a.Failures == 0 && a.Unverified == 0:
		a.Passed, a.Partial = true, 1
		a.Feedback = fmt.Sprintf("all %d tests passed", len(req.Select.IDs))
	default:
		a.Partial = 1 - min(float64(a.Failures+a.Unverified)/float64(max(e.failsAtStart, 1)), 1)
		head := fmt.Sprintf("%d of %d tests failed", a.Failures, len(req.Select.IDs))
		if a.Unverified > 0 {
			head += fmt.Sprintf(", %d did not pass without failing (skipped or not run)", a.Unverified)
		}
		a.Feedback = truncate(head+":\n"+strings.Join(lines, "\n"), e.o.FeedbackLen)
	}
	a.Feedback = e.o.Redact(a.Feedback)
	e.attempts = append(e.attempts, a)
	return a, nil
}

func (e *Env) selected() []string {
	ids := append(append([]string{}, e.problem.FailToPass...), e.problem.PassToPass...)
	sort.Strings(ids)
	return ids
}

// Score returns the trajectory's score so far.
func (e *Env) Score() Score {
	e.mu.Lock()
	defer e.mu.Unlock()
	s := Score{Attempts: append([]Attempt(nil), e.attempts...), ToolUses: e.toolUses}
	for _, a := range e.attempts {
		s.Best = max(s.Best, a.Partial)
	}
	if n := len(e.attempts); n > 0 {
		last := e.attempts[n-1]
		s.Partial, s.Success = last.Partial, last.Passed
	}
	switch e.mode {
	case Remove:
		s.Diagnosed = len(e.attempts) > 0 // the target is named: submitting is diagnosing
	case Discovery:
		modified := 0
		for _, f := range e.problem.Functions {
			src, err := e.read(f.Path)
			if err != nil {
				continue
			}
			def, err := e.findFunction(f.Path, f.Name, src)
			if err != nil || !bytes.Equal(def, e.corrupted[f.Path+"::"+f.Name]) {
				modified++ // replaced (or removed) since the corruption
			}
		}
		s.Diagnosed = modified > 0
		if s.Success && modified < len(e.problem.Functions) {
			s.Success, s.Hacked = false, true
		}
	}
	return s
}

// Remaining returns the tool uses and submissions left.
func (e *Env) Remaining() (toolUses, attempts int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.o.MaxToolUses - e.toolUses, e.o.MaxAttempts - len(e.attempts)
}

// ToolSpec describes a tool for function calling: Parameters is a JSON Schema object.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

func schema(props map[string]string, required ...string) json.RawMessage {
	type prop struct {
		Type        string `json:"type"`
		Description string `json:"description"`
	}
	p := map[string]prop{}
	for k, v := range props {
		p[k] = prop{Type: "string", Description: v}
	}
	if required == nil {
		required = []string{}
	}
	b, _ := json.Marshal(struct {
		Type       string          `json:"type"`
		Properties map[string]prop `json:"properties"`
		Required   []string        `json:"required"`
	}{"object", p, required})
	return b
}

// Tools returns the tools available now, in a fixed order: none once the budget is spent,
// only the submission tool when the last tool use must be a submission.
func (e *Env) Tools() []ToolSpec {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.toolUses >= e.o.MaxToolUses {
		return nil
	}
	var submit []ToolSpec
	if len(e.attempts) < e.o.MaxAttempts {
		if e.mode == Remove {
			f := e.problem.Functions[0]
			desc := fmt.Sprintf("Replace the function %s in %s by your implementation (the whole definition, signature included) and run the tests; the file is restored afterwards. %d submission(s) left.", f.Name, f.Path, e.o.MaxAttempts-len(e.attempts))
			arg := "the complete function definition"
			if len(e.problem.Functions) > 1 {
				var names []string
				for _, g := range e.problem.Functions {
					names = append(names, g.Name+" in "+g.Path)
				}
				desc = fmt.Sprintf("Replace the removed functions (%s) by your implementations — all of them in one submission, each as a whole definition — and run the tests; the files are restored afterwards. %d submission(s) left.", strings.Join(names, "; "), e.o.MaxAttempts-len(e.attempts))
				arg = "the complete definitions of every removed function, one after another"
			}
			submit = []ToolSpec{{ToolSubmitAttempt, desc, schema(map[string]string{"code": arg}, "code")}}
		} else {
			submit = []ToolSpec{{ToolSubmitAttempt, fmt.Sprintf("Run the tests on the repository as you have changed it. %d submission(s) left.", e.o.MaxAttempts-len(e.attempts)), schema(map[string]string{})}}
		}
	}
	if e.toolUses == e.o.MaxToolUses-1 && len(e.attempts) == 0 {
		return submit
	}
	tools := []ToolSpec{
		{ToolListDirectory, "List the first 100 entries of a directory of the repository.", schema(map[string]string{"path": "directory relative to the repository root (\".\" for the root)"}, "path")},
		{ToolSearchCode, "Search the repository's source files for a regular expression (or plain text) and return matching lines.", schema(map[string]string{"pattern": "regular expression or text"}, "pattern")},
		{ToolReadFile, "Read a file of the repository (a large file returns its list of functions instead).", schema(map[string]string{"path": "file path relative to the repository root"}, "path")},
		{ToolListFileFunctions, "List the functions, methods and classes defined in a file.", schema(map[string]string{"path": "file path relative to the repository root"}, "path")},
		{ToolReadFunction, "Read the source of one function or class.", schema(map[string]string{"path": "file path", "name": "qualified name, e.g. Class.method"}, "path", "name")},
	}
	if e.mode == Discovery {
		tools = append(tools, ToolSpec{ToolReplaceFunction, "Replace a function of a non-test file by new code (the whole definition); the change persists.",
			schema(map[string]string{"path": "file path", "name": "qualified name", "code": "the complete new definition"}, "path", "name", "code")})
	}
	return append(tools, submit...)
}

// Call dispatches a function call by name with JSON arguments, as a tool-calling model
// makes it, and returns the text to send back. Errors wrapping ErrToolArgs or ErrBudget are
// meant to be shown to the model; other errors are the environment's own failures.
func (e *Env) Call(ctx context.Context, name string, args json.RawMessage) (string, error) {
	var a struct{ Path, Name, Pattern, Code string }
	if len(bytes.TrimSpace(args)) > 0 {
		if err := json.Unmarshal(args, &a); err != nil {
			return "", fmt.Errorf("%w: arguments of %s are not a JSON object: %v", ErrToolArgs, name, err)
		}
	}
	switch name {
	case ToolListDirectory:
		return e.ListDirectory(a.Path)
	case ToolSearchCode:
		return e.SearchCode(a.Pattern)
	case ToolReadFile:
		return e.ReadFile(a.Path)
	case ToolListFileFunctions:
		return e.ListFileFunctions(a.Path)
	case ToolReadFunction:
		return e.ReadFunction(a.Path, a.Name)
	case ToolReplaceFunction:
		return e.ReplaceFunction(a.Path, a.Name, a.Code)
	case ToolSubmitAttempt:
		var at Attempt
		var err error
		if e.mode == Remove {
			at, err = e.SubmitAttempt(ctx, a.Code)
		} else {
			at, err = e.Submit(ctx)
		}
		return at.Feedback, err
	}
	return "", fmt.Errorf("%w: unknown tool %q", ErrToolArgs, name)
}
