package golang

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// sameTree reports the first difference between tree-sitter's tree and the one built from
// go/ast: "" when there is none. The newline tokens tree-sitter inserts as statement
// terminators are left out of the comparison (the go/ast tree has none): nothing reads
// them (pruned has no place for an anonymous token without a field, measure and
// docComment skip them).
func sameTree(ts, ast *tsNode, src []byte) string {
	where := func(n *tsNode) string {
		return fmt.Sprintf("%d:%d %s %q", n.Row+1, n.Col+1, n.Type, src[n.Start:min(n.End, n.Start+30)])
	}
	if ts.Type != ast.Type || ts.Field != ast.Field || ts.Start != ast.Start || ts.End != ast.End || ts.Row != ast.Row ||
		ts.Col != ast.Col || ts.EndRow != ast.EndRow || ts.Named != ast.Named || ts.Bad != ast.Bad {
		return fmt.Sprintf("tree-sitter %s field %q [%d,%d] named %v, go/ast %s field %q [%d,%d] named %v",
			where(ts), ts.Field, ts.Start, ts.End, ts.Named, where(ast), ast.Field, ast.Start, ast.End, ast.Named)
	}
	if stringTypes[ts.Type] {
		return "" // their content nodes are read by nothing (pruned, and one operand to measure)
	}
	var kids []*tsNode
	for _, k := range ts.Kids {
		if k.Type != "\n" {
			kids = append(kids, k)
		}
	}
	for i := range min(len(kids), len(ast.Kids)) {
		if d := sameTree(kids[i], ast.Kids[i], src); d != "" {
			return d
		}
	}
	if len(kids) != len(ast.Kids) {
		return fmt.Sprintf("%s: %d children from tree-sitter, %d from go/ast", where(ts), len(kids), len(ast.Kids))
	}
	return ""
}

// goFiles lists the .go files under dir (as Match would claim them), sorted.
func goFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	fe := New(Options{})
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if !d.IsDir() && strings.HasSuffix(p, ".go") && fe.Match(filepath.ToSlash(rel)) {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// TestASTTreesMatchTreeSitter parses real files both ways and checks that the tree built
// from go/ast equals tree-sitter's node for node (types, fields, named-ness, spans, rows,
// columns, end rows; newline tokens aside, see sameTree), and that what extract keeps of
// either (outline, encoded bodies and values, definitions with metrics, spans and doc
// comments) is the same: parsedFile is all the analysis reads of a parse. The corpus is
// this package's sources, the Go modules CI downloads (when the module cache has them)
// and every 11th file of $(go env GOROOT)/src (all of them with FAULTLINE_GOFRONT_ALL=1).
func TestASTTreesMatchTreeSitter(t *testing.T) {
	var paths []string
	paths = append(paths, goFiles(t, ".")...)
	modCache, err := goEnv("GOMODCACHE")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"github.com/sergi/go-diff@v1.4.0", "github.com/go-logr/logr@v1.4.3", "go.yaml.in/yaml/v3@v3.0.5",
		"github.com/google/uuid@v1.6.0", "github.com/!masterminds/semver/v3@v3.5.0", "github.com/hashicorp/go-version@v1.9.0",
		"github.com/dustin/go-humanize@v1.1.0", "gonum.org/v1/gonum@v0.17.0", "github.com/klauspost/compress@v1.18.7"} {
		dir := filepath.Join(modCache, m)
		if _, err := os.Stat(dir); err != nil {
			t.Logf("%s: not in the module cache (.ci/run downloads it), left out", m)
			continue
		}
		paths = append(paths, goFiles(t, dir)...)
	}
	if root, err := goEnv("GOROOT"); err == nil && root != "" {
		all := goFiles(t, filepath.Join(root, "src"))
		for i, p := range all {
			if i%11 == 0 || os.Getenv("FAULTLINE_GOFRONT_ALL") != "" {
				paths = append(paths, p)
			}
		}
	}
	fe := New(Options{})
	g := fe.grammar
	mapped, fellBack, failures := 0, 0, 0
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		lines := lineStarts(src)
		at, err := g.astTree(src, lines)
		if err != nil {
			if !errors.Is(err, errUnmapped) {
				// go/parser rejects it: the tree-sitter parse is used, as before.
				fellBack++
				continue
			}
			fellBack++
			if os.Getenv("FAULTLINE_GOFRONT_VERBOSE") != "" {
				t.Logf("%s: left to tree-sitter", p)
			}
			continue
		}
		mapped++
		ts, r, c, bad, err := fe.parsers.Parse(context.Background(), src)
		if err != nil {
			t.Fatal(err)
		}
		fail := func(format string, a ...any) {
			failures++
			if failures <= 30 {
				t.Errorf("%s: "+format, append([]any{p}, a...)...)
			}
		}
		if bad {
			fail("tree-sitter finds a syntax error at %d:%d that go/parser does not", r+1, c+1)
			continue
		}
		if d := sameTree(ts, at, src); d != "" {
			fail("%s", d)
			continue
		}
		want, got := &parsedFile{}, &parsedFile{}
		fe.extract(want, p, src, ts)
		fe.extract(got, p, src, at)
		if !reflect.DeepEqual(want, got) {
			fail("extract keeps different facts")
		}
	}
	t.Logf("%d files: %d built from go/ast, %d left to tree-sitter", len(paths), mapped, fellBack)
	if mapped < len(paths)*9/10 {
		t.Errorf("only %d of %d files built from go/ast", mapped, len(paths))
	}
}

