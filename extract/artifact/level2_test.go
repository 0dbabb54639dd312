package artifact

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/faultline-dev/faultline/extract/mask"
	"github.com/faultline-dev/faultline/task"
)

const l2fixture = "testdata/l2repo"

var shapesF2P = []string{
	"geo/tests/test_shapes.py::test_area",
	"geo/tests/test_shapes.py::test_patched",
	"geo/tests/test_shapes.py::test_same",
	"geo/tests/test_shapes.py::test_square_from_file",
}

func TestLevel2PythonRenamed(t *testing.T) {
	env, err := Level2(l2fixture, "geo/tests/test_shapes.py", "agent_code", shapesF2P)
	require.NoError(t, err)
	require.Equal(t, task.Pytest, env.Kind)
	require.Equal(t, []string{"pytest.ini"}, env.Start.Paths())
	require.Equal(t, []string{"agent_code/tests/__init__.py", "agent_code/tests/helper.py", "agent_code/tests/square.json",
		"agent_code/tests/test_shapes.py", "conftest.py"}, env.Tests.Paths(), "the helper, the named data file and the conftest chain; not unused.json nor test_other.py")
	require.Equal(t, []string{"agent_code/__init__.py", "agent_code/compat.py", "agent_code/data.txt", "agent_code/shapes.py"},
		env.Solution.Paths(), "the package's non-test files, package data included")
	require.Equal(t, "agent_code/tests/test_shapes.py", env.TestFile)
	require.Equal(t, task.Selection{Files: []string{"agent_code/tests/test_shapes.py"}}, env.Select)
	require.Equal(t, []string{"agent_code"}, env.Packages)
	require.Equal(t, []string{"agent_code", "agent_code.shapes"}, env.Imports)
	require.Equal(t, "geo", env.From)
	require.Equal(t, "agent_code", env.To)
	for i, id := range env.FailToPass {
		require.Equal(t, "agent_code/"+strings.TrimPrefix(shapesF2P[i], "geo/"), id)
	}

	test := string(env.Tests["agent_code/tests/test_shapes.py"].Data)
	require.Contains(t, test, "# Tests of geo (this comment names geo and stays as written).")
	require.Contains(t, test, "\nimport agent_code\nfrom agent_code.shapes import Square\nfrom agent_code.tests.helper import approx\n")
	require.Contains(t, test, "assert agent_code.area(side) == 9")
	require.Contains(t, test, `mock.patch("agent_code.shapes.area", return_value=7)`)
	require.Contains(t, test, `types.SimpleNamespace(geo="attribute")`, "a keyword argument keeps its name")
	require.Contains(t, test, `box.geo == "attribute"`, "an attribute keeps its name")
	shapes := string(env.Solution["agent_code/shapes.py"].Data)
	require.Contains(t, shapes, "from . import compat\nfrom agent_code.compat import isclose\n")
	require.Contains(t, shapes, `UNITS = "agent_code.units"`)
	require.Contains(t, shapes, `LABEL = "geo shapes"`)
	require.Contains(t, string(env.Solution["agent_code/__init__.py"].Data), "from agent_code.shapes import Square, area\n")
	orig, err := os.ReadFile(filepath.Join(l2fixture, "conftest.py"))
	require.NoError(t, err)
	require.Equal(t, string(orig), string(env.Tests["conftest.py"].Data))
}

// pytest reports a test the file imports from another test file under that file's path:
// the id follows the file into the Level 2 tree.
func TestLevel2ImportedTestIDs(t *testing.T) {
	env, err := Level2(l2fixture, "geo/tests/test_shapes.py", "agent_code", append([]string{"geo/tests/helper.py::TestX::test_y"}, shapesF2P...))
	require.NoError(t, err)
	require.Contains(t, env.FailToPass, "agent_code/tests/helper.py::TestX::test_y")
	require.Len(t, env.FailToPass, 5)
}

