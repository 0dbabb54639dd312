package python

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/faultline-dev/faultline/callgraph"
	"github.com/faultline-dev/faultline/task"
)

func analyze(t *testing.T, opts Options, files ...string) *callgraph.Analysis {
	t.Helper()
	var sf []callgraph.SourceFile
	for k := 0; k+1 < len(files); k += 2 {
		sf = append(sf, callgraph.SourceFile{Path: files[k], Src: []byte(files[k+1])})
	}
	a, err := New(opts).Analyze(context.Background(), sf)
	require.NoError(t, err)
	return a
}

func defByID(a *callgraph.Analysis, id string) (callgraph.Definition, bool) {
	for _, d := range a.Definitions {
		if d.ID == id {
			return d, true
		}
	}
	return callgraph.Definition{}, false
}

func edges(a *callgraph.Analysis) []string {
	var out []string
	for _, c := range a.Calls {
		out = append(out, c.Caller+" -> "+c.Callee)
	}
	sort.Strings(out)
	return out
}

func TestFrontendBasics(t *testing.T) {
	fe := New(Options{})
	assert.Equal(t, "python", fe.Name())
	assert.True(t, fe.Match("pkg/mod.py"))
	assert.False(t, fe.Match("pkg/mod.go"))
	assert.False(t, fe.Match("pkg/py"))
}

func TestInventoryKindsParentsAndIDs(t *testing.T) {
	src := `import sys

class Outer(object):
    def method(self):
        def inner():
            return 1
        return inner

    class Nested:
        async def run(self):
            pass

if sys.version_info > (3,):
    def compat():
        return 3
else:
    def compat():
        return 2

compat()
`
	a := analyze(t, Options{}, "m.py", src)
	var got []string
	for _, d := range a.Definitions {
		got = append(got, string(d.Kind)+" "+d.ID+" parent="+d.Parent)
	}
	assert.Equal(t, []string{
		"module m.py::<module> parent=",
		"class m.py::Outer parent=",
		"method m.py::Outer.method parent=m.py::Outer",
		"function m.py::Outer.method.inner parent=m.py::Outer.method",
		"class m.py::Outer.Nested parent=m.py::Outer",
		"method m.py::Outer.Nested.run parent=m.py::Outer.Nested",
		"function m.py::compat@14 parent=",
		"function m.py::compat@17 parent=",
	}, got)
	assert.Equal(t, []string{"m.py::<module> -> m.py::compat@14", "m.py::<module> -> m.py::compat@17"}, edges(a))
	for _, d := range a.Definitions {
		assert.NoError(t, d.Validate(len(src)), d.ID)
		assert.Equal(t, "python", d.Language, d.ID)
	}
	// no module pseudo-definition without module-level calls
	b := analyze(t, Options{}, "n.py", "def f():\n    g()\n\ndef g():\n    pass\n")
	for _, d := range b.Definitions {
		assert.NotEqual(t, task.KindModule, d.Kind)
	}
}

func TestSpans(t *testing.T) {
	src := "@deco(1)\n@other\nasync def f(a,\n      b) -> int:\n    '''Doc.'''\n    return a  # trailing\n    # comment after\n\nclass C: pass\n"
	a := analyze(t, Options{}, "s.py", src)
	f, ok := defByID(a, "s.py::f")
	require.True(t, ok)
	text := func(s task.Span) string { return string(s.Text([]byte(src))) }
	assert.Equal(t, "@deco(1)\n@other\nasync def f(a,\n      b) -> int:\n    '''Doc.'''\n    return a", text(f.Def))
	assert.Equal(t, "async def f(a,\n      b) -> int:", text(f.Signature))
	assert.Equal(t, "'''Doc.'''", text(f.Doc))
	assert.Equal(t, "'''Doc.'''\n    return a", text(f.Body))
	assert.Equal(t, 3, f.Line)
	assert.Equal(t, 6, f.EndLine)
	assert.Equal(t, 1, f.DecoratorLine)
	assert.Equal(t, 6, f.Metrics.Lines)
	assert.Equal(t, 4, f.Metrics.CodeLines) // lines 3, 4, 5, 6
	c, ok := defByID(a, "s.py::C")
	require.True(t, ok)
	assert.Equal(t, "class C:", text(c.Signature))
	assert.Equal(t, "pass", text(c.Body))
	assert.True(t, c.Doc.Empty())
}

