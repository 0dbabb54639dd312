package sandbox

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/task"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sharedLocal is one runner for the package's tests (its slots keep go's build cache warm).
var (
	sharedOnce sync.Once
	shared     *Local
)

func local(t testing.TB) *Local {
	sharedOnce.Do(func() { shared = NewLocal(Options{}) })
	return shared
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared != nil {
		shared.Close()
	}
	os.Exit(code)
}

// writeGoModule writes, into root, the module example.com/name with one test file,
// name_test.go, holding src.
func writeGoModule(t testing.TB, root, name, src string) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/"+name+"\n\ngo 1.21\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, name+"_test.go"), []byte(src), 0o644))
}

func needGo(t testing.TB) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go command not found")
	}
}

func needPytest(t testing.TB) string {
	py, err := findPython([]string{"/usr/bin/python3", "python3"})
	if err != nil {
		t.Skipf("no python3 with pytest (apt-get install -y python3-pytest): %v", err)
	}
	return py
}

// hashTree hashes every file, link and directory (with modes and mtimes) under root.
func hashTree(t testing.TB, root string) string {
	h := sha256.New()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		io.WriteString(h, rel+"\x00"+info.Mode().String()+"\x00"+info.ModTime().String()+"\x00")
		if info.Mode().IsRegular() {
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			io.Copy(h, f)
			f.Close()
		}
		return nil
	})
	require.NoError(t, err)
	return hex.EncodeToString(h.Sum(nil))
}

// fixture copies testdata/name to a fresh directory and returns it.
func fixture(t testing.TB, name string) string {
	dir := filepath.Join(t.TempDir(), name)
	require.NoError(t, copyTree(filepath.Join("testdata", name), dir))
	return dir
}

func outcomes(rep *task.Report) map[string]task.Outcome {
	m := map[string]task.Outcome{}
	for _, tr := range rep.Tests {
		m[tr.ID] = tr.Outcome
	}
	return m
}

func TestLocalGo(t *testing.T) {
	needGo(t)
	root := fixture(t, "gofix")
	before := hashTree(t, root)
	l := local(t)
	ctx := context.Background()
	req := task.RunRequest{Root: root, Kind: task.GoTest, Select: task.Selection{Files: []string{"ok", "lib/lib_test.go", "panics"}}}
	rep, err := l.Run(ctx, req)
	require.NoError(t, err)
	assert.Equal(t, task.RunOK, rep.State, rep.Detail)
	assert.Equal(t, map[string]task.Outcome{
		"example.com/gofix/lib.TestAdd":              task.Pass,
		"example.com/gofix/lib.TestAddZero":          task.Pass,
		"example.com/gofix/ok.TestPass":              task.Pass,
		"example.com/gofix/ok.TestFail":              task.Fail,
		"example.com/gofix/ok.TestSkip":              task.Skip,
		"example.com/gofix/ok.TestSub":               task.Fail,
		"example.com/gofix/ok.TestSub/with_space":    task.Pass,
		"example.com/gofix/ok.TestSub/with_space#01": task.Fail,
		"example.com/gofix/ok.TestSub/a.b":           task.Pass,
		"example.com/gofix/panics.TestBefore":        task.Pass,
		"example.com/gofix/panics.TestPanic":         task.Fail,
		// TestPanic's goroutine took the binary down before TestAfter: a re-run gave it
		// its own verdict.
		"example.com/gofix/panics.TestAfter": task.Pass,
	}, outcomes(rep))
	assert.True(t, sort.SliceIsSorted(rep.Tests, func(i, j int) bool { return rep.Tests[i].ID < rep.Tests[j].ID }))
	assert.NotEqual(t, 0, rep.ExitCode)
	assert.Positive(t, rep.Wall)

	// Selecting ids: a subtest with a mangled, duplicated name, and a whole test.
	req.Select = task.Selection{IDs: []string{"example.com/gofix/ok.TestSub/with_space#01", "example.com/gofix/lib.TestAdd"}}
	rep, err = l.Run(ctx, req)
	require.NoError(t, err)
	assert.Equal(t, map[string]task.Outcome{
		"example.com/gofix/lib.TestAdd":              task.Pass,
		"example.com/gofix/ok.TestSub":               task.Fail,
		"example.com/gofix/ok.TestSub/with_space#01": task.Fail,
	}, outcomes(rep))

	// An overlay that breaks Add fails exactly the tests that depend on it.
	req.Select = task.Selection{Files: []string{"lib"}}
	req.Overlay = task.Overlay{}
	req.Overlay.Set("lib/lib.go", []byte("package lib\n\nfunc Add(a, b int) int { return a - b }\n"))
	rep, err = l.Run(ctx, req)
	require.NoError(t, err)
	assert.Equal(t, map[string]task.Outcome{
		"example.com/gofix/lib.TestAdd":     task.Fail,
		"example.com/gofix/lib.TestAddZero": task.Pass,
	}, outcomes(rep))

	// A build failure is "could not run", with the compiler output.
	req.Overlay = task.Overlay{}
	req.Overlay.Set("lib/lib.go", []byte("package lib\n\nfunc Add(a, b int) int { return a - }\n"))
	rep, err = l.Run(ctx, req)
	require.NoError(t, err)
	assert.Equal(t, task.RunBuildFailed, rep.State)
	assert.Contains(t, rep.Detail, "lib.go:3")
	assert.False(t, rep.Ran())

	ids, err := l.List(ctx, task.RunRequest{Root: root, Kind: task.GoTest, Select: task.Selection{Files: []string{"ok", "lib"}}})
	require.NoError(t, err)
	assert.Equal(t, []string{"example.com/gofix/lib.TestAdd", "example.com/gofix/lib.TestAddZero",
		"example.com/gofix/ok.TestFail", "example.com/gofix/ok.TestPass", "example.com/gofix/ok.TestSkip", "example.com/gofix/ok.TestSub"}, ids)
	_, err = l.List(ctx, task.RunRequest{Root: root, Kind: task.GoTest, Select: task.Selection{Files: []string{"broken"}}})
	assert.ErrorIs(t, err, ErrListFailed)

	assert.Equal(t, before, hashTree(t, root), "the checkout was modified")
}

