package artifact

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/faultline-dev/faultline/internal/gocheck"
	"github.com/faultline-dev/faultline/task"
)

// Environment is the tree of a Level 2 instance. It holds no repository: the agent starts
// from Start in an empty directory, writes the solution package, and the tests (Tests,
// added by the test patch) import it. Solution is the reference solution that the gold
// patch adds: the original non-test sources of the packages the tests import.
//
// Every overlay is relative to the Level 2 tree (an empty directory), never to the
// original repository, and the three are disjoint.
type Environment struct {
	Kind task.TestKind
	// Start is the starting tree: for Go the module's go.mod (and go.sum); for Python the
	// root's pytest configuration (pytest.ini, or a tox.ini, setup.cfg or pyproject.toml
	// with a pytest section), often nothing.
	Start task.Overlay
	// Tests are the files the test patch adds: the F2P test file and what it needs to run
	// (Python: the test packages' __init__.py files, the conftest.py files on its path,
	// the test helper modules it imports, data files of its directory it names; Go: the
	// sibling _test.go files declaring names it uses or a TestMain, and the package's
	// testdata directory when a test names it).
	Tests task.Overlay
	// Solution are the files the gold patch adds.
	Solution task.Overlay
	// TestFile is the F2P test file's path in the Level 2 tree.
	TestFile string
	// Select runs the F2P tests in the Level 2 tree: the test file (Python), the
	// FAIL_TO_PASS ids (Go; the test file's package when there are none).
	Select task.Selection
	// Packages are the solution's packages, sorted: Python import names (after renaming)
	// or Go import paths.
	Packages []string
	// Imports are the modules or packages of the solution that the tests import directly,
	// sorted (Python dotted names after renaming, Go import paths).
	Imports []string
	// From and To record the rename of the Python solution package (both empty when the
	// package keeps its name).
	From, To string
	// FailToPass are the F2P test ids in the Level 2 tree, sorted.
	FailToPass []string
}

// testDirNames are the directory names that hold tests rather than solution code.
var testDirNames = map[string]bool{"test": true, "tests": true}

// isPyTestPath reports whether the slash path rel is test code or test data: a file in a
// test/ or tests/ directory, conftest.py, test_*.py or *_test.py.
func isPyTestPath(rel string) bool {
	base := path.Base(rel)
	if base == "conftest.py" || strings.HasSuffix(base, ".py") && (strings.HasPrefix(base, "test_") || strings.HasSuffix(base, "_test.py")) {
		return true
	}
	parts := strings.Split(rel, "/")
	for _, p := range parts[:len(parts)-1] {
		if testDirNames[p] {
			return true
		}
	}
	return false
}

// skipFile reports files never copied into a Level 2 tree.
func skipFile(rel string) bool {
	for _, p := range strings.Split(rel, "/") {
		if p == "__pycache__" || strings.HasPrefix(p, ".") {
			return true
		}
	}
	ext := path.Ext(rel)
	return ext == ".pyc" || ext == ".pyo" || ext == ".so" || ext == ".pyd" || ext == ".dll" || ext == ".dylib"
}

type treeReader struct {
	root  string
	cache map[string][]byte
}

func (t *treeReader) read(rel string) ([]byte, error) {
	if b, ok := t.cache[rel]; ok {
		return b, nil
	}
	p, err := task.SafeJoin(t.root, rel)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	t.cache[rel] = b
	return b, nil
}

