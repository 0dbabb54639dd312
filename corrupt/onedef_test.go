package corrupt

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/callgraph"
	"github.com/faultline-dev/faultline/callgraph/golang"
	"github.com/faultline-dev/faultline/callgraph/javascript"
	"github.com/faultline-dev/faultline/callgraph/python"
	"github.com/faultline-dev/faultline/task"
)

// oneDefEnv makes a DISCOVERY Env over a one-file repository whose function name (in
// file) was corrupted by replacing from with to. Its runner is never called.
func oneDefEnv(t *testing.T, file, src, name, from, to string, lang callgraph.Language, kind task.TestKind) *Env {
	t.Helper()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, file), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(src, from) {
		t.Fatalf("%s does not contain %q", file, from)
	}
	o := task.Overlay{}
	o.Set(file, []byte(strings.Replace(src, from, to, 1)))
	p, err := task.DiffOverlay(root, o, task.DiffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	prob := task.BreakpointProblem{ID: "onedef", Mode: string(Discovery), CorruptionPatch: string(p.Format()), GoldPatch: string(p.Reverse().Format()),
		Functions: []task.CorruptedFunction{{Path: file, Name: name}}, FailToPass: task.TestList{"t"}}
	never := task.RunnerFunc(func(context.Context, task.RunRequest) (*task.Report, error) { return nil, errors.New("not called") })
	e, err := NewEnv(root, prob, never, EnvOptions{MaxToolUses: 100, Langs: []callgraph.Language{lang}, Run: task.RunRequest{Kind: kind}})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestReplaceFunctionExactlyOneDefinition: replace_function writes exactly one definition
// of the named function. A trailing init function, a second function, module-level code or
// a definition of another name is refused (and the working copy is unchanged); comments
// around the definition are not code and are accepted.
func TestReplaceFunctionExactlyOneDefinition(t *testing.T) {
	goSrc := "package m\n\nimport \"strings\"\n\n// Up upper-cases s.\nfunc Up(s string) string {\n\treturn strings.ToUpper(s)\n}\n\ntype T struct{ n int }\n\n// Get returns n.\nfunc (t *T) Get() int {\n\treturn t.n\n}\n"
	pySrc := "import os\n\n\ndef up(s):\n    return s.upper()\n\n\nclass T:\n    def get(self):\n        return self.n\n"
	jsSrc := "function up(s) {\n  return s.toUpperCase();\n}\n\nclass T {\n  get() {\n    return this.n;\n  }\n}\n\nmodule.exports = { up, T };\n"
	type tc struct {
		name, code string
		ok         bool
		why        string // part of the refusal
	}
	langs := []struct {
		lang, file, src, fn, from, to string
		front                         callgraph.Language
		kind                          task.TestKind
		cases                         []tc
	}{
		{"go", "m.go", goSrc, "Up", "ToUpper", "ToLower", golang.New(golang.Options{}), task.GoTest, []tc{
			{"the function", "func Up(s string) string {\n\treturn strings.ToUpper(s)\n}", true, ""},
			{"with comments around", "// Up upper-cases s.\nfunc Up(s string) string {\n\treturn strings.ToUpper(s) // fixed\n}\n/* done */\n", true, ""},
			{"trailing init", "func Up(s string) string {\n\treturn strings.ToUpper(s)\n}\n\nfunc init() { panic(\"owned\") }", false, "exactly one definition"},
			{"extra function", "func Up(s string) string {\n\treturn helper(s)\n}\n\nfunc helper(s string) string { return strings.ToUpper(s) }", false, "exactly one definition"},
			{"trailing variable", "func Up(s string) string {\n\treturn strings.ToUpper(s)\n}\n\nvar _ = os.Remove(\"x\")", false, "more than the definition"},
			{"leading variable", "var x = 1\n\nfunc Up(s string) string {\n\treturn strings.ToUpper(s)\n}", false, "more than the definition"},
			{"another name", "func Down(s string) string {\n\treturn strings.ToUpper(s)\n}", false, "not Up"},
			{"no definition", "// nothing", false, "exactly one definition"},
		}},
		{"go method", "m.go", goSrc, "T.Get", "return t.n", "return t.n + 1", golang.New(golang.Options{}), task.GoTest, []tc{
			{"the method", "func (t *T) Get() int {\n\treturn t.n\n}", true, ""},
			{"method and init", "func (t *T) Get() int {\n\treturn t.n\n}\nfunc init() {}", false, "exactly one definition"},
		}},
		{"python", "m.py", pySrc, "up", "upper", "lower", python.New(python.Options{}), task.Pytest, []tc{
			{"the function", "def up(s):\n    return s.upper()\n", true, ""},
			{"with a comment", "# fixed\ndef up(s):\n    return s.upper()  # really\n# end\n", true, ""},
			{"decorated", "@staticmethod\ndef up(s):\n    return s.upper()\n", true, ""},
			{"trailing call", "def up(s):\n    return s.upper()\n\nos.system('touch /tmp/owned')\n", false, "more than the definition"},
			{"extra function", "def up(s):\n    return s.upper()\n\ndef evil():\n    pass\n", false, "exactly one definition"},
			{"leading import", "import subprocess\ndef up(s):\n    return s.upper()\n", false, "more than the definition"},
			{"module docstring", "\"\"\"doc\"\"\"\ndef up(s):\n    return s.upper()\n", false, "more than the definition"},
			{"nested helper is part of it", "def up(s):\n    def inner(x):\n        return x.upper()\n    return inner(s)\n", true, ""},
		}},
		{"python method", "m.py", pySrc, "T.get", "return self.n", "return -self.n", python.New(python.Options{}), task.Pytest, []tc{
			{"column 0", "def get(self):\n    return self.n\n", true, ""},
			{"second method", "def get(self):\n    return self.n\n\ndef other(self):\n    return 1\n", false, "exactly one definition"},
			{"class attribute", "def get(self):\n    return self.n\nflag = __import__('os').getcwd()\n", false, "more than the definition"},
		}},
		{"javascript", "m.js", jsSrc, "up", "toUpperCase", "toLowerCase", javascript.New(javascript.Options{}), task.Pytest, []tc{
			{"the function", "function up(s) {\n  return s.toUpperCase();\n}", true, ""},
			{"comments", "/* fixed */ function up(s) {\n  return s.toUpperCase(); // yes\n}\n// end", true, ""},
			{"trailing call", "function up(s) {\n  return s.toUpperCase();\n}\nrequire('fs').writeFileSync('/tmp/owned', '');", false, "more than the definition"},
			{"extra function", "function up(s) {\n  return s.toUpperCase();\n}\nfunction evil() {}", false, "exactly one definition"},
		}},
	}
	for _, l := range langs {
		for _, c := range l.cases {
			t.Run(l.lang+"/"+c.name, func(t *testing.T) {
				e := oneDefEnv(t, l.file, l.src, l.fn, l.from, l.to, l.front, l.kind)
				before := string(e.work[l.file].Data)
				_, err := e.ReplaceFunction(l.file, l.fn, c.code)
				after := string(e.work[l.file].Data)
				if c.ok {
					if err != nil {
						t.Fatalf("refused: %v", err)
					}
					if after == before {
						t.Error("the working copy did not change")
					}
					return
				}
				if err == nil || !errors.Is(err, ErrToolArgs) || !strings.Contains(err.Error(), c.why) {
					t.Errorf("err = %v, want an ErrToolArgs saying %q", err, c.why)
				}
				if after != before {
					t.Errorf("a refused replacement changed the working copy:\n%s", after)
				}
			})
		}
	}
}

// TestSubmitAttemptOnlyRemovedFunctions: a REMOVE submission holds the removed functions
// and nothing else — an extra definition or a trailing statement is refused before any
// test runs (the runner here fails if called).
func TestSubmitAttemptOnlyRemovedFunctions(t *testing.T) {
	root := t.TempDir()
	src := "def a(x):\n    return x + 1\n\n\ndef b(x):\n    return x * 2\n"
	if err := os.WriteFile(filepath.Join(root, "m.py"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	stubbed := "def a(x):\n    pass\n\n\ndef b(x):\n    pass\n"
	o := task.Overlay{}
	o.Set("m.py", []byte(stubbed))
	p, err := task.DiffOverlay(root, o, task.DiffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	never := task.RunnerFunc(func(context.Context, task.RunRequest) (*task.Report, error) { return nil, errors.New("not called") })
	for _, c := range []struct {
		name  string
		fns   []string
		code  string
		why   string
		tests bool // reaches the runner
	}{
		{"one function", []string{"a"}, "def a(x):\n    return x + 1\n", "", true},
		{"one function and a statement", []string{"a"}, "def a(x):\n    return x + 1\nopen('/tmp/owned', 'w')\n", "more than the definition", false},
		{"one function and another", []string{"a"}, "def a(x):\n    return x + 1\ndef c():\n    pass\n", "exactly one definition", false},
		{"two functions", []string{"a", "b"}, "def a(x):\n    return x + 1\n\ndef b(x):\n    return x * 2\n", "", true},
		{"two functions and a third", []string{"a", "b"}, "def a(x):\n    return x + 1\n\ndef b(x):\n    return x * 2\n\ndef c():\n    pass\n", "not a removed function", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			prob := task.BreakpointProblem{ID: "rm", Mode: string(Remove), CorruptionPatch: string(p.Format()), GoldPatch: string(p.Reverse().Format()), FailToPass: task.TestList{"t"}}
			for _, f := range c.fns {
				prob.Functions = append(prob.Functions, task.CorruptedFunction{Path: "m.py", Name: f})
			}
			e, err := NewEnv(root, prob, never, EnvOptions{Langs: []callgraph.Language{python.New(python.Options{})}, Run: task.RunRequest{Kind: task.Pytest}})
			if err != nil {
				t.Fatal(err)
			}
			a, err := e.SubmitAttempt(context.Background(), c.code)
			if c.tests {
				if err == nil || !strings.Contains(err.Error(), "not called") {
					t.Errorf("an acceptable submission did not reach the runner: %+v, %v", a, err)
				}
				return
			}
			if err != nil || a.Passed || a.State != task.RunCollectionError || !strings.Contains(a.Feedback, c.why) {
				t.Errorf("attempt %+v, err %v; want an execution error saying %q", a, err, c.why)
			}
		})
	}
}
