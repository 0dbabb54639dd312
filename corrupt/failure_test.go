package corrupt

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/sandbox"
	"github.com/faultline-dev/faultline/task"
)

// markerLine returns the 1-based line of src holding marker (which must occur once).
func markerLine(t *testing.T, src, marker string) int {
	t.Helper()
	if strings.Count(src, marker) != 1 {
		t.Fatalf("marker %q occurs %d times", marker, strings.Count(src, marker))
	}
	return strings.Count(src[:strings.Index(src, marker)], "\n") + 1
}

// siteOf renders the record of a failure at the line of src holding marker.
func siteOf(t *testing.T, kind, file, src, marker string) string {
	t.Helper()
	line := markerLine(t, src, marker)
	text := strings.TrimSpace(strings.Split(src, "\n")[line-1])
	return fmt.Sprintf("%s at %s:%d: %s", kind, file, line, text)
}

// validateTwice validates the corruption over in two runs, each with its own TMPDIR (so
// the runner's private copies, and every temporary path the tests print, differ), against
// the clean tree's passing tests, and returns both validations.
func validateTwice(t *testing.T, root string, kind task.TestKind, over task.Overlay) (*Validation, *Validation) {
	t.Helper()
	ctx := context.Background()
	var vs []*Validation
	for i := range 2 {
		t.Setenv("TMPDIR", t.TempDir()+strings.Repeat("/deeper", i))
		if err := os.MkdirAll(os.Getenv("TMPDIR"), 0o755); err != nil {
			t.Fatal(err)
		}
		r := sandbox.NewLocal(sandbox.Options{Python: "/usr/bin/python3"})
		req := task.RunRequest{Root: root, Kind: kind}
		clean, err := r.Run(ctx, req)
		if err != nil || !clean.Green() {
			r.Close()
			t.Fatalf("the clean fixture does not pass: %v %+v", err, clean)
		}
		req.Overlay = over
		v, err := Validate(ctx, r, req, Baseline{Passing: clean.Passing()}, 1, 0)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		vs = append(vs, v)
	}
	return vs[0], vs[1]
}