func TestMetrics(t *testing.T) {
	cases := []struct {
		name, src                string
		cyclomatic, nesting      int
		eta1, eta2, bigN1, bigN2 int
		codeLines                int
	}{
		{
			// tokens: def f ( a ) : return a + 1
			name: "straight", src: "def f(a):\n    return a + 1\n",
			cyclomatic: 1, nesting: 0, eta1: 6, eta2: 3, bigN1: 6, bigN2: 4, codeLines: 2,
		},
		{
			name: "branches",
			src: `def g(x, ys):
    if x and x > 1 or not x:
        for y in ys:
            while y:
                y -= 1
    elif x:
        pass
    try:
        z = [v for v in ys if v]
    except ValueError:
        z = 1 if x else 2
    match x:
        case 1:
            pass
        case _:
            pass
    return z
`,
			// if, and, or, for, while, elif, comprehension if, except, conditional, 2 cases
			cyclomatic: 12, nesting: 3, codeLines: 17,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := analyze(t, Options{}, "x.py", tc.src)
			require.NotEmpty(t, a.Definitions)
			m := a.Definitions[0].Metrics
			assert.Equal(t, tc.cyclomatic, m.Cyclomatic)
			assert.Equal(t, tc.nesting, m.Nesting)
			assert.Equal(t, tc.codeLines, m.CodeLines)
			if tc.eta1 > 0 {
				eta, n := float64(tc.eta1+tc.eta2), float64(tc.bigN1+tc.bigN2)
				assert.InDelta(t, n*math.Log2(eta), m.HalsteadVolume, 1e-9)
				assert.InDelta(t, float64(tc.eta1)/2*float64(tc.bigN2)/float64(tc.eta2), m.HalsteadDifficulty, 1e-9)
			}
		})
	}
}

// TestHalsteadMatchesCallgraphHalstead recomputes every definition's Halstead measures of
// a real package with callgraph.Halstead fed token strings, and compares with the
// front end's stamp-based counting.
func TestHalsteadMatchesCallgraphHalstead(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join(distPackages, "simplejson", "*.py"))
	paths = append(paths, filepath.Join("testdata", "tokens", "tricky.py"))
	p, err := newParser()
	require.NoError(t, err)
	defer p.close()
	checked := 0
	for _, path := range paths {
		src, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		var sc scratch
		cn := p.parse(src, nil)
		f := collectFile("f.py", src, cn, &sc)
		// rebuild the tree: the collector reuses buffers
		tr := buildTree(src, p.parse(src, nil), &scratch{})
		for _, d := range f.defs[1:] {
			var h callgraph.Halstead
			var node int32 = -1
			for i := range tr.nodes {
				n := &tr.nodes[i]
				if (n.kind == kFunctionDef || n.kind == kClassDef) && int(n.row)+1 == int(d.fn.Line) && int(n.start) == int(d.fn.Signature.Start) {
					node = int32(i)
				}
			}
			require.GreaterOrEqual(t, node, int32(0), d.qual)
			var walk func(i int32)
			walk = func(i int32) {
				n := &tr.nodes[i]
				switch {
				case n.kind == kString:
					h.Operand(tr.text(i))
					return
				case n.kind == kComment || n.kind == kLineContinuation:
					return
				case n.first < 0:
					if n.end == n.start || n.extra {
						return
					}
					if n.named {
						h.Operand(tr.text(i))
					} else {
						h.Operator(tr.symName(i))
					}
					return
				}
				for ch := n.first; ch >= 0; ch = tr.nodes[ch].next {
					walk(ch)
				}
			}
			walk(node)
			v, dd := h.Measures()
			assert.InDelta(t, v, d.metrics.halsteadVolume, 1e-9, d.qual)
			assert.InDelta(t, dd, d.metrics.halsteadDifficulty, 1e-9, d.qual)
			checked++
		}
	}
	require.Greater(t, checked, 10)
}

func TestSyntaxErrorPartialResults(t *testing.T) {
	src := "def ok():\n    helper()\n\ndef helper():\n    pass\n\ndef broken(:\n    pass\n"
	a := analyze(t, Options{}, "bad.py", src, "good.py", "def fine():\n    pass\n")
	require.Len(t, a.Errors, 1)
	var se *callgraph.SyntaxError
	require.True(t, errors.As(a.Errors[0], &se))
	assert.Equal(t, "bad.py", se.Path)
	assert.Equal(t, 7, se.Line)
	assert.Greater(t, se.Column, 0)
	assert.Contains(t, se.Error(), "bad.py:7:")
	_, ok := defByID(a, "bad.py::ok")
	assert.True(t, ok, "definitions before the error are kept")
	assert.Contains(t, edges(a), "bad.py::ok -> bad.py::helper")
	_, ok = defByID(a, "good.py::fine")
	assert.True(t, ok)
}