func TestLocalGoTimeout(t *testing.T) {
	needGo(t)
	root := fixture(t, "gofix")
	l := local(t)
	// go's own -timeout (90% of the limit) fires first: the running test times out.
	rep, err := l.Run(context.Background(), task.RunRequest{Root: root, Kind: task.GoTest,
		Select: task.Selection{Files: []string{"slow"}}, Limits: task.Limits{Timeout: 12 * time.Second}})
	require.NoError(t, err)
	assert.Equal(t, map[string]task.Outcome{
		"example.com/gofix/slow.TestQuick": task.Pass,
		"example.com/gofix/slow.TestSleep": task.Timeout,
	}, outcomes(rep))
	// When the hard limit hits first, the whole run is a time-out.
	rep, err = l.Run(context.Background(), task.RunRequest{Root: root, Kind: task.GoTest,
		Select: task.Selection{Files: []string{"slow"}}, Args: []string{"-timeout=1h"}, Limits: task.Limits{Timeout: 8 * time.Second}})
	require.NoError(t, err)
	assert.Equal(t, task.RunTimeout, rep.State)
	assert.Less(t, rep.Wall, 8*time.Second+DefaultKillGrace+20*time.Second, "the run outlived its limit by far (slack for a loaded machine)")
	tr, ok := rep.Result("example.com/gofix/slow.TestSleep")
	if ok { // the build may not have finished within the limit on a loaded machine
		assert.Equal(t, task.Timeout, tr.Outcome)
	}
}

// pytestRef is testdata/pytest-ref/expected.json: pytest's own verdicts and collected ids
// of testdata/pyfix, recorded by testdata/pytest-ref/gen.py (testrun's parser tests read
// it too).
type pytestRef struct {
	Outcomes  map[string]task.Outcome `json:"outcomes"`
	Collected []string                `json:"collected"`
}

func loadPytestRef(t *testing.T) pytestRef {
	t.Helper()
	b, err := os.ReadFile("testdata/pytest-ref/expected.json")
	require.NoError(t, err)
	var ref pytestRef
	require.NoError(t, json.Unmarshal(b, &ref))
	require.NotEmpty(t, ref.Outcomes)
	return ref
}

