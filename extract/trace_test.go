package extract

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"context"
	"encoding/base64"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/faultline-dev/faultline/callgraph"
	"github.com/faultline-dev/faultline/callgraph/golang"
	"github.com/faultline-dev/faultline/callgraph/python"
	"github.com/faultline-dev/faultline/sandbox"
	"github.com/faultline-dev/faultline/task"
)

// pythonWithPytest returns Debian's interpreter when it can import pytest, else skips.
func pythonWithPytest(t testing.TB) string {
	t.Helper()
	const py = "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import pytest").Run(); err != nil {
		t.Skipf("extract: %s with pytest is not installed (apt-get install python3-pytest): %v", py, err)
	}
	return py
}

// readLines reads a testdata list: one entry per line, # comments and blank lines left out.
func readLines(t testing.TB, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		out = append(out, l)
	}
	require.NoError(t, sc.Err())
	return out
}

func traceEdges(tr *Trace) []string {
	var out []string
	for _, o := range tr.Objects {
		for _, c := range o.Callees {
			out = append(out, o.ID+" -> "+c)
		}
	}
	return out
}

func TestTracePythonFixture(t *testing.T) {
	py := pythonWithPytest(t)
	third, err := filepath.Abs("testdata/trace/thirdparty")
	require.NoError(t, err)
	r := sandbox.NewLocal(sandbox.Options{WorkDir: t.TempDir(), Python: py, Env: []string{"PYTHONPATH=" + third}})
	defer r.Close()
	root, err := filepath.Abs("testdata/trace/repo")
	require.NoError(t, err)
	ctx := context.Background()

	tr, rep, err := TracePython(ctx, r, task.RunRequest{Root: root}, "tests/test_core.py", false, TraceOptions{})
	require.NoError(t, err)
	require.True(t, rep.Green(), "the fixture's tests pass: %s %s", rep.State, rep.Output)
	require.Len(t, rep.Tests, 6)
	require.Equal(t, readLines(t, "testdata/trace/want_edges.txt"), traceEdges(tr))
	require.True(t, strings.HasPrefix(tr.Python, "3."), tr.Python)

	// The callback reached only through the fake third-party package ran twice there and once
	// at import time.
	twice, ok := tr.Lookup("pkg/util.py::twice::5")
	require.True(t, ok)
	require.Equal(t, 3, twice.Calls)
	// order() also ran in the thread, without a caller.
	order, ok := tr.Lookup("pkg/core.py::order::9")
	require.True(t, ok)
	require.Equal(t, 2, order.Calls)

	// Imports: the test file imports the tested names; core.py imports helper under an alias.
	var imps []string
	for _, im := range tr.Imports {
		if im.Target != "" {
			imps = append(imps, im.File+" "+im.Module+"."+im.Name+" = "+im.Target)
		}
	}
	require.Contains(t, imps, "pkg/core.py pkg.util.helper = pkg/util.py::helper::1")
	require.Contains(t, imps, "tests/test_core.py pkg.core.order = pkg/core.py::order::9")
	require.Contains(t, imps, "tests/test_core.py pkg.core.Box = pkg/core.py::Box::17")

	col, _, err := TracePython(ctx, r, task.RunRequest{Root: root}, "tests/test_core.py", true, TraceOptions{})
	require.NoError(t, err)
	require.Equal(t, readLines(t, "testdata/trace/want_protected.txt"), col.IDs())

	// The user's tree is untouched: no tracer, no trace file.
	_, err = os.Stat(filepath.Join(root, TracerModule+".py"))
	require.True(t, errors.Is(err, os.ErrNotExist))
	_, err = os.Stat(filepath.Join(root, ".faultline_trace.json"))
	require.True(t, errors.Is(err, os.ErrNotExist))

	// Same input, same trace.
	tr2, _, err := TracePython(ctx, r, task.RunRequest{Root: root}, "tests/test_core.py", false, TraceOptions{})
	require.NoError(t, err)
	require.Equal(t, tr, tr2)
}

func encodePayload(t testing.TB, doc string) string {
	t.Helper()
	var buf bytes.Buffer
	zw := zlib.NewWriter(&buf)
	_, err := zw.Write([]byte(doc))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return "noise\n" + traceBegin + "\n" + base64.StdEncoding.EncodeToString(buf.Bytes()) + "\n" + traceEnd + "\n"
}