func TestLevel2PythonKeepsName(t *testing.T) {
	env, err := Level2(l2fixture, "geo/tests/test_shapes.py", "", shapesF2P)
	require.NoError(t, err)
	require.Empty(t, env.From)
	require.Equal(t, shapesF2P, env.FailToPass)
	require.Equal(t, []string{"geo/__init__.py", "geo/compat.py", "geo/data.txt", "geo/shapes.py"}, env.Solution.Paths())
	for _, p := range env.Solution.Paths() {
		orig, err := os.ReadFile(filepath.Join(l2fixture, p))
		require.NoError(t, err)
		require.Equal(t, string(orig), string(env.Solution[p].Data), "unchanged without a rename")
	}

	// Two packages used by the tests: fine without a rename, refused with one.
	env, err = Level2(l2fixture, "tests/test_units.py", "", []string{"tests/test_units.py::test_units"})
	require.NoError(t, err)
	require.Equal(t, []string{"geo", "units"}, env.Packages)
	require.Contains(t, env.Solution.Paths(), "units.py")
}

func TestLevel2BadInput(t *testing.T) {
	cases := []struct {
		name, file, pkg, want string
	}{
		{"imports nothing", "tests/test_plain.py", "", "imports nothing from the repository"},
		{"not an identifier", "geo/tests/test_shapes.py", "agent-code", `package name "agent-code" is not a Python identifier`},
		{"keyword", "geo/tests/test_shapes.py", "class", `package name "class" is not a Python identifier`},
		{"name in use", "geo/tests/test_shapes.py", "units", "package name units is already used in the repository"},
		{"several packages", "tests/test_units.py", "agent_code", "use several repository packages (geo, units)"},
		{"missing file", "tests/test_missing.py", "", "test file tests/test_missing.py does not exist"},
		{"not a test file", "geo/data.txt", "", "neither a Python nor a Go test file"},
		{"escapes", "../x.py", "", "test file"},
		{"foreign id", "geo/tests/test_shapes.py", "", `FAIL_TO_PASS id "tests/test_units.py::test_units" is not a test of geo/tests/test_shapes.py nor of a test file it imports`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Level2(l2fixture, c.file, c.pkg, []string{"tests/test_units.py::test_units"})
			if c.name != "foreign id" && c.name != "several packages" {
				_, err = Level2(l2fixture, c.file, c.pkg, nil)
			}
			require.ErrorIs(t, err, ErrBadSpec)
			require.ErrorContains(t, err, c.want)
		})
	}
	_, err := Level2("testdata/gorepo", "shapes/shapes_test.go", "agent_code", nil)
	require.ErrorIs(t, err, ErrBadSpec)
	require.ErrorContains(t, err, "a Go solution keeps its module path")
	_, err = Level2("testdata/l2gorepo", "solo/solo_test.go", "", nil)
	require.ErrorIs(t, err, ErrBadSpec)
	require.ErrorContains(t, err, "test file solo/solo_test.go imports nothing from the repository")
	_, err = Level2(t.TempDir(), "x_test.go", "", nil)
	require.ErrorIs(t, err, ErrBadSpec)
	require.ErrorContains(t, err, "has no go.mod with a module path")
}

