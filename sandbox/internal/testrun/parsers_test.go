package testrun

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/faultline-dev/faultline/task"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type pytestRef struct {
	Outcomes  map[string]task.Outcome `json:"outcomes"`
	Collected []string                `json:"collected"`
}

func loadPytestRef(t *testing.T) pytestRef {
	t.Helper()
	b, err := os.ReadFile("../../testdata/pytest-ref/expected.json")
	require.NoError(t, err)
	var ref pytestRef
	require.NoError(t, json.Unmarshal(b, &ref))
	require.NotEmpty(t, ref.Outcomes)
	return ref
}

// TestParseJUnitMatchesPytest compares the JUnit parser (refined by the -rA summary, as
// Local does) with pytest's own per-test verdicts recorded by testdata/pytest-ref/gen.py.
func TestParseJUnitMatchesPytest(t *testing.T) {
	ref := loadPytestRef(t)
	f, err := os.Open("../../testdata/pytest-ref/junit.xml")
	require.NoError(t, err)
	defer f.Close()
	jr, err := ParseJUnit(f, 0)
	require.NoError(t, err)
	assert.Empty(t, jr.CollectionErrors)

	ra, err := os.ReadFile("../../testdata/pytest-ref/ra.txt")
	require.NoError(t, err)
	rep := &task.Report{}
	pytestReport(rep, jr, ParseSummary(bytes.NewReader(ra)), string(ra), "", ProcResult{ExitCode: 1}, defaultLimits())
	assert.Equal(t, task.RunOK, rep.State)

	got := map[string]task.Outcome{}
	for _, tr := range rep.Tests {
		got[tr.ID] = tr.Outcome
	}
	assert.Equal(t, ref.Outcomes, got)
	ids := rep.IDs(func(task.Outcome) bool { return true })
	assert.Equal(t, ref.Collected, ids, "report ids equal pytest --collect-only ids")

	// JUnit alone cannot tell XPASS from PASSED.
	for _, tr := range jr.Tests {
		if ref.Outcomes[tr.ID] == task.XPass {
			assert.Equal(t, task.Pass, tr.Outcome)
		} else {
			assert.Equal(t, ref.Outcomes[tr.ID], tr.Outcome, tr.ID)
		}
	}
	r, _ := rep.Result("test_basic.py::test_fail")
	assert.Contains(t, r.Message, "arithmetic is broken")
	r, _ = rep.Result("test_fixtures.py::test_teardown_error")
	assert.Contains(t, r.Message, "teardown exploded")
}

// TestParseSummaryMatchesPytest checks the -rA fallback alone against pytest's verdicts:
// every test pytest lists in the summary (all but skips, which -rA names by location) gets
// pytest's outcome. Parameter ids with spaces and brackets that do not balance
// (testdata/pyfix/test_params.py) are read whole from the line alone; one whose text holds
// the separator "] - " of a failure's message cannot be, and is read right once the ids
// pytest collected are known (resplitSummary).
func TestParseSummaryMatchesPytest(t *testing.T) {
	ref := loadPytestRef(t)
	ra, err := os.ReadFile("../../testdata/pytest-ref/ra.txt")
	require.NoError(t, err)
	want := map[string]task.Outcome{}
	ambiguous := 0
	for id, o := range ref.Outcomes {
		if o != task.Skip {
			want[id] = o
		}
		if strings.Contains(id, "] - ") {
			ambiguous++
		}
	}
	require.Equal(t, 2, ambiguous, "the fixture has two ids that hold the separator")
	lines := ParseSummary(bytes.NewReader(ra))
	outcomes := func(lines []SummaryLine) map[string]task.Outcome {
		tests, coll := summaryResults(lines, 0)
		assert.Empty(t, coll)
		got := map[string]task.Outcome{}
		for _, tr := range tests {
			got[tr.ID] = tr.Outcome
		}
		return got
	}
	alone := outcomes(lines)
	for id, o := range want {
		if strings.Contains(id, "] - ") {
			assert.NotContains(t, alone, id)
		} else {
			assert.Equal(t, o, alone[id], id)
		}
	}
	assert.Len(t, alone, len(want))
	assert.Equal(t, want, outcomes(resplitSummary(lines, ref.Collected)))
	for _, l := range resplitSummary(lines, ref.Collected) {
		if strings.HasPrefix(l.ID, "test_params.py::test_fails") {
			assert.True(t, strings.HasPrefix(l.Message, "AssertionError: no match"), l.Message)
		}
	}
}

