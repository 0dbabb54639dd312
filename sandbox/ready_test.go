package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/task"
	"github.com/faultline-dev/faultline/task/repo"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCheckImportGuard: a project whose package is not in the copy (here: tests beside a
// package that only exists installed) would test the installed package; Check refuses it.
func TestCheckImportGuard(t *testing.T) {
	py := needPytest(t)
	if _, err := os.Stat("/usr/lib/python3/dist-packages/simplejson/__init__.py"); err != nil {
		t.Skip("python3-simplejson is not installed (apt-get install -y python3-simplejson)")
	}
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "test_sj.py"), []byte("import simplejson\n\ndef test_dumps():\n    assert simplejson.dumps(1) == '1'\n"), 0o644))
	prep := &Prepared{Project: &repo.Project{Root: root, Target: ".", Lang: repo.Python, Module: "simplejson"}, Kind: task.Pytest, Root: root, Python: py}
	rd, err := Check(context.Background(), local(t), prep, CheckOptions{Runs: 1})
	require.NoError(t, err)
	assert.False(t, rd.Ready)
	require.NotEmpty(t, rd.Findings)
	assert.Equal(t, Blocking, rd.Findings[0].Severity)
	assert.Contains(t, rd.Findings[0].What, "would import simplejson from /usr/lib/python3/dist-packages/simplejson")
	assert.ErrorIs(t, rd.Err(), ErrNotReady)
	assert.Contains(t, rd.Err().Error(), "point -repo at the directory that holds the package")

	// With the package in the copy, the guard is quiet.
	require.NoError(t, os.MkdirAll(filepath.Join(root, "simplejson"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "simplejson", "__init__.py"), []byte("def dumps(x):\n    return str(x)\n"), 0o644))
	rd, err = Check(context.Background(), local(t), prep, CheckOptions{Runs: 1})
	require.NoError(t, err)
	assert.True(t, rd.Ready, "%+v", rd.Findings)
	assert.NoError(t, rd.Err())
}

func TestGoProblems(t *testing.T) {
	// Lines as the go command prints them (go list -e -deps -test, go mod download).
	text := strings.Join([]string{
		"go: github.com/davecgh/go-spew@v1.1.1: module lookup disabled by GOPROXY=off",
		"github.com/x/y@v0.2.0: Get \"https://proxy.golang.org/github.com/x/y/@v/v0.2.0.mod\": dial tcp: lookup proxy.golang.org: no such host",
		"missing go.sum entry for module providing package gopkg.in/yaml.v3 (imported by example.com/m/conf); to add:",
		"go: github.com/davecgh/go-spew@v1.1.1: module lookup disabled by GOPROXY=off",
	}, "\n")
	ps := goProblems(text, "off", "")
	require.Len(t, ps, 2)
	assert.Contains(t, ps[0].What, "gopkg.in/yaml.v3")
	assert.Contains(t, ps[0].Fix, "go mod tidy")
	assert.Contains(t, ps[1].What, "2 module(s)")
	assert.Contains(t, ps[1].What, "github.com/davecgh/go-spew@v1.1.1, github.com/x/y@v0.2.0")
	assert.Contains(t, ps[1].What, "GOPROXY=off")
	assert.Empty(t, goProblems("", "off", ""))
	generic := goProblems("go: something unexpected", "https://proxy.golang.org", "")
	require.Len(t, generic, 1)
	assert.Contains(t, generic[0].What, "something unexpected")
}

