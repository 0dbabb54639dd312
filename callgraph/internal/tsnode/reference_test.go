package tsnode

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"
	"github.com/smacker/go-tree-sitter/golang"
	"github.com/smacker/go-tree-sitter/javascript"
)

// referenceTree copies a tree with go-tree-sitter's own cursor and node API, one cgo call
// per question (the copy this package made before it flattened trees in C): the slow,
// obviously faithful copy the flattening walk must reproduce.
func referenceTree(t testing.TB, lang *sitter.Language, src []byte) *Node {
	t.Helper()
	ps := sitter.NewParser()
	ps.SetLanguage(lang)
	tree, err := ps.ParseCtx(context.Background(), nil, src)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	lineStarts := []int{0}
	for i, c := range src {
		if c == '\n' {
			lineStarts = append(lineStarts, i+1)
		}
	}
	rowOf := func(off int) int {
		return sort.Search(len(lineStarts), func(i int) bool { return lineStarts[i] > off }) - 1
	}
	// Walk with a cursor, as the field name of an extra node (a comment) is the one the
	// cursor reports, which the per-child API does not.
	cur := sitter.NewTreeCursor(tree.RootNode())
	defer cur.Close()
	var copyNode func(parent *Node) *Node
	copyNode = func(parent *Node) *Node {
		n := cur.CurrentNode()
		start, end := int(n.StartByte()), int(n.EndByte())
		row := rowOf(start)
		out := &Node{Type: n.Type(), Field: cur.CurrentFieldName(), Start: start, End: end, Row: row,
			Col: start - lineStarts[row], EndRow: rowOf(max(start, end-1)), Named: n.IsNamed(),
			Bad: n.Type() == "ERROR" || (start == end && n.IsMissing()), Parent: parent}
		if cur.GoToFirstChild() {
			for {
				out.Kids = append(out.Kids, copyNode(out))
				if !cur.GoToNextSibling() {
					break
				}
			}
			cur.GoToParent()
		}
		return out
	}
	return copyNode(nil)
}

// sameTree reports the first difference between two trees, "" when there is none.
func sameTree(a, b *Node, path string) string {
	if a.Type != b.Type || a.Field != b.Field || a.Start != b.Start || a.End != b.End || a.Row != b.Row ||
		a.Col != b.Col || a.EndRow != b.EndRow || a.Named != b.Named || a.Bad != b.Bad || len(a.Kids) != len(b.Kids) {
		return path + ": " + strings.Join([]string{a.Type, b.Type, a.Field, b.Field}, " / ")
	}
	for i := range a.Kids {
		if a.Kids[i].Parent != a || b.Kids[i].Parent != b {
			return path + ": parent link"
		}
		if d := sameTree(a.Kids[i], b.Kids[i], path+"/"+a.Kids[i].Type); d != "" {
			return d
		}
	}
	return ""
}

// TestFlattenMatchesNodeAPI parses real files — the Go standard library's go/ast and
// go/parser packages and this module's own JavaScript fixtures, plus inputs with syntax
// errors, CRLF line ends, invalid UTF-8 and an empty file — and checks that the
// flattened tree equals the one go-tree-sitter's node API gives, node for node.
func TestFlattenMatchesNodeAPI(t *testing.T) {
	type input struct {
		name string
		lang *sitter.Language
		src  []byte
	}
	inputs := []input{
		{"empty", golang.GetLanguage(), nil},
		{"broken", golang.GetLanguage(), []byte("package p\n\nfunc ok() {}\n\nfunc broken( {\n")},
		{"missing", golang.GetLanguage(), []byte("package p\nfunc f() { g(\n}\n")},
		{"crlf", golang.GetLanguage(), []byte("package p\r\n\r\nfunc f() {\r\n\tg()\r\n}\r\n")},
		{"latin1", golang.GetLanguage(), []byte("package p\n// caf\xe9\nvar s = \"\xff\xfe\"\nfunc f() {}\n")},
		{"js-broken", javascript.GetLanguage(), []byte("function f( { return 1 }\nclass A { m() { f() } }\n")},
	}
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Skipf("go env GOROOT: %v", err)
	}
	goroot := strings.TrimSpace(string(out))
	for _, dir := range []string{"go/ast", "go/parser"} {
		matches, _ := filepath.Glob(filepath.Join(goroot, "src", dir, "*.go"))
		for _, m := range matches {
			src, err := os.ReadFile(m)
			if err != nil {
				t.Fatal(err)
			}
			inputs = append(inputs, input{dir + "/" + filepath.Base(m), golang.GetLanguage(), src})
		}
	}
	_ = filepath.WalkDir(filepath.Join("..", "..", "javascript", "testdata"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".js") {
			if src, err := os.ReadFile(p); err == nil {
				inputs = append(inputs, input{p, javascript.GetLanguage(), src})
			}
		}
		return nil
	})
	if len(inputs) < 20 {
		t.Fatalf("only %d inputs found", len(inputs))
	}
	pools := map[*sitter.Language]*ParserPool{}
	for _, in := range inputs {
		pool := pools[in.lang]
		if pool == nil {
			pool = NewParserPool(in.lang)
			pools[in.lang] = pool
		}
		got, _, _, _, err := pool.Parse(context.Background(), in.src)
		if err != nil {
			t.Fatalf("%s: %v", in.name, err)
		}
		want := referenceTree(t, in.lang, in.src)
		if got.Parent != nil {
			t.Errorf("%s: root has a parent", in.name)
		}
		if d := sameTree(got, want, in.name); d != "" {
			t.Errorf("%s: trees differ at %s", in.name, d)
		}
	}
}