func TestParseTraceOutput(t *testing.T) {
	good := `{"version":1,"python":"3.11.2","objects":[` +
		`{"id":"a.py::f::1","file":"a.py","name":"f","line":1,"calls":2,"callees":["a.py::g::5"]},` +
		`{"id":"a.py::g::5","file":"a.py","name":"g","line":5,"calls":1,"callees":[]}],` +
		`"imports":[{"file":"t.py","module":"a","name":"f","target":"a.py::f::1"}]}`
	tr, err := ParseTraceOutput(encodePayload(t, good))
	require.NoError(t, err)
	require.Equal(t, []string{"a.py::f::1", "a.py::g::5"}, tr.IDs())
	require.Equal(t, "a.py::f::1", tr.Imports[0].Target)

	cases := map[string]struct {
		out  string
		want error
	}{
		"no marker":   {"just pytest output\n", ErrNoTrace},
		"no end":      {traceBegin + "\nAAAA\n", ErrNoTrace},
		"not base64":  {traceBegin + "\n!!!\n" + traceEnd, ErrBadTrace},
		"not zlib":    {traceBegin + "\nAAAA\n" + traceEnd, ErrBadTrace},
		"bad json":    {encodePayload(t, "{"), ErrBadTrace},
		"bad version": {encodePayload(t, `{"version":2}`), ErrBadTrace},
		"unsorted": {encodePayload(t, `{"version":1,"objects":[{"id":"b.py::f::1","file":"b.py","name":"f","line":1},`+
			`{"id":"a.py::f::1","file":"a.py","name":"f","line":1}]}`), ErrBadTrace},
		"id mismatch":     {encodePayload(t, `{"version":1,"objects":[{"id":"b.py::f::1","file":"b.py","name":"g","line":1}]}`), ErrBadTrace},
		"dangling callee": {encodePayload(t, `{"version":1,"objects":[{"id":"b.py::f::1","file":"b.py","name":"f","line":1,"callees":["x.py::y::2"]}]}`), ErrBadTrace},
		"bad id":          {encodePayload(t, `{"version":1,"objects":[{"id":"b.py:f:1","file":"b.py","name":"f","line":1}]}`), ErrBadTrace},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := ParseTraceOutput(c.out)
			require.ErrorIs(t, err, c.want)
		})
	}
}

func TestParseObjectID(t *testing.T) {
	f, n, l, err := ParseObjectID("pkg/a.py::C.m::12")
	require.NoError(t, err)
	require.Equal(t, []any{"pkg/a.py", "C.m", 12}, []any{f, n, l})
	require.Equal(t, "pkg/a.py::C.m::12", ObjectID(f, n, l))
	for _, bad := range []string{"", "a.py", "a.py::f", "::f::1", "a.py::f::x", "a.py::f::-1", "a.py::::1"} {
		_, _, _, err := ParseObjectID(bad)
		require.ErrorIs(t, err, ErrBadTrace, bad)
	}
}

// FuzzParseTraceOutput checks that arbitrary output never panics and that whatever parses
// is valid and survives a re-encode.
func FuzzParseTraceOutput(f *testing.F) {
	f.Add(encodePayload(f, `{"version":1,"objects":[{"id":"a.py::f::1","file":"a.py","name":"f","line":1,"calls":1,"callees":[]}],"imports":[]}`))
	f.Add(traceBegin + "\n" + traceEnd)
	f.Add("x")
	f.Fuzz(func(t *testing.T, out string) {
		tr, err := ParseTraceOutput(out)
		if err != nil {
			return
		}
		require.NoError(t, tr.Validate())
		for _, o := range tr.Objects {
			require.Equal(t, o.ID, ObjectID(o.File, o.Name, o.Line))
		}
	})
}