func TestPrepareStagesAndPaths(t *testing.T) {
	py := needPytest(t)
	d := t.TempDir()
	for f, s := range map[string]string{
		"srcproj/pyproject.toml":          "",
		"srcproj/src/pkg/__init__.py":     "",
		"loose/pkg/__init__.py":           "X = 1\n",
		"loose/pkg/tests/test_x.py":       "from pkg import X\n\ndef test_x():\n    assert X == 1\n",
		"loose/conftest.py":               "",
		"loose/unrelated/big/__init__.py": "",
	} {
		p := filepath.Join(d, filepath.FromSlash(f))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(s), 0o644))
	}
	p, err := repo.Discover(filepath.Join(d, "srcproj", "src", "pkg"), repo.Python)
	require.NoError(t, err)
	prep, err := Prepare(context.Background(), p, PrepareOptions{Python: py})
	require.NoError(t, err)
	assert.Equal(t, p.Root, prep.Root)
	assert.Equal(t, []string{"-o", "pythonpath=src"}, prep.Args)
	assert.Equal(t, task.Pytest, prep.Request().Kind)
	require.NoError(t, prep.Close())

	p, err = repo.Discover(filepath.Join(d, "loose", "pkg"), repo.Python)
	require.NoError(t, err)
	prep, err = Prepare(context.Background(), p, PrepareOptions{Python: py})
	require.NoError(t, err)
	stage := prep.Root
	assert.NotEqual(t, p.Root, stage)
	for _, f := range []string{"pkg/__init__.py", "pkg/tests/test_x.py", "conftest.py"} {
		assert.FileExists(t, filepath.Join(stage, f))
	}
	assert.NoDirExists(t, filepath.Join(stage, "unrelated"))
	rep, err := local(t).Run(context.Background(), prep.Request())
	require.NoError(t, err)
	assert.True(t, rep.Green(), "%s %s", rep.State, rep.Detail)
	require.NoError(t, prep.Close())
	assert.NoDirExists(t, stage)

	_, err = Prepare(context.Background(), p, PrepareOptions{Python: "/nonexistent/python"})
	require.ErrorIs(t, err, ErrNotReady)
	assert.Contains(t, err.Error(), "-python")
}

// TestCheckVet: a module whose own `go test` fails on vet (go test's default checks) is not
// ready, and the finding names the vet report; with NoVet, or after the fix, it is ready.
// Candidate runs keep -vet=off: WithGoVet only touches the request it is given.
func TestCheckVet(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH")
	}
	root := t.TempDir()
	write := func(name, text string) {
		require.NoError(t, os.WriteFile(filepath.Join(root, name), []byte(text), 0o644))
	}
	write("go.mod", "module example.com/vetme\n\ngo 1.22\n")
	write("v.go", "package vetme\n\nimport \"fmt\"\n\nfunc F() string { return fmt.Sprintf(\"%d\", \"x\") }\n")
	write("v_test.go", "package vetme\n\nimport \"testing\"\n\nfunc TestF(t *testing.T) { _ = F() }\n")
	prep := &Prepared{Project: &repo.Project{Root: root, Target: ".", Lang: repo.Go, Module: "example.com/vetme"}, Kind: task.GoTest, Root: root}
	ctx := context.Background()
	rd, err := Check(ctx, local(t), prep, CheckOptions{Runs: 1})
	require.NoError(t, err)
	assert.False(t, rd.Ready)
	require.NotEmpty(t, rd.Findings)
	assert.Contains(t, rd.Findings[0].What, "go vet (the checks `go test` runs by default) fails on the clean tree")
	assert.Contains(t, rd.Findings[0].What, "Sprintf format %d has arg")
	assert.Nil(t, rd.Result)

	rd, err = Check(ctx, local(t), prep, CheckOptions{Runs: 1, NoVet: true})
	require.NoError(t, err)
	assert.True(t, rd.Ready, "%+v", rd.Findings)
	require.NotNil(t, rd.Result)
	assert.Equal(t, []string{"example.com/vetme.TestF"}, rd.Result.Passing)

	req := prep.Request()
	vreq := WithGoVet(req)
	assert.Equal(t, []string{"-vet="}, vreq.Args)
	assert.Empty(t, req.Args, "WithGoVet copies the request")
	assert.Equal(t, task.RunRequest{Kind: task.Pytest}, WithGoVet(task.RunRequest{Kind: task.Pytest}))

	write("v.go", "package vetme\n\nimport \"fmt\"\n\nfunc F() string { return fmt.Sprintf(\"%s\", \"x\") }\n")
	rd, err = Check(ctx, local(t), prep, CheckOptions{Runs: 1})
	require.NoError(t, err)
	assert.True(t, rd.Ready, "%+v", rd.Findings)
}

