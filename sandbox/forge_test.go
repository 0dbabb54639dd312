package sandbox

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/faultline-dev/faultline/task"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// forgeCase is a test that tries to turn its failure into a pass after the fact.
type forgeCase struct {
	dir    string // under testdata/forge/<kind>
	fail   string // the id of the test that really fails
	state  task.RunState
	detail string // in Detail when untrusted
	want   map[string]task.Outcome
	// blocked is the report when the privilege drop keeps the attack from running at all.
	blocked map[string]task.Outcome
}

var goForgeries = []forgeCase{
	{dir: "fakepass", fail: "example.com/forge/fakepass.TestFail", state: task.RunUntrusted, detail: "two end events"},
	{dir: "frames", fail: "example.com/forge/frames.TestFail", state: task.RunUntrusted, detail: "after the package ended",
		blocked: map[string]task.Outcome{"example.com/forge/frames.TestFail": task.Fail, "example.com/forge/frames.TestOK": task.Pass}},
	// Unmarked look-alike lines are output: not fooled, nothing to distrust.
	{dir: "plainpass", fail: "example.com/forge/plainpass.TestFail", state: task.RunOK,
		want: map[string]task.Outcome{"example.com/forge/plainpass.TestFail": task.Fail, "example.com/forge/plainpass.TestOK": task.Pass}},
	// A marked pass, then exit 0 before failing: go calls it a pass; the test was running
	// when its binary ended, and run alone it does so again.
	{dir: "exitzero", fail: "example.com/forge/exitzero.TestFail", state: task.RunOK,
		want: map[string]task.Outcome{"example.com/forge/exitzero.TestFail": task.Fail, "example.com/forge/exitzero.TestOK": task.Pass}},
}

var pyForgeries = []forgeCase{
	{dir: "junit", fail: "junit/test_x.py::test_fail", state: task.RunUntrusted, detail: "JUnit reports pass for junit.test_x::test_fail, the reporter fail"},
	{dir: "all", fail: "all/test_x.py::test_fail", state: task.RunUntrusted, detail: "the process exited with status 0 but pytest returned 1"},
	{dir: "exit0", fail: "exit0/test_x.py::test_fail", state: task.RunUntrusted, detail: "the process exited with status 0 but pytest returned 1"},
	{dir: "lines", fail: "lines/test_x.py::test_fail", state: task.RunUntrusted, detail: "stdout continues after pytest's final line"},
}

func checkForgery(t *testing.T, r task.Runner, root string, kind task.TestKind, c forgeCase) {
	rep, err := r.Run(context.Background(), task.RunRequest{Root: root, Kind: kind, Select: task.Selection{Files: []string{c.dir}}})
	require.NoError(t, err)
	if l, ok := r.(*Local); ok && c.blocked != nil && l.iso.dropUID {
		c.state, c.detail, c.want = task.RunOK, "", c.blocked
	}
	assert.Equal(t, c.state, rep.State, rep.Detail)
	if c.detail != "" {
		assert.Contains(t, rep.Detail, c.detail)
	}
	if c.want != nil {
		assert.Equal(t, c.want, outcomes(rep))
	}
	// Whatever the state, the failing test never counts as passing.
	assert.False(t, rep.AllPassed([]string{c.fail}))
	assert.False(t, rep.Green())
}

func TestForgedVerdictsGo(t *testing.T) {
	needGo(t)
	root := filepath.Join(t.TempDir(), "forge")
	require.NoError(t, copyTree(filepath.Join("testdata", "forge", "go"), root))
	for _, c := range goForgeries {
		t.Run(c.dir, func(t *testing.T) { checkForgery(t, local(t), root, task.GoTest, c) })
	}
}

func TestForgedVerdictsPytest(t *testing.T) {
	needPytest(t)
	root := filepath.Join(t.TempDir(), "forge")
	require.NoError(t, copyTree(filepath.Join("testdata", "forge", "py"), root))
	for _, c := range pyForgeries {
		t.Run(c.dir, func(t *testing.T) { checkForgery(t, local(t), root, task.Pytest, c) })
	}
}
