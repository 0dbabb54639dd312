package corrupt

import (
	"errors"
	"go/parser"
	"go/token"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/task"
)

// pyFunc builds the spans of the single function in src the way the Python front end
// reports them: Def from the first decorator (or def) to the end, Signature from `def` to
// the header's colon, Doc the docstring literal, Body from the first statement to the end.
func pyFunc(t *testing.T, src, header, doc, bodyStart string) task.Function {
	t.Helper()
	def := strings.Index(src, "def ")
	if strings.HasPrefix(strings.TrimSpace(src), "@") {
		def = strings.Index(src, "@")
	}
	h := strings.Index(src, header)
	b := strings.Index(src, bodyStart)
	if h < 0 || b < 0 {
		t.Fatalf("markers not found in %q", src)
	}
	end := len(strings.TrimRight(src, "\n"))
	fn := task.Function{File: "m.py", Name: "f", Kind: task.KindFunction,
		Def:       task.Span{Start: def, End: end},
		Signature: task.Span{Start: strings.Index(src, "def "), End: h + len(header)},
		Body:      task.Span{Start: b, End: end}}
	if doc != "" {
		d := strings.Index(src, doc)
		fn.Doc = task.Span{Start: d, End: d + len(doc)}
	}
	return fn
}

func TestStubPython(t *testing.T) {
	cases := []struct {
		name, src, header, doc, body, want string
	}{
		{"plain", "def f(x):\n    y = x + 1\n    return y\n", "):", "", "y = x", "def f(x):\n    pass\n"},
		{"docstring kept", "def f(x):\n    \"\"\"Add one.\n\n    More.\n    \"\"\"\n    return x + 1\n", "):", "\"\"\"Add one.\n\n    More.\n    \"\"\"", "\"\"\"Add", "def f(x):\n    \"\"\"Add one.\n\n    More.\n    \"\"\"\n    pass\n"},
		{"comments before the first statement kept", "def f(x):\n    '''Doc.'''\n    # keep me\n    # and me\n    return x\n", "):", "'''Doc.'''", "'''Doc", "def f(x):\n    '''Doc.'''\n    # keep me\n    # and me\n    pass\n"},
		{"decorators and multi-line signature kept", "@cache\n@other(1)\ndef f(\n    a,\n    b=2,\n) -> int:\n    return a * b\n", ") -> int:", "", "return a", "@cache\n@other(1)\ndef f(\n    a,\n    b=2,\n) -> int:\n    pass\n"},
		{"one-line definition", "def f(): return 1\n", "():", "", "return 1", "def f(): pass\n"},
		{"docstring only gets pass", "def f():\n    \"\"\"Nothing here.\"\"\"\n", "():", "\"\"\"Nothing here.\"\"\"", "\"\"\"Nothing", "def f():\n    \"\"\"Nothing here.\"\"\"\n    pass\n"},
		{"one-line docstring definition", "def f(): \"\"\"Doc.\"\"\"\n", "():", "\"\"\"Doc.\"\"\"", "\"\"\"Doc", "def f(): \"\"\"Doc.\"\"\"; pass\n"},
		{"nested blocks and tabs", "def f(x):\n\tif x:\n\t\treturn 1\n\treturn 2\n", "):", "", "if x", "def f(x):\n\tpass\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fn := pyFunc(t, c.src, c.header, c.doc, c.body)
			m, err := Stub("python", []byte(c.src), fn)
			if err != nil {
				t.Fatal(err)
			}
			if got := string(m.Apply([]byte(c.src))); got != c.want {
				t.Errorf("stub:\n%s\nwant:\n%s", got, c.want)
			}
			if m.Rule != RemoveRule || m.Line < 1 {
				t.Errorf("mutant metadata %+v", m)
			}
		})
	}
}

func TestStubPythonAlreadyEmpty(t *testing.T) {
	src := "def f():\n    pass\n"
	_, err := Stub("python", []byte(src), pyFunc(t, src, "():", "", "pass"))
	if !errors.Is(err, ErrNoSites) {
		t.Errorf("err = %v, want ErrNoSites", err)
	}
}