// FuzzDecodeTrace fuzzes the JSON document directly.
func FuzzDecodeTrace(f *testing.F) {
	f.Add([]byte(`{"version":1,"objects":[{"id":"a.py::f::1","file":"a.py","name":"f","line":1,"calls":1,"callees":["a.py::f::1"]}],"imports":[{"file":"a","module":"b","name":"c","target":""}]}`))
	f.Add([]byte(`{"version":1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := DecodeTrace(data)
		if err != nil {
			return
		}
		require.NoError(t, tr.Validate())
		require.Equal(t, len(tr.Objects), len(tr.IDs()))
	})
}

func TestTraceGoFixture(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("extract: go command not found")
	}
	root, err := filepath.Abs("testdata/gotrace")
	require.NoError(t, err)
	ctx := context.Background()
	g, err := callgraph.Build(ctx, root, []callgraph.Language{golang.New(golang.Options{})}, callgraph.BuildOptions{})
	require.NoError(t, err)
	src, err := os.ReadFile(filepath.Join(root, "calc/calc_test.go"))
	require.NoError(t, err)
	ids := GoTestIDs("example.com/gotrace", "calc/calc_test.go", src)
	require.Equal(t, []string{"example.com/gotrace/calc.TestSum", "example.com/gotrace/calc.TestSorted"}, ids)

	r := sandbox.NewLocal(sandbox.Options{WorkDir: t.TempDir()})
	defer r.Close()
	tr, rep, err := TraceGo(ctx, r, task.RunRequest{Root: root}, g, "calc/calc_test.go", ids, GoTraceOptions{})
	require.NoError(t, err, "%+v", rep)
	require.True(t, rep.Green())
	require.Equal(t, readLines(t, "testdata/gotrace/want_edges.txt"), traceEdges(tr))
	require.Equal(t, []string{
		"calc/calc.go::Sorted::17", "calc/calc.go::Sum::6", "calc/calc.go::add::14", "calc/calc.go::less::23",
		"calc/calc_test.go::TestSorted::11", "calc/calc_test.go::TestSum::5",
		"calc/helpers_test.go::checkSorted::7",
	}, tr.IDs())
	// Through the helper, Sorted is a direct candidate of the test file (a top object).
	var direct []string
	for _, c := range Candidates(tr, "calc/calc_test.go", 0, nil) {
		if c.Direct() {
			direct = append(direct, c.ID)
		}
	}
	require.Equal(t, []string{"calc/calc.go::Sorted::17", "calc/calc.go::Sum::6"}, direct)
	add, _ := tr.Lookup("calc/calc.go::add::14")
	require.Positive(t, add.Calls)
}

func TestParseCoverProfile(t *testing.T) {
	text := "mode: set\nok  \tx\nexample.com/m/a.go:3.10,5.2 2 1\nexample.com/m/a.go:7.1,6.2 1 1\n  example.com/m/b.go:10.3,12.4 1 0\ngarbage.go:1.1,2.2 x 1\n"
	require.Equal(t, []CoverBlock{
		{File: "example.com/m/a.go", StartLine: 3, EndLine: 5, Stmts: 2, Count: 1},
		{File: "example.com/m/b.go", StartLine: 10, EndLine: 12, Stmts: 1, Count: 0},
	}, ParseCoverProfile(text))
}

func FuzzParseCoverProfile(f *testing.F) {
	f.Add("mode: set\na/b.go:1.2,3.4 5 6\n")
	f.Add("a.go:0.0,0.0 0 0")
	f.Fuzz(func(t *testing.T, text string) {
		for _, b := range ParseCoverProfile(text) {
			require.Positive(t, b.StartLine)
			require.GreaterOrEqual(t, b.EndLine, b.StartLine)
			require.True(t, strings.HasSuffix(b.File, ".go"))
		}
	})
}

// TestTracePythonNoQualname runs the tracer's pre-3.11 fallback (co_name, qualified by the
// class of self/cls when that class defines the code) and checks that DefIndex still maps
// every traced object to its definition by line.
func TestTracePythonNoQualname(t *testing.T) {
	py := pythonWithPytest(t)
	third, err := filepath.Abs("testdata/trace/thirdparty")
	require.NoError(t, err)
	root, err := filepath.Abs("testdata/trace/repo")
	require.NoError(t, err)
	r := sandbox.NewLocal(sandbox.Options{WorkDir: t.TempDir(), Python: py,
		Env: []string{"PYTHONPATH=" + third, "FAULTLINE_TRACE_NO_QUALNAME=1"}})
	defer r.Close()
	tr, _, err := TracePython(context.Background(), r, task.RunRequest{Root: root}, "tests/test_core.py", false, TraceOptions{})
	require.NoError(t, err)
	ids := tr.IDs()
	// The second get is the one Box's dict holds: qualified. The first (reached as first_get)
	// is not found under its name in the class: co_name only. Nested functions lose outer.
	require.Contains(t, ids, "pkg/core.py::Box.get::23")
	require.Contains(t, ids, "pkg/core.py::get::18")
	require.Contains(t, ids, "pkg/core.py::Other.__init__::28")
	require.Contains(t, ids, "pkg/core.py::inner::56")

	g, err := callgraph.Build(context.Background(), root, []callgraph.Language{python.New(python.Options{})}, callgraph.BuildOptions{})
	require.NoError(t, err)
	var fns []task.Function
	for _, n := range g.Nodes() {
		fns = append(fns, n.Function)
	}
	defs := NewDefIndex(fns)
	for _, o := range tr.Objects {
		if o.File != "pkg/core.py" {
			continue
		}
		d := defs.Find(o.File, o.Name, o.Line)
		require.NotNil(t, d, o.ID)
		require.True(t, d.Line == o.Line || d.DecoratorLine == o.Line, o.ID)
	}
	require.Equal(t, "Box.get", defs.Find("pkg/core.py", "get", 18).Name)
	require.Equal(t, "outer.inner", defs.Find("pkg/core.py", "inner", 56).Name)
	require.Nil(t, defs.Find("pkg/core.py", "nosuch", 18))
}

// TestModulePath: the module line as go.mod writes it (quoted, with a comment), and
// errors naming the file when there is no go.mod or no module line.
func TestModulePath(t *testing.T) {
	dir := t.TempDir()
	_, err := ModulePath(dir)
	require.ErrorContains(t, err, "go.mod")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("go 1.22\n"), 0o644))
	_, err = ModulePath(dir)
	require.ErrorContains(t, err, filepath.Join(dir, "go.mod")+" has no module line")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("// m\nmodule \"example.com/m\" // the module\n\ngo 1.22\n"), 0o644))
	p, err := ModulePath(dir)
	require.NoError(t, err)
	require.Equal(t, "example.com/m", p)
}
