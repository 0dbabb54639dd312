package corrupt

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/callgraph"
	"github.com/faultline-dev/faultline/callgraph/python"
	"github.com/faultline-dev/faultline/task"
)

// pyFuncs lists the top-level functions of a Python file as the Python front end reports
// them.
func pyFuncs(t testing.TB, path string, src []byte) []task.Function {
	t.Helper()
	a, err := python.New(python.Options{}).Analyze(t.Context(), []callgraph.SourceFile{{Path: path, Src: src}})
	if err != nil {
		t.Fatal(err)
	}
	var out []task.Function
	for _, d := range a.Definitions {
		if d.Kind == task.KindFunction || d.Kind == task.KindMethod {
			out = append(out, d.Function)
		}
	}
	return out
}

// cpythonCompiles reports whether Debian's CPython compiles every source (one per
// element), so tree-sitter's verdict is checked against the language's own parser.
func cpythonCompiles(t *testing.T, srcs []string) []bool {
	t.Helper()
	py := "/usr/bin/python3"
	if _, err := os.Stat(py); err != nil {
		t.Skip("no /usr/bin/python3 to cross-check parses")
	}
	dir := t.TempDir()
	for i, s := range srcs {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("m%04d.py", i)), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	script := `import sys, glob
for f in sorted(glob.glob(sys.argv[1] + "/m*.py")):
    try:
        compile(open(f).read(), f, "exec")
        print("ok")
    except SyntaxError:
        print("bad")
`
	out, err := exec.Command(py, "-c", script, dir).Output()
	if err != nil {
		t.Fatal(err)
	}
	var res []bool
	for _, l := range strings.Fields(string(out)) {
		res = append(res, l == "ok")
	}
	if len(res) != len(srcs) {
		t.Fatalf("python answered %d verdicts for %d sources", len(res), len(srcs))
	}
	return res
}

func TestPythonRulesGolden(t *testing.T) {
	root := filepath.Join("testdata", "pyrules")
	src := readFile(t, filepath.Join(root, "mut.py"))
	fns := pyFuncs(t, "mut.py", src)
	if len(fns) != 2 {
		t.Fatalf("front end found %d functions, want 2", len(fns))
	}
	checker := SyntaxChecker{Lang: python.New(python.Options{})}
	rules := PythonRules()
	if len(rules) < 12 {
		t.Fatalf("%d Python rules, want at least 12", len(rules))
	}
	var all []string
	var accepted []bool
	names := map[string]bool{}
	for _, r := range rules {
		if names[r.Name()] || r.Doc() == "" || r.Language() != "python" {
			t.Errorf("rule %q: duplicate name, empty doc or wrong language", r.Name())
		}
		names[r.Name()] = true
		var buf bytes.Buffer
		parsing := 0
		for _, fn := range fns {
			for _, m := range r.Mutants(mustTarget(t, "mut.py", src, fn)) {
				for _, e := range m.Edits {
					if e.Start < fn.Body.Start || e.End > fn.Body.End {
						t.Errorf("%s: %s: edit outside the body", r.Name(), m.Desc)
					}
				}
				out := m.Apply(src)
				if bytes.Equal(out, src) {
					t.Errorf("%s: %s: mutant equals the original", r.Name(), m.Desc)
				}
				ok, err := checker.Accept(&m, src)
				if err != nil {
					t.Fatal(err)
				}
				if ok {
					parsing++
				}
				all = append(all, string(out))
				accepted = append(accepted, ok)
				fmt.Fprintf(&buf, "## %s: %s (parses: %v)\n%s\n", fn.Name, m.Desc, ok, lineDiff(string(src), string(out)))
			}
		}
		if parsing == 0 {
			t.Errorf("rule %s: no parsing mutant on the fixture", r.Name())
		}
		golden := filepath.Join(root, r.Name()+".golden")
		if *update {
			if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run go test -run TestPythonRulesGolden -update)", err)
		}
		if buf.String() != string(want) {
			t.Errorf("rule %s: mutants differ from %s:\n%s", r.Name(), golden, buf.String())
		}
	}
	// Every mutant tree-sitter accepts must compile under CPython.
	for i, ok := range cpythonCompiles(t, all) {
		if accepted[i] && !ok {
			t.Errorf("tree-sitter accepted a mutant CPython rejects:\n%s", all[i])
		}
	}
}

func TestStubPythonRealPackage(t *testing.T) {
	// REMOVE every function of a real module: every stub must compile under CPython.
	p := "/usr/lib/python3/dist-packages/simplejson/encoder.py"
	src, err := os.ReadFile(p)
	if err != nil {
		t.Skip("python3-simplejson is not installed")
	}
	var outs []string
	for _, fn := range pyFuncs(t, "encoder.py", src) {
		m, err := Stub("python", src, fn)
		if err != nil {
			continue // e.g. a body that is already a single pass
		}
		outs = append(outs, string(m.Apply(src)))
	}
	if len(outs) < 10 {
		t.Fatalf("only %d stubs", len(outs))
	}
	for i, ok := range cpythonCompiles(t, outs) {
		if !ok {
			t.Errorf("stub %d does not compile:\n%s", i, outs[i])
		}
	}
}

func FuzzPythonRules(f *testing.F) {
	src, err := os.ReadFile(filepath.Join("testdata", "pyrules", "mut.py"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(src))
	f.Add("def f(x):\n    return x[1:-1] if x else x[::2]\n")
	f.Add("def f(\n")
	fe := python.New(python.Options{})
	f.Fuzz(func(t *testing.T, s string) {
		a, err := fe.Analyze(t.Context(), []callgraph.SourceFile{{Path: "f.py", Src: []byte(s)}})
		if err != nil {
			return
		}
		for _, d := range a.Definitions {
			if d.Kind != task.KindFunction && d.Kind != task.KindMethod {
				continue
			}
			tg, err := NewTarget("f.py", []byte(s), d.Function)
			if err != nil {
				continue
			}
			for _, m := range Candidates(tg, PythonRules(), "python", nil) {
				_ = m.Apply([]byte(s)) // must not panic
			}
		}
	})
}