// TestFailureRecordsGo: the record of a Go failure is its kind and site, the same in two
// runs whose output differs (durations, pointers, temporary paths), never the volatile text.
func TestFailureRecordsGo(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH")
	}
	lib := "package fx\n\n// At returns s[i].\nfunc At(s []int, i int) int {\n\treturn s[i]\n}\n\ntype Box struct{ v int }\n\nfunc NewBox(v int) *Box { return &Box{v} }\n"
	tests := `package fx

import (
	"fmt"
	"os"
	"testing"
	"time"
)

func TestSlow(t *testing.T) {
	start := time.Now()
	if got := At([]int{1, 2}, 0); got != 1 {
		t.Errorf("At = %d after %v", got, time.Since(start)) // slow site
	}
}

func TestAddr(t *testing.T) {
	b := NewBox(1)
	t.Logf("box at %p", b) // log site
	if got := At([]int{5, 6}, 0); got != 5 {
		t.Errorf("box %p in %s: got %d", b, os.TempDir(), got) // addr site
	}
}

func TestTable(t *testing.T) {
	for _, c := range []struct{ s []int; i, want int }{{[]int{1, 2, 3}, 0, 1}, {[]int{4, 5, 6}, 1, 5}} {
		t.Run(fmt.Sprint(c.i), func(t *testing.T) {
			if got := At(c.s, c.i); got != c.want {
				t.Errorf("At(%v, %d) = %d (%v)", c.s, c.i, got, time.Now()) // table site
			}
		})
	}
}

func TestPanics(t *testing.T) {
	_ = At([]int{1}, 0)
}
`
	root := writeTree(t, map[string]string{"go.mod": "module example.com/fx\n\ngo 1.22\n", "fx.go": lib, "fx_test.go": tests})
	bad := strings.Replace(lib, "return s[i]", "return s[i+1] // corrupted", 1)
	over := task.Overlay{}
	over.Set("fx.go", []byte(bad))
	a, b := validateTwice(t, root, task.GoTest, over)

	want := map[string]string{
		"example.com/fx.TestSlow":    siteOf(t, "fail", "fx_test.go", tests, "// slow site"),
		"example.com/fx.TestTable":   "fail",
		"example.com/fx.TestTable/0": siteOf(t, "fail", "fx_test.go", tests, "// table site"),
		"example.com/fx.TestTable/1": siteOf(t, "fail", "fx_test.go", tests, "// table site"),
		"example.com/fx.TestPanics":  siteOf(t, "panic: runtime error: index out of range", "fx.go", bad, "// corrupted"),
	}
	// TestAddr reported twice (t.Logf, then t.Errorf): the first site, and one more.
	addr := markerLine(t, tests, "// log site")
	want["example.com/fx.TestAddr"] = fmt.Sprintf("fail at fx_test.go:%d (and 1 more sites): %s", addr, strings.TrimSpace(strings.Split(tests, "\n")[addr-1]))
	for _, v := range []*Validation{a, b} {
		got := map[string]string{}
		for i, id := range v.FailToPass {
			got[id] = v.Messages[i]
		}
		for id, w := range want {
			if got[id] != w {
				t.Errorf("%s: record %q, want %q", id, got[id], w)
			}
		}
		if len(got) != len(want) {
			t.Errorf("FAIL_TO_PASS %v, want the %d tests of %v", v.FailToPass, len(want), want)
		}
	}
	if !slices.Equal(a.Messages, b.Messages) || !slices.Equal(a.FailToPass, b.FailToPass) {
		t.Errorf("two runs give different records:\n%q\n%q", a.Messages, b.Messages)
	}
	// The observed output keeps its text but names the repository's files by their paths in
	// the repository, not in the runner's private copy.
	i := slices.Index(a.FailToPass, "example.com/fx.TestPanics")
	if i < 0 || !strings.Contains(a.Observed[i], "\tfx.go:") || strings.Contains(a.Observed[i], "/tree/fx.go") {
		t.Errorf("observed panic output: %q", a.Observed[max(i, 0)])
	}
}

// TestFailureRecordsPytest: the record of a pytest failure is the exception type and the
// deepest traceback entry in the repository, the same in two runs whose output differs
// (durations, object addresses, unittest's "[N chars]" counts that depend on the length of
// a temporary path).
func TestFailureRecordsPytest(t *testing.T) {
	if testing.Short() {
		t.Skip("runs pytest")
	}
	if err := exec.Command("/usr/bin/python3", "-c", "import pytest").Run(); err != nil {
		t.Skip("Debian's /usr/bin/python3 cannot import pytest; apt-get install python3-pytest")
	}
	lib := "import os\nimport tempfile\n\n\nclass Thing:\n    pass\n\n\ndef double(x):\n    return 2 * x\n\n\ndef label(x):\n    return \"n\" + str(x)\n\n\ndef where(name):\n    return os.path.join(tempfile.gettempdir(), name) * 20\n"
	tests := `import time
import unittest

import pkg


def test_timing():
    start = time.time()
    assert pkg.double(2) == 4, "took %.9fs" % (time.time() - start)


def test_repr():
    assert pkg.double(1) == 2, (pkg.Thing(), [pkg.Thing()] * 30)


def test_label():
    assert pkg.label(1) == "n1"


class TestLong(unittest.TestCase):
    def test_long(self):
        self.assertEqual(pkg.where("x") + str(pkg.double(1)), pkg.where("x") + "2")
`
	root := writeTree(t, map[string]string{"pkg/__init__.py": lib, "tests/test_fx.py": tests})
	bad := strings.Replace(lib, "return 2 * x", "return 3 * x", 1)
	bad = strings.Replace(bad, "return \"n\" + str(x)", "return \"n\" + x", 1)
	over := task.Overlay{}
	over.Set("pkg/__init__.py", []byte(bad))
	a, b := validateTwice(t, root, task.Pytest, over)
	want := map[string]string{
		"tests/test_fx.py::test_timing":         siteOf(t, "AssertionError", "tests/test_fx.py", tests, "assert pkg.double(2) == 4"),
		"tests/test_fx.py::test_repr":           siteOf(t, "AssertionError", "tests/test_fx.py", tests, "assert pkg.double(1) == 2"),
		"tests/test_fx.py::test_label":          siteOf(t, "TypeError", "pkg/__init__.py", bad, "return \"n\" + x"),
		"tests/test_fx.py::TestLong::test_long": siteOf(t, "AssertionError", "tests/test_fx.py", tests, "self.assertEqual"),
	}
	for _, v := range []*Validation{a, b} {
		got := map[string]string{}
		for i, id := range v.FailToPass {
			got[id] = v.Messages[i]
		}
		for id, w := range want {
			if got[id] != w {
				t.Errorf("%s: record %q, want %q", id, got[id], w)
			}
		}
		if len(got) != len(want) {
			t.Errorf("FAIL_TO_PASS %v, want the %d tests of %v", v.FailToPass, len(want), want)
		}
	}
	if !slices.Equal(a.Messages, b.Messages) {
		t.Errorf("two runs give different records:\n%q\n%q", a.Messages, b.Messages)
	}
	// The outputs themselves differ: the records are stable because they leave the
	// observations out, not because the runs happened to agree.
	if slices.Equal(a.Observed, b.Observed) {
		t.Errorf("the two runs printed the same output; the fixture no longer shows volatile text:\n%q", a.Observed)
	}
}

