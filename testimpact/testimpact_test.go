package testimpact

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/corrupt"
	"github.com/faultline-dev/faultline/sandbox"
	"github.com/faultline-dev/faultline/task"
)

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, src := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// lineOf returns the 1-based line of the first occurrence of marker in src.
func lineOf(t *testing.T, src, marker string) int {
	t.Helper()
	i := strings.Index(src, marker)
	if i < 0 {
		t.Fatalf("%q not in the source", marker)
	}
	return 1 + strings.Count(src[:i], "\n")
}

// groupsAt returns the test ids of the groups whose regions cover line of file, and
// whether a global region covers it.
func groupsAt(im *corrupt.Impact, file string, line int) (ids []string, global bool) {
	for _, r := range im.Regions {
		if r.File != file || line < r.Line || line > r.EndLine {
			continue
		}
		global = global || r.Global
		for _, g := range r.Groups {
			ids = append(ids, im.Groups[g]...)
		}
	}
	slices.Sort(ids)
	return slices.Compact(ids), global
}

const pyModule = `import functools


def deco(fn):
    return fn


def at_import():
    return 1


TABLE = at_import()


@deco
def used_by_a(x):
    return x + 1


def used_by_b(x):
    return x * 2


def unused(x):
    return x - 1
`

func TestRecordPython(t *testing.T) {
	if err := exec.Command("/usr/bin/python3", "-c", "import pytest").Run(); err != nil {
		t.Skip("/usr/bin/python3 has no pytest (python3-pytest)")
	}
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"pkg/__init__.py":    "",
		"pkg/m.py":           pyModule,
		"tests/test_a.py":    "from pkg import m\n\n\ndef test_a1():\n    assert m.used_by_a(1) == 2\n\n\ndef test_a2():\n    assert m.TABLE == 1\n",
		"tests/test_b.py":    "from pkg import m\n\n\ndef test_b():\n    assert m.used_by_b(2) == 4\n",
		"tests/__init__.py":  "",
		"tests/conftest.py":  "",
		"pkg/not_a_test.txt": "x",
	})
	r := sandbox.NewLocal(sandbox.Options{WorkDir: t.TempDir(), Python: "/usr/bin/python3"})
	defer r.Close()
	ctx := context.Background()
	req := task.RunRequest{Root: root, Kind: task.Pytest, Limits: task.Limits{Timeout: 2 * time.Minute}}
	passing := []string{"tests/test_a.py::test_a1", "tests/test_a.py::test_a2", "tests/test_b.py::test_b"}
	im, st, err := Record(ctx, r, req, passing, Options{Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	if st.Runs != 3 || st.Failed != 0 || len(im.Always) != 0 {
		t.Fatalf("stats %+v, always %v: want 3 runs (two files and the collection), none failed", st, im.Always)
	}
	if want := [][]string{passing[:2], passing[2:]}; !reflect.DeepEqual(im.Groups, want) {
		t.Fatalf("groups %v, want %v", im.Groups, want)
	}
	// A decorated function's region is its first decorator's line.
	if ids, global := groupsAt(im, "pkg/m.py", lineOf(t, pyModule, "@deco")); global || !reflect.DeepEqual(ids, passing[:2]) {
		t.Errorf("used_by_a: %v (global %v), want test_a's tests", ids, global)
	}
	if ids, global := groupsAt(im, "pkg/m.py", lineOf(t, pyModule, "def used_by_b")); global || !reflect.DeepEqual(ids, passing[2:]) {
		t.Errorf("used_by_b: %v (global %v), want test_b", ids, global)
	}
	// Run at import time: outside any test.
	if _, global := groupsAt(im, "pkg/m.py", lineOf(t, pyModule, "def at_import")); !global {
		t.Errorf("at_import is not marked as run outside any test")
	}
	if ids, global := groupsAt(im, "pkg/m.py", lineOf(t, pyModule, "def unused")); global || len(ids) > 0 {
		t.Errorf("unused: %v (global %v), want no region", ids, global)
	}
}

const goSrc = `package p

var table = build()

func build() map[int]int { return map[int]int{1: 2} }

func F(x int) int {
	return x + table[1]
}

func G(x int) int {
	if x > 0 {
		return x * 2
	}
	return 0
}

func Unused() int { return 3 }
`

func TestRecordGo(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"go.mod":      "module example.com/p\n\ngo 1.21\n",
		"p.go":        goSrc,
		"p_test.go":   "package p\n\nimport \"testing\"\n\nfunc TestF(t *testing.T) {\n\tif F(1) != 3 {\n\t\tt.Fatal()\n\t}\n}\n\nfunc TestG(t *testing.T) {\n\tt.Run(\"pos\", func(t *testing.T) {\n\t\tif G(2) != 4 {\n\t\t\tt.Fatal()\n\t\t}\n\t})\n}\n",
		"sub/sub.go":  "package sub\n\nfunc H() int { return 1 }\n",
		"sub/notests": "",
	})
	r := sandbox.NewLocal(sandbox.Options{WorkDir: t.TempDir(), Env: []string{"GOFLAGS=-mod=mod", "GOPROXY=off"}})
	defer r.Close()
	req := task.RunRequest{Root: root, Kind: task.GoTest, Limits: task.Limits{Timeout: 3 * time.Minute}}
	passing := []string{"example.com/p.TestF", "example.com/p.TestG", "example.com/p.TestG/pos"}
	im, st, err := Record(context.Background(), r, req, passing, Options{Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	if st.Runs != 2 || st.Failed != 0 {
		t.Fatalf("stats %+v, want 2 runs (one per top-level test), none failed", st)
	}
	if want := [][]string{passing[:1], passing[1:]}; !reflect.DeepEqual(im.Groups, want) {
		t.Fatalf("groups %v, want %v", im.Groups, want)
	}
	if ids, _ := groupsAt(im, "p.go", lineOf(t, goSrc, "return x + table")); !reflect.DeepEqual(ids, passing[:1]) {
		t.Errorf("F: %v, want TestF", ids)
	}
	if ids, _ := groupsAt(im, "p.go", lineOf(t, goSrc, "return x * 2")); !reflect.DeepEqual(ids, passing[1:]) {
		t.Errorf("G: %v, want TestG and its subtest", ids)
	}
	// A package-level initialiser runs in every test binary: every test of it is impacted.
	if ids, _ := groupsAt(im, "p.go", lineOf(t, goSrc, "func build")); !reflect.DeepEqual(ids, passing) {
		t.Errorf("build (package-level var): %v, want every test", ids)
	}
	if ids, _ := groupsAt(im, "p.go", lineOf(t, goSrc, "func Unused")); len(ids) != 0 {
		t.Errorf("Unused: %v, want none", ids)
	}
}

func TestGroupByAndTopLevel(t *testing.T) {
	keys, groups := groupBy([]string{"b.py::t2", "a.py::t", "b.py::t1"}, pytestFile)
	if !reflect.DeepEqual(keys, []string{"a.py", "b.py"}) || !reflect.DeepEqual(groups, [][]string{{"a.py::t"}, {"b.py::t1", "b.py::t2"}}) {
		t.Errorf("groupBy: %v %v", keys, groups)
	}
	for in, want := range map[string]string{
		"example.com/p.TestX":         "example.com/p.TestX",
		"example.com/p.TestX/a.b/c":   "example.com/p.TestX",
		"gopkg.in/yaml.v3.TestY/case": "gopkg.in/yaml.v3.TestY",
	} {
		if got := goTopLevel(in); got != want {
			t.Errorf("goTopLevel(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSame(t *testing.T) {
	a := []corrupt.Result{{Patch: "p", Functions: []corrupt.Corrupted{{ID: "f", Rule: "remove"}}, Validation: &corrupt.Validation{FailToPass: []string{"t1"}, PassToPass: []string{"t2"}}}}
	b := []corrupt.Result{{Patch: "p", Functions: []corrupt.Corrupted{{ID: "f", Rule: "remove"}}, Validation: &corrupt.Validation{FailToPass: []string{"t1"}, PassToPass: []string{"t2"}, Observed: []string{"differs"}}}}
	if !Same(a, b) {
		t.Error("Same: an observation made the tasks differ")
	}
	b[0].Validation.PassToPass = nil
	if Same(a, b) {
		t.Error("Same: different PASS_TO_PASS compare equal")
	}
}
