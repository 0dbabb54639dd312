package corrupt

import (
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/faultline-dev/faultline/internal/gocheck"
)

// GoChecker type-checks the packages of a Go repository with one file replaced, so Go
// mutants that do not compile can be discarded. It reads the repository and never writes
// it. Packages of the repository's own module are type-checked from source; the standard
// library and other modules are imported with go/importer's source importer (which may ask
// the go command where a third-party module lives). The machinery is internal/gocheck's,
// shared with extract/mask.
//
// A package that already fails to type-check on its own (an import that cannot be resolved
// offline, cgo) is still usable: a mutant is accepted when it adds no type error to the
// package's own baseline errors.
//
// A GoChecker is safe for concurrent use; checks are serialised (type-checking is fast once
// imports are cached).
type GoChecker struct {
	root string
	c    *gocheck.Checker
}

// NewGoChecker returns a checker for the repository at root.
func NewGoChecker(root string) (*GoChecker, error) {
	c, err := gocheck.New(root, gocheck.Options{})
	if err != nil {
		return nil, fmt.Errorf("corrupt: go checker: %w", err)
	}
	return &GoChecker{root: root, c: c}, nil
}

// CompileError lists the type errors a change added to a package.
type CompileError struct {
	Path   string
	Errors []string
}

func (e *CompileError) Error() string {
	return fmt.Sprintf("corrupt: %s does not compile: %s", e.Path, strings.Join(e.Errors, "; "))
}

// NewErrors returns the type errors that replacing the file at relPath (slash path relative
// to the root) by src adds to its package, compared with the unchanged package. A parse
// error of src is returned as the error list; a file of the unchanged package that does not
// parse gives a *CompileError.
func (c *GoChecker) NewErrors(relPath string, src []byte) ([]string, error) {
	clean, err := cleanRel(relPath)
	if err != nil {
		return nil, err
	}
	dir := path.Dir(clean)
	names, err := c.c.GoFiles(dir)
	if err != nil {
		return nil, fmt.Errorf("corrupt: go checker: %w", err)
	}
	if !strings.HasSuffix(clean, "_test.go") && !slices.Contains(names, path.Base(clean)) {
		// Not part of this platform's build (its build constraints): no mutant of it can
		// compile into a test run here.
		return []string{clean + " is not built on this platform (build constraints)"}, nil
	}
	errs, err := c.c.NewErrors([]string{dir}, map[string][]byte{clean: src})
	if err != nil {
		var pe *gocheck.ParseError
		if !errors.As(err, &pe) {
			return nil, fmt.Errorf("corrupt: go checker: %w", err)
		}
		if pe.File == clean {
			return []string{pe.Err.Error()}, nil
		}
		return nil, &CompileError{Path: filepath.Join(c.root, filepath.FromSlash(pe.File)), Errors: []string{pe.Err.Error()}}
	}
	msgs := make([]string, len(errs))
	for i, e := range errs {
		msgs[i] = e.Msg
	}
	return msgs, nil
}

func cleanRel(p string) (string, error) {
	c := path.Clean(p)
	if path.IsAbs(c) || c == ".." || strings.HasPrefix(c, "../") {
		return "", fmt.Errorf("corrupt: %q escapes the repository", p)
	}
	return c, nil
}

// Accept applies the mutant to src, type-checks the result, and prunes imports the mutant
// left unused (adding their removal to the mutant's edits). It reports whether the mutant
// compiles; m is updated only when it does.
func (c *GoChecker) Accept(m *Mutant, src []byte) (bool, error) {
	out := m.Apply(src)
	errs, err := c.NewErrors(m.File, out)
	if err != nil || len(errs) == 0 {
		return err == nil, err
	}
	unused := map[string]bool{}
	for _, e := range errs {
		p, ok := gocheck.UnusedImport(e)
		if !ok {
			return false, nil
		}
		unused[p] = true
	}
	prune, ok := importRemovals(src, unused)
	if !ok {
		return false, nil
	}
	edits := append(append([]Edit(nil), m.Edits...), prune...)
	if !sortEdits(edits) {
		return false, nil
	}
	errs, err = c.NewErrors(m.File, applyEdits(src, edits))
	if err != nil || len(errs) > 0 {
		return false, err
	}
	m.Edits = edits
	m.Desc += fmt.Sprintf(" (pruned %d unused import(s))", len(prune))
	return true, nil
}

// importRemovals returns edits deleting the import specs of src whose path is in paths
// (whole lines, or the whole declaration when it holds a single spec).
func importRemovals(src []byte, paths map[string]bool) ([]Edit, bool) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.ImportsOnly|parser.ParseComments)
	if err != nil {
		return nil, false
	}
	tf := fset.File(f.Pos())
	p := &goParsed{fset: fset, tf: tf, file: f, src: src}
	hits, found := gocheck.FindImports(f, paths)
	var edits []Edit
	for _, h := range hits {
		if h.All() {
			a, b := p.stmtLineSpan(h.Decl)
			edits = append(edits, Edit{Start: a, End: b})
			continue
		}
		for _, is := range h.Specs {
			a, b := p.stmtLineSpan(is)
			edits = append(edits, Edit{Start: a, End: b})
		}
	}
	return edits, found == len(paths)
}