func TestParseSummaryLines(t *testing.T) {
	in := strings.Join([]string{
		"FAILED a/test_x.py::T::test_y[p q] - AssertionError: no",
		"XPASS a/test_x.py::test_z reason words",
		"ERROR a/test_bad.py - SyntaxError: invalid syntax",
		"FAILED to do something useful",     // not a node id
		"SKIPPED [2] a/test_x.py:3: reason", // a location, not a test
		"PASSED a/test_x.py::test_ok",
		"PASSED a/test_x.py::test_p[foo { bar: (]) ; baz: U+20 }]",
		"FAILED a/test_x.py::test_p[bar: (]) ; baz] - AssertionError: ]) x",
		"XFAIL a/test_x.py::test_p[[x] - reason",
		"PASSED",
	}, "\n")
	got := ParseSummary(strings.NewReader(in))
	want := []SummaryLine{
		{ID: "a/test_x.py::T::test_y[p q]", Outcome: task.Fail, Message: "AssertionError: no"},
		{ID: "a/test_x.py::test_z", Outcome: task.XPass, Message: "reason words"},
		{ID: "a/test_bad.py", Outcome: task.Error, Message: "SyntaxError: invalid syntax"},
		{ID: "a/test_x.py::test_ok", Outcome: task.Pass},
		{ID: "a/test_x.py::test_p[foo { bar: (]) ; baz: U+20 }]", Outcome: task.Pass},
		{ID: "a/test_x.py::test_p[bar: (]) ; baz]", Outcome: task.Fail, Message: "AssertionError: ]) x"},
		{ID: "a/test_x.py::test_p[[x]", Outcome: task.XFail, Message: "reason"},
	}
	assert.Equal(t, want, got)
	tests, coll := summaryResults(got, 0)
	assert.Len(t, tests, 6)
	assert.Equal(t, []string{"a/test_bad.py: SyntaxError: invalid syntax"}, coll)
}

func TestParseSummaryLongLine(t *testing.T) {
	in := "PASSED a/test_x.py::test_a\n" + strings.Repeat("x", 3<<20) + "\nPASSED a/test_x.py::test_b\n"
	got := ParseSummary(strings.NewReader(in))
	require.Len(t, got, 2)
	assert.Equal(t, "a/test_x.py::test_b", got[1].ID)
}

func TestJUnitNodeIDs(t *testing.T) {
	cases := []struct{ file, class, name, want string }{
		{"tests/test_a.py", "tests.test_a", "test_f", "tests/test_a.py::test_f"},
		{"tests/test_a.py", "tests.test_a.TestC", "test_m[x]", "tests/test_a.py::TestC::test_m[x]"},
		{"", "pkg.tests.test_a.TestC.Inner", "test_m", "pkg/tests/test_a.py::TestC::Inner::test_m"},
		{"", "test_top", "test_f", "test_top.py::test_f"},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, junitNodeID(c.file, c.class, c.name))
	}
}

func TestParseJUnitCollectionError(t *testing.T) {
	xml := `<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" errors="1">
<testcase classname="" name="test_bad" time="0.000"><error message="collection failure">  File "test_bad.py", line 1
SyntaxError: invalid syntax</error></testcase></testsuite></testsuites>`
	jr, err := ParseJUnit(strings.NewReader(xml), 0)
	require.NoError(t, err)
	assert.Empty(t, jr.Tests)
	require.Len(t, jr.CollectionErrors, 1)
	assert.Contains(t, jr.CollectionErrors[0], "SyntaxError")
}

func TestParseJUnitGarbage(t *testing.T) {
	for _, in := range []string{"", "not xml", "<a><b></a>", "<testsuite><testcase name='x' classname='m'><failure>"} {
		_, err := ParseJUnit(strings.NewReader(in), 0)
		assert.Error(t, err, "%q", in)
	}
}

// goFixtureStream runs the real `go test -json` on testdata/gofix (copied) and returns its
// stream.
func goFixtureStream(t *testing.T, pkgs ...string) []byte {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go command not found")
	}
	dir := t.TempDir()
	require.NoError(t, os.CopyFS(filepath.Join(dir, "m"), os.DirFS(filepath.Join("..", "..", "testdata", "gofix"))))
	cmd := exec.Command("go", append([]string{"test", "-json", "-count=1", "-timeout=3s"}, pkgs...)...)
	cmd.Dir = filepath.Join(dir, "m")
	out, _ := cmd.Output()
	require.NotEmpty(t, out)
	return out
}

