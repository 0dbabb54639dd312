package extract

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/faultline-dev/faultline/extract/artifact"
	"github.com/faultline-dev/faultline/internal/acceptance"
	"github.com/faultline-dev/faultline/sandbox"
	"github.com/faultline-dev/faultline/task"
)

// level2Accepted builds Level 2 instances straight from a repository's passing test files
// (most tests first, then by path) until want are accepted: the F2P tests are those that
// pass on the original code. It returns the accepted environments and logs the rejected
// files with their reasons.
func level2Accepted(t *testing.T, r task.Runner, root string, kind task.TestKind, pkg string, want int) []*artifact.Environment {
	t.Helper()
	ctx := context.Background()
	ids, err := r.(task.Lister).List(ctx, task.RunRequest{Root: root, Kind: kind})
	require.NoError(t, err)
	mod := ""
	if kind == task.GoTest {
		mod, err = ModulePath(root)
		require.NoError(t, err)
	}
	files, err := groupTests(root, kind, mod, ids)
	require.NoError(t, err)
	slices.SortStableFunc(files, func(a, b *testFileInfo) int { return len(b.ids) - len(a.ids) })
	var out []*artifact.Environment
	for _, tf := range files {
		if len(out) == want {
			break
		}
		rep, err := r.Run(ctx, task.RunRequest{Root: root, Kind: kind, Select: selection(kind, tf)})
		require.NoError(t, err)
		if !rep.Green() {
			t.Logf("skipped %s: does not pass on the original code", tf.file)
			continue
		}
		env, err := artifact.Level2(root, tf.file, pkg, rep.Passing())
		if err != nil {
			require.ErrorIs(t, err, artifact.ErrBadSpec)
			t.Logf("rejected %s: %v", tf.file, err)
			continue
		}
		v, err := VerifyLevel2(ctx, r, Level2Request{Env: env, WorkDir: t.TempDir()})
		require.NoError(t, err)
		if !v.Accepted {
			require.NotEmpty(t, v.Reason)
			t.Logf("rejected %s: %s", tf.file, v.Reason)
			continue
		}
		require.LessOrEqual(t, v.PassRate, DefaultMaxF2PPassRate)
		require.Equal(t, env.FailToPass, v.F2PTests)
		out = append(out, env)
	}
	return out
}

// reverifyLevel2 rebuilds each environment from a fresh copy of the repository, requires
// the same bytes (same input, same instance) and verifies it again.
func reverifyLevel2(t *testing.T, r task.Runner, src string, pkg string, envs []*artifact.Environment) {
	t.Helper()
	fresh := filepath.Join(t.TempDir(), "fresh")
	copyTree(t, src, fresh)
	for _, env := range envs {
		back := func(p string) string {
			if rest, ok := strings.CutPrefix(p, env.To+"/"); ok && env.From != "" {
				return env.From + "/" + rest
			}
			return p
		}
		orig := back(env.TestFile)
		var f2p []string
		for _, id := range env.FailToPass {
			if env.Kind == task.Pytest {
				id = back(id)
			}
			f2p = append(f2p, id)
		}
		again, err := artifact.Level2(fresh, orig, pkg, f2p)
		require.NoError(t, err)
		require.Equal(t, env, again, "%s: same repository, same environment", orig)
		// The whole instance: valid, with the environment's FAIL_TO_PASS, byte-identical
		// when built twice.
		spec := artifact.Spec{Root: fresh, Repo: "subject/repo", BaseCommit: "0000000000000000", Level: 2, TestFile: orig,
			Package: pkg, FailToPass: f2p}
		var jsons [][]byte
		for range 2 {
			a, err := artifact.Build(context.Background(), spec, artifact.Options{})
			require.NoError(t, err)
			require.Equal(t, task.TestList(env.FailToPass), a.Instance.FailToPass)
			require.Empty(t, a.Instance.PassToPass)
			b, err := a.InstanceJSON()
			require.NoError(t, err)
			jsons = append(jsons, b)
		}
		require.Equal(t, string(jsons[0]), string(jsons[1]))
		v, err := VerifyLevel2(context.Background(), r, Level2Request{Env: again, WorkDir: t.TempDir()})
		require.NoError(t, err)
		require.True(t, v.Accepted, "%s: %s", orig, v.Reason)
	}
}

