package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/acceptance"
	"github.com/faultline-dev/faultline/task"
	"github.com/faultline-dev/faultline/task/repo"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// goDiffCopy copies github.com/sergi/go-diff from the module cache with a go.mod that
// resolves offline against the cache (its own testify v1.4.0 is not there).
func goDiffCopy(t testing.TB) (root string, env []string) {
	acceptance.Skip(t, "runs the tests of github.com/sergi/go-diff, a real repository")
	needGo(t)
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	require.NoError(t, err)
	src := filepath.Join(strings.TrimSpace(string(out)), "github.com", "sergi", "go-diff@v1.4.0")
	if _, err := os.Stat(src); err != nil {
		t.Skipf("github.com/sergi/go-diff@v1.4.0 not in the module cache: %v", err)
	}
	root = filepath.Join(t.TempDir(), "go-diff")
	require.NoError(t, copyTree(src, root))
	require.NoError(t, os.Chmod(filepath.Join(root, "go.mod"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, "go.mod"),
		[]byte("module github.com/sergi/go-diff\n\ngo 1.22\n\nrequire github.com/stretchr/testify v1.12.1\n"), 0o644))
	os.Remove(filepath.Join(root, "go.sum"))
	return root, []string{"GOFLAGS=-mod=mod", "GOPROXY=off", "GOSUMDB=off"}
}

var goVerdict = regexp.MustCompile(`(?m)^\s*--- (PASS|FAIL|SKIP): (\S+)`)