func TestLevel2Go(t *testing.T) {
	f2p := []string{"example.com/l2/area.TestSquare", "example.com/l2/area.TestTable"}
	env, err := Level2("testdata/l2gorepo", "area/area_test.go", "", f2p)
	require.NoError(t, err)
	require.Equal(t, task.GoTest, env.Kind)
	require.Equal(t, []string{"go.mod"}, env.Start.Paths())
	require.Equal(t, []string{"area/area_test.go", "area/export_test.go", "area/helper_test.go", "area/main_test.go", "area/testdata/cases.txt"},
		env.Tests.Paths(), "the helper it uses, area.Half of export_test.go, the TestMain and testdata; not other_test.go nor fields_test.go")
	require.Equal(t, []string{"area/area.go", "units/units.go"}, env.Solution.Paths(), "the package and the module package it imports")
	require.Equal(t, []string{"example.com/l2/area", "example.com/l2/units"}, env.Packages)
	require.Equal(t, []string{"example.com/l2/area"}, env.Imports)
	require.Equal(t, f2p, env.FailToPass)
	require.Equal(t, task.Selection{IDs: f2p}, env.Select)

	a, err := Build(context.Background(), Spec{Root: "testdata/l2gorepo", Repo: "acme/l2", BaseCommit: "0123456789abcdef", Level: 2,
		TestFile: "area/area_test.go", FailToPass: f2p}, Options{})
	require.NoError(t, err)
	require.Contains(t, a.ProblemStatement, "from scratch as the packages `example.com/l2/area`, `example.com/l2/units`.")
	require.Contains(t, a.ProblemStatement, "The working directory is the Go module `example.com/l2` (its `go.mod` is given). "+
		"Write `example.com/l2/area`, `example.com/l2/units` there, in their directories of the module.")
	require.Contains(t, a.ProblemStatement, "with 4 supporting file(s) (`area/export_test.go`, `area/helper_test.go`, `area/main_test.go`, `area/testdata/cases.txt`)")
	noIDs, err := Level2("testdata/l2gorepo", "area/area_test.go", "", nil)
	require.NoError(t, err)
	require.Equal(t, task.Selection{Files: []string{"area/area_test.go"}}, noIDs.Select, "without ids, the test file's package")

	// Without the solution the tests do not build; with it they pass.
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("artifact: the go command is not on PATH")
	}
	dir := t.TempDir()
	require.NoError(t, env.Start.Merge(env.Tests).WriteTo(dir))
	cmd := exec.Command("go", "vet", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "the tests alone must not build: %s", out)
	require.NoError(t, env.Solution.WriteTo(dir))
	goCmd(t, dir, "test", "./...")
}

// l2Spec is the Level 2 instance of test_shapes.py, renamed to agent_code.
func l2Spec() Spec {
	return Spec{
		Root: l2fixture, Repo: "acme/geo", BaseCommit: "0123456789abcdef", Level: 2,
		TestFile: "geo/tests/test_shapes.py", Package: "agent_code",
		Objects:    []mask.Target{{File: "geo/shapes.py", Name: "Square"}, {File: "geo/shapes.py", Name: "area"}},
		FailToPass: shapesF2P, PassToPass: []string{"geo/tests/test_other.py::test_other"},
	}
}

func TestBuildLevel2(t *testing.T) {
	a, err := Build(context.Background(), l2Spec(), Options{})
	require.NoError(t, err)
	require.Nil(t, a.Overlay)
	require.NotNil(t, a.Env)
	in := a.Instance
	require.Regexp(t, `^acme__geo\.01234567\.test_shapes\.[0-9a-f]{8}\.lv2$`, in.InstanceID)
	require.Equal(t, task.TestList(a.Env.FailToPass), in.FailToPass)
	require.Empty(t, in.PassToPass, "no repository, no P2P")
	require.Equal(t, 0, *in.P2PTestPoints)
	require.Equal(t, 4, *in.F2PTestPoints)
	require.Equal(t, 4, *in.Files)
	require.Equal(t, 6, *in.Functions, "area, Square and its three methods, isclose")

	// The patches create exactly the overlays, in order: env, tests, gold.
	for _, c := range []struct {
		patch []byte
		want  task.Overlay
	}{{a.EnvPatch, a.Env.Start}, {a.TestPatch, a.Env.Tests}, {a.Patch, a.Env.Solution}} {
		p, err := task.ParsePatch(c.patch)
		require.NoError(t, err)
		got, err := p.ApplyDir(t.TempDir())
		require.NoError(t, err)
		require.Equal(t, len(c.want), len(got))
		for k, v := range c.want {
			require.Equal(t, string(v.Data), string(got[k].Data), k)
		}
	}
	added, _ := mustParse(t, a.Patch).Stat()
	require.Equal(t, added, *in.Lines)
	var envPatch string
	require.NoError(t, json.Unmarshal(in.Extra["env_patch"], &envPatch))
	require.Equal(t, string(a.EnvPatch), envPatch)
	require.JSONEq(t, `["agent_code"]`, string(in.Extra["solution_packages"]))

	ps := a.ProblemStatement
	require.Contains(t, ps, "from scratch as the package `agent_code`")
	require.Contains(t, ps, "- Import: `from agent_code.shapes import Square`")
	require.Contains(t, ps, "- The tests import: `agent_code`, `agent_code.shapes`.")
	require.Contains(t, ps, "- The tests are added as `agent_code/tests/test_shapes.py` with 4 supporting file(s)")
	require.NotContains(t, ps, "- Path:")
	require.NotContains(t, ps, "geo", "the original name does not leak into the statement")

	// The instance directory has env_patch.diff; two builds are byte-identical.
	dir, err := a.WriteDir(t.TempDir())
	require.NoError(t, err)
	got := readDir(t, dir)
	require.Len(t, got, 5)
	require.Equal(t, string(a.EnvPatch), got[EnvPatchFile])
	b, err := Build(context.Background(), l2Spec(), Options{})
	require.NoError(t, err)
	dir2, err := b.WriteDir(t.TempDir())
	require.NoError(t, err)
	require.Equal(t, got, readDir(t, dir2))

	_, err = Build(context.Background(), l2Spec(), Options{ReversePatch: true})
	require.ErrorIs(t, err, ErrBadSpec)
}