// TestPrepareUnneededModule: the build list names a module nobody's tests build (a
// dependency's own requirement) that cannot be downloaded; Prepare accepts the project,
// since every package the tests build resolves offline, and says so.
func TestPrepareUnneededModule(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH")
	}
	root := t.TempDir()
	write := func(name, text string) {
		full := filepath.Join(root, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(t, os.WriteFile(full, []byte(text), 0o644))
	}
	write("go.mod", "module example.com/main\n\ngo 1.22\n\nrequire example.com/dep v0.0.0\n\nreplace example.com/dep => ./dep\n")
	write("m.go", "package main\n\nimport \"example.com/dep\"\n\nfunc main() { dep.F() }\n")
	write("m_test.go", "package main\n\nimport \"testing\"\n\nfunc TestF(t *testing.T) { main() }\n")
	write("dep/go.mod", "module example.com/dep\n\ngo 1.22\n\nrequire example.com/absent v1.0.0\n")
	write("dep/dep.go", "package dep\n\nfunc F() {}\n")
	p, err := repo.Discover(root, repo.Go)
	require.NoError(t, err)
	env := []string{"GOPROXY=off", "GOFLAGS=-mod=mod", "GOMODCACHE=" + filepath.Join(t.TempDir(), "modcache")}
	prep, err := Prepare(context.Background(), p, PrepareOptions{Env: env, CacheDir: "-"})
	require.NoError(t, err)
	defer prep.Close()
	joined := strings.Join(prep.Steps, "\n")
	assert.Contains(t, joined, "none that the tests build")
	assert.Contains(t, joined, "example.com/absent@v1.0.0")
	assert.Contains(t, prep.Env, "GOPROXY=off")

	// A module the tests do build is still refused by name.
	write("m.go", "package main\n\nimport (\n\t\"example.com/dep\"\n\t\"example.com/absent\"\n)\n\nfunc main() { dep.F(); absent.G() }\n")
	write("go.mod", "module example.com/main\n\ngo 1.22\n\nrequire (\n\texample.com/dep v0.0.0\n\texample.com/absent v1.0.0\n)\n\nreplace example.com/dep => ./dep\n")
	_, err = Prepare(context.Background(), p, PrepareOptions{Env: env, CacheDir: "-"})
	require.ErrorIs(t, err, ErrNotReady)
	assert.Contains(t, err.Error(), "example.com/absent@v1.0.0")
}

func TestSplitTimedOut(t *testing.T) {
	base := &BaselineResult{Failing: []string{"a", "b", "c"}, Reports: []*task.Report{
		{Tests: []task.TestResult{{ID: "a", Outcome: task.Fail}, {ID: "b", Outcome: task.Timeout}}},
		{Tests: []task.TestResult{{ID: "c", Outcome: task.Timeout}}},
	}}
	slow, failing := splitTimedOut(base)
	assert.Equal(t, []string{"b", "c"}, slow)
	assert.Equal(t, []string{"a"}, failing)
}

// TestCollectFix: a listing that hit the time limit asks for a longer limit, whatever the
// language; other listing failures point at the collection command.
func TestCollectFix(t *testing.T) {
	timeout := fmt.Errorf("sandbox: list timed out after 3s: %w", ErrListFailed)
	for _, kind := range []task.TestKind{task.GoTest, task.Pytest} {
		if got := collectFix(kind, timeout); !strings.Contains(got, "raise -timeout") {
			t.Errorf("%s, timed out: %q", kind, got)
		}
	}
	broken := fmt.Errorf("build failed: %w", ErrListFailed)
	if got := collectFix(task.GoTest, broken); !strings.Contains(got, "go test -vet=off -list") {
		t.Errorf("go, broken: %q", got)
	}
	if got := collectFix(task.Pytest, broken); !strings.Contains(got, "pytest --collect-only") {
		t.Errorf("pytest, broken: %q", got)
	}
}

// TestListErrorShowsCauseNotWarnings: pytest prints its warnings summary after the
// collection errors; forty modules that warn at import push the ImportError's cause out of
// the kept lines unless the summary is left out.
func TestListErrorShowsCauseNotWarnings(t *testing.T) {
	needPytest(t)
	d := t.TempDir()
	for i := range 40 {
		src := fmt.Sprintf("import warnings\nwarnings.warn('noise %d', DeprecationWarning)\n\ndef test_ok():\n    pass\n", i)
		require.NoError(t, os.WriteFile(filepath.Join(d, fmt.Sprintf("test_w%02d.py", i)), []byte(src), 0o644))
	}
	require.NoError(t, os.WriteFile(filepath.Join(d, "test_broken.py"), []byte("import no_such_module_xyz\n"), 0o644))
	_, err := local(t).List(context.Background(), task.RunRequest{Root: d, Kind: task.Pytest})
	require.ErrorIs(t, err, ErrListFailed)
	assert.Contains(t, err.Error(), "No module named 'no_such_module_xyz'")
	assert.Contains(t, err.Error(), filepath.Join(d, "test_broken.py"))
}
