package extract

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/faultline-dev/faultline/callgraph"
	"github.com/faultline-dev/faultline/task"
	"github.com/faultline-dev/faultline/task/repo"
)

// CoverBlock is one block of a Go coverage profile: file (as the profile names it,
// import path + file name), 1-based start and end lines, statements and count.
type CoverBlock struct {
	File               string
	StartLine, EndLine int
	Stmts, Count       int
}

var coverLine = regexp.MustCompile(`^(\S+\.go):(\d+)\.(\d+),(\d+)\.(\d+) (\d+) (\d+)$`)

// ParseCoverProfile reads the blocks of a Go coverage profile (`go test -coverprofile`)
// out of text that may hold other lines (a run's output): every line of the block shape
// counts, other lines are ignored. Blocks of one file that appear several times (several
// test binaries merged) are kept as they come; callers sum the counts.
func ParseCoverProfile(text string) []CoverBlock {
	var out []CoverBlock
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		m := coverLine.FindStringSubmatch(strings.TrimSpace(sc.Text()))
		if m == nil {
			continue
		}
		n := make([]int, 6)
		ok := true
		for i := range n {
			v, err := strconv.Atoi(m[i+2])
			if err != nil {
				ok = false
				break
			}
			n[i] = v
		}
		if !ok || n[0] <= 0 || n[2] < n[0] {
			continue
		}
		out = append(out, CoverBlock{File: m[1], StartLine: n[0], EndLine: n[2], Stmts: n[4], Count: n[5]})
	}
	return out
}

// ModulePath returns the module path declared by root/go.mod.
func ModulePath(root string) (string, error) {
	gomod := filepath.Join(root, "go.mod")
	if _, err := os.Stat(gomod); err != nil {
		return "", fmt.Errorf("extract: module path: %w", err)
	}
	if p := repo.ReadGoMod(gomod).Path; p != "" {
		return p, nil
	}
	return "", fmt.Errorf("extract: module path: %s has no module line", gomod)
}

// GoTraceOptions configure TraceGo. The zero value works.
type GoTraceOptions struct {
	Limits task.Limits
	// ModulePath maps profile file names to repository paths; default: read from go.mod.
	ModulePath string
}

// TraceGo runs the Go tests named by ids (`import/path.TestName`, as a task.Report names
// them) with a coverage profile over every package of the module and returns the trace:
// the objects are the nodes of g (built with test files included, so that the tests are
// nodes) whose definition holds an executed block, plus the test functions themselves and
// the test-file functions reachable from them in g through test-file functions (coverage
// does not instrument _test.go files, so a test's helpers are known only statically);
// the edges are g's edges between them. testFile is the _test.go file declaring the tests
// (its functions named by ids are the roots and always present).
//
// The profile is written to the run's standard error (`-coverprofile=/dev/stderr`), which
// a task.Report carries in Output for Go runs; this needs a Linux-like /dev.
func TraceGo(ctx context.Context, r task.Runner, base task.RunRequest, g *callgraph.Graph, testFile string, ids []string, opts GoTraceOptions) (*Trace, *task.Report, error) {
	mod := opts.ModulePath
	if mod == "" {
		var err error
		if mod, err = ModulePath(base.Root); err != nil {
			return nil, nil, err
		}
	}
	req := base
	req.Kind = task.GoTest
	req.Select = task.Selection{IDs: slices.Clone(ids)}
	req.Limits = opts.Limits
	req.Args = append(slices.Clone(base.Args), "-coverprofile=/dev/stderr", "-coverpkg=./...")
	rep, err := r.Run(ctx, req)
	if err != nil {
		return nil, nil, fmt.Errorf("extract: trace %s: %w", testFile, err)
	}
	if !rep.Ran() {
		return nil, rep, fmt.Errorf("extract: trace %s: run %s: %s: %w", testFile, rep.State, firstLine(rep.Detail), ErrNoTrace)
	}
	blocks := ParseCoverProfile(rep.Output)
	if len(blocks) == 0 {
		return nil, rep, fmt.Errorf("extract: trace %s: no coverage profile in the output: %w", testFile, ErrNoTrace)
	}
	return goTrace(g, mod, testFile, ids, blocks), rep, nil
}

