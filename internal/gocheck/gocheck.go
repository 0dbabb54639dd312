// Package gocheck type-checks the packages of a Go module on disk with some of its files
// replaced by other contents (an overlay), without writing anything. It is the machinery
// shared by corrupt (does a mutant still compile?) and extract/mask (does a masked package,
// and every package importing it, still build?).
//
// Terms:
//
//   - The module is the one whose go.mod is at the checker's root. Its packages are
//     type-checked from source, with the overlay applied; a directory is a package when it
//     holds non-test .go files matching the default build context (go/build.Default).
//   - Packages outside the module (the standard library, other modules) are imported
//     according to Options.Imports: from source, declarations only, with cgo off (the
//     default; cgo files are left out as under CGO_ENABLED=0, so no cgo command runs and
//     nothing is written to TMPDIR — see sourceImporter), or from the compiler's export
//     data found through the go command's build cache, falling back to source for what has
//     none.
//   - A package is clean when neither its directory nor any module package it imports
//     (transitively) has an overlaid file. Clean packages are type-checked once per Checker
//     and reused; the others are type-checked again in every Check.
//   - The baseline of a directory is its type errors without an overlay. A package that does
//     not type-check on its own (an import that cannot be resolved offline, cgo) stays
//     usable: NewErrors reports only the errors an overlay adds to the baseline, compared by
//     message as a multiset.
//
// Test files (_test.go) are never type-checked. The checker assumes the module does not
// change on disk while it is in use.
package gocheck

import (
	"errors"
	"fmt"
	"go/ast"
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

	"github.com/faultline-dev/faultline/task/repo"
)

// Imports says how packages outside the module are loaded.
type Imports int

const (
	// FromSource type-checks their declarations from source, with cgo off (it may ask the
	// go command where a third-party module lives). It needs no compiled artefacts and
	// writes nothing; the first import of a large dependency tree is slower than export
	// data.
	FromSource Imports = iota
	// FromExportData reads the gc compiler's export data (located, and built if needed, by
	// the go command, so it uses the build cache) and falls back to FromSource for a
	// package it cannot load that way.
	FromExportData
)

// Options configures a Checker. The zero value imports from source and sets no language
// version.
type Options struct {
	// Imports chooses the loading strategy for packages outside the module. Default:
	// FromSource.
	Imports Imports
	// GoVersion is the language version ("go1.21") go/types enforces, as the go command
	// does with the go.mod's go line; "" enforces none. ReadGoMod returns it.
	GoVersion string
}

// Error is one type error, with the slash path of its file relative to the root ("" when
// go/types gave no position).
type Error struct {
	File         string
	Line, Column int
	Msg          string
}

func (e Error) String() string {
	if e.File == "" {
		return e.Msg
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, e.Msg)
}

// ParseError is returned when a file of a checked package does not parse.
type ParseError struct {
	File string // slash path relative to the root
	Err  error  // the go/parser error (its positions name the absolute path)
}

func (e *ParseError) Error() string { return "gocheck: " + e.Err.Error() }
func (e *ParseError) Unwrap() error { return e.Err }

// Checker type-checks the packages of one module. It is safe for concurrent use; checks are
// serialised (they share the caches of parsed files and clean packages).
type Checker struct {
	root string
	mod  Module
	opts Options

	mu     sync.Mutex
	fset   *token.FileSet
	ext    types.ImporterFrom
	parsed map[string]*ast.File      // slash path → file parsed from disk
	files  map[string][]string       // package dir → matching non-test file names
	clean  map[string]*types.Package // import path → clean package (nil: failed)
	extern map[string]imported       // import path outside the module → outcome
	base   map[string][]Error        // package dir → baseline errors
}

