package corrupt

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"strconv"
	"strings"
)

// restoreGoImports re-adds to cur (a Go file whose function a solver just replaced) the
// imports of orig (the clean file) that cur lacks but now uses: a REMOVE stub may have
// pruned imports only the removed body used (see GoChecker), and a solver that restores
// the body through submit_attempt or replace_function can only send the function. The
// imports go in a new import declaration after the package clause. A package's name is
// taken from the import's alias, else guessed from its path (the last element, without a
// major-version suffix and a "go-" prefix). cur is returned unchanged when nothing is
// missing or either file does not parse.
func restoreGoImports(orig, cur []byte) []byte {
	fset := token.NewFileSet()
	of, err := parser.ParseFile(fset, "orig.go", orig, parser.ImportsOnly)
	if err != nil {
		return cur
	}
	cf, err := parser.ParseFile(fset, "cur.go", cur, parser.SkipObjectResolution)
	if err != nil {
		return cur
	}
	have := map[string]bool{}
	for _, im := range cf.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		have[p] = true
	}
	used := map[string]bool{}
	ast.Inspect(cf, func(n ast.Node) bool {
		if s, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := s.X.(*ast.Ident); ok {
				used[id.Name] = true
			}
		}
		return true
	})
	var add []string
	for _, im := range of.Imports {
		p, err := strconv.Unquote(im.Path.Value)
		if err != nil || have[p] {
			continue
		}
		name := guessPackageName(p)
		if im.Name != nil {
			name = im.Name.Name
		}
		if name == "_" || name == "." || !used[name] {
			continue
		}
		spec := strconv.Quote(p)
		if im.Name != nil {
			spec = im.Name.Name + " " + spec
		}
		add = append(add, spec)
	}
	if len(add) == 0 {
		return cur
	}
	at := fset.Position(cf.Name.End()).Offset
	var b strings.Builder
	b.Write(cur[:at])
	b.WriteString("\n\nimport (\n")
	for _, s := range add {
		b.WriteString("\t" + s + "\n")
	}
	b.WriteString(")")
	b.Write(cur[at:])
	return []byte(b.String())
}

// guessPackageName guesses the name a package is imported under from its path.
func guessPackageName(p string) string {
	base := path.Base(p)
	if len(base) > 1 && base[0] == 'v' && strings.Trim(base[1:], "0123456789") == "" && path.Dir(p) != "." {
		base = path.Base(path.Dir(p)) // example.com/mod/v2
	}
	if i := strings.Index(base, ".v"); i > 0 {
		base = base[:i] // gopkg.in/yaml.v3
	}
	base = strings.TrimPrefix(base, "go-")
	return strings.ReplaceAll(base, "-", "_")
}