func mustParse(t *testing.T, b []byte) *task.Patch {
	t.Helper()
	p, err := task.ParsePatch(b)
	require.NoError(t, err)
	return p
}

// The Level 2 patches applied with git to an empty directory give the tree the
// overlays describe.
func TestLevel2PatchesApplyWithGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("artifact: git is not installed")
	}
	a, err := Build(context.Background(), l2Spec(), Options{})
	require.NoError(t, err)
	dir := t.TempDir()
	for i, p := range [][]byte{a.EnvPatch, a.TestPatch, a.Patch} {
		f := filepath.Join(t.TempDir(), "p.diff")
		require.NoError(t, os.WriteFile(f, p, 0o644))
		git(t, dir, "apply", f)
		if i == 0 {
			require.Equal(t, map[string]string{"pytest.ini": string(a.Env.Start["pytest.ini"].Data)}, readTree(t, dir))
		}
	}
	want := map[string]string{}
	for _, o := range []task.Overlay{a.Env.Start, a.Env.Tests, a.Env.Solution} {
		for p, c := range o {
			want[p] = string(c.Data)
		}
	}
	require.Equal(t, want, readTree(t, dir))
}

func TestEnvironmentFromInstance(t *testing.T) {
	for _, spec := range []Spec{l2Spec(), {Root: "testdata/l2gorepo", Repo: "acme/l2", BaseCommit: "0123456789abcdef", Level: 2,
		TestFile: "area/area_test.go", FailToPass: []string{"example.com/l2/area.TestSquare"}}} {
		a, err := Build(context.Background(), spec, Options{})
		require.NoError(t, err)
		raw, err := a.InstanceJSON()
		require.NoError(t, err)
		var inst task.SWEInstance
		require.NoError(t, json.Unmarshal(raw, &inst))
		env, err := EnvironmentFromInstance(inst)
		require.NoError(t, err)
		want := *a.Env
		want.Imports, want.From, want.To = nil, "", ""
		require.Equal(t, &want, env, "read back from the instance")
	}

	a, err := Build(context.Background(), fixtureSpec(t, 1), Options{})
	require.NoError(t, err)
	_, err = EnvironmentFromInstance(a.Instance)
	require.ErrorIs(t, err, ErrBadSpec)
	require.ErrorContains(t, err, "is not a Level 2 instance")
	b, err := Build(context.Background(), l2Spec(), Options{})
	require.NoError(t, err)
	bad := b.Instance
	bad.Patch = "not a patch"
	_, err = EnvironmentFromInstance(bad)
	require.ErrorIs(t, err, ErrBadSpec)
	bad = b.Instance
	bad.Extra = map[string]json.RawMessage{"env_patch": json.RawMessage(`""`)}
	_, err = EnvironmentFromInstance(bad)
	require.ErrorContains(t, err, "has no test_file")
}