// TestFailureRecordedAlone: the failure a record keeps for a FAIL_TO_PASS test is the one it
// shows run alone (confirmAlone), not the one it showed with the suite, where other tests
// may change it (a counter another test bumped first here; which of several t.Parallel
// tests panicking at once prints its trace, on mitchellh/mapstructure).
func TestFailureRecordedAlone(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH")
	}
	root := t.TempDir()
	files := map[string]string{
		"go.mod":    "module example.com/bump\n\ngo 1.21\n",
		"bump.go":   "package bump\n\nvar calls int\n\n// Bump counts its calls.\nfunc Bump() int {\n\tcalls++\n\treturn calls\n}\n",
		"a_test.go": "package bump\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) {\n\tif Bump() < 0 {\n\t\tt.Fatal(\"negative\")\n\t}\n}\n",
		"b_test.go": "package bump\n\nimport \"testing\"\n\nfunc TestB(t *testing.T) {\n\tv := Bump()\n\tif v == 10 {\n\t\tt.Fatalf(\"alone: %d\", v)\n\t}\n\tif v > 2 {\n\t\tt.Fatalf(\"with others: %d\", v)\n\t}\n}\n",
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(root, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	over := task.Overlay{}
	over.Set("bump.go", []byte("package bump\n\nvar calls int\n\n// Bump counts its calls.\nfunc Bump() int {\n\tcalls++\n\treturn calls * 10\n}\n"))
	ctx := context.Background()
	r := sandbox.NewLocal(sandbox.Options{})
	defer r.Close()
	req := task.RunRequest{Root: root, Kind: task.GoTest}
	clean, err := r.Run(ctx, req)
	if err != nil || !clean.Green() {
		t.Fatalf("the clean fixture does not pass: %v %+v", err, clean)
	}
	req.Overlay = over
	v, err := Validate(ctx, r, req, Baseline{Passing: clean.Passing()}, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"example.com/bump.TestB"}; !reflect.DeepEqual(v.FailToPass, want) {
		t.Fatalf("FAIL_TO_PASS %v, want %v (%s)", v.FailToPass, want, v.Reason)
	}
	if want := "fail at b_test.go:11: t.Fatalf(\"with others: %d\", v)"; v.Messages[0] != want {
		t.Fatalf("with the suite: %q, want %q", v.Messages[0], want)
	}
	if err := confirmAlone(ctx, r, req, v, 1, 1, 0); err != nil {
		t.Fatal(err)
	}
	if want := "fail at b_test.go:8: t.Fatalf(\"alone: %d\", v)"; len(v.Messages) != 1 || v.Messages[0] != want {
		t.Errorf("recorded %q, want the failure alone %q", v.Messages, want)
	}
}