func TestStubGo(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"zero values for unnamed results", "package p\n\n// F doubles.\nfunc F(x int) (int, error) {\n\ty := x * 2\n\treturn y, nil\n}\n",
			"package p\n\n// F doubles.\nfunc F(x int) (int, error) {\n\treturn *new(int), *new(error)\n}\n"},
		{"bare return for named results", "package p\n\nfunc F(s []string) (n int, err error) {\n\tn = len(s)\n\treturn\n}\n",
			"package p\n\nfunc F(s []string) (n int, err error) {\n\treturn\n}\n"},
		{"type parameters", "package p\n\nfunc First[T any](xs []T) T {\n\treturn xs[0]\n}\n",
			"package p\n\nfunc First[T any](xs []T) T {\n\treturn *new(T)\n}\n"},
		{"no results: comments kept, statements gone", "package p\n\nfunc (s *S) M() {\n\t// Keep this note.\n\t/* and this */\n\ts.n++\n}\n\ntype S struct{ n int }\n",
			"package p\n\nfunc (s *S) M() {\n\t// Keep this note.\n\t/* and this */\n}\n\ntype S struct{ n int }\n"},
		{"one line", "package p\n\nfunc F() map[string]int { return nil }\n", "package p\n\nfunc F() map[string]int { return *new(map[string]int) }\n"},
		{"one line without results", "package p\n\nfunc F(x *int) { *x = 1 }\n", "package p\n\nfunc F(x *int) {}\n"},
		{"multi-line signature", "package p\n\nfunc F(\n\ta int,\n\tb int,\n) int {\n\treturn a + b\n}\n",
			"package p\n\nfunc F(\n\ta int,\n\tb int,\n) int {\n\treturn *new(int)\n}\n"},
		{"comment only body with a result", "package p\n\nfunc F() error {\n\t// TODO\n\treturn nil\n}\n", "package p\n\nfunc F() error {\n\t// TODO\n\treturn *new(error)\n}\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fn := goFuncs(t, "p.go", []byte(c.src))[0]
			m, err := Stub("go", []byte(c.src), fn)
			if err != nil {
				t.Fatal(err)
			}
			got := m.Apply([]byte(c.src))
			if string(got) != c.want {
				t.Errorf("stub:\n%s\nwant:\n%s", got, c.want)
			}
			if _, err := parser.ParseFile(token.NewFileSet(), "p.go", got, 0); err != nil {
				t.Errorf("stub does not parse: %v", err)
			}
		})
	}
	// A body that is already empty (comments only, no results) has nothing to remove.
	src := "package p\n\nfunc F() {\n\t// nothing yet\n}\n"
	if _, err := Stub("go", []byte(src), goFuncs(t, "p.go", []byte(src))[0]); !errors.Is(err, ErrNoSites) {
		t.Errorf("empty body: err = %v, want ErrNoSites", err)
	}
}

// TestStubGoSampleCompiles removes every function of the quickstart's sample package in
// turn and type-checks the result.
func TestStubGoSampleCompiles(t *testing.T) {
	root := "../examples/sample"
	checker, err := NewGoChecker(root)
	if err != nil {
		t.Fatal(err)
	}
	n, pruned := 0, 0
	for _, file := range []string{"ledger/money.go", "ledger/entry.go", "ledger/balance.go", "ledger/report.go"} {
		src := readFile(t, root+"/"+file)
		for _, fn := range goFuncs(t, file, src) {
			m, err := Stub("go", src, fn)
			if err != nil {
				t.Fatalf("%s: %v", fn, err)
			}
			ok, err := checker.Accept(&m, src)
			if err != nil || !ok {
				t.Errorf("%s: stub does not compile: %v", fn, err)
			}
			if strings.Contains(m.Desc, "pruned") {
				pruned++
			}
			n++
		}
	}
	if n < 15 {
		t.Errorf("only %d functions stubbed", n)
	}
	if pruned == 0 {
		t.Error("no stub needed an import pruned; ParseJournal alone uses bufio")
	}
}

func TestStubErrors(t *testing.T) {
	src := "class C:\n    pass\n"
	fn := task.Function{Name: "C", Kind: task.KindClass, Def: task.Span{Start: 0, End: len(src)}, Signature: task.Span{Start: 0, End: 8}, Body: task.Span{Start: 13, End: 17}}
	if _, err := Stub("python", []byte(src), fn); !errors.Is(err, ErrNoSites) {
		t.Errorf("class: err = %v, want ErrNoSites", err)
	}
	fn.Kind = task.KindFunction
	if _, err := Stub("cobol", []byte(src), fn); err == nil {
		t.Error("unknown language accepted")
	}
	fn.Body = task.Span{Start: 13, End: 99}
	if _, err := Stub("python", []byte(src), fn); err == nil {
		t.Error("span outside the file accepted")
	}
}
