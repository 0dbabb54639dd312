package corrupt

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/task"
)

var update = flag.Bool("update", false, "rewrite golden files")

// goFuncs finds the functions of a Go file with go/ast, as the Go front end reports them
// (Def from `func`, Body the braces).
func goFuncs(t testing.TB, path string, src []byte) []task.Function {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	tf := fset.File(f.Pos())
	var out []task.Function
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		name := fd.Name.Name
		if fd.Recv != nil && len(fd.Recv.List) == 1 {
			rt := fd.Recv.List[0].Type
			if st, ok := rt.(*ast.StarExpr); ok {
				rt = st.X
			}
			if id, ok := rt.(*ast.Ident); ok {
				name = id.Name + "." + name
			}
		}
		out = append(out, task.Function{
			ID: task.MakeID(path, name), File: path, Name: name, Kind: task.KindFunction,
			Line: tf.Line(fd.Pos()), EndLine: tf.Line(fd.End()),
			Def:       task.Span{Start: tf.Offset(fd.Pos()), End: tf.Offset(fd.End())},
			Signature: task.Span{Start: tf.Offset(fd.Pos()), End: tf.Offset(fd.Body.Lbrace)},
			Body:      task.Span{Start: tf.Offset(fd.Body.Lbrace), End: tf.Offset(fd.Body.Rbrace) + 1},
		})
	}
	return out
}

func mustTarget(t testing.TB, path string, src []byte, fn task.Function) *Target {
	t.Helper()
	tg, err := NewTarget(path, src, fn)
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

// TestGoRulesGolden renders every mutant of every rule on the fixture as a small diff of the
// changed lines and compares it with testdata/gorules/<rule>.golden (go test -update
// rewrites them; review the diff by eye). It also type-checks each mutant and records
// whether it compiles.
func TestGoRulesGolden(t *testing.T) {
	root := filepath.Join("testdata", "gorules")
	src, err := os.ReadFile(filepath.Join(root, "mut.go"))
	if err != nil {
		t.Fatal(err)
	}
	checker, err := NewGoChecker(root)
	if err != nil {
		t.Fatal(err)
	}
	fns := goFuncs(t, "mut.go", src)
	rules := GoRules()
	if len(rules) < 12 {
		t.Fatalf("%d Go rules, want at least 12", len(rules))
	}
	names := map[string]bool{}
	for _, r := range rules {
		if names[r.Name()] || r.Doc() == "" || r.Language() != "go" {
			t.Errorf("rule %q: duplicate name, empty doc or wrong language", r.Name())
		}
		names[r.Name()] = true
		var buf bytes.Buffer
		compiling := 0
		for _, fn := range fns {
			tg := mustTarget(t, "mut.go", src, fn)
			for _, m := range r.Mutants(tg) {
				for _, e := range m.Edits {
					if e.Start < fn.Body.Start || e.End > fn.Body.End {
						t.Errorf("%s: %s: edit [%d,%d) outside the body [%d,%d)", r.Name(), m.Desc, e.Start, e.End, fn.Body.Start, fn.Body.End)
					}
				}
				out := m.Apply(src)
				if bytes.Equal(out, src) {
					t.Errorf("%s: %s: mutant equals the original", r.Name(), m.Desc)
				}
				ok, err := checker.Accept(&m, src)
				if err != nil {
					t.Fatalf("%s: %s: %v", r.Name(), m.Desc, err)
				}
				if ok {
					compiling++
				}
				fmt.Fprintf(&buf, "## %s: %s (compiles: %v)\n%s\n", fn.Name, m.Desc, ok, lineDiff(string(src), string(m.Apply(src))))
			}
		}
		if compiling == 0 {
			t.Errorf("rule %s: no compiling mutant on the fixture", r.Name())
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
			t.Fatalf("%v (run go test -run TestGoRulesGolden -update)", err)
		}
		if buf.String() != string(want) {
			t.Errorf("rule %s: mutants differ from %s:\n%s", r.Name(), golden, buf.String())
		}
	}
}

// lineDiff shows the lines that differ between a and b ("-" old, "+" new), assuming the
// change keeps a common prefix and suffix of lines.
func lineDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	p := 0
	for p < len(al) && p < len(bl) && al[p] == bl[p] {
		p++
	}
	s := 0
	for s < len(al)-p && s < len(bl)-p && al[len(al)-1-s] == bl[len(bl)-1-s] {
		s++
	}
	var out strings.Builder
	for _, l := range al[p : len(al)-s] {
		out.WriteString("-" + l + "\n")
	}
	for _, l := range bl[p : len(bl)-s] {
		out.WriteString("+" + l + "\n")
	}
	return out.String()
}

