package callgraph_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/faultline-dev/faultline/callgraph"
	"github.com/faultline-dev/faultline/callgraph/golang"
	"github.com/faultline-dev/faultline/callgraph/internal/fetest"
	"github.com/faultline-dev/faultline/callgraph/javascript"
	"github.com/faultline-dev/faultline/callgraph/python"
)

func build(t *testing.T, dir string, fe callgraph.Language, opts callgraph.BuildOptions) *callgraph.Graph {
	t.Helper()
	g, err := callgraph.Build(context.Background(), dir, []callgraph.Language{fe}, opts)
	require.NoError(t, err)
	return g
}

// An installed package (dist-packages/pkg) pointed at directly: it is analysed from the
// import root, so `import pkg as p; p.util.f()` resolves, its neighbours are not parsed,
// and the graph equals the one of a directory holding pkg/, restricted to pkg/.
func TestBuildPythonPackageDir(t *testing.T) {
	site := filepath.Join(t.TempDir(), "dist-packages")
	fetest.WriteTree(t, site, map[string]string{
		"pkg/__init__.py":     "from pkg import util\n",
		"pkg/util.py":         "def f():\n    return helper()\n\ndef helper():\n    return 1\n",
		"pkg/sub/__init__.py": "",
		"pkg/sub/m.py":        "import pkg as p\nfrom pkg.util import helper\n\ndef g():\n    p.util.f()\n    return helper()\n",
		"pkg/tests/test_u.py": "import pkg\n\ndef test_f():\n    pkg.util.f()\n",
		"other/__init__.py":   "def unrelated():\n    return 2\n",
	})
	rec := &fetest.Recorder{Language: python.New(python.Options{})}
	g := build(t, filepath.Join(site, "pkg"), rec, callgraph.BuildOptions{})
	p := g.Project()
	require.NotNil(t, p)
	realSite, err := filepath.EvalSymlinks(site)
	require.NoError(t, err)
	require.Equal(t, realSite, p.Root)
	require.Equal(t, "pkg", p.Target)
	require.Equal(t, []string{"pkg"}, p.Include)
	require.Contains(t, p.Reason, "installed package")
	slices.Sort(rec.Paths)
	require.Equal(t, []string{"pkg/__init__.py", "pkg/sub/__init__.py", "pkg/sub/m.py", "pkg/tests/test_u.py", "pkg/util.py"}, rec.Paths,
		"only the package is parsed, never its neighbours in dist-packages")

	got := fetest.Edges(g, ".")
	require.True(t, got["sub/m.py::g -> util.py::f"], "p.util.f() through `import pkg as p`: %v", got)
	require.True(t, got["tests/test_u.py::test_f -> util.py::f"], "tests are analysed by default, in every language")
	for _, n := range g.Nodes() {
		require.False(t, strings.HasPrefix(n.ID, "pkg/"), "IDs are relative to the directory pointed at: %s", n.ID)
		require.False(t, strings.HasPrefix(n.File, "pkg/"), n.File)
	}

	// The reference: the directory holding pkg/, analysed as given, restricted to pkg/.
	ref := build(t, site, python.New(python.Options{}), callgraph.BuildOptions{Standalone: true})
	require.Equal(t, fetest.Edges(ref, "pkg"), got)

	// Before root discovery (the package as a root of its own) the call did not resolve.
	alone := build(t, filepath.Join(site, "pkg"), python.New(python.Options{}), callgraph.BuildOptions{Standalone: true})
	require.False(t, fetest.Edges(alone, ".")["sub/m.py::g -> util.py::f"])

	// A subpackage: the same root, the graph of pkg/sub only.
	sub := build(t, filepath.Join(site, "pkg", "sub"), python.New(python.Options{}), callgraph.BuildOptions{})
	require.Equal(t, "pkg/sub", sub.Project().Target)
	require.Equal(t, fetest.Edges(ref, "pkg/sub"), fetest.Edges(sub, "."))
	require.Equal(t, 2, sub.Stats().Files, "Files counts the directory's files")
	require.Equal(t, 2, sub.Stats().Calls, "the call sites of pkg/sub only: p.util.f() and helper()")
	require.Equal(t, 2, sub.Stats().Resolved)
	for _, n := range sub.Nodes() {
		require.True(t, n.File == "m.py" || n.File == "__init__.py", n.ID)
	}

	// One switch for tests.
	noTests := build(t, filepath.Join(site, "pkg"), python.New(python.Options{}), callgraph.BuildOptions{SkipTests: true})
	require.False(t, fetest.Edges(noTests, ".")["tests/test_u.py::test_f -> util.py::f"])
	require.Contains(t, noTests.Stats().Skipped, callgraph.Skipped{Path: "tests/test_u.py", Reason: callgraph.SkipTest})
}