// TestLevel2Debian builds Level 2 instances of Debian's simplejson and pyflakes (no one
// here wrote them), renamed to agent_code: at least three accepted each, each
// re-verified from a fresh copy.
func TestLevel2Debian(t *testing.T) {
	acceptance.Skip(t, "Level 2 on a real repository")
	py := pythonWithPytest(t)
	for _, pkg := range []string{"simplejson", "pyflakes"} {
		t.Run(pkg, func(t *testing.T) {
			root := debianRepo(t, pkg)
			r := sandbox.NewLocal(sandbox.Options{WorkDir: t.TempDir(), Python: py})
			defer r.Close()
			envs := level2Accepted(t, r, root, task.Pytest, "agent_code", 3)
			require.Len(t, envs, 3)
			for _, env := range envs {
				require.Equal(t, []string{"agent_code"}, env.Packages)
				for p := range env.Solution {
					require.Regexp(t, `^agent_code/`, p)
				}
			}
			reverifyLevel2(t, r, root, "agent_code", envs)
		})
	}
}

// TestLevel2GoModule builds Level 2 instances of github.com/go-logr/logr from the module
// cache: at least three accepted, each re-verified from a fresh copy.
func TestLevel2GoModule(t *testing.T) {
	acceptance.Skip(t, "Level 2 on a real repository")
	root := goModule(t, "github.com/go-logr/logr@v1.4.3")
	r := sandbox.NewLocal(sandbox.Options{WorkDir: t.TempDir(), Env: []string{"GOFLAGS=-mod=mod", "GOPROXY=off"}})
	defer r.Close()
	envs := level2Accepted(t, r, root, task.GoTest, "", 3)
	require.Len(t, envs, 3)
	reverifyLevel2(t, r, root, "", envs)
}

// l2Env is a small hand-made environment for the fake-runner tests.
func l2Env(kind task.TestKind) *artifact.Environment {
	return &artifact.Environment{
		Kind:       kind,
		Start:      task.Overlay{"pytest.ini": {Data: []byte("[pytest]\n")}},
		Tests:      task.Overlay{"tests/test_a.py": {Data: []byte("from agent_code import f\n")}},
		Solution:   task.Overlay{"agent_code/__init__.py": {Data: []byte("def f(): return 1\n")}},
		TestFile:   "tests/test_a.py",
		Select:     task.Selection{Files: []string{"tests/test_a.py"}},
		Packages:   []string{"agent_code"},
		From:       "pkg",
		To:         "agent_code",
		FailToPass: []string{"tests/test_a.py::a", "tests/test_a.py::b"},
	}
}

// l2Runner answers the run without the solution with before and the one with it with
// gold, and checks what every run is given.
func l2Runner(t *testing.T, before, gold *task.Report) task.Runner {
	return task.RunnerFunc(func(_ context.Context, req task.RunRequest) (*task.Report, error) {
		ini, err := os.ReadFile(filepath.Join(req.Root, "pytest.ini"))
		require.NoError(t, err, "the starting tree is written under the root")
		require.Equal(t, "[pytest]\n", string(ini))
		require.Equal(t, []string{"tests/test_a.py"}, req.Select.Files)
		require.Contains(t, req.Overlay, "tests/test_a.py")
		if _, ok := req.Overlay["agent_code/__init__.py"]; ok {
			return gold, nil
		}
		return before, nil
	})
}