func TestLocalPytest(t *testing.T) {
	needPytest(t)
	root := fixture(t, "pyfix")
	before := hashTree(t, root)
	l := local(t)
	ctx := context.Background()
	ref := loadPytestRef(t)
	rep, err := l.Run(ctx, task.RunRequest{Root: root, Kind: task.Pytest})
	require.NoError(t, err)
	assert.Equal(t, task.RunOK, rep.State, rep.Detail)
	assert.Equal(t, ref.Outcomes, outcomes(rep))
	assert.Equal(t, 1, rep.ExitCode)

	ids, err := l.List(ctx, task.RunRequest{Root: root, Kind: task.Pytest})
	require.NoError(t, err)
	assert.Equal(t, ref.Collected, ids)

	// Selection by node ids and by file; an overlay breaking mul.
	ov := task.Overlay{}
	ov.Set("pkg/mathx.py", []byte("def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a + b\n"))
	rep, err = l.Run(ctx, task.RunRequest{Root: root, Kind: task.Pytest, Overlay: ov,
		Select: task.Selection{IDs: []string{"test_mathx.py::test_mul", "test_basic.py::test_param[two words]"}}})
	require.NoError(t, err)
	assert.Equal(t, map[string]task.Outcome{"test_mathx.py::test_mul": task.Fail, "test_basic.py::test_param[two words]": task.Pass}, outcomes(rep))
	rep, err = l.Run(ctx, task.RunRequest{Root: root, Kind: task.Pytest, Overlay: ov, Select: task.Selection{Files: []string{"test_mathx.py"}}})
	require.NoError(t, err)
	assert.Equal(t, map[string]task.Outcome{"test_mathx.py::test_add": task.Pass, "test_mathx.py::test_mul": task.Fail}, outcomes(rep))

	// No tests collected.
	rep, err = l.Run(ctx, task.RunRequest{Root: root, Kind: task.Pytest, Select: task.Selection{Files: []string{"pkg/mathx.py"}}})
	require.NoError(t, err)
	assert.Equal(t, task.RunNoTests, rep.State)
	assert.Equal(t, 5, rep.ExitCode)
	assert.Equal(t, before, hashTree(t, root))
}

func TestLocalPytestCollectionError(t *testing.T) {
	needPytest(t)
	root := fixture(t, "pysyntax")
	rep, err := local(t).Run(context.Background(), task.RunRequest{Root: root, Kind: task.Pytest})
	require.NoError(t, err)
	assert.Equal(t, task.RunCollectionError, rep.State)
	assert.Contains(t, rep.Detail, "SyntaxError")
	assert.Contains(t, rep.Detail, "test_bad")
	_, err = local(t).List(context.Background(), task.RunRequest{Root: root, Kind: task.Pytest})
	assert.ErrorIs(t, err, ErrListFailed)
}

func TestLocalBadRequests(t *testing.T) {
	l := local(t)
	ctx := context.Background()
	root := t.TempDir()
	for name, req := range map[string]task.RunRequest{
		"relative root":    {Root: "rel", Kind: task.GoTest},
		"missing root":     {Root: filepath.Join(root, "nope"), Kind: task.GoTest},
		"unknown kind":     {Root: root, Kind: "jest"},
		"escaping overlay": {Root: root, Kind: task.GoTest, Overlay: task.Overlay{"../x": {Data: []byte("x")}}},
		"escaping file":    {Root: root, Kind: task.Pytest, Select: task.Selection{Files: []string{"/etc/passwd"}}},
		"bad go id":        {Root: root, Kind: task.GoTest, Select: task.Selection{IDs: []string{"nodot"}}},
	} {
		_, err := l.Run(ctx, req)
		assert.Error(t, err, name)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err := l.Run(cctx, task.RunRequest{Root: root, Kind: task.Pytest})
	assert.ErrorIs(t, err, context.Canceled)
}

func TestScrubbedEnv(t *testing.T) {
	env := scrubbedEnv([]string{"PATH=/bin", "AWS_SECRET_ACCESS_KEY=x", "GITHUB_TOKEN=y", "HOME=/root", "GOFLAGS=-x"}, []string{"HOME=/h", "GOFLAGS=-y"})
	assert.Equal(t, []string{"PATH=/bin", "GOFLAGS=-y", "HOME=/h"}, env)
}

func TestUnescapeMount(t *testing.T) {
	assert.Equal(t, "/a b/c", unescapeMount(`/a\040b/c`))
	assert.Equal(t, `/x\0`, unescapeMount(`/x\0`))
}

func TestLocalConcurrentRuns(t *testing.T) {
	needPytest(t)
	root := fixture(t, "pyfix")
	l := NewLocal(Options{Jobs: 2})
	defer l.Close()
	var wg sync.WaitGroup
	reps := make([]*task.Report, 4)
	for i := range reps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ov := task.Overlay{}
			if i%2 == 1 {
				ov.Set("pkg/mathx.py", []byte("def add(a, b):\n    return 0\n\n\ndef mul(a, b):\n    return a * b\n"))
			}
			rep, err := l.Run(context.Background(), task.RunRequest{Root: root, Kind: task.Pytest, Overlay: ov, Select: task.Selection{Files: []string{"test_mathx.py"}}})
			assert.NoError(t, err)
			reps[i] = rep
		}()
	}
	wg.Wait()
	for i, rep := range reps {
		want := task.Pass
		if i%2 == 1 {
			want = task.Fail
		}
		assert.Equal(t, want, outcomes(rep)["test_mathx.py::test_add"], "run %d", i)
		assert.Equal(t, task.Pass, outcomes(rep)["test_mathx.py::test_mul"], "run %d", i)
	}
}

