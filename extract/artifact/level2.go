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

	"github.com/faultline-dev/faultline/task"
	"github.com/faultline-dev/faultline/task/repo"
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
	if !isIdentifier(name) || repo.IsTestPath(name+"/x") {
		return false
	}
	if t.isFile(name+".py") && !repo.IsTestPath(name+".py") {
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
// the solution package ("" keeps it). The steps, in order: the test file and the
// conftest.py files above it; the test helper modules they import and the solution's
// top-level packages (followTestImports); the solution closed over what it imports
// (closeSolution); the rename (chooseRename); the test packages' __init__.py files
// (addTestInits) and the data files the tests name (addDataFiles); then the overlays
// (environment).
func pyLevel2(root, testFile, pkg string, f2p []string) (*Environment, error) {
	b := &pyBuild{tr: &treeReader{root: root, cache: map[string][]byte{}}, testFile: testFile, pkg: pkg,
		tests: map[string]bool{}, tops: map[string]bool{}, direct: map[string]bool{}, initDirs: map[string]bool{}, sol: map[string]bool{}}
	if !b.tr.isFile(testFile) {
		return nil, fmt.Errorf("%w: test file %s does not exist", ErrBadSpec, testFile)
	}
	b.addTest(testFile)
	b.addConftests()
	if err := b.followTestImports(); err != nil {
		return nil, err
	}
	if len(b.tops) == 0 {
		return nil, fmt.Errorf("%w: test file %s imports nothing from the repository (no solution package)", ErrBadSpec, testFile)
	}
	if err := b.closeSolution(); err != nil {
		return nil, err
	}
	if err := b.chooseRename(); err != nil {
		return nil, err
	}
	b.addTestInits()
	if err := b.addDataFiles(); err != nil {
		return nil, err
	}
	env, err := b.environment(f2p)
	if err != nil {
		return nil, err
	}
	return env, env.check()
}

// pyBuild is the state of pyLevel2's steps.
type pyBuild struct {
	tr            *treeReader
	testFile, pkg string
	tests         map[string]bool // the test files and test data of the tree
	queue         []string        // test sources whose imports are still to follow
	tops          map[string]bool // solution top-level names
	direct        map[string]bool // solution modules the tests import
	initDirs      map[string]bool // test package directories whose __init__.py are needed
	sol           map[string]bool // solution files
	from, to      string          // the rename of the solution package ("" when none)
}

// addTest adds a test file (a Python one is queued for its imports).
func (b *pyBuild) addTest(rel string) {
	if !b.tests[rel] {
		b.tests[rel] = true
		if strings.HasSuffix(rel, ".py") {
			b.queue = append(b.queue, rel)
		}
	}
}

// addConftests adds the conftest.py files from the root down to the test file's directory.
func (b *pyBuild) addConftests() {
	dirs := []string{"."}
	for d := path.Dir(b.testFile); d != "."; d = path.Dir(d) {
		dirs = append(dirs, d)
	}
	slices.Sort(dirs)
	for _, d := range dirs {
		if c := path.Join(d, "conftest.py"); b.tr.isFile(c) {
			b.addTest(c)
		}
	}
}

// followTestImports reads the queued test sources: each module they import is a test helper
// (added and followed) or part of the solution (its top-level name goes into tops, and the
// module into direct).
func (b *pyBuild) followTestImports() error {
	for len(b.queue) > 0 {
		rel := b.queue[0]
		b.queue = b.queue[1:]
		src, err := b.tr.read(rel)
		if err != nil {
			return fmt.Errorf("artifact: level 2: %w", err)
		}
		for d := path.Dir(rel); d != "."; d = path.Dir(d) {
			b.initDirs[d] = true
		}
		for _, im := range pyImports(src) {
			for _, mod := range absModules(rel, im) {
				b.useModule(mod)
			}
		}
	}
	return nil
}

// useModule records one module a test source imports: its top-level name when that is a
// solution package, and each prefix that is a module file (a test helper, or a solution
// module the tests import directly).
func (b *pyBuild) useModule(mod string) {
	first, _, _ := strings.Cut(mod, ".")
	if b.tr.pyTop(first) {
		b.tops[first] = true
	}
	parts := strings.Split(mod, ".")
	for i := 1; i <= len(parts); i++ {
		f, ok := b.tr.pyModuleFile(strings.Join(parts[:i], "."))
		if !ok {
			continue
		}
		if repo.IsTestPath(f) {
			b.addTest(f)
		} else if b.tr.pyTop(parts[0]) {
			b.direct[strings.Join(parts[:i], ".")] = true
		}
	}
}

// closeSolution puts every non-test file of each top-level package into the solution,
// closed over the packages the solution itself imports.
func (b *pyBuild) closeSolution() error {
	pending := sortedKeys(b.tops)
	for len(pending) > 0 {
		top := pending[0]
		pending = pending[1:]
		files, err := b.packageFiles(top)
		if err != nil {
			return err
		}
		for _, f := range files {
			b.sol[f] = true
			if !strings.HasSuffix(f, ".py") {
				continue
			}
			src, err := b.tr.read(f)
			if err != nil {
				return fmt.Errorf("artifact: level 2: %w", err)
			}
			for _, im := range pyImports(src) {
				for _, mod := range absModules(f, im) {
					first, _, _ := strings.Cut(mod, ".")
					if !b.tops[first] && b.tr.pyTop(first) {
						b.tops[first] = true
						pending = append(pending, first)
					}
				}
			}
		}
	}
	return nil
}

// packageFiles lists the non-test files of a top-level package (or its one module file).
func (b *pyBuild) packageFiles(top string) ([]string, error) {
	if !b.tr.isDir(top) {
		return []string{top + ".py"}, nil
	}
	all, err := b.tr.walk(top, true)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, f := range all {
		if !repo.IsTestPath(f) {
			files = append(files, f)
		}
	}
	return files, nil
}

// chooseRename decides the rename of the solution package: pkg needs exactly one top-level
// package and a name the repository does not use.
func (b *pyBuild) chooseRename() error {
	topList := sortedKeys(b.tops)
	if b.pkg == "" {
		return nil
	}
	if len(topList) > 1 {
		return fmt.Errorf("%w: the tests of %s use several repository packages (%s); renaming the solution to %s needs exactly one",
			ErrBadSpec, b.testFile, strings.Join(topList, ", "), b.pkg)
	}
	if b.pkg != topList[0] {
		b.from, b.to = topList[0], b.pkg
		if b.tr.isDir(b.pkg) || b.tr.isFile(b.pkg+".py") {
			return fmt.Errorf("%w: package name %s is already used in the repository", ErrBadSpec, b.pkg)
		}
	}
	return nil
}

// addTestInits adds the test packages' __init__.py files outside the solution, from the
// root down.
func (b *pyBuild) addTestInits() {
	for _, d := range sortedKeys(b.initDirs) {
		first, _, _ := strings.Cut(d, "/")
		if b.tops[first] && !repo.IsTestPath(d+"/x") {
			continue // the solution's own package directory
		}
		if f := d + "/__init__.py"; b.tr.isFile(f) && !b.tests[f] {
			b.tests[f] = true
		}
	}
}

// addDataFiles adds the data files in the test file's directory tree that a test source
// names.
func (b *pyBuild) addDataFiles() error {
	var testSrc []byte
	for _, f := range sortedKeys(b.tests) {
		src, _ := b.tr.read(f)
		testSrc = append(testSrc, src...)
	}
	dataDir := path.Dir(b.testFile)
	files, err := b.tr.walk(dataDir, dataDir != ".")
	if err != nil {
		return err
	}
	for _, f := range files {
		if strings.HasSuffix(f, ".py") || b.tests[f] || b.sol[f] || !bytes.Contains(testSrc, []byte(path.Base(f))) {
			continue
		}
		b.tests[f] = true
	}
	return nil
}

// rename maps a path of the repository to the Level 2 tree.
func (b *pyBuild) rename(rel string) string {
	if b.from == "" {
		return rel
	}
	if rel == b.from+".py" {
		return b.to + ".py"
	}
	if rest, ok := strings.CutPrefix(rel, b.from+"/"); ok {
		return b.to + "/" + rest
	}
	return rel
}

// content reads a file for the Level 2 tree (a Python source with the rename applied).
func (b *pyBuild) content(rel string) ([]byte, error) {
	data, err := b.tr.read(rel)
	if err != nil {
		return nil, fmt.Errorf("artifact: level 2: %w", err)
	}
	if b.from != "" && strings.HasSuffix(rel, ".py") {
		data = pyRename(data, b.from, b.to)
	}
	return data, nil
}

// environment writes the overlays (binary files cannot travel in a patch and are left
// out), the packages and imports, and maps the FAIL_TO_PASS ids into the tree.
func (b *pyBuild) environment(f2p []string) (*Environment, error) {
	env := &Environment{Kind: task.Pytest, Start: task.Overlay{}, Tests: task.Overlay{}, Solution: task.Overlay{}, From: b.from, To: b.to}
	for _, c := range pytestConfigs {
		data, err := b.tr.read(c.file)
		if err != nil || (c.marker != "" && !bytes.Contains(data, []byte(c.marker))) {
			continue
		}
		env.Start.Set(c.file, data)
	}
	for _, f := range sortedKeys(b.tests) {
		data, err := b.content(f)
		if err != nil {
			return nil, err
		}
		if !task.IsBinary(data) {
			env.Tests.Set(b.rename(f), data)
		}
	}
	for _, f := range sortedKeys(b.sol) {
		if b.tests[f] {
			continue
		}
		data, err := b.content(f)
		if err != nil {
			return nil, err
		}
		if !task.IsBinary(data) { // compiled extensions and binary data
			env.Solution.Set(b.rename(f), data)
		}
	}
	env.TestFile = b.rename(b.testFile)
	env.Select = task.Selection{Files: []string{env.TestFile}}
	for _, t := range sortedKeys(b.tops) {
		env.Packages = append(env.Packages, renameModule(t, b.from, b.to))
	}
	slices.Sort(env.Packages)
	for _, m := range sortedKeys(b.direct) {
		env.Imports = append(env.Imports, renameModule(m, b.from, b.to))
	}
	slices.Sort(env.Imports)
	for _, id := range f2p {
		// pytest reports a test class the file imports from another test file under that
		// file's path; it is one of the tests' helpers then.
		f, rest, ok := strings.Cut(id, "::")
		if !ok || !b.tests[f] || !strings.HasSuffix(f, ".py") {
			return nil, fmt.Errorf("%w: FAIL_TO_PASS id %q is not a test of %s nor of a test file it imports", ErrBadSpec, id, b.testFile)
		}
		env.FailToPass = append(env.FailToPass, b.rename(f)+"::"+rest)
	}
	slices.Sort(env.FailToPass)
	return env, nil
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
// the solution packages stay at their directories of the module. The steps, in order: the
// names each sibling test file declares (declareSiblings); the sibling test files the
// test file needs, followed through what they use (followTests); the solution packages,
// closed over their module imports (closeSolution); the testdata directory when a test
// names it (addTestdata); then the overlays (environment).
func goLevel2(root, testFile string, f2p []string) (*Environment, error) {
	b := &goBuild{tr: &treeReader{root: root, cache: map[string][]byte{}}, fset: token.NewFileSet(), testFile: testFile,
		dir: path.Dir(testFile), declared: map[string][]string{}, pkgOf: map[string]string{},
		tests: map[string]bool{testFile: true}, imports: map[string]bool{}, pkgDirs: map[string]bool{}, sol: map[string]bool{}}
	b.mod = repo.ReadGoMod(filepath.Join(root, "go.mod")).Path
	if b.mod == "" {
		return nil, fmt.Errorf("%w: %s has no go.mod with a module path", ErrBadSpec, root)
	}
	if !b.tr.isFile(testFile) {
		return nil, fmt.Errorf("%w: test file %s does not exist", ErrBadSpec, testFile)
	}
	if err := b.declareSiblings(); err != nil {
		return nil, err
	}
	if err := b.followTests(); err != nil {
		return nil, err
	}
	if err := b.closeSolution(); err != nil {
		return nil, err
	}
	if len(b.sol) == 0 {
		return nil, fmt.Errorf("%w: test file %s imports nothing from the repository (no solution package)", ErrBadSpec, testFile)
	}
	if err := b.addTestdata(); err != nil {
		return nil, err
	}
	env, err := b.environment(f2p)
	if err != nil {
		return nil, err
	}
	return env, env.check()
}

// goBuild is the state of goLevel2's steps.
type goBuild struct {
	tr               *treeReader
	fset             *token.FileSet
	mod              string // the module path
	testFile, dir    string // the test file and its directory
	declared         map[string][]string
	pkgOf            map[string]string // package clause of each sibling test file
	tests            map[string]bool   // the test files and test data of the tree
	imports          map[string]bool   // module packages the tests import
	mentionsTestdata bool
	pkgDirs          map[string]bool // solution package directories
	pending          []string        // solution packages still to read
	sol              map[string]bool // solution files
}

// parse reads and parses a Go file of the tree.
func (b *goBuild) parse(rel string) (*ast.File, []byte, error) {
	src, err := b.tr.read(rel)
	if err != nil {
		return nil, nil, fmt.Errorf("artifact: level 2: %w", err)
	}
	f, err := parser.ParseFile(b.fset, rel, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrBadSpec, err)
	}
	return f, src, nil
}

// declareSiblings records the package clause and the top-level names (helpers, types,
// values and TestMain; not the tests themselves) of every other test file of the directory.
func (b *goBuild) declareSiblings() error {
	siblings, err := b.tr.walk(b.dir, false)
	if err != nil {
		return err
	}
	for _, s := range siblings {
		if s == b.testFile || !strings.HasSuffix(s, "_test.go") {
			continue
		}
		f, _, err := b.parse(s)
		if err != nil {
			return err
		}
		b.pkgOf[s] = f.Name.Name
		b.declared[s] = topLevelNames(f)
	}
	return nil
}

// topLevelNames lists the names a test file declares that another test file may use.
func topLevelNames(f *ast.File) []string {
	var names []string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil && (!task.IsGoTestFunc(d.Name.Name) || d.Name.Name == "TestMain") {
				names = append(names, d.Name.Name)
			}
		case *ast.GenDecl:
			for _, sp := range d.Specs {
				switch sp := sp.(type) {
				case *ast.TypeSpec:
					names = append(names, sp.Name.Name)
				case *ast.ValueSpec:
					for _, n := range sp.Names {
						names = append(names, n.Name)
					}
				}
			}
		}
	}
	return names
}