// A src layout: the package is analysed from src/, where its dotted names start.
func TestBuildPythonSrcLayout(t *testing.T) {
	repo := t.TempDir()
	fetest.WriteTree(t, repo, map[string]string{
		"pyproject.toml":       "[project]\nname = \"pkg\"\n",
		"src/pkg/__init__.py":  "",
		"src/pkg/a.py":         "import pkg.b\n\ndef f():\n    pkg.b.g()\n",
		"src/pkg/b.py":         "def g():\n    pass\n",
		"tests/test_a.py":      "from pkg.a import f\n\ndef test_f():\n    f()\n",
		"docs/conf.py":         "x = 1\n",
		"src/pkg/data/tool.py": "def t():\n    pass\n",
	})
	g := build(t, filepath.Join(repo, "src", "pkg"), python.New(python.Options{}), callgraph.BuildOptions{})
	p := g.Project()
	require.Equal(t, "src", filepath.Base(p.Root))
	require.Equal(t, "pkg", p.Target)
	require.Contains(t, p.Reason, "import root src")
	require.True(t, fetest.Edges(g, ".")["a.py::f -> b.py::g"])

	// A directory outside any package is its own import root.
	d := build(t, filepath.Join(repo, "docs"), python.New(python.Options{}), callgraph.BuildOptions{})
	require.Equal(t, ".", d.Project().Target)
	require.Contains(t, d.Project().Reason, "not inside a Python package")
}

// shapes is a module whose subdirectory a/ reaches its own method only through the
// sibling package b: the edge needs b's import path, which only the go.mod above says.
var shapesModule = map[string]string{
	"go.mod":                  "module example.com/shapes\n\ngo 1.22\n",
	"b/b.go":                  "package b\n\ntype Shape interface{ Area() float64 }\n\nfunc Keep(s Shape) Shape { return s }\n\nfunc Sum(ss ...Shape) (t float64) {\n\tfor _, s := range ss {\n\t\tt += s.Area()\n\t}\n\treturn t\n}\n",
	"a/a.go":                  "package a\n\nimport \"example.com/shapes/b\"\n\ntype Sq struct{ s float64 }\n\nfunc (q Sq) Area() float64 { return q.s * q.s }\n\nfunc Use() float64 {\n\ts := b.Keep(Sq{2})\n\treturn s.Area() + helper()\n}\n\nfunc helper() float64 { return b.Sum(Sq{1}) }\n\ntype Ci struct{ r float64 }\n\nfunc (c Ci) Area() float64 { return 3 * c.r * c.r }\n\nfunc other() float64 { var s b.Shape = Ci{1}; return s.Area() }\n",
	"a/a_test.go":             "package a\n\nimport \"testing\"\n\nfunc TestUse(t *testing.T) { Use() }\n",
	"a/testdata/fixture/x.go": "package fixture\n\nfunc X() { Y() }\n\nfunc Y() {}\n",
}

func TestBuildGoModuleSubdir(t *testing.T) {
	root := t.TempDir()
	fetest.WriteTree(t, root, shapesModule)
	g := build(t, filepath.Join(root, "a"), golang.New(golang.Options{}), callgraph.BuildOptions{})
	p := g.Project()
	require.Equal(t, "a", p.Target)
	require.Equal(t, "example.com/shapes", p.Module)
	require.Contains(t, p.Reason, "go.mod")
	got := fetest.Edges(g, ".")
	require.True(t, got["a.go::Use -> a.go::Sq.Area"], "s.Area() on the value b.Keep returns: %v", got)
	require.False(t, got["a.go::Use -> a.go::Ci.Area"], "only Sq flows through b.Keep: %v", got)
	require.Equal(t, g.Stats().Calls, g.Stats().Resolved, "every call resolves with the module path: %+v", g.Stats())
	require.True(t, got["a_test.go::TestUse -> a.go::Use"], "Go test files are analysed by default too")
	for _, n := range g.Nodes() {
		require.False(t, strings.Contains(n.ID, "/"), "only a/'s files, IDs relative to a/: %s", n.ID)
	}

	ref := build(t, root, golang.New(golang.Options{}), callgraph.BuildOptions{})
	require.Equal(t, fetest.Edges(ref, "a"), got)
	require.Equal(t, ".", ref.Project().Target)

	// Without the module (the directory alone) the calls into b cannot be bound.
	alone := build(t, filepath.Join(root, "a"), golang.New(golang.Options{}), callgraph.BuildOptions{Standalone: true})
	require.Less(t, alone.Stats().Resolved, alone.Stats().Calls)

	// Below testdata the go command leaves the directory out of the module: analysed alone.
	fx := build(t, filepath.Join(root, "a", "testdata", "fixture"), golang.New(golang.Options{}), callgraph.BuildOptions{})
	require.Equal(t, ".", fx.Project().Target)
	require.Contains(t, fx.Project().Reason, "testdata")
	require.True(t, fetest.Edges(fx, ".")["x.go::X -> x.go::Y"])

	// No go.mod at all: the directory alone, said so.
	bare := t.TempDir()
	fetest.WriteTree(t, bare, map[string]string{"m.go": "package m\n\nfunc F() { G() }\n\nfunc G() {}\n"})
	bg := build(t, bare, golang.New(golang.Options{}), callgraph.BuildOptions{})
	require.Contains(t, bg.Project().Reason, "no go.mod")
	require.True(t, fetest.Edges(bg, ".")["m.go::F -> m.go::G"])
}