func TestLocalCancel(t *testing.T) {
	needGo(t)
	root, marker := hostileFixture(t)
	l := local(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	start := time.Now()
	_, err := l.Run(ctx, task.RunRequest{Root: root, Kind: task.GoTest, Select: task.Selection{Files: []string{"sleep"}}, Args: []string{"-timeout=1h"}})
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, time.Since(start), 5*time.Second+DefaultKillGrace+20*time.Second)
	// The kill is asynchronous: polled, as checkSleepForever does.
	assert.Eventually(t, func() bool { return len(processesWith(marker)) == 0 }, 30*time.Second, 50*time.Millisecond,
		"processes of the run survived: %v", processesWith(marker))
}

func TestLocalPythonWithoutPytest(t *testing.T) {
	needPytest(t)
	root := fixture(t, "pyfix")
	// An interpreter that cannot import pytest: python3 -I with a bogus path still finds
	// the standard library but we point it at a shim that hides pytest.
	shim := filepath.Join(t.TempDir(), "nopytest")
	require.NoError(t, os.WriteFile(shim, []byte("#!/bin/sh\nexec /usr/bin/python3 -c 'import sys; sys.modules[\"pytest\"] = None; import runpy; runpy.run_module(\"pytest\", run_name=\"__main__\")' \"$@\"\n"), 0o755))
	l := NewLocal(Options{Python: shim, Jobs: 1})
	defer l.Close()
	rep, err := l.Run(context.Background(), task.RunRequest{Root: root, Kind: task.Pytest})
	require.NoError(t, err)
	assert.Equal(t, task.RunCrashed, rep.State)
	assert.Contains(t, rep.Detail, "pytest")
	assert.False(t, rep.Ran())
}

func TestFindPython(t *testing.T) {
	needPytest(t)
	py, err := findPython([]string{"/nonexistent/python3", "/usr/bin/python3"})
	require.NoError(t, err)
	assert.Equal(t, "/usr/bin/python3", py)
	_, err = findPython([]string{"/nonexistent/python3", "/bin/false"})
	assert.ErrorIs(t, err, ErrNoPython)
}

func TestLocalRootSymlink(t *testing.T) {
	needPytest(t)
	root := fixture(t, "pyfix")
	link := filepath.Join(t.TempDir(), "link")
	require.NoError(t, os.Symlink(root, link))
	before := hashTree(t, root)
	ov := task.Overlay{}
	ov.Set("pkg/mathx.py", []byte("def add(a, b):\n    return 0\n\n\ndef mul(a, b):\n    return 0\n"))
	rep, err := local(t).Run(context.Background(), task.RunRequest{Root: link, Kind: task.Pytest, Overlay: ov, Select: task.Selection{Files: []string{"test_mathx.py"}}})
	require.NoError(t, err)
	assert.Equal(t, map[string]task.Outcome{"test_mathx.py::test_add": task.Fail, "test_mathx.py::test_mul": task.Fail}, outcomes(rep))
	assert.Equal(t, before, hashTree(t, root))

	h := NewTreeHasher()
	viaLink, err := h.Hash(link, nil)
	require.NoError(t, err)
	direct, err := h.Hash(root, nil)
	require.NoError(t, err)
	assert.Equal(t, direct, viaLink)
	changed, err := h.Hash(root, ov)
	require.NoError(t, err)
	assert.NotEqual(t, direct, changed)
}

