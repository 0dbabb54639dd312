package gocheck

import (
	"go/ast"
	"go/token"
	"strconv"
	"strings"
)

// UnusedImport extracts the import path from go/types' "imported and not used" message
// (`"os" imported and not used`, `"fmt" imported as f and not used`).
func UnusedImport(msg string) (string, bool) {
	if !strings.HasPrefix(msg, `"`) || !strings.Contains(msg, " imported") || !strings.HasSuffix(msg, "not used") {
		return "", false
	}
	end := strings.Index(msg[1:], `"`)
	if end < 0 {
		return "", false
	}
	return msg[1 : end+1], true
}

// ImportHit is an import declaration of a file and those of its specs that import one of
// the paths asked for, in source order.
type ImportHit struct {
	Decl  *ast.GenDecl
	Specs []*ast.ImportSpec
}

// All reports whether every spec of the declaration is hit (deleting them deletes it).
func (h ImportHit) All() bool { return len(h.Specs) == len(h.Decl.Specs) }

// FindImports returns the import declarations of f that import one of paths, in source
// order, and how many specs were hit.
func FindImports(f *ast.File, paths map[string]bool) ([]ImportHit, int) {
	var out []ImportHit
	n := 0
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.IMPORT {
			continue
		}
		var hit []*ast.ImportSpec
		for _, s := range gd.Specs {
			is := s.(*ast.ImportSpec)
			if v, err := strconv.Unquote(is.Path.Value); err == nil && paths[v] {
				hit = append(hit, is)
			}
		}
		if len(hit) > 0 {
			out = append(out, ImportHit{Decl: gd, Specs: hit})
			n += len(hit)
		}
	}
	return out, n
}