// followTests reads the test file and every sibling it needs: the module packages each
// imports, and the siblings declaring names it uses (or a TestMain).
func (b *goBuild) followTests() error {
	queue := []string{b.testFile}
	for len(queue) > 0 {
		rel := queue[0]
		queue = queue[1:]
		f, src, err := b.parse(rel)
		if err != nil {
			return err
		}
		b.mentionsTestdata = b.mentionsTestdata || bytes.Contains(src, []byte("testdata"))
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if b.inModule(p) {
				b.imports[p] = true
			}
		}
		queue = append(queue, b.siblingsUsed(f)...)
	}
	return nil
}

// siblingsUsed returns the sibling test files not yet added that f needs, and adds them:
// names used unqualified (declared by a sibling of the same package), and names selected
// from the package under test by an external test package (declared by an internal
// sibling, the export_test.go pattern).
func (b *goBuild) siblingsUsed(f *ast.File) []string {
	pkg := f.Name.Name
	internal, external := strings.CutSuffix(pkg, "_test")
	local := internal
	for _, im := range f.Imports {
		if p, _ := strconv.Unquote(im.Path.Value); p == goImportPath(b.mod, b.testFile) && im.Name != nil {
			local = im.Name.Name
		}
	}
	unq, qual := usedNames(f, external, local)
	var added []string
	for _, s := range sortedKeys(b.declared) {
		if b.tests[s] {
			continue
		}
		used := map[string]bool{}
		switch {
		case b.pkgOf[s] == pkg:
			used = unq
		case external && b.pkgOf[s] == internal:
			used = qual
		}
		for _, name := range b.declared[s] {
			if used[name] || name == "TestMain" {
				b.tests[s] = true
				added = append(added, s)
				break
			}
		}
	}
	return added
}

