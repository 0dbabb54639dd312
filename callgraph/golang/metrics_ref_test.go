package golang

import (
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// refMetrics computes code lines and cyclomatic complexity of every function declaration
// with the standard library's go/scanner and go/ast, independently of tree-sitter:
// code lines are the distinct lines on which a token other than a comment or an
// automatically inserted semicolon starts (go/scanner reports those with literal "\n");
// cyclomatic is gocyclo's definition, 1 + if + for/range + non-default case and comm
// clauses + && + ||. Keys are the front end's qualified names (receiver type stripped of
// pointer and type parameters).
func refMetrics(t *testing.T, src []byte) map[string][2]int {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "x.go", src, parser.ParseComments)
	require.NoError(t, err)
	out := map[string][2]int{}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok {
			continue
		}
		name := fd.Name.Name
		if fd.Recv != nil && len(fd.Recv.List) > 0 {
			rt := fd.Recv.List[0].Type
			for {
				switch x := rt.(type) {
				case *ast.StarExpr:
					rt = x.X
					continue
				case *ast.IndexExpr:
					rt = x.X
					continue
				case *ast.IndexListExpr:
					rt = x.X
					continue
				case *ast.ParenExpr:
					rt = x.X
					continue
				}
				break
			}
			if id, ok := rt.(*ast.Ident); ok {
				name = id.Name + "." + name
			}
		}
		start, end := fset.Position(fd.Pos()).Offset, fset.Position(fd.End()).Offset
		var s scanner.Scanner
		file := token.NewFileSet().AddFile("", -1, end-start)
		s.Init(file, src[start:end], nil, 0)
		lines := map[int]bool{}
		for {
			pos, tok, lit := s.Scan()
			if tok == token.EOF {
				break
			}
			if tok == token.SEMICOLON && lit == "\n" {
				continue
			}
			lines[file.Line(pos)] = true
		}
		cyc := 1
		ast.Inspect(fd, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt:
				cyc++
			case *ast.CaseClause:
				if x.List != nil {
					cyc++
				}
			case *ast.CommClause:
				if x.Comm != nil {
					cyc++
				}
			case *ast.BinaryExpr:
				if x.Op == token.LAND || x.Op == token.LOR {
					cyc++
				}
			}
			return true
		})
		if _, dup := out[name]; dup {
			delete(out, name) // ambiguous (init); skip
			continue
		}
		out[name] = [2]int{len(lines), cyc}
	}
	return out
}

// TestMetricsAgainstGoAST compares code lines and cyclomatic complexity with the
// go/scanner + go/ast reference on every function of real modules from the module cache.
func TestMetricsAgainstGoAST(t *testing.T) {
	for _, name := range []string{"go-diff.txt", "testify.txt"} {
		gt := readGroundTruth(t, name)
		files := loadModuleFiles(t, gt)
		a := analyzeModule(t, gt, Options{})
		byFile := map[string][]byte{}
		for _, f := range files {
			byFile[f.Path] = f.Src
		}
		refs := map[string]map[string][2]int{}
		compared := 0
		for _, d := range a.Definitions {
			if d.Kind == "module" {
				continue
			}
			ref, ok := refs[d.File]
			if !ok {
				ref = refMetrics(t, byFile[d.File])
				refs[d.File] = ref
			}
			want, ok := ref[d.Name]
			if !ok {
				continue
			}
			compared++
			assert.Equal(t, want[0], d.Metrics.CodeLines, "%s code lines", d.ID)
			assert.Equal(t, want[1], d.Metrics.Cyclomatic, "%s cyclomatic", d.ID)
		}
		t.Logf("%s: %d functions compared", gt.module, compared)
		assert.Greater(t, compared, 50)
	}
}