func TestLocalPytestTimeoutAndFlood(t *testing.T) {
	needPytest(t)
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "test_bad.py"), []byte(`import sys, time

def test_flood():
    line = "y" * 1023 + "\n"
    for _ in range(50 * 1024):
        sys.stdout.write(line)
    print("\nthe end")
    assert False

def test_sleep():
    time.sleep(3600)
`), 0o644))
	l := local(t)
	ctx := context.Background()
	rep, err := l.Run(ctx, task.RunRequest{Root: root, Kind: task.Pytest, Select: task.Selection{IDs: []string{"test_bad.py::test_flood"}},
		Limits: task.Limits{OutputBytes: 64 << 10, MessageLen: 512}})
	require.NoError(t, err)
	assert.Equal(t, task.RunOK, rep.State, rep.Detail)
	tr, ok := rep.Result("test_bad.py::test_flood")
	require.True(t, ok)
	assert.Equal(t, task.Fail, tr.Outcome)
	assert.LessOrEqual(t, len(tr.Message), 512)
	assert.LessOrEqual(t, len(rep.Output), 80<<10)
	assert.True(t, hasNote(rep, "output capped"))

	start := time.Now()
	rep, err = l.Run(ctx, task.RunRequest{Root: root, Kind: task.Pytest, Select: task.Selection{IDs: []string{"test_bad.py::test_sleep"}},
		Limits: task.Limits{Timeout: 3 * time.Second}})
	require.NoError(t, err)
	assert.Equal(t, task.RunTimeout, rep.State)
	assert.False(t, rep.AllPassed([]string{"test_bad.py::test_sleep"}))
	assert.Less(t, time.Since(start), 3*time.Second+DefaultKillGrace+20*time.Second)
}

// TestLocalCommand runs a program with a test command (task.Command): its exit status is the
// verdict of the single test, the tree is a private copy with the overlay, and a bad request
// is refused before anything runs.
func TestLocalCommand(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "prog.sh"), []byte("exit 0\n"), 0o644))
	before := hashTree(t, root)
	l := local(t)
	ctx := context.Background()
	cases := []struct {
		name    string
		script  string
		timeout time.Duration
		want    task.Outcome
		state   task.RunState
	}{
		{"pass", "exit 0\n", 0, task.Pass, task.RunOK},
		{"fail", "echo broken >&2; exit 3\n", 0, task.Fail, task.RunOK},
		{"signal", "kill -9 $$\n", 0, task.Fail, task.RunOK},
		{"timeout", "sleep 30\n", 500 * time.Millisecond, task.Timeout, task.RunTimeout},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rep, err := l.Run(ctx, task.RunRequest{Root: root, Kind: task.Command, Args: []string{"/bin/sh", "prog.sh"},
				Overlay: task.Overlay{"prog.sh": {Data: []byte(c.script)}}, Limits: task.Limits{Timeout: c.timeout}})
			require.NoError(t, err)
			assert.Equal(t, c.state, rep.State)
			require.Len(t, rep.Tests, 1)
			assert.Equal(t, task.CommandTestID, rep.Tests[0].ID)
			assert.Equal(t, c.want, rep.Tests[0].Outcome)
			if c.name == "fail" {
				assert.Contains(t, rep.Tests[0].Message, "exit status 3")
				assert.Contains(t, rep.Tests[0].Message, "broken")
			}
		})
	}
	_, err := l.Run(ctx, task.RunRequest{Root: root, Kind: task.Command})
	assert.ErrorIs(t, err, ErrBadRequest)
	_, err = l.Run(ctx, task.RunRequest{Root: root, Kind: task.Command, Args: []string{"true"}, Select: task.Selection{IDs: []string{"x"}}})
	assert.ErrorIs(t, err, ErrBadRequest)
	ids, err := l.List(ctx, task.RunRequest{Root: root, Kind: task.Command, Args: []string{"true"}})
	require.NoError(t, err)
	assert.Equal(t, []string{task.CommandTestID}, ids)
	assert.Equal(t, before, hashTree(t, root), "the root must not be written")
}

// TestLocalPytestBeforeSession: pytest stops before its session when a conftest fails to
// import (status 4). That is a collection error with pytest's message, not a run whose
// channels of evidence disagree.
func TestLocalPytestBeforeSession(t *testing.T) {
	needPytest(t)
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "extra"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "extra", "conftest.py"), []byte("import units_missing\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, "extra", "test_x.py"), []byte("def test_x():\n    pass\n"), 0o644))
	rep, err := local(t).Run(context.Background(), task.RunRequest{Root: root, Kind: task.Pytest, Select: task.Selection{Files: []string{"extra/test_x.py"}}})
	require.NoError(t, err)
	assert.Equal(t, task.RunCollectionError, rep.State, rep.Detail)
	assert.Contains(t, rep.Detail, "No module named 'units_missing'")
	assert.NotContains(t, rep.Detail, "faultline-pytest-exit")
	assert.Equal(t, 4, rep.ExitCode)

	// A bad option is a setup failure.
	rep, err = local(t).Run(context.Background(), task.RunRequest{Root: root, Kind: task.Pytest, Args: []string{"--no-such-option"}})
	require.NoError(t, err)
	assert.Contains(t, []task.RunState{task.RunSetupFailed, task.RunCollectionError}, rep.State, rep.Detail)
	assert.NotEqual(t, task.RunUntrusted, rep.State)
}