// goTrace turns covered blocks into a trace over g.
func goTrace(g *callgraph.Graph, mod, testFile string, ids []string, blocks []CoverBlock) *Trace {
	// Nodes by file, for mapping lines to the innermost enclosing definition.
	byFile := map[string][]int{}
	for i := 0; i < g.Len(); i++ {
		n := g.Node(i)
		if n.IsModule() {
			continue
		}
		byFile[n.File] = append(byFile[n.File], i)
	}
	executed := map[int]int{}
	for _, b := range blocks {
		if b.Count <= 0 {
			continue
		}
		rel := strings.TrimPrefix(b.File, mod+"/")
		if rel == b.File && mod != "" {
			continue // not in this module
		}
		best := -1
		for _, i := range byFile[rel] {
			n := g.Node(i)
			if n.Line <= b.StartLine && b.EndLine <= n.EndLine {
				if best < 0 || g.Node(best).Line < n.Line {
					best = i
				}
			}
		}
		if best >= 0 {
			executed[best] += b.Count
		}
	}
	// The tests themselves.
	for _, id := range ids {
		name := id[strings.LastIndex(id, ".")+1:]
		if k := strings.IndexByte(name, '/'); k >= 0 {
			name = name[:k]
		}
		for _, i := range byFile[testFile] {
			if g.Node(i).Name == name {
				executed[i]++
			}
		}
	}
	// Coverage does not instrument _test.go files, so of the test files' functions only the
	// tests themselves are known to have run. Their helpers (in any test file of the
	// module: a table-driven test's testXWith, a shared assertion) are taken from the static
	// graph: every test-file function reachable from the tests through test-file functions
	// counts as executed. Without it a test that calls the code under test through a helper
	// would reach nothing. Non-test functions still count only when their blocks ran.
	uninstrumented := func(i int) bool { return strings.HasSuffix(g.Node(i).File, "_test.go") }
	var stack []int
	for i := range executed {
		if uninstrumented(i) {
			stack = append(stack, i)
		}
	}
	slices.Sort(stack)
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, c := range g.Callees(i) {
			if _, ok := executed[c]; ok || !uninstrumented(c) {
				continue
			}
			executed[c] = 1 // entered at least once, as the tests themselves
			stack = append(stack, c)
		}
	}
	idx := make([]int, 0, len(executed))
	for i := range executed {
		idx = append(idx, i)
	}
	oid := func(i int) string { n := g.Node(i); return ObjectID(n.File, n.Name, n.Line) }
	t := &Trace{Imports: []Import{}}
	for _, i := range idx {
		n := g.Node(i)
		o := Object{ID: oid(i), File: n.File, Name: n.Name, Line: n.Line, Calls: executed[i], Callees: []string{}}
		for _, c := range g.Callees(i) {
			if _, ok := executed[c]; ok {
				o.Callees = append(o.Callees, oid(c))
			}
		}
		slices.Sort(o.Callees)
		o.Callees = slices.Compact(o.Callees)
		t.Objects = append(t.Objects, o)
	}
	slices.SortFunc(t.Objects, func(a, b Object) int { return strings.Compare(a.ID, b.ID) })
	if t.Objects == nil {
		t.Objects = []Object{}
	}
	return t
}

// GoTestNames returns the names of the top-level tests declared in a _test.go file's
// source (func TestX(t *testing.T)), in source order.
func GoTestNames(src []byte) []string {
	var out []string
	for _, m := range goTestDecl.FindAllSubmatch(src, -1) {
		out = append(out, string(m[1]))
	}
	return out
}

var goTestDecl = regexp.MustCompile(`(?m)^func (Test[A-Z_0-9]\w*|Test)\(\w+ \*testing\.T\)`)

// GoTestIDs returns the ids (`import/path.TestName`) of the tests declared in the
// _test.go file at the slash path file of the module mod.
func GoTestIDs(mod, file string, src []byte) []string {
	dir := path.Dir(file)
	pkg := mod
	if dir != "." {
		pkg = mod + "/" + dir
	}
	var ids []string
	for _, n := range GoTestNames(src) {
		ids = append(ids, pkg+"."+n)
	}
	return ids
}