func TestVerifyLevel2(t *testing.T) {
	ctx := context.Background()
	green := report("tests/test_a.py::a", "pass", "tests/test_a.py::b", "pass")
	collectErr := &task.Report{State: task.RunCollectionError, Detail: "ImportError: cannot import name 'f'"}
	cases := []struct {
		name         string
		kind         task.TestKind
		before, gold *task.Report
		from         string
		want         string // "" accepted, else part of the reason
		rate         float64
	}{
		{"collection error counts as none passing", task.Pytest, collectErr, green, "pkg", "", 0},
		{"build failure counts as none passing", task.GoTest, &task.Report{State: task.RunBuildFailed}, green, "", "", 0},
		{"conftest import error counts as none passing", task.Pytest, &task.Report{State: task.RunSetupFailed,
			Detail: "ImportError while loading conftest"}, green, "pkg", "", 0},
		{"set up fails with the solution too", task.Pytest, &task.Report{State: task.RunSetupFailed}, &task.Report{State: task.RunSetupFailed,
			Detail: "usage"}, "pkg", "gold F2P tests/test_a.py does not pass: setup_failed: usage", 0},
		{"failing tests", task.Pytest, report("tests/test_a.py::a", "fail", "tests/test_a.py::b", "error"), green, "pkg", "", 0},
		{"passes without the solution", task.Pytest, report("tests/test_a.py::a", "pass", "tests/test_a.py::b", "fail"), green, "pkg",
			"passes without the solution: pass rate 0.500 > 0.300", 0.5},
		{"installed package hint", task.Pytest, green, green, "", "is the package importable from the environment? rename it", 1},
		{"timeout", task.Pytest, &task.Report{State: task.RunTimeout, Detail: "killed"}, green, "pkg", "without the solution does not run: timeout: killed", 0},
		{"nothing ran", task.Pytest, report("tests/test_a.py::a", "skip"), green, "pkg", "reports no passing or failing test", 0},
		{"gold fails", task.Pytest, collectErr, report("tests/test_a.py::a", "pass", "tests/test_a.py::b", "fail"), "pkg",
			"gold F2P tests/test_a.py does not pass: 1 failing, first tests/test_a.py::b", 0},
		{"gold passes other tests", task.Pytest, collectErr, report("tests/test_a.py::a", "pass"), "pkg",
			"gold F2P tests/test_a.py passes 1 tests, the instance lists 2 (missing tests/test_a.py::b)", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := l2Env(c.kind)
			env.From = c.from
			if c.from == "" {
				env.To = ""
			}
			v, err := VerifyLevel2(ctx, l2Runner(t, c.before, c.gold), Level2Request{Env: env, WorkDir: t.TempDir()})
			require.NoError(t, err)
			require.InDelta(t, c.rate, v.PassRate, 1e-12)
			if c.want == "" {
				require.True(t, v.Accepted, v.Reason)
				require.Empty(t, v.Reason)
				require.Equal(t, env.FailToPass, v.F2PTests)
				require.Same(t, c.gold, v.Gold)
				return
			}
			require.False(t, v.Accepted)
			require.Contains(t, v.Reason, c.want)
		})
	}

	boom := errors.New("boom")
	_, err := VerifyLevel2(ctx, task.RunnerFunc(func(context.Context, task.RunRequest) (*task.Report, error) { return nil, boom }),
		Level2Request{Env: l2Env(task.Pytest), WorkDir: t.TempDir()})
	require.ErrorIs(t, err, boom)
	_, err = VerifyLevel2(ctx, l2Runner(t, green, green), Level2Request{})
	require.ErrorContains(t, err, "an environment with tests and a solution is required")
}

