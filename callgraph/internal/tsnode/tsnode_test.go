package tsnode

import (
	"context"
	"errors"
	"fmt"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/golang"
)

func TestParseCopiesTree(t *testing.T) {
	src := []byte("package p\n\nfunc add(a, b int) int {\n\treturn a + b\n}\n")
	pool := NewParserPool(golang.GetLanguage())
	root, _, _, bad, err := pool.Parse(context.Background(), src)
	if err != nil || bad {
		t.Fatalf("parse: err %v, syntax error %v", err, bad)
	}
	fn := root.FirstOfType("function_declaration")
	if fn == nil {
		t.Fatal("no function_declaration under source_file")
	}
	if got := fn.Child("name").Text(src); got != "add" {
		t.Errorf("name = %q, want add", got)
	}
	if fn.Row != 2 || fn.EndRow != 4 || fn.Col != 0 {
		t.Errorf("rows %d..%d col %d, want 2..4 col 0", fn.Row, fn.EndRow, fn.Col)
	}
	params := fn.Child("parameters")
	if n := len(params.NamedKids()); n != 1 {
		t.Errorf("parameter declarations = %d, want 1 (a, b int)", n)
	}
	if fn.Child("name").Parent != fn {
		t.Error("parent link lost")
	}
	if got := len(root.Children("nonexistent")); got != 0 {
		t.Errorf("children under a missing field = %d", got)
	}
	var nilNode *Node
	if nilNode.Child("x") != nil || nilNode.Text(src) != "" || nilNode.NamedKids() != nil {
		t.Error("nil node accessors must return zero values")
	}
}

func TestParseReportsFirstSyntaxError(t *testing.T) {
	src := []byte("package p\n\nfunc ok() {}\n\nfunc broken( {\n")
	pool := NewParserPool(golang.GetLanguage())
	_, row, _, bad, err := pool.Parse(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	if !bad || row != 4 {
		t.Errorf("syntax error = %v at row %d, want true at row 4", bad, row)
	}
}

func TestParseHonoursCancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	pool := NewParserPool(golang.GetLanguage())
	if _, _, _, _, err := pool.Parse(ctx, []byte("package p\n")); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	// The pooled parser is still usable afterwards.
	if _, _, _, bad, err := pool.Parse(context.Background(), []byte("package p\n")); err != nil || bad {
		t.Fatalf("parse after cancel: %v %v", err, bad)
	}
}

func ExampleParserPool_Parse() {
	src := []byte("package p\n\nfunc f() { g() }\n")
	root, _, _, _, err := NewParserPool(golang.GetLanguage()).Parse(context.Background(), src)
	if err != nil {
		panic(err)
	}
	call := root.FirstOfType("function_declaration").Child("body").NamedKids()[0].NamedKids()[0]
	fmt.Println(call.Type, call.Text(src), call.Row+1)
	// Output: call_expression g() 3
}

// TestParseFuncReusesStorage parses sources of growing and shrinking size with ParseFunc,
// whose tree storage is reused from call to call, and checks each tree against Parse's;
// and that Sym and FieldID name the same type and field as Type and Field.
func TestParseFuncReusesStorage(t *testing.T) {
	lang := golang.GetLanguage()
	pool := NewParserPool(lang)
	srcs := []string{
		"package p\n\nfunc add(a, b int) int {\n\treturn a + b\n}\n",
		"package p\n\n// big\nfunc f(x []int) (s int) {\n\tfor _, v := range x {\n\t\tif v > 0 { s += v } else { s -= v }\n\t}\n\tgo func() { println(\"x\") }()\n\treturn\n}\n\ntype T struct{ a, b int }\n\nfunc (t *T) M() int { return t.a * t.b }\n",
		"package p\n",
		"package p\n\nfunc broken( {\n",
		"package p\n\nvar v = map[string]int{\"a\": 1, \"b\": 2}\n",
	}
	nodes := 0
	for _, s := range srcs {
		src := []byte(s)
		want, wr, wc, wbad, err := pool.Parse(context.Background(), src)
		if err != nil {
			t.Fatal(err)
		}
		called := false
		err = pool.ParseFunc(context.Background(), src, func(root *Node, r, c int, bad bool) {
			called = true
			if r != wr || c != wc || bad != wbad {
				t.Errorf("%q: error at %d:%d (%v), Parse says %d:%d (%v)", s, r, c, bad, wr, wc, wbad)
			}
			if d := sameTree(root, want, ""); d != "" {
				t.Errorf("%q: ParseFunc and Parse differ at %s", s, d)
			}
			var walk func(n, parent *Node)
			walk = func(n, parent *Node) {
				nodes++
				if n.Parent != parent {
					t.Errorf("%s at %d: parent link lost", n.Type, n.Start)
				}
				name := "ERROR"
				if n.Sym != ErrorSym {
					name = lang.SymbolName(sitter.Symbol(n.Sym))
				}
				if name != n.Type {
					t.Errorf("Sym %d names %q, Type is %q", n.Sym, name, n.Type)
				}
				if n.FieldID != 0 && lang.FieldName(int(n.FieldID)) != n.Field || n.FieldID == 0 && n.Field != "" {
					t.Errorf("FieldID %d, Field %q", n.FieldID, n.Field)
				}
				for _, k := range n.Kids {
					walk(k, n)
				}
			}
			walk(root, nil)
		})
		if err != nil || !called {
			t.Fatalf("ParseFunc: err %v, called %v", err, called)
		}
	}
	if nodes < 100 {
		t.Errorf("only %d nodes compared", nodes)
	}
}