// New returns a checker for the module at root (a directory; go.mod is read if present:
// without a module path, imports are never resolved inside root).
func New(root string, opts Options) (*Checker, error) {
	st, err := os.Stat(root)
	if err != nil {
		return nil, fmt.Errorf("gocheck: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("gocheck: %s is not a directory", root)
	}
	c := &Checker{
		root: root, opts: opts, fset: token.NewFileSet(),
		parsed: map[string]*ast.File{}, files: map[string][]string{},
		clean: map[string]*types.Package{}, extern: map[string]imported{},
		base: map[string][]Error{},
	}
	c.mod = repo.ReadGoMod(filepath.Join(root, "go.mod"))
	src := newSourceImporter(c.fset)
	switch opts.Imports {
	case FromSource:
		c.ext = src
	case FromExportData:
		c.ext = fallback{importer.ForCompiler(c.fset, "gc", nil).(types.ImporterFrom), src}
	default:
		return nil, fmt.Errorf("gocheck: unknown Imports value %d", opts.Imports)
	}
	return c, nil
}

// Module returns what the checker read from the root's go.mod.
func (c *Checker) Module() Module { return c.mod }

// ImportPath returns the import path of the package directory dir (slash, "." for the
// root), or "" when the module path is unknown.
func (c *Checker) ImportPath(dir string) string {
	switch {
	case c.mod.Path == "":
		return ""
	case dir == ".":
		return c.mod.Path
	}
	return c.mod.Path + "/" + dir
}

// dirOf returns the package directory of an import path of the module.
func (c *Checker) dirOf(importPath string) (string, bool) {
	m := c.mod.Path
	switch {
	case m == "":
		return "", false
	case importPath == m:
		return ".", true
	case strings.HasPrefix(importPath, m+"/"):
		return importPath[len(m)+1:], true
	}
	return "", false
}

// GoFiles returns the names of the non-test .go files of the package directory dir (slash,
// relative to the root) that match the default build context, sorted.
func (c *Checker) GoFiles(dir string) ([]string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.goFiles(dir)
}

func (c *Checker) goFiles(dir string) ([]string, error) {
	if names, ok := c.files[dir]; ok {
		return names, nil
	}
	abs := filepath.Join(c.root, filepath.FromSlash(dir))
	ents, err := os.ReadDir(abs)
	if err != nil {
		return nil, fmt.Errorf("gocheck: %w", err)
	}
	names := []string{}
	for _, e := range ents {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		if !repo.GoFileBuilds(abs, name, nil) {
			continue
		}
		names = append(names, name)
	}
	c.files[dir] = names
	return names, nil
}

// Check type-checks the packages in dirs (slash paths relative to the root, "." for the
// root; a directory without matching Go files is skipped) with overlay (slash path → new
// contents) replacing files on disk, and returns their errors sorted by message, file and
// position. Errors of imported packages are not reported. A file of a checked package that
// does not parse gives a *ParseError.
func (c *Checker) Check(dirs []string, overlay map[string][]byte) ([]Error, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.check(dirs, overlay)
}

// Baseline returns the errors of the packages in dirs without an overlay (computed once per
// directory).
func (c *Checker) Baseline(dirs []string) ([]Error, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.baseline(dirs)
}

// NewErrors returns the errors the overlay adds to the baseline of dirs: Check minus
// Baseline by message.
func (c *Checker) NewErrors(dirs []string, overlay map[string][]byte) ([]Error, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	base, err := c.baseline(dirs)
	if err != nil {
		return nil, err
	}
	got, err := c.check(dirs, overlay)
	if err != nil {
		return nil, err
	}
	return Subtract(got, base), nil
}

func (c *Checker) baseline(dirs []string) ([]Error, error) {
	var out []Error
	for _, d := range dirs {
		b, ok := c.base[d]
		if !ok {
			var err error
			if b, err = c.check([]string{d}, nil); err != nil {
				return nil, err
			}
			c.base[d] = b
		}
		out = append(out, b...)
	}
	sortErrors(out)
	return out, nil
}

func (c *Checker) check(dirs []string, overlay map[string][]byte) ([]Error, error) {
	s := &session{c: c, overlay: overlay, done: map[string]*types.Package{}, dirty: map[string]bool{}}
	var out []Error
	for _, d := range dirs {
		files, err := s.parseDir(d)
		if err != nil {
			return nil, err
		}
		if len(files) == 0 {
			continue
		}
		p := c.ImportPath(d)
		if p == "" {
			p = files[0].Name.Name
		}
		conf := types.Config{GoVersion: c.opts.GoVersion, Importer: s, Error: func(err error) {
			var te types.Error
			if errors.As(err, &te) {
				pos := te.Fset.Position(te.Pos)
				e := Error{Line: pos.Line, Column: pos.Column, Msg: te.Msg}
				if rel, err := filepath.Rel(c.root, pos.Filename); err == nil && pos.Filename != "" {
					e.File = filepath.ToSlash(rel)
				}
				out = append(out, e)
				return
			}
			out = append(out, Error{Msg: err.Error()})
		}}
		conf.Check(p, c.fset, files, nil)
	}
	sortErrors(out)
	return out, nil
}

func sortErrors(es []Error) {
	sort.Slice(es, func(i, j int) bool {
		a, b := es[i], es[j]
		if a.Msg != b.Msg {
			return a.Msg < b.Msg
		}
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
}

// Subtract returns the errors of got whose message is not matched by one in base, as a
// multiset (each base message cancels one got error), keeping got's order.
func Subtract(got, base []Error) []Error {
	count := map[string]int{}
	for _, b := range base {
		count[b.Msg]++
	}
	var out []Error
	for _, e := range got {
		if count[e.Msg] > 0 {
			count[e.Msg]--
			continue
		}
		out = append(out, e)
	}
	return out
}

// session is the importer of one Check: the module's packages from source with the
// overlay, clean ones from the checker's cache, the rest through the checker's importer.
type session struct {
	c       *Checker
	overlay map[string][]byte
	done    map[string]*types.Package // import path → package (nil: in progress or failed)
	dirty   map[string]bool           // import path → depends on the overlay
}

func (s *session) Import(p string) (*types.Package, error) { return s.ImportFrom(p, s.c.root, 0) }

func (s *session) ImportFrom(p, dir string, mode types.ImportMode) (*types.Package, error) {
	rel, ok := s.c.dirOf(p)
	if !ok {
		return s.c.importExtern(p, dir, mode)
	}
	if pkg, ok := s.done[p]; ok {
		if pkg == nil {
			return nil, fmt.Errorf("gocheck: import cycle or failed package %s", p)
		}
		return pkg, nil
	}
	s.done[p] = nil
	pkg, err := s.load(p, rel)
	if err != nil {
		return nil, err
	}
	s.done[p] = pkg
	return pkg, nil
}

// load returns the module package p (directory rel): the cached clean package when neither
// it nor its module imports depend on the overlay, else a new type-check.
func (s *session) load(p, rel string) (*types.Package, error) {
	c := s.c
	dirty := s.overlaid(rel)
	files, err := s.parseDir(rel)
	if err != nil {
		s.dirty[p] = dirty
		return nil, err
	}
	// Resolve the module imports first, to learn whether they are clean.
	var local []string
	for _, f := range files {
		for _, is := range f.Imports {
			q, err := strconv.Unquote(is.Path.Value)
			if err != nil {
				continue
			}
			if _, ok := c.dirOf(q); ok {
				local = append(local, q)
			}
		}
	}
	sort.Strings(local)
	for i, q := range local {
		if i > 0 && local[i-1] == q {
			continue
		}
		s.ImportFrom(q, c.root, 0) // a failure is reported again when the package is checked
		dirty = dirty || s.dirty[q]
	}
	s.dirty[p] = dirty
	if !dirty {
		if pkg, ok := c.clean[p]; ok {
			return pkg, nil
		}
	}
	conf := types.Config{GoVersion: c.opts.GoVersion, Importer: s, Error: func(error) {}}
	pkg, _ := conf.Check(p, c.fset, files, nil)
	if !dirty {
		c.clean[p] = pkg
	}
	return pkg, nil
}

// overlaid reports whether the overlay replaces a file directly in dir.
func (s *session) overlaid(dir string) bool {
	for f := range s.overlay {
		if path.Dir(f) == dir {
			return true
		}
	}
	return false
}

// parseDir parses the package in dir: overlaid files from the overlay, the others from disk
// (parsed once per checker).
func (s *session) parseDir(dir string) ([]*ast.File, error) {
	c := s.c
	names, err := c.goFiles(dir)
	if err != nil {
		return nil, err
	}
	out := make([]*ast.File, 0, len(names))
	for _, name := range names {
		rel := path.Join(dir, name)
		abs := filepath.Join(c.root, filepath.FromSlash(rel))
		if src, ok := s.overlay[rel]; ok {
			f, err := parser.ParseFile(c.fset, abs, src, parser.SkipObjectResolution)
			if err != nil {
				return nil, &ParseError{File: rel, Err: err}
			}
			out = append(out, f)
			continue
		}
		f, ok := c.parsed[rel]
		if !ok {
			src, err := os.ReadFile(abs)
			if err != nil {
				return nil, fmt.Errorf("gocheck: %w", err)
			}
			if f, err = parser.ParseFile(c.fset, abs, src, parser.SkipObjectResolution); err != nil {
				return nil, &ParseError{File: rel, Err: err}
			}
			c.parsed[rel] = f
		}
		out = append(out, f)
	}
	return out, nil
}

// imported is the outcome of importing a package from outside the module.
type imported struct {
	pkg *types.Package
	err error
}

// importExtern imports a package from outside the module, once per checker: the go/importer
// importers cache packages but locate them again on every call (a go/build lookup, or a go
// command run for a package they cannot find), which would dominate repeated checks. The
// result does not depend on the importing directory inside one module (vendoring too is
// per module).
func (c *Checker) importExtern(p, dir string, mode types.ImportMode) (*types.Package, error) {
	if r, ok := c.extern[p]; ok {
		return r.pkg, r.err
	}
	pkg, err := c.ext.ImportFrom(p, dir, mode)
	c.extern[p] = imported{pkg, err}
	return pkg, err
}

// fallback imports with the first importer and, when it fails, with the second.
type fallback [2]types.ImporterFrom

func (f fallback) Import(p string) (*types.Package, error) { return f.ImportFrom(p, "", 0) }

func (f fallback) ImportFrom(p, dir string, mode types.ImportMode) (*types.Package, error) {
	pkg, err := f[0].ImportFrom(p, dir, mode)
	if err == nil {
		return pkg, nil
	}
	return f[1].ImportFrom(p, dir, mode)
}