func (t *treeReader) isFile(rel string) bool {
	p, err := task.SafeJoin(t.root, rel)
	if err != nil {
		return false
	}
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

func (t *treeReader) isDir(rel string) bool {
	if rel == "." {
		return true
	}
	p, err := task.SafeJoin(t.root, rel)
	if err != nil {
		return false
	}
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// walk lists the regular files below the slash directory rel (recursively when deep),
// sorted, as slash paths relative to the root; skipped files are left out.
func (t *treeReader) walk(rel string, deep bool) ([]string, error) {
	dir := filepath.Join(t.root, filepath.FromSlash(rel))
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		r, err := filepath.Rel(t.root, p)
		if err != nil {
			return err
		}
		r = filepath.ToSlash(r)
		if d.IsDir() {
			if p != dir && (!deep || skipFile(r)) {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && !skipFile(r) {
			out = append(out, r)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("artifact: level 2: %w", err)
	}
	slices.Sort(out)
	return out, nil
}

// pyModuleFile returns the file defining the dotted module mod (mod.py or
// mod/__init__.py) below the root, if any.
func (t *treeReader) pyModuleFile(mod string) (string, bool) {
	p := strings.ReplaceAll(mod, ".", "/")
	for _, c := range []string{p + ".py", p + "/__init__.py"} {
		if t.isFile(c) {
			return c, true
		}
	}
	return "", false
}

// pyTop reports whether name is a top-level Python package or module of the root that is
// not test code: a directory holding .py files, or name.py.
func (t *treeReader) pyTop(name string) bool {
	if !isIdentifier(name) || testDirNames[name] {
		return false
	}
	if t.isFile(name+".py") && !isPyTestPath(name+".py") {
		return true
	}
	if !t.isDir(name) {
		return false
	}
	m, _ := filepath.Glob(filepath.Join(t.root, name, "*.py"))
	return len(m) > 0
}

// pyPackageOf is the dotted package a file belongs to (for relative imports).
func pyPackageOf(rel string) string {
	d := path.Dir(rel)
	if d == "." {
		return ""
	}
	return strings.ReplaceAll(d, "/", ".")
}

// absModules resolves an import of the file rel to the absolute modules it may load.
func absModules(rel string, im pyImport) []string {
	base := im.Module
	if im.Level > 0 {
		pkg := strings.Split(pyPackageOf(rel), ".")
		if pkg[0] == "" {
			pkg = nil
		}
		up := im.Level - 1
		if up > len(pkg) {
			return nil
		}
		parts := pkg[:len(pkg)-up]
		if base != "" {
			parts = append(slices.Clone(parts), base)
		}
		base = strings.Join(parts, ".")
	}
	if base == "" {
		return nil
	}
	out := []string{base}
	for _, n := range im.Names {
		if n != "*" {
			out = append(out, base+"."+n)
		}
	}
	return out
}

// pytestConfigs are the root files whose pytest section belongs to the starting tree.
var pytestConfigs = []struct{ file, marker string }{
	{"pytest.ini", ""},
	{"pyproject.toml", "[tool.pytest.ini_options]"},
	{"tox.ini", "[pytest]"},
	{"setup.cfg", "[tool:pytest]"},
}

// pyLevel2 builds the Level 2 environment of a Python test file; pkg is the new name of
// the solution package ("" keeps it).
func pyLevel2(root, testFile, pkg string, f2p []string) (*Environment, error) {
	tr := &treeReader{root: root, cache: map[string][]byte{}}
	if !tr.isFile(testFile) {
		return nil, fmt.Errorf("%w: test file %s does not exist", ErrBadSpec, testFile)
	}
	tests := map[string]bool{}
	var queue []string
	addTest := func(rel string) {
		if !tests[rel] {
			tests[rel] = true
			if strings.HasSuffix(rel, ".py") {
				queue = append(queue, rel)
			}
		}
	}
	addTest(testFile)
	// conftest.py files from the root down to the test file's directory.
	dirs := []string{"."}
	for d := path.Dir(testFile); d != "."; d = path.Dir(d) {
		dirs = append(dirs, d)
	}
	slices.Sort(dirs)
	for _, d := range dirs {
		if c := path.Join(d, "conftest.py"); tr.isFile(c) {
			addTest(c)
		}
	}
	tops := map[string]bool{}     // solution top-level names
	direct := map[string]bool{}   // solution modules the tests import
	initDirs := map[string]bool{} // test package directories whose __init__.py are needed
	for len(queue) > 0 {
		rel := queue[0]
		queue = queue[1:]
		src, err := tr.read(rel)
		if err != nil {
			return nil, fmt.Errorf("artifact: level 2: %w", err)
		}
		for d := path.Dir(rel); d != "."; d = path.Dir(d) {
			initDirs[d] = true
		}
		for _, im := range pyImports(src) {
			for _, mod := range absModules(rel, im) {
				first, _, _ := strings.Cut(mod, ".")
				if tr.pyTop(first) {
					tops[first] = true
				}
				// Each prefix that is a test module is a helper the tests need.
				parts := strings.Split(mod, ".")
				for i := 1; i <= len(parts); i++ {
					f, ok := tr.pyModuleFile(strings.Join(parts[:i], "."))
					if !ok {
						continue
					}
					if isPyTestPath(f) {
						addTest(f)
					} else if tr.pyTop(parts[0]) {
						direct[strings.Join(parts[:i], ".")] = true
					}
				}
			}
		}
	}
	if len(tops) == 0 {
		return nil, fmt.Errorf("%w: test file %s imports nothing from the repository (no solution package)", ErrBadSpec, testFile)
	}
	// The solution: every non-test file of each top-level package, closed over the
	// packages the solution itself imports.
	sol := map[string]bool{}
	pending := sortedKeys(tops)
	for len(pending) > 0 {
		top := pending[0]
		pending = pending[1:]
		var files []string
		if tr.isDir(top) {
			all, err := tr.walk(top, true)
			if err != nil {
				return nil, err
			}
			for _, f := range all {
				if !isPyTestPath(f) {
					files = append(files, f)
				}
			}
		} else {
			files = []string{top + ".py"}
		}
		for _, f := range files {
			sol[f] = true
			if !strings.HasSuffix(f, ".py") {
				continue
			}
			src, err := tr.read(f)
			if err != nil {
				return nil, fmt.Errorf("artifact: level 2: %w", err)
			}
			for _, im := range pyImports(src) {
				for _, mod := range absModules(f, im) {
					first, _, _ := strings.Cut(mod, ".")
					if !tops[first] && tr.pyTop(first) {
						tops[first] = true
						pending = append(pending, first)
					}
				}
			}
		}
	}
	topList := sortedKeys(tops)
	from, to := "", ""
	if pkg != "" {
		if len(topList) > 1 {
			return nil, fmt.Errorf("%w: the tests of %s use several repository packages (%s); renaming the solution to %s needs exactly one",
				ErrBadSpec, testFile, strings.Join(topList, ", "), pkg)
		}
		if pkg != topList[0] {
			from, to = topList[0], pkg
			if tr.isDir(pkg) || tr.isFile(pkg+".py") {
				return nil, fmt.Errorf("%w: package name %s is already used in the repository", ErrBadSpec, pkg)
			}
		}
	}
	// Test package __init__.py files outside the solution, from the root down.
	for _, d := range sortedKeys(initDirs) {
		first, _, _ := strings.Cut(d, "/")
		if tops[first] && !isPyTestPath(d+"/x") {
			continue // the solution's own package directory
		}
		if f := d + "/__init__.py"; tr.isFile(f) && !tests[f] {
			tests[f] = true
		}
	}
	// Data files in the test file's directory tree named by a test source.
	var testSrc []byte
	for _, f := range sortedKeys(tests) {
		b, _ := tr.read(f)
		testSrc = append(testSrc, b...)
	}
	dataDir := path.Dir(testFile)
	files, err := tr.walk(dataDir, dataDir != ".")
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		if strings.HasSuffix(f, ".py") || tests[f] || sol[f] || !bytes.Contains(testSrc, []byte(path.Base(f))) {
			continue
		}
		tests[f] = true
	}

	rename := func(rel string) string {
		if from == "" {
			return rel
		}
		if rel == from+".py" {
			return to + ".py"
		}
		if rest, ok := strings.CutPrefix(rel, from+"/"); ok {
			return to + "/" + rest
		}
		return rel
	}
	content := func(rel string) ([]byte, error) {
		b, err := tr.read(rel)
		if err != nil {
			return nil, fmt.Errorf("artifact: level 2: %w", err)
		}
		if from != "" && strings.HasSuffix(rel, ".py") {
			b = pyRename(b, from, to)
		}
		return b, nil
	}
	env := &Environment{Kind: task.Pytest, Start: task.Overlay{}, Tests: task.Overlay{}, Solution: task.Overlay{}, From: from, To: to}
	for _, c := range pytestConfigs {
		b, err := tr.read(c.file)
		if err != nil || (c.marker != "" && !bytes.Contains(b, []byte(c.marker))) {
			continue
		}
		env.Start.Set(c.file, b)
	}
	for _, f := range sortedKeys(tests) {
		b, err := content(f)
		if err != nil {
			return nil, err
		}
		if task.IsBinary(b) {
			continue
		}
		env.Tests.Set(rename(f), b)
	}
	for _, f := range sortedKeys(sol) {
		if tests[f] {
			continue
		}
		b, err := content(f)
		if err != nil {
			return nil, err
		}
		if task.IsBinary(b) {
			continue // compiled extensions and binary data cannot travel in a patch
		}
		env.Solution.Set(rename(f), b)
	}
	env.TestFile = rename(testFile)
	env.Select = task.Selection{Files: []string{env.TestFile}}
	for _, t := range topList {
		env.Packages = append(env.Packages, renameModule(t, from, to))
	}
	slices.Sort(env.Packages)
	for _, m := range sortedKeys(direct) {
		env.Imports = append(env.Imports, renameModule(m, from, to))
	}
	slices.Sort(env.Imports)
	for _, id := range f2p {
		// pytest reports a test class the file imports from another test file under that
		// file's path; it is one of the tests' helpers then.
		f, rest, ok := strings.Cut(id, "::")
		if !ok || !tests[f] || !strings.HasSuffix(f, ".py") {
			return nil, fmt.Errorf("%w: FAIL_TO_PASS id %q is not a test of %s nor of a test file it imports", ErrBadSpec, id, testFile)
		}
		env.FailToPass = append(env.FailToPass, rename(f)+"::"+rest)
	}
	slices.Sort(env.FailToPass)
	return env, env.check()
}

func renameModule(m, from, to string) string {
	if from == "" {
		return m
	}
	if m == from {
		return to
	}
	if rest, ok := strings.CutPrefix(m, from+"."); ok {
		return to + "." + rest
	}
	return m
}

// check refuses overlapping overlays.
func (e *Environment) check() error {
	for p := range e.Solution {
		if _, ok := e.Tests[p]; ok {
			return fmt.Errorf("%w: %s is both a test file and part of the solution", ErrBadSpec, p)
		}
		if _, ok := e.Start[p]; ok {
			return fmt.Errorf("%w: %s is both in the starting tree and part of the solution", ErrBadSpec, p)
		}
	}
	for p := range e.Tests {
		if _, ok := e.Start[p]; ok {
			return fmt.Errorf("%w: %s is both in the starting tree and a test file", ErrBadSpec, p)
		}
	}
	if len(e.Solution) == 0 {
		return fmt.Errorf("%w: the solution of %s has no files", ErrBadSpec, e.TestFile)
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// goLevel2 builds the Level 2 environment of a Go test file. The module path is kept:
// the solution packages stay at their directories of the module.
func goLevel2(root, testFile string, f2p []string) (*Environment, error) {
	tr := &treeReader{root: root, cache: map[string][]byte{}}
	mod := gocheck.ReadGoMod(filepath.Join(root, "go.mod")).Path
	if mod == "" {
		return nil, fmt.Errorf("%w: %s has no go.mod with a module path", ErrBadSpec, root)
	}
	if !tr.isFile(testFile) {
		return nil, fmt.Errorf("%w: test file %s does not exist", ErrBadSpec, testFile)
	}
	fset := token.NewFileSet()
	parse := func(rel string) (*ast.File, []byte, error) {
		src, err := tr.read(rel)
		if err != nil {
			return nil, nil, fmt.Errorf("artifact: level 2: %w", err)
		}
		f, err := parser.ParseFile(fset, rel, src, parser.SkipObjectResolution)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: %w", ErrBadSpec, err)
		}
		return f, src, nil
	}
	dir := path.Dir(testFile)
	siblings, err := tr.walk(dir, false)
	if err != nil {
		return nil, err
	}
	// Top-level names declared by each sibling test file.
	declared := map[string][]string{}
	pkgOf := map[string]string{} // package clause of each sibling test file
	for _, s := range siblings {
		if s == testFile || !strings.HasSuffix(s, "_test.go") {
			continue
		}
		f, _, err := parse(s)
		if err != nil {
			return nil, err
		}
		pkgOf[s] = f.Name.Name
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && (!task.IsGoTestFunc(d.Name.Name) || d.Name.Name == "TestMain") {
					declared[s] = append(declared[s], d.Name.Name)
				}
			case *ast.GenDecl:
				for _, sp := range d.Specs {
					switch sp := sp.(type) {
					case *ast.TypeSpec:
						declared[s] = append(declared[s], sp.Name.Name)
					case *ast.ValueSpec:
						for _, n := range sp.Names {
							declared[s] = append(declared[s], n.Name)
						}
					}
				}
			}
		}
	}
	tests := map[string]bool{testFile: true}
	queue := []string{testFile}
	imports := map[string]bool{}
	mentionsTestdata := false
	for len(queue) > 0 {
		rel := queue[0]
		queue = queue[1:]
		f, src, err := parse(rel)
		if err != nil {
			return nil, err
		}
		mentionsTestdata = mentionsTestdata || bytes.Contains(src, []byte("testdata"))
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if p == mod || strings.HasPrefix(p, mod+"/") {
				imports[p] = true
			}
		}
		// Names used unqualified (declared by a sibling of the same package), and names
		// selected from the package under test by an external test package (declared by
		// an internal sibling, the export_test.go pattern).
		pkg := f.Name.Name
		internal, external := strings.CutSuffix(pkg, "_test")
		local := internal
		for _, im := range f.Imports {
			if p, _ := strconv.Unquote(im.Path.Value); p == goImportPath(mod, testFile) && im.Name != nil {
				local = im.Name.Name
			}
		}
		unq, qual := map[string]bool{}, map[string]bool{}
		var visit func(n ast.Node) bool
		visit = func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr: // x.Sel: Sel is a field, method or another package's name
				if x, ok := n.X.(*ast.Ident); ok {
					if external && x.Name == local {
						qual[n.Sel.Name] = true
					}
					unq[x.Name] = true
				} else {
					ast.Inspect(n.X, visit)
				}
				return false
			case *ast.Ident:
				unq[n.Name] = true
			}
			return true
		}
		ast.Inspect(f, visit)
		for _, s := range sortedKeys(declared) {
			if tests[s] {
				continue
			}
			used := map[string]bool{}
			switch {
			case pkgOf[s] == pkg:
				used = unq
			case external && pkgOf[s] == internal:
				used = qual
			}
			for _, name := range declared[s] {
				if used[name] || name == "TestMain" {
					tests[s] = true
					queue = append(queue, s)
					break
				}
			}
		}
	}
	// The test's own package, when it has code, and the module packages the tests import,
	// closed over the module packages the solution imports.
	pkgDirs := map[string]bool{}
	var pending []string
	addPkg := func(d string) {
		if !pkgDirs[d] {
			pkgDirs[d] = true
			pending = append(pending, d)
		}
	}
	goFiles := func(d string) ([]string, error) {
		all, err := tr.walk(d, false)
		if err != nil {
			return nil, err
		}
		var out []string
		for _, f := range all {
			if strings.HasSuffix(f, ".go") && !strings.HasSuffix(f, "_test.go") {
				out = append(out, f)
			}
		}
		return out, nil
	}
	importDir := func(p string) string {
		if p == mod {
			return "."
		}
		return strings.TrimPrefix(p, mod+"/")
	}
	if own, err := goFiles(dir); err != nil {
		return nil, err
	} else if len(own) > 0 {
		addPkg(dir)
		imports[goImportPath(mod, testFile)] = true
	}
	for _, p := range sortedKeys(imports) {
		if tr.isDir(importDir(p)) {
			addPkg(importDir(p))
		}
	}
	sol := map[string]bool{}
	for len(pending) > 0 {
		d := pending[0]
		pending = pending[1:]
		files, err := goFiles(d)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			sol[f] = true
			af, _, err := parse(f)
			if err != nil {
				return nil, err
			}
			for _, im := range af.Imports {
				p, _ := strconv.Unquote(im.Path.Value)
				if (p == mod || strings.HasPrefix(p, mod+"/")) && tr.isDir(importDir(p)) {
					addPkg(importDir(p))
				}
			}
		}
	}
	if len(sol) == 0 {
		return nil, fmt.Errorf("%w: test file %s imports nothing from the repository (no solution package)", ErrBadSpec, testFile)
	}
	if mentionsTestdata && tr.isDir(path.Join(dir, "testdata")) {
		files, err := tr.walk(path.Join(dir, "testdata"), true)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			tests[f] = true
		}
	}
	env := &Environment{Kind: task.GoTest, Start: task.Overlay{}, Tests: task.Overlay{}, Solution: task.Overlay{}, TestFile: testFile}
	for _, f := range []string{"go.mod", "go.sum"} {
		if b, err := tr.read(f); err == nil {
			env.Start.Set(f, b)
		}
	}
	for _, f := range sortedKeys(tests) {
		b, err := tr.read(f)
		if err != nil {
			return nil, fmt.Errorf("artifact: level 2: %w", err)
		}
		if !task.IsBinary(b) {
			env.Tests.Set(f, b)
		}
	}
	for _, f := range sortedKeys(sol) {
		b, err := tr.read(f)
		if err != nil {
			return nil, fmt.Errorf("artifact: level 2: %w", err)
		}
		env.Solution.Set(f, b)
	}
	for _, d := range sortedKeys(pkgDirs) {
		env.Packages = append(env.Packages, goImportPath(mod, d+"/x.go"))
	}
	for p := range imports {
		if pkgDirs[importDir(p)] {
			env.Imports = append(env.Imports, p)
		}
	}
	slices.Sort(env.Imports)
	env.FailToPass = slices.Sorted(slices.Values(f2p))
	env.Select = task.Selection{IDs: slices.Clone(env.FailToPass)}
	if len(f2p) == 0 {
		env.Select = task.Selection{Files: []string{testFile}} // the test file's package
	}
	return env, env.check()
}
