package corrupt

import (
	"bufio"
	"errors"
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// GoChecker type-checks the packages of a Go repository with one file replaced, so Go
// mutants that do not compile can be discarded. It reads the repository and never writes
// it. Packages of the repository's own module are type-checked from source; the standard
// library and other modules are imported with go/importer's source importer (which may ask
// the go command where a third-party module lives).
//
// A package that already fails to type-check on its own (an import that cannot be resolved
// offline, cgo) is still usable: a mutant is accepted when it adds no type error to the
// package's own baseline errors.
//
// A GoChecker is safe for concurrent use; checks are serialised (type-checking is fast once
// imports are cached).
type GoChecker struct {
	root    string
	modPath string // module path from root/go.mod ("" if none)

	mu       sync.Mutex
	fset     *token.FileSet
	std      types.ImporterFrom
	local    map[string]*types.Package // import path → package checked from source
	baseline map[string][]string       // package dir → baseline error messages
}

// NewGoChecker returns a checker for the repository at root.
func NewGoChecker(root string) (*GoChecker, error) {
	st, err := os.Stat(root)
	if err != nil {
		return nil, fmt.Errorf("corrupt: go checker: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("corrupt: go checker: %s is not a directory", root)
	}
	c := &GoChecker{root: root, fset: token.NewFileSet(), local: map[string]*types.Package{}, baseline: map[string][]string{}}
	c.modPath = readModulePath(filepath.Join(root, "go.mod"))
	c.std = importer.ForCompiler(c.fset, "source", nil).(types.ImporterFrom)
	return c, nil
}

func readModulePath(gomod string) string {
	f, err := os.Open(gomod)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if rest, ok := strings.CutPrefix(line, "module"); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
			p := strings.TrimSpace(rest)
			if uq, err := strconv.Unquote(p); err == nil {
				p = uq
			}
			return p
		}
	}
	return ""
}

// ImportFrom implements types.ImporterFrom for the checker's own use.
func (c *GoChecker) ImportFrom(importPath, dir string, mode types.ImportMode) (*types.Package, error) {
	if c.modPath != "" && (importPath == c.modPath || strings.HasPrefix(importPath, c.modPath+"/")) {
		if p, ok := c.local[importPath]; ok {
			if p == nil {
				return nil, fmt.Errorf("corrupt: import cycle or failed package %s", importPath)
			}
			return p, nil
		}
		c.local[importPath] = nil // marks "in progress" against cycles
		rel := strings.TrimPrefix(strings.TrimPrefix(importPath, c.modPath), "/")
		files, err := c.parseDir(filepath.Join(c.root, filepath.FromSlash(rel)), nil)
		if err != nil {
			return nil, err
		}
		conf := types.Config{Importer: c, Error: func(error) {}}
		p, _ := conf.Check(importPath, c.fset, files, nil)
		c.local[importPath] = p
		return p, nil
	}
	return c.std.ImportFrom(importPath, dir, mode)
}

// Import implements types.Importer.
func (c *GoChecker) Import(p string) (*types.Package, error) { return c.ImportFrom(p, c.root, 0) }

// parseDir parses the non-test Go files of a directory that match the build context, with
// the given file contents replacing what is on disk (keyed by base name).
func (c *GoChecker) parseDir(dir string, override map[string][]byte) ([]*ast.File, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("corrupt: go checker: %w", err)
	}
	var files []*ast.File
	for _, e := range ents {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		if ok, err := build.Default.MatchFile(dir, name); err != nil || !ok {
			continue
		}
		src, ok := override[name]
		if !ok {
			if src, err = os.ReadFile(filepath.Join(dir, name)); err != nil {
				return nil, fmt.Errorf("corrupt: go checker: %w", err)
			}
		}
		f, err := parser.ParseFile(c.fset, filepath.Join(dir, name), src, parser.SkipObjectResolution)
		if err != nil {
			return nil, &CompileError{Path: filepath.Join(dir, name), Errors: []string{err.Error()}}
		}
		files = append(files, f)
	}
	return files, nil
}

// CompileError lists the type errors a change added to a package.
type CompileError struct {
	Path   string
	Errors []string
}

func (e *CompileError) Error() string {
	return fmt.Sprintf("corrupt: %s does not compile: %s", e.Path, strings.Join(e.Errors, "; "))
}

// errorsOf type-checks the package in dir with the override and returns its error messages.
func (c *GoChecker) errorsOf(dir string, override map[string][]byte) ([]string, error) {
	files, err := c.parseDir(dir, override)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("corrupt: go checker: no Go files in %s", dir)
	}
	var msgs []string
	conf := types.Config{Importer: c, Error: func(err error) {
		var te types.Error
		if errors.As(err, &te) {
			msgs = append(msgs, te.Msg)
			return
		}
		msgs = append(msgs, err.Error())
	}}
	conf.Check(files[0].Name.Name, c.fset, files, nil)
	sort.Strings(msgs)
	return msgs, nil
}

// NewErrors returns the type errors that replacing the file at relPath (slash path relative
// to the root) by src adds to its package, compared with the unchanged package. A parse
// error of src is returned as a *CompileError.
func (c *GoChecker) NewErrors(relPath string, src []byte) ([]string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	clean, err := cleanRel(relPath)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(c.root, filepath.FromSlash(path.Dir(clean)))
	base, ok := c.baseline[dir]
	if !ok {
		if base, err = c.errorsOf(dir, nil); err != nil {
			return nil, err
		}
		c.baseline[dir] = base
	}
	got, err := c.errorsOf(dir, map[string][]byte{path.Base(clean): src})
	if err != nil {
		var ce *CompileError
		if errors.As(err, &ce) {
			return ce.Errors, nil
		}
		return nil, err
	}
	return subtract(got, base), nil
}

func cleanRel(p string) (string, error) {
	c := path.Clean(p)
	if path.IsAbs(c) || c == ".." || strings.HasPrefix(c, "../") {
		return "", fmt.Errorf("corrupt: %q escapes the repository", p)
	}
	return c, nil
}

// subtract removes base's messages from got (multiset difference); both sorted.
func subtract(got, base []string) []string {
	var out []string
	i := 0
	for _, g := range got {
		for i < len(base) && base[i] < g {
			i++
		}
		if i < len(base) && base[i] == g {
			i++
			continue
		}
		out = append(out, g)
	}
	return out
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
		p, ok := unusedImport(e)
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

// unusedImport extracts the import path from go/types' "imported and not used" message.
func unusedImport(msg string) (string, bool) {
	if !strings.HasPrefix(msg, `"`) || !strings.Contains(msg, " imported") || !strings.HasSuffix(msg, "not used") {
		return "", false
	}
	end := strings.Index(msg[1:], `"`)
	if end < 0 {
		return "", false
	}
	return msg[1 : end+1], true
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
	var edits []Edit
	found := 0
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
		found += len(hit)
		if len(hit) == 0 {
			continue
		}
		if len(hit) == len(gd.Specs) {
			a, b := p.stmtLineSpan(gd)
			edits = append(edits, Edit{Start: a, End: b})
			continue
		}
		for _, is := range hit {
			a, b := p.stmtLineSpan(is)
			edits = append(edits, Edit{Start: a, End: b})
		}
	}
	return edits, found == len(paths)
}