// A go.work makes its modules one scope: a module's subdirectory resolves the imports of
// another module of the workspace.
func TestBuildGoWorkspace(t *testing.T) {
	t.Setenv("GOWORK", "")
	root := t.TempDir()
	files := map[string]string{"go.work": "go 1.22\n\nuse (\n\t./shapes // the module\n\t./app\n)\n"}
	for k, v := range shapesModule {
		files["shapes/"+k] = v
	}
	files["app/go.mod"] = "module example.com/app\n\ngo 1.22\n"
	files["app/main/main.go"] = "package main\n\nimport \"example.com/shapes/b\"\n\ntype C struct{}\n\nfunc (C) Area() float64 { return 3 }\n\nfunc main() { b.Keep(C{}).Area() }\n"
	files["unused/x.go"] = "package unused\n"
	fetest.WriteTree(t, root, files)
	rec := &fetest.Recorder{Language: golang.New(golang.Options{})}
	g := build(t, filepath.Join(root, "app", "main"), rec, callgraph.BuildOptions{})
	p := g.Project()
	real, err := filepath.EvalSymlinks(root)
	require.NoError(t, err)
	require.Equal(t, real, p.Root)
	require.Equal(t, "app/main", p.Target)
	require.Equal(t, []string{"app", "shapes"}, p.Include)
	require.Contains(t, p.Reason, "go.work")
	require.NotContains(t, rec.Paths, "unused/x.go", "only the workspace's modules are parsed")
	require.True(t, fetest.Edges(g, ".")["main.go::main -> main.go::C.Area"], "%v", fetest.Edges(g, "."))
}

// A project supplied by the caller is used as it is (narrowed by the scope rules).
func TestBuildGivenProject(t *testing.T) {
	root := t.TempDir()
	fetest.WriteTree(t, root, shapesModule)
	ref := build(t, filepath.Join(root, "a"), golang.New(golang.Options{}), callgraph.BuildOptions{})
	given := build(t, filepath.Join(root, "a"), golang.New(golang.Options{}), callgraph.BuildOptions{Project: ref.Project()})
	require.Equal(t, fetest.Edges(ref, "."), fetest.Edges(given, "."))
	require.Equal(t, ref.Project(), given.Project())

	// A project of another directory is refused, naming both.
	_, err := callgraph.Build(context.Background(), root, []callgraph.Language{golang.New(golang.Options{})}, callgraph.BuildOptions{Project: ref.Project()})
	require.ErrorContains(t, err, "BuildOptions.Project is the project of")
}

// Every front end breaks its call-site counts down by file, and the parts add up.
func TestCallCountsByFile(t *testing.T) {
	cases := []struct {
		fe    callgraph.Language
		files map[string]string
		want  map[string]callgraph.CallCount
	}{
		{python.New(python.Options{}), map[string]string{
			"a.py": "from b import g\n\ndef f():\n    g()\n    print(1)\n",
			"b.py": "def g():\n    return len([])\n",
		}, map[string]callgraph.CallCount{"a.py": {Sites: 2, Resolved: 1}, "b.py": {Sites: 1, Resolved: 0}}},
		{golang.New(golang.Options{}), map[string]string{
			"go.mod": "module m\n",
			"a.go":   "package m\n\nimport \"fmt\"\n\nfunc F() { G(); fmt.Println() }\n",
			"b.go":   "package m\n\nfunc G() { F() }\n",
		}, map[string]callgraph.CallCount{"a.go": {Sites: 2, Resolved: 1}, "b.go": {Sites: 1, Resolved: 1}}},
		{javascript.New(javascript.Options{}), map[string]string{
			"a.js": "const { g } = require('./b');\nfunction f() { g(); console.log(1); }\nmodule.exports = { f };\n",
			"b.js": "function g() { return 1; }\nmodule.exports = { g };\n",
		}, map[string]callgraph.CallCount{"a.js": {Sites: 3, Resolved: 1}}},
	}
	for _, c := range cases {
		t.Run(c.fe.Name(), func(t *testing.T) {
			var files []callgraph.SourceFile
			for p, src := range c.files {
				files = append(files, callgraph.SourceFile{Path: p, Src: []byte(src)})
			}
			a, err := c.fe.Analyze(context.Background(), files)
			require.NoError(t, err)
			sites, resolved := 0, 0
			for _, n := range a.ByFile {
				sites += n.Sites
				resolved += n.Resolved
			}
			require.Equal(t, a.CallSites, sites)
			require.Equal(t, a.Resolved, resolved)
			for p, want := range c.want {
				require.Equal(t, want, a.ByFile[p], p)
			}
		})
	}
}