// bareGoVerdicts runs plain `go test -v` (no -json) in a copy of root with the overlay
// and returns the verdict lines the testing package prints, as test name → outcome.
func bareGoVerdicts(t testing.TB, root string, ov task.Overlay, env []string) map[string]task.Outcome {
	dir := filepath.Join(t.TempDir(), "ref")
	require.NoError(t, copyTree(root, dir))
	require.NoError(t, ov.WriteTo(dir))
	cmd := exec.Command("go", "test", "-v", "-count=1", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, _ := cmd.CombinedOutput()
	m := map[string]task.Outcome{}
	for _, g := range goVerdict.FindAllStringSubmatch(string(out), -1) {
		m[g[2]] = map[string]task.Outcome{"PASS": task.Pass, "FAIL": task.Fail, "SKIP": task.Skip}[g[1]]
	}
	require.NotEmpty(t, m, string(out))
	return m
}

func topLevel(rep *task.Report) []string {
	var ids []string
	for _, tr := range rep.Tests {
		if _, name, ok := task.SplitGoTestID(tr.ID); ok && !strings.Contains(name, "/") {
			ids = append(ids, tr.ID)
		}
	}
	return ids
}

func TestRealGoDiff(t *testing.T) {
	root, env := goDiffCopy(t)
	before := hashTree(t, root)
	l := NewLocal(Options{Env: env, Jobs: 1})
	defer l.Close()
	ctx := context.Background()
	req := task.RunRequest{Root: root, Kind: task.GoTest, Limits: task.Limits{Timeout: 5 * time.Minute}}

	ids, err := l.List(ctx, req)
	require.NoError(t, err)
	require.NotEmpty(t, ids)

	rep, err := l.Run(ctx, req)
	require.NoError(t, err)
	require.Equal(t, task.RunOK, rep.State, rep.Detail)
	assert.True(t, rep.Green(), "clean go-diff must be green: %v", rep.Failing())
	assert.Equal(t, ids, topLevel(rep), "report ids equal go test -list ids")

	// Break commonPrefixLength: it reports no common prefix.
	src, err := os.ReadFile(filepath.Join(root, "diffmatchpatch", "diff.go"))
	require.NoError(t, err)
	broken := bytes.Replace(src, []byte("func commonPrefixLength(text1, text2 []rune) int {\n"),
		[]byte("func commonPrefixLength(text1, text2 []rune) int {\n\tif len(text1) > 0 {\n\t\treturn 0\n\t}\n"), 1)
	require.NotEqual(t, src, broken)
	req.Overlay = task.Overlay{}
	req.Overlay.Set("diffmatchpatch/diff.go", broken)
	rep, err = l.Run(ctx, req)
	require.NoError(t, err)
	require.Equal(t, task.RunOK, rep.State, rep.Detail)
	assert.Equal(t, ids, topLevel(rep))
	assert.Contains(t, rep.Failing(), "github.com/sergi/go-diff/diffmatchpatch.TestCommonPrefixLength")

	// The verdicts equal what plain `go test -v` prints for the same program.
	ref := bareGoVerdicts(t, root, req.Overlay, env)
	got := map[string]task.Outcome{}
	for _, tr := range rep.Tests {
		_, name, _ := task.SplitGoTestID(tr.ID)
		got[name] = tr.Outcome
	}
	assert.Equal(t, ref, got)
	assert.Equal(t, before, hashTree(t, root), "the checkout was modified")
}

// simplejsonCopy copies Debian's python3-simplejson package to ROOT/simplejson.
func simplejsonCopy(t testing.TB) string {
	acceptance.Skip(t, "runs the tests of Debian's python3-simplejson, a real repository")
	needPytest(t)
	src := "/usr/lib/python3/dist-packages/simplejson"
	if _, err := os.Stat(filepath.Join(src, "tests")); err != nil {
		t.Skipf("python3-simplejson not installed (apt-get install -y python3-simplejson): %v", err)
	}
	root := t.TempDir()
	require.NoError(t, copyTree(src, filepath.Join(root, "simplejson")))
	return root
}

// pytestVerdicts runs Debian's pytest with testdata/pytest-ref/refplugin.py in a copy of
// root with the overlay: pytest's own verdict per node id.
func pytestVerdicts(t testing.TB, py, root string, ov task.Overlay, args ...string) map[string]task.Outcome {
	dir := filepath.Join(t.TempDir(), "ref")
	require.NoError(t, copyTree(root, dir))
	require.NoError(t, ov.WriteTo(dir))
	plug, err := filepath.Abs("testdata/pytest-ref")
	require.NoError(t, err)
	outPath := filepath.Join(t.TempDir(), "ref.json")
	cmd := exec.Command(py, append([]string{"-m", "pytest", "-p", "no:cacheprovider", "-p", "refplugin", "--rootdir=" + dir}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PYTHONPATH="+plug, "REF_OUT="+outPath, "PYTHONDONTWRITEBYTECODE=1")
	out, _ := cmd.CombinedOutput()
	b, err := os.ReadFile(outPath)
	require.NoError(t, err, string(out))
	m := map[string]task.Outcome{}
	require.NoError(t, json.Unmarshal(b, &m))
	return m
}

func TestRealSimplejson(t *testing.T) {
	py := needPytest(t)
	root := simplejsonCopy(t)
	before := hashTree(t, root)
	l := local(t)
	ctx := context.Background()
	req := task.RunRequest{Root: root, Kind: task.Pytest, Select: task.Selection{Files: []string{"simplejson/tests"}}}

	ids, err := l.List(ctx, req)
	require.NoError(t, err)
	require.NotEmpty(t, ids)
	rep, err := l.Run(ctx, req)
	require.NoError(t, err)
	require.Equal(t, task.RunOK, rep.State, rep.Detail)
	assert.Empty(t, rep.Failing())
	assert.Equal(t, ids, rep.IDs(func(task.Outcome) bool { return true }), "report ids equal pytest --collect-only ids")
	assert.Equal(t, pytestVerdicts(t, py, root, nil, "simplejson/tests"), outcomes(rep))

	// Break explicit separators: the item and key separators are swapped.
	src, err := os.ReadFile(filepath.Join(root, "simplejson", "encoder.py"))
	require.NoError(t, err)
	broken := bytes.Replace(src, []byte("self.item_separator, self.key_separator = separators"), []byte("self.key_separator, self.item_separator = separators"), 1)
	require.NotEqual(t, src, broken)
	req.Overlay = task.Overlay{}
	req.Overlay.Set("simplejson/encoder.py", broken)
	rep, err = l.Run(ctx, req)
	require.NoError(t, err)
	require.Equal(t, task.RunOK, rep.State, rep.Detail)
	assert.Contains(t, rep.Failing(), "simplejson/tests/test_separators.py::TestSeparators::test_separators")
	assert.Equal(t, ids, rep.IDs(func(task.Outcome) bool { return true }))
	assert.Equal(t, pytestVerdicts(t, py, root, req.Overlay, "simplejson/tests"), outcomes(rep))
	assert.Equal(t, before, hashTree(t, root), "the checkout was modified")
}

// TestRealCollectErrorNamesUserFiles: Debian's python3-uncertainties ships
// lib1to2/test_1to2.py, which imports lib2to3.tests (not installed by Debian), so pytest
// cannot collect the package. The readiness finding must name that file where the user has
// it, not in the slot's or the staging root's private copy, which are gone when it is read.
func TestRealCollectErrorNamesUserFiles(t *testing.T) {
	acceptance.Skip(t, "collects the tests of Debian's python3-uncertainties, a real repository")
	py := needPytest(t)
	src := "/usr/lib/python3/dist-packages/uncertainties"
	if _, err := os.Stat(filepath.Join(src, "lib1to2", "test_1to2.py")); err != nil {
		t.Skipf("python3-uncertainties not installed (apt-get install -y python3-uncertainties): %v", err)
	}
	root := t.TempDir()
	require.NoError(t, copyTree(src, filepath.Join(root, "uncertainties")))
	p, err := repo.Discover(filepath.Join(root, "uncertainties"), repo.Python)
	require.NoError(t, err)
	prep, err := Prepare(context.Background(), p, PrepareOptions{Python: py})
	require.NoError(t, err)
	defer prep.Close()
	require.NotEqual(t, p.Root, prep.Root, "the package is staged: the case where two private roots hide the user's")
	rd, err := Check(context.Background(), local(t), prep, CheckOptions{Runs: 1})
	require.NoError(t, err)
	require.NotEmpty(t, rd.Findings)
	what := rd.Findings[0].What
	assert.Contains(t, what, "cannot be collected")
	assert.Contains(t, what, filepath.Join(root, "uncertainties", "lib1to2", "test_1to2.py"))
	assert.NotContains(t, what, prep.Root)
	assert.NotContains(t, what, "/slot-")
	// The cause, not only pytest's warnings summary (which comes after it and is longer).
	assert.Contains(t, what, "No module named 'lib2to3.tests'")
}