func TestArbitraryBytes(t *testing.T) {
	inputs := [][]byte{
		nil,
		{0},
		{0xff, 0xfe, 0xfd, '\n', 'd', 'e', 'f'},
		[]byte("def f(\x00):\n\treturn \xc3\x28\n"),
		[]byte(strings.Repeat("(", 5000)),
		[]byte(strings.Repeat("def f():\n", 300)),
		[]byte("class C(C):\n    def m(self):\n        super().m()\nC().m()\n"),
		[]byte("from . import *\nfrom .. import *\nimport a.b.c as d\nd.e()\n"),
	}
	for k, in := range inputs {
		a, err := New(Options{UniqueNameFallback: true}).Analyze(context.Background(), []callgraph.SourceFile{{Path: "x.py", Src: in}})
		require.NoError(t, err, k)
		checkAnalysis(t, a, map[string][]byte{"x.py": in})
	}
}

// checkAnalysis checks invariants every analysis satisfies.
func checkAnalysis(t *testing.T, a *callgraph.Analysis, srcs map[string][]byte) {
	t.Helper()
	ids := map[string]bool{}
	for _, d := range a.Definitions {
		if ids[d.ID] {
			t.Errorf("duplicate ID %s", d.ID)
		}
		ids[d.ID] = true
		if err := d.Validate(len(srcs[d.File])); err != nil {
			t.Error(err)
		}
		if d.Line > d.EndLine || d.DecoratorLine > d.Line {
			t.Errorf("%s: lines %d..%d decorator %d", d.ID, d.Line, d.EndLine, d.DecoratorLine)
		}
	}
	for _, c := range a.Calls {
		if !ids[c.Caller] || !ids[c.Callee] {
			t.Errorf("edge %s -> %s between unknown definitions", c.Caller, c.Callee)
		}
	}
	if a.CallSites != a.Resolved+a.Unresolved || a.Resolved < 0 || a.Unresolved < 0 {
		t.Errorf("call sites %d != %d + %d", a.CallSites, a.Resolved, a.Unresolved)
	}
}

func TestNameFallback(t *testing.T) {
	files := []string{
		"a.py", "class A:\n    def unique(self):\n        pass\n    def shared(self):\n        pass\n",
		"b.py", "class B:\n    def shared(self):\n        pass\n",
		"main.py", "def run(obj):\n    obj.unique()\n    obj.shared()\n    obj.missing()\n",
	}
	off := analyze(t, Options{}, files...)
	assert.Empty(t, edges(off))
	uniq := analyze(t, Options{UniqueNameFallback: true}, files...)
	assert.Equal(t, []string{"main.py::run -> a.py::A.unique"}, edges(uniq))
	wide := analyze(t, Options{WidenNameFallback: true}, files...)
	assert.Equal(t, []string{"main.py::run -> a.py::A.shared", "main.py::run -> a.py::A.unique", "main.py::run -> b.py::B.shared"}, edges(wide))
	assert.Equal(t, 1, wide.Unresolved)
	// the Guess modes are the same switches
	assert.Equal(t, edges(off), edges(analyze(t, Options{Guess: GuessNone}, files...)))
	assert.Equal(t, edges(uniq), edges(analyze(t, Options{Guess: GuessUnique}, files...)))
	assert.Equal(t, edges(wide), edges(analyze(t, Options{Guess: GuessAll}, files...)))
	// a flow fact beats the guess: a receiver known to be a B calls B.shared only
	known := append(files[:4:4], "main.py", "from b import B\n\ndef run():\n    obj = B()\n    obj.shared()\n")
	assert.Equal(t, []string{"main.py::run -> b.py::B.shared"}, edges(analyze(t, Options{Guess: GuessAll}, known...)))
}

func TestNoValueFlow(t *testing.T) {
	files := []string{"m.py", `def target():
    pass

def apply(fn):
    fn()

def give():
    return target

def main():
    apply(target)
    give()()
    x = target
    x()
`}
	full := analyze(t, Options{}, files...)
	assert.Contains(t, edges(full), "m.py::apply -> m.py::target")
	basic := analyze(t, Options{NoValueFlow: true}, files...)
	assert.NotContains(t, edges(basic), "m.py::apply -> m.py::target")
	assert.Equal(t, []string{"m.py::main -> m.py::apply", "m.py::main -> m.py::give", "m.py::main -> m.py::target"}, edges(basic))
}