// The fixtures with the real runner: artifact's geo package renamed to agent_code, a
// test file that passes without its package (rejected with the reason), and the
// pipeline fixture's geometry tests.
func TestLevel2Fixtures(t *testing.T) {
	py := pythonWithPytest(t)
	r := sandbox.NewLocal(sandbox.Options{WorkDir: t.TempDir(), Python: py})
	defer r.Close()
	ctx := context.Background()
	cases := []struct {
		root, file, pkg string
		f2p             []string
		want            string
	}{
		{"artifact/testdata/l2repo", "geo/tests/test_shapes.py", "agent_code", []string{
			"geo/tests/test_shapes.py::test_area", "geo/tests/test_shapes.py::test_patched",
			"geo/tests/test_shapes.py::test_same", "geo/tests/test_shapes.py::test_square_from_file"}, ""},
		{"artifact/testdata/l2repo", "tests/test_units.py", "", []string{"tests/test_units.py::test_units"}, ""},
		{"artifact/testdata/l2repo", "tests/test_optional.py", "agent_code", []string{"tests/test_optional.py::test_does_not_need_units"},
			"passes without the solution: pass rate 1.000 > 0.300"},
		{"artifact/testdata/l2repo", "extra/test_extra.py", "agent_code", []string{"extra/test_extra.py::test_metres"}, ""},
		{"testdata/pipeline/repo", "tests/test_geometry.py", "agent_code", []string{"tests/test_geometry.py::test_area",
			"tests/test_geometry.py::test_box", "tests/test_geometry.py::test_circle", "tests/test_geometry.py::test_perimeter"}, ""},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "repo")
			copyTree(t, c.root, root)
			env, err := artifact.Level2(root, c.file, c.pkg, c.f2p)
			require.NoError(t, err)
			v, err := VerifyLevel2(ctx, r, Level2Request{Env: env, WorkDir: t.TempDir()})
			require.NoError(t, err)
			if c.want != "" {
				require.False(t, v.Accepted)
				require.Contains(t, v.Reason, c.want)
				return
			}
			require.True(t, v.Accepted, v.Reason)
			require.Zero(t, v.PassRate)
			require.Equal(t, env.FailToPass, v.F2PTests)
		})
	}
}

// Scoring Level 2 attempts on the fixture, read back from the instance: the gold solution
// resolves it, a partial one gets a pass rate, none scores zero; a test file written by
// the agent is replaced by the real one.
func TestScoreLevel2(t *testing.T) {
	py := pythonWithPytest(t)
	r := sandbox.NewLocal(sandbox.Options{WorkDir: t.TempDir(), Python: py})
	defer r.Close()
	ctx := context.Background()
	a, err := artifact.Build(ctx, artifact.Spec{Root: "artifact/testdata/l2repo", Repo: "acme/geo", BaseCommit: "0123456789abcdef",
		Level: 2, TestFile: "geo/tests/test_shapes.py", Package: "agent_code", FailToPass: []string{
			"geo/tests/test_shapes.py::test_area", "geo/tests/test_shapes.py::test_patched",
			"geo/tests/test_shapes.py::test_same", "geo/tests/test_shapes.py::test_square_from_file"}}, artifact.Options{})
	require.NoError(t, err)
	env, err := artifact.EnvironmentFromInstance(a.Instance)
	require.NoError(t, err)
	req := Level2Request{Env: env, WorkDir: t.TempDir()}

	s, rep, err := ScoreLevel2(ctx, r, req, env.Solution)
	require.NoError(t, err)
	require.True(t, s.Resolved, "%+v %s", s, rep.Detail)
	require.Equal(t, 4, s.Passed)

	// Only area is right: test_area passes; Square is missing.
	partial := task.Overlay{"agent_code/__init__.py": {Data: []byte("def area(side):\n    return side * side\n")},
		"agent_code/tests/test_shapes.py": {Data: []byte("def test_area():\n    pass\n")}}
	s, rep, err = ScoreLevel2(ctx, r, req, partial)
	require.NoError(t, err)
	require.False(t, s.Resolved)
	require.Equal(t, 4, s.Total)
	require.Zero(t, s.Passed, "the module-level import of Square fails: %s", rep.State)

	partial["agent_code/shapes.py"] = task.Change{Data: []byte("from agent_code import area\n\n\nclass Square:\n    def __init__(self, side):\n        self.side = side\n")}
	s, _, err = ScoreLevel2(ctx, r, req, partial)
	require.NoError(t, err)
	require.False(t, s.Resolved)
	require.Equal(t, 1, s.Passed, "test_area passes, the agent's own test file was replaced")
	require.InDelta(t, 0.25, s.PassRate, 1e-12)

	s, _, err = ScoreLevel2(ctx, r, req, nil)
	require.NoError(t, err)
	require.Zero(t, s.PassRate)
	_, _, err = ScoreLevel2(ctx, r, req, task.Overlay{"../escape.py": {Data: []byte("x")}})
	require.Error(t, err)
}
