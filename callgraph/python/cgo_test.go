package python

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"
	tspython "github.com/smacker/go-tree-sitter/python"
)

// TestFlattenMatchesGoTreeSitter checks the package's own C walker (which declares the
// tree-sitter API itself) against go-tree-sitter's Go API: the same nodes in the same
// pre-order with the same symbols, byte ranges, rows, columns, parents and flags. A
// change of tree-sitter's ABI under a new go-tree-sitter version fails here.
func TestFlattenMatchesGoTreeSitter(t *testing.T) {
	paths := []string{filepath.Join("testdata", "tokens", "tricky.py")}
	if more, _ := filepath.Glob(filepath.Join(distPackages, "simplejson", "*.py")); len(more) > 0 {
		paths = append(paths, more...)
	}
	sources := [][]byte{[]byte("def f(:\n  x = (1,\n"), []byte("\xff\xfe\x00def"), []byte("x = '\u00e9'\r\ny = f(1)\rz = \"\"\"a\n\nb\"\"\"\n")}
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		sources = append(sources, src)
	}
	mine, err := newParser()
	if err != nil {
		t.Fatal(err)
	}
	defer mine.close()
	ref := sitter.NewParser()
	defer ref.Close()
	ref.SetLanguage(tspython.GetLanguage())
	for k, src := range sources {
		got := mine.parse(src, nil)
		tree, err := ref.ParseCtx(context.Background(), nil, src)
		if err != nil {
			t.Fatal(err)
		}
		var want []cnode
		cur := sitter.NewTreeCursor(tree.RootNode())
		var parents []int32
		parent := int32(-1)
		for {
			n := cur.CurrentNode()
			var flags uint16
			if n.IsMissing() {
				flags |= flagMissing
			}
			if n.IsExtra() {
				flags |= flagExtra
			}
			want = append(want, cnode{start: n.StartByte(), end: n.EndByte(), srow: n.StartPoint().Row,
				scol: n.StartPoint().Column, erow: n.EndPoint().Row, parent: parent, sym: uint16(n.Symbol()), flags: flags})
			if cur.GoToFirstChild() {
				parents = append(parents, parent)
				parent = int32(len(want) - 1)
				continue
			}
			for !cur.GoToNextSibling() {
				if !cur.GoToParent() {
					goto done
				}
				parent = parents[len(parents)-1]
				parents = parents[:len(parents)-1]
			}
		}
	done:
		cur.Close()
		tree.Close()
		if len(got) != len(want) {
			t.Fatalf("source %d: %d nodes, go-tree-sitter %d", k, len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("source %d node %d: %+v, go-tree-sitter %+v", k, i, got[i], want[i])
			}
		}
	}
}

// TestParseTreeMatchesBuildTree checks the C walker that writes linked, classified nodes
// directly (parseTree, used by Analyze) against buildTree over the flat nodes of parse.
func TestParseTreeMatchesBuildTree(t *testing.T) {
	paths := []string{filepath.Join("testdata", "tokens", "tricky.py")}
	if more, _ := filepath.Glob(filepath.Join(distPackages, "bs4", "*.py")); len(more) > 0 {
		paths = append(paths, more...)
	}
	sources := [][]byte{nil, []byte("def f(:\n  x = (1,\n"), []byte("\xff\xfe\x00def"), []byte("x = '\u00e9'\r\ny = f(1)\rz = \"\"\"a\n\nb\"\"\"\n")}
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		sources = append(sources, src)
	}
	p, err := newParser()
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	var sc scratch // reused across sources, as the workers do
	for k, src := range sources {
		want := buildTree(src, p.parse(src, nil), &scratch{})
		got := p.parseTree(src, &sc)
		if len(got.nodes) != len(want.nodes) {
			t.Fatalf("source %d: %d nodes, buildTree %d", k, len(got.nodes), len(want.nodes))
		}
		for i := range got.nodes {
			if got.nodes[i] != want.nodes[i] {
				t.Fatalf("source %d node %d: %+v, buildTree %+v", k, i, got.nodes[i], want.nodes[i])
			}
		}
	}
}