// usedNames returns the identifiers f uses unqualified and, for an external test package,
// the names it selects from the package under test (imported as local).
func usedNames(f *ast.File, external bool, local string) (unq, qual map[string]bool) {
	unq, qual = map[string]bool{}, map[string]bool{}
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
	return unq, qual
}

func (b *goBuild) inModule(p string) bool { return p == b.mod || strings.HasPrefix(p, b.mod+"/") }

// importDir is the directory (relative to the root) of a module package.
func (b *goBuild) importDir(p string) string {
	if p == b.mod {
		return "."
	}
	return strings.TrimPrefix(p, b.mod+"/")
}

// goFiles lists the non-test Go files of a directory.
func (b *goBuild) goFiles(d string) ([]string, error) {
	all, err := b.tr.walk(d, false)
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

func (b *goBuild) addPkg(d string) {
	if !b.pkgDirs[d] {
		b.pkgDirs[d] = true
		b.pending = append(b.pending, d)
	}
}

// closeSolution collects the solution: the test's own package when it has code, and the
// module packages the tests import, closed over the module packages the solution imports.
func (b *goBuild) closeSolution() error {
	own, err := b.goFiles(b.dir)
	if err != nil {
		return err
	}
	if len(own) > 0 {
		b.addPkg(b.dir)
		b.imports[goImportPath(b.mod, b.testFile)] = true
	}
	for _, p := range sortedKeys(b.imports) {
		if b.tr.isDir(b.importDir(p)) {
			b.addPkg(b.importDir(p))
		}
	}
	for len(b.pending) > 0 {
		d := b.pending[0]
		b.pending = b.pending[1:]
		files, err := b.goFiles(d)
		if err != nil {
			return err
		}
		for _, f := range files {
			b.sol[f] = true
			af, _, err := b.parse(f)
			if err != nil {
				return err
			}
			for _, im := range af.Imports {
				p, _ := strconv.Unquote(im.Path.Value)
				if b.inModule(p) && b.tr.isDir(b.importDir(p)) {
					b.addPkg(b.importDir(p))
				}
			}
		}
	}
	return nil
}

// addTestdata adds the test directory's testdata when a test source names it.
func (b *goBuild) addTestdata() error {
	td := path.Join(b.dir, "testdata")
	if !b.mentionsTestdata || !b.tr.isDir(td) {
		return nil
	}
	files, err := b.tr.walk(td, true)
	if err != nil {
		return err
	}
	for _, f := range files {
		b.tests[f] = true
	}
	return nil
}

// environment writes the overlays (go.mod and go.sum start the tree; binary test data is
// left out), the packages and imports, and the selection.
func (b *goBuild) environment(f2p []string) (*Environment, error) {
	env := &Environment{Kind: task.GoTest, Start: task.Overlay{}, Tests: task.Overlay{}, Solution: task.Overlay{}, TestFile: b.testFile}
	for _, f := range []string{"go.mod", "go.sum"} {
		if data, err := b.tr.read(f); err == nil {
			env.Start.Set(f, data)
		}
	}
	for _, f := range sortedKeys(b.tests) {
		data, err := b.tr.read(f)
		if err != nil {
			return nil, fmt.Errorf("artifact: level 2: %w", err)
		}
		if !task.IsBinary(data) {
			env.Tests.Set(f, data)
		}
	}
	for _, f := range sortedKeys(b.sol) {
		data, err := b.tr.read(f)
		if err != nil {
			return nil, fmt.Errorf("artifact: level 2: %w", err)
		}
		env.Solution.Set(f, data)
	}
	for _, d := range sortedKeys(b.pkgDirs) {
		env.Packages = append(env.Packages, goImportPath(b.mod, d+"/x.go"))
	}
	for p := range b.imports {
		if b.pkgDirs[b.importDir(p)] {
			env.Imports = append(env.Imports, p)
		}
	}
	slices.Sort(env.Imports)
	env.FailToPass = slices.Sorted(slices.Values(f2p))
	env.Select = task.Selection{IDs: slices.Clone(env.FailToPass)}
	if len(f2p) == 0 {
		env.Select = task.Selection{Files: []string{b.testFile}} // the test file's package
	}
	return env, nil
}