// goEnv is one variable of `go env`.
func goEnv(name string) (string, error) {
	out, err := exec.Command("go", "env", name).Output()
	return strings.TrimSpace(string(out)), err
}

// TestStreamedBodiesMatchTrees checks that what extract keeps of a file is the same when
// the function bodies are streamed from the go/parser front end (astTreeFunc, as Analyze
// parses) as when they are built into the whole tree (astTree): encoded bodies,
// definitions with their metrics (and the module's, which covers the whole file),
// outline and values. Both ways also agree on which files the rewrite leaves to
// tree-sitter. The corpus is this package's sources, gonum and every 7th file of
// $(go env GOROOT)/src (all of them with FAULTLINE_GOFRONT_ALL=1).
func TestStreamedBodiesMatchTrees(t *testing.T) {
	paths := goFiles(t, ".")
	if modCache, err := goEnv("GOMODCACHE"); err == nil {
		dir := filepath.Join(modCache, "gonum.org/v1/gonum@v0.17.0")
		if _, err := os.Stat(dir); err == nil {
			paths = append(paths, goFiles(t, dir)...)
		}
	}
	if root, err := goEnv("GOROOT"); err == nil && root != "" {
		for i, p := range goFiles(t, filepath.Join(root, "src")) {
			if i%7 == 3 || os.Getenv("FAULTLINE_GOFRONT_ALL") != "" {
				paths = append(paths, p)
			}
		}
	}
	fe := New(Options{})
	g := fe.grammar
	streamed, modules, bodies := 0, 0, 0
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		lines := lineStarts(src)
		want := &parsedFile{}
		whole, wantErr := g.astTree(src, lines)
		if wantErr == nil {
			fe.extract(want, p, src, whole)
		}
		got := &parsedFile{}
		gotErr := g.astTreeFunc(src, lines, func(root *tsNode, b *astBuilder) error {
			fe.extractStreamed(got, p, src, root, b)
			return nil
		})
		if (wantErr == nil) != (gotErr == nil) {
			t.Errorf("%s: whole tree: %v; streamed bodies: %v", p, wantErr, gotErr)
			continue
		}
		if wantErr != nil {
			continue
		}
		streamed++
		if want.module != nil {
			modules++
		}
		bodies += len(want.bodyOf)
		if !reflect.DeepEqual(want, got) {
			t.Errorf("%s: extract keeps different facts from streamed bodies", p)
		}
	}
	t.Logf("%d files, %d streamed (%d with module-level calls, %d functions)", len(paths), streamed, modules, bodies)
	if streamed < len(paths)*9/10 || modules == 0 {
		t.Errorf("only %d of %d files streamed, %d with module-level calls", streamed, len(paths), modules)
	}
}