func TestCallLinesAndCounts(t *testing.T) {
	a := analyze(t, Options{}, "m.py", "def f():\n    pass\n\nf()\nf(); f()\nprint(len('x'))\n")
	var lines []int
	for _, c := range a.Calls {
		lines = append(lines, c.Line)
	}
	assert.Equal(t, []int{4, 5}, lines, "one entry per caller, callee and line")
	assert.Equal(t, 5, a.CallSites)
	assert.Equal(t, 3, a.Resolved)
	assert.Equal(t, 2, a.Unresolved)
}

// TestImplicitCallCounts checks that the calls iteration, with and raise make implicitly
// count as call sites only when they reach project code.
func TestImplicitCallCounts(t *testing.T) {
	src := `class It:
    def __iter__(self):
        return iter([])

for x in [1, 2]:
    pass
for y in It():
    pass
with open("p") as fh:
    pass
raise ValueError
`
	a := analyze(t, Options{}, "m.py", src)
	assert.Equal(t, []string{"m.py::<module> -> m.py::It.__iter__"}, edges(a))
	// iter([]), It() (no __init__ in the project), the implicit It().__iter__ and
	// open("p"): the unresolved implicit calls (iterating the list, __next__ of iter([]),
	// the file's __enter__ and __exit__, raise ValueError) are not counted
	assert.Equal(t, 4, a.CallSites)
	assert.Equal(t, 1, a.Resolved)
}

func TestConcurrentAnalyzeDeterministic(t *testing.T) {
	var files []callgraph.SourceFile
	for _, fx := range loadFixtures(t) {
		for _, f := range fx.files {
			f.Path = fx.name + "/" + f.Path
			files = append(files, f)
		}
	}
	fe := New(Options{Workers: 3})
	want, err := fe.Analyze(context.Background(), files)
	require.NoError(t, err)
	var wg sync.WaitGroup
	results := make([]*callgraph.Analysis, 4)
	for k := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rev := append([]callgraph.SourceFile(nil), files...)
			for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
				rev[i], rev[j] = rev[j], rev[i]
			}
			a, err := fe.Analyze(context.Background(), rev)
			if err == nil {
				results[k] = a
			}
		}()
	}
	wg.Wait()
	for _, a := range results {
		require.NotNil(t, a)
		assert.True(t, reflect.DeepEqual(want, a), "same result whatever the file order and concurrency")
	}
}

func TestContextCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := New(Options{}).Analyze(ctx, []callgraph.SourceFile{{Path: "a.py", Src: []byte("x = 1\n")}})
	require.Error(t, err)
	assert.True(t, errors.Is(err, context.Canceled))
	assert.True(t, strings.HasPrefix(err.Error(), "python: "))
}

// TestIndentationLimit: CPython refuses a line that would open the 100th indentation level
// ("too many levels of indentation"); tree-sitter has no such limit and silently loses
// definitions past 255 levels. The front end reports a syntax error at the line CPython
// names (checked with /usr/bin/python3: 99 nested defs parse, 100 do not).
func TestIndentationLimit(t *testing.T) {
	nested := func(n int, indent string) string {
		var sb strings.Builder
		for i := 0; i < n; i++ {
			sb.WriteString(strings.Repeat(indent, i) + "def f" + strconv.Itoa(i) + "():\n")
		}
		sb.WriteString(strings.Repeat(indent, n) + "pass\n")
		return sb.String()
	}
	for _, tc := range []struct {
		name  string
		src   string
		line  int // 0: no error
		ndefs int
	}{
		{"99 levels", nested(99, " "), 0, 99},
		{"100 levels", nested(100, " "), 101, 100},
		{"tabs", nested(100, "\t"), 101, -1},
		{"300 levels", nested(300, " "), 101, -1},
		{"brackets and strings do not indent", "x = (\n" + strings.Repeat(" ", 150) + "1)\ns = \"\"\"\n" + strings.Repeat(" ", 150) + "text\n\"\"\"\n", 0, 0},
		{"comments and blank lines do not indent", strings.Repeat(" ", 120) + "# c\n" + strings.Repeat(" ", 120) + "\nx = 1\n", 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := analyze(t, Options{}, "d.py", tc.src)
			if tc.line == 0 {
				assert.Empty(t, a.Errors)
			} else {
				require.Len(t, a.Errors, 1)
				var se *callgraph.SyntaxError
				require.True(t, errors.As(a.Errors[0], &se))
				assert.Equal(t, tc.line, se.Line)
				assert.Equal(t, "too many levels of indentation", se.Msg)
			}
			if tc.ndefs >= 0 {
				n := 0
				for _, d := range a.Definitions {
					if d.Kind != task.KindModule {
						n++
					}
				}
				assert.Equal(t, tc.ndefs, n)
			}
		})
	}
}