func TestGoParserRealStream(t *testing.T) {
	out := goFixtureStream(t, "./ok", "./panics", "./broken", "./slow")
	gr, err := ParseGoJSON(bytes.NewReader(out), 0)
	require.NoError(t, err)
	got := map[string]task.Outcome{}
	for _, tr := range gr.Tests {
		got[tr.ID] = tr.Outcome
	}
	want := map[string]task.Outcome{
		"example.com/gofix/ok.TestPass":              task.Pass,
		"example.com/gofix/ok.TestFail":              task.Fail,
		"example.com/gofix/ok.TestSkip":              task.Skip,
		"example.com/gofix/ok.TestSub":               task.Fail,
		"example.com/gofix/ok.TestSub/with_space":    task.Pass,
		"example.com/gofix/ok.TestSub/with_space#01": task.Fail,
		"example.com/gofix/ok.TestSub/a.b":           task.Pass,
		"example.com/gofix/panics.TestBefore":        task.Pass,
		"example.com/gofix/panics.TestPanic":         task.Fail,
		"example.com/gofix/slow.TestQuick":           task.Pass,
		"example.com/gofix/slow.TestSleep":           task.Timeout,
	}
	assert.Equal(t, want, got)
	assert.Equal(t, []string{"example.com/gofix/broken"}, gr.BuildFailed)
	assert.Contains(t, gr.BuildOutput, "undefinedFunction")
	assert.Equal(t, []string{"example.com/gofix/broken", "example.com/gofix/ok", "example.com/gofix/panics", "example.com/gofix/slow"}, gr.FailedPackages)
	assert.Contains(t, gr.PackageOutput["example.com/gofix/panics"], "FAIL")
	assert.False(t, gr.Incomplete)
	r := gr.Tests[sort.Search(len(gr.Tests), func(i int) bool { return gr.Tests[i].ID >= "example.com/gofix/ok.TestFail" })]
	assert.Contains(t, r.Message, "boom")
	r = gr.Tests[sort.Search(len(gr.Tests), func(i int) bool { return gr.Tests[i].ID >= "example.com/gofix/panics.TestPanic" })]
	assert.Contains(t, r.Message, "in another goroutine")

	// A stream cut in the middle: the running test got no verdict of its own, unless the
	// run was killed at its time limit after it had run for at least half of it.
	cut := out[:bytes.Index(out, []byte(`"Test":"TestSleep"`))]
	cut = cut[:bytes.LastIndexByte(cut, '\n')+1]
	cut = append(cut, []byte(`{"Action":"run","Package":"example.com/gofix/slow","Test":"TestSleep"}`+"\n")...)
	gr, err = ParseGoJSON(bytes.NewReader(cut), 0)
	require.NoError(t, err)
	assert.True(t, gr.Incomplete)
	r, ok := resultIn(gr.Tests, "example.com/gofix/slow.TestSleep")
	require.True(t, ok)
	assert.Equal(t, task.NotRun, r.Outcome)
	assert.Contains(t, r.Message, "cut off")
	p := NewGoParser(0)
	p.Write(cut)
	p.Killed()
	r, ok = resultIn(p.Result().Tests, "example.com/gofix/slow.TestSleep")
	require.True(t, ok)
	assert.Equal(t, task.Timeout, r.Outcome, "the only test running when the run was killed, no times known")
}

func TestGoParserBoundsMessages(t *testing.T) {
	p := NewGoParser(100)
	p.Write([]byte(`{"Action":"run","Package":"p","Test":"TestA"}` + "\n"))
	line := `{"Action":"output","Package":"p","Test":"TestA","Output":"` + strings.Repeat("y", 1000) + `\n"}` + "\n"
	for range 1000 {
		p.Write([]byte(line))
	}
	// Split writes at arbitrary points.
	end := []byte(`{"Action":"fail","Package":"p","Test":"TestA"}` + "\n")
	p.Write(end[:7])
	p.Write(end[7:])
	r := p.Result()
	require.Len(t, r.Tests, 1)
	assert.Equal(t, task.Fail, r.Tests[0].Outcome)
	assert.LessOrEqual(t, len(r.Tests[0].Message), 100)
}

// TestSplitGoTestIDError: the runners' split is task.SplitGoTestID with an error wrapping
// ErrBadTestID for an id of no such shape.
func TestSplitGoTestIDError(t *testing.T) {
	cases := []struct{ id, pkg, test string }{
		{"example.com/m/a.TestX", "example.com/m/a", "TestX"},
		{"example.com/m/a.TestX/with_space#01", "example.com/m/a", "TestX/with_space#01"},
		{"gopkg.in/check.v1.TestY/a.b/c", "gopkg.in/check.v1", "TestY/a.b/c"},
		{"a.ExampleFoo", "a", "ExampleFoo"},
		{"x.Test", "x", "Test"},
	}
	for _, c := range cases {
		p, n, err := splitGoTestID(c.id)
		require.NoError(t, err, c.id)
		assert.Equal(t, c.pkg, p)
		assert.Equal(t, c.test, n)
	}
	for _, bad := range []string{"", "TestX", "a.Testify", "a.b", "a.Test-1"} {
		_, _, err := splitGoTestID(bad)
		assert.ErrorIs(t, err, ErrBadTestID, bad)
	}
}

