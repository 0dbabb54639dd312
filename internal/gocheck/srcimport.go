package gocheck

import (
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
)

// sourceImporter type-checks packages from outside the module from source, as go/importer's
// "source" importer does (declarations only: function bodies are skipped), with cgo off —
// its build context is build.Default with CgoEnabled false, as CGO_ENABLED=0 would make it.
//
// Why not go/importer's: for a package with cgo files (net, os/user, and every package that
// imports them) it runs `go tool cgo -objdir DIR`, and that command writes its object
// files beside DIR, as DIR_cgo_N.o in TMPDIR, where nothing removes them. With cgo off no
// command runs and nothing is written: such a package is checked from its pure-Go files,
// which the go command itself uses under CGO_ENABLED=0. The standard library's API is the
// same either way. A third-party package that only works with cgo loses its cgo files' declarations; its
// importers then report errors, which are part of their baseline (see the package doc).
//
// It is not safe for concurrent use; the Checker serialises its calls.
type sourceImporter struct {
	ctxt  build.Context
	fset  *token.FileSet
	sizes types.Sizes
	pkgs  map[string]*types.Package // resolved import path → package (nil while it is being checked)
}

func newSourceImporter(fset *token.FileSet) *sourceImporter {
	ctxt := build.Default
	ctxt.CgoEnabled = false
	return &sourceImporter{ctxt: ctxt, fset: fset, sizes: types.SizesFor("gc", ctxt.GOARCH), pkgs: map[string]*types.Package{}}
}

func (s *sourceImporter) Import(p string) (*types.Package, error) { return s.ImportFrom(p, ".", 0) }

// ImportFrom locates the package p imported from the directory dir (go/build, which asks the
// go command in module mode) and type-checks its declarations, once per resolved path.
func (s *sourceImporter) ImportFrom(p, dir string, _ types.ImportMode) (*types.Package, error) {
	switch p {
	case "unsafe":
		return types.Unsafe, nil
	case "C":
		return nil, fmt.Errorf("gocheck: import \"C\": cgo is off for packages outside the module")
	}
	bp, err := s.ctxt.Import(p, dir, 0)
	if err != nil {
		return nil, fmt.Errorf("gocheck: import %q: %w", p, err)
	}
	if pkg, ok := s.pkgs[bp.ImportPath]; ok {
		if pkg == nil {
			return nil, fmt.Errorf("gocheck: import cycle through %s", bp.ImportPath)
		}
		return pkg, nil
	}
	s.pkgs[bp.ImportPath] = nil
	files := make([]*ast.File, 0, len(bp.GoFiles))
	for _, name := range bp.GoFiles {
		f, err := parser.ParseFile(s.fset, filepath.Join(bp.Dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			delete(s.pkgs, bp.ImportPath)
			return nil, fmt.Errorf("gocheck: import %q: %w", p, err)
		}
		files = append(files, f)
	}
	// Errors inside an imported package are not the module's: keep what type-checks.
	conf := types.Config{IgnoreFuncBodies: true, Importer: s, Sizes: s.sizes, Error: func(error) {}}
	pkg, _ := conf.Check(bp.ImportPath, s.fset, files, nil)
	pkg.MarkComplete()
	s.pkgs[bp.ImportPath] = pkg
	return pkg, nil
}