func TestGoCheckerRejectsAndPrunes(t *testing.T) {
	root := t.TempDir()
	must := func(name, s string) {
		if err := os.WriteFile(filepath.Join(root, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	must("go.mod", "module example.com/p\n\ngo 1.22\n")
	src := "package p\n\nimport (\n\t\"fmt\"\n\t\"strings\"\n)\n\nfunc F(s string) string {\n\tfmt.Println(s)\n\treturn strings.ToUpper(s)\n}\n"
	must("p.go", src)
	fn := goFuncs(t, "p.go", []byte(src))[0]
	checker, err := NewGoChecker(root)
	if err != nil {
		t.Fatal(err)
	}
	body := fn.Body
	// Removing the only use of fmt: accepted with the import pruned.
	i := strings.Index(src, "\tfmt.Println(s)\n")
	m := Mutant{Rule: "remove-statement", File: "p.go", Edits: []Edit{{Start: i, End: i + len("\tfmt.Println(s)\n")}}}
	ok, err := checker.Accept(&m, []byte(src))
	if err != nil || !ok {
		t.Fatalf("Accept = %v, %v; want the mutant accepted after pruning fmt", ok, err)
	}
	got := string(m.Apply([]byte(src)))
	if strings.Contains(got, `"fmt"`) || !strings.Contains(got, `"strings"`) {
		t.Errorf("pruned source:\n%s", got)
	}
	// A type error is rejected.
	j := strings.Index(src, "strings.ToUpper(s)")
	bad := Mutant{Rule: "x", File: "p.go", Edits: []Edit{{Start: j, End: j + len("strings.ToUpper(s)"), Text: "42"}}}
	if ok, err := checker.Accept(&bad, []byte(src)); err != nil || ok {
		t.Errorf("Accept(type error) = %v, %v; want false, nil", ok, err)
	}
	// A syntax error is rejected.
	syn := Mutant{Rule: "x", File: "p.go", Edits: []Edit{{Start: body.End - 1, End: body.End}}}
	if ok, err := checker.Accept(&syn, []byte(src)); err != nil || ok {
		t.Errorf("Accept(syntax error) = %v, %v; want false, nil", ok, err)
	}
	// The repository was only read.
	after, _ := os.ReadFile(filepath.Join(root, "p.go"))
	if string(after) != src {
		t.Error("the checker modified the repository")
	}
}

func TestCandidatesDeterministic(t *testing.T) {
	root := filepath.Join("testdata", "gorules")
	src, err := os.ReadFile(filepath.Join(root, "mut.go"))
	if err != nil {
		t.Fatal(err)
	}
	fn := goFuncs(t, "mut.go", src)[0]
	a := Candidates(mustTarget(t, "mut.go", src, fn), GoRules(), "go", rand.New(rand.NewPCG(7, 7)))
	b := Candidates(mustTarget(t, "mut.go", src, fn), GoRules(), "go", rand.New(rand.NewPCG(7, 7)))
	c := Candidates(mustTarget(t, "mut.go", src, fn), GoRules(), "go", rand.New(rand.NewPCG(8, 8)))
	if len(a) < 20 {
		t.Fatalf("only %d candidates for Window", len(a))
	}
	if !reflect.DeepEqual(a, b) {
		t.Error("same seed gave different candidate orders")
	}
	if reflect.DeepEqual(a, c) {
		t.Error("different seeds gave the same order")
	}
}

func FuzzGoRules(f *testing.F) {
	src, err := os.ReadFile(filepath.Join("testdata", "gorules", "mut.go"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(src))
	f.Add("package p\nfunc f() { for { if x := 1; x > 0 { break } } }\n")
	f.Add("package p\nfunc f(a []int) int { return a[1:len(a)-1][0] }\n")
	f.Fuzz(func(t *testing.T, s string) {
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, "f.go", s, 0)
		if err != nil {
			return
		}
		tf := fset.File(file.Pos())
		for _, d := range file.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			fn := task.Function{Name: fd.Name.Name, File: "f.go",
				Def:       task.Span{Start: tf.Offset(fd.Pos()), End: tf.Offset(fd.End())},
				Signature: task.Span{Start: tf.Offset(fd.Pos()), End: tf.Offset(fd.Body.Lbrace)},
				Body:      task.Span{Start: tf.Offset(fd.Body.Lbrace), End: tf.Offset(fd.Body.Rbrace) + 1}}
			tg, err := NewTarget("f.go", []byte(s), fn)
			if err != nil {
				continue
			}
			for _, m := range Candidates(tg, GoRules(), "go", nil) {
				out := m.Apply([]byte(s)) // must not panic
				if _, err := parser.ParseFile(token.NewFileSet(), "f.go", out, 0); err != nil {
					// Mutants may fail to parse only in ways the checker rejects; they
					// must never be empty edits.
					if len(m.Edits) == 0 {
						t.Errorf("%s: no edits", m.Rule)
					}
				}
			}
		}
	})
}

func readFile(t testing.TB, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