func TestGoRunPattern(t *testing.T) {
	assert.Equal(t, "", GoRunPattern(nil))
	assert.Equal(t, "^(TestA|TestB)$", GoRunPattern([]string{"TestB", "TestA/x"}))
	assert.Equal(t, `^(TestA)$/^(a\.b|x\(y\))$`, GoRunPattern([]string{"TestA/x(y)", "TestA/a.b"}))
}

func TestCapWriter(t *testing.T) {
	var seen int
	w := NewCapture(10, func(p []byte) { seen += len(p) })
	for i := range 100 {
		w.Write([]byte{byte('a' + i%26)})
	}
	assert.Equal(t, 100, seen)
	assert.True(t, w.Truncated())
	s := w.String()
	assert.True(t, strings.HasPrefix(s, "abcde"), s)
	assert.True(t, strings.HasSuffix(s, "rstuv"), s) // bytes 95..99
	assert.Contains(t, s, "[... 90 bytes omitted ...]")

	w = NewCapture(10, nil)
	w.Write([]byte("abc"))
	assert.Equal(t, "abc", w.String())
	assert.False(t, w.Truncated())
	w.Write([]byte(strings.Repeat("z", 50) + "12345"))
	assert.True(t, strings.HasSuffix(w.String(), "12345"))
}

func TestTruncate(t *testing.T) {
	assert.Equal(t, "abc", Truncate("abc", 10))
	assert.Equal(t, "abc", Truncate("abc", 0))
	s := Truncate(strings.Repeat("é", 100), 50)
	assert.LessOrEqual(t, len(s), 50)
	assert.True(t, strings.HasSuffix(s, "[truncated]"))
	assert.True(t, strings.ToValidUTF8(s, "?") == s)
}

// TestParseJUnitBounded: texts, attribute values, comments and CDATA sections longer than
// MaxXMLText are cut before the decoder sees them (never inside an entity or a UTF-8
// sequence), and the file still parses to the same verdicts.
func TestParseJUnitBounded(t *testing.T) {
	long := func(unit string) string { return strings.Repeat(unit, MaxXMLText/len(unit)+1000) }
	doc := `<?xml version="1.0"?><!-- ` + long("-x") + ` --><testsuites><testsuite>` +
		`<testcase classname="m" name="test_a" file="m.py"><failure message="` + long("é&amp;") + `">` + long("ü&lt;") + `</failure></testcase>` +
		`<testcase classname="m" name="test_b" file="m.py"><system-out><![CDATA[` + long("]x") + `]]></system-out></testcase>` +
		`<testcase classname="m" name="test_c" file="m.py"><skipped type="pytest.xfail" message="x"/><skipped>second</skipped></testcase>` +
		`</testsuite></testsuites>`
	jr, err := ParseJUnit(strings.NewReader(doc), 100)
	require.NoError(t, err)
	assert.True(t, jr.Truncated)
	require.Len(t, jr.Tests, 3)
	assert.Equal(t, task.Fail, jr.Tests[0].Outcome)
	assert.LessOrEqual(t, len(jr.Tests[0].Message), 100)
	assert.True(t, utf8.ValidString(jr.Tests[0].Message))
	assert.Contains(t, jr.Tests[0].Message, "é&")
	assert.Equal(t, task.Pass, jr.Tests[1].Outcome)
	assert.Equal(t, task.XFail, jr.Tests[2].Outcome)

	// A tag longer than MaxXMLTag is an error, not memory.
	_, err = ParseJUnit(strings.NewReader(`<testsuite><testcase `+strings.Repeat("a", MaxXMLTag+10)+`/></testsuite>`), 0)
	assert.ErrorContains(t, err, "tag longer than")
}

func TestJUnitKey(t *testing.T) {
	for id, key := range map[string]string{
		"a/b/test_x.py::TestC::test_m[p::q]": "a.b.test_x.TestC::test_m[p::q]",
		"test_x.py::test_f":                  "test_x::test_f",
	} {
		assert.Equal(t, key, junitKey(id))
	}
	// A test inherited from another file: JUnit's file is where it is defined, the
	// classname where it was collected.
	assert.Equal(t, "p/test_doc.py::TestI::test_a", junitNodeID("p/test_imports.py", "p.test_doc.TestI", "test_a"))
}

// TestParseJUnitModuleSkip: a module skipped at collection (pytest.importorskip) is
// written as a nameless testcase with <skipped>: neither a test nor a collection error.
func TestParseJUnitModuleSkip(t *testing.T) {
	jr, err := ParseJUnit(strings.NewReader(`<testsuites><testsuite><testcase classname="" name="pkg.tests.test_agraph" time="0.000"><skipped type="pytest.skip" message="could not import 'pygraphviz'">/x.py:5: could not import</skipped></testcase></testsuite></testsuites>`), 0)
	require.NoError(t, err)
	assert.Empty(t, jr.Tests)
	assert.Empty(t, jr.CollectionErrors)
}
