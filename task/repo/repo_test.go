package repo

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/faultline-dev/faultline/task"
)

func TestIsTestPath(t *testing.T) {
	for p, want := range map[string]bool{
		"pkg/tests/helpers.py":     true,
		"pkg/test/data.json":       true,
		"numpy/testing/utils.py":   true,
		"src/__tests__/a.js":       true,
		"pkg/test_core.py":         true,
		"pkg/core_test.py":         true,
		"conftest.py":              true,
		"ledger/money_test.go":     true,
		"lib/parser.spec.ts":       true,
		"lib/parser.test.js":       true,
		"pkg/core.py":              false,
		"pkg/testament.py":         false,
		"pkg/contest.py":           false,
		"ledger/money.go":          false,
		"lib/test.js":              false,
		"lib/latest/x.py":          false,
		"pkg/attest/test_x.go":     false,
		"pkg/protest_test/x.go":    false,
		"pkg/tests.py":             false,
		"spec.ts":                  false,
		"test_data/records.csv":    false,
		"docs/testing_guide/x.txt": false,
	} {
		assert.Equal(t, want, IsTestPath(p), p)
	}
}

func TestSkipRules(t *testing.T) {
	for _, n := range []string{".git", ".venv", ".tox", "vendor", "node_modules", "__pycache__", "site-packages", "dist-packages", "testdata"} {
		assert.True(t, SkipSourceDir(n), n)
	}
	for _, n := range []string{"pkg", "env", "venv_tools", "src", "tests"} {
		assert.False(t, SkipSourceDir(n), n)
	}
	for _, n := range []string{".git", ".hg", ".svn", "__pycache__", ".pytest_cache"} {
		assert.True(t, SkipSnapshotDir(n), n)
	}
	for _, n := range []string{"vendor", "node_modules", ".github", "testdata", ".venv"} {
		assert.False(t, SkipSnapshotDir(n), n, "a snapshot keeps what tests may read")
	}
	d := t.TempDir()
	assert.False(t, IsVirtualEnv(d))
	require.NoError(t, os.WriteFile(filepath.Join(d, "pyvenv.cfg"), []byte("home = /usr/bin\n"), 0o644))
	assert.True(t, IsVirtualEnv(d))
}

func TestIsBinaryFile(t *testing.T) {
	assert.False(t, task.IsBinary([]byte("package x\n")))
	assert.True(t, task.IsBinary([]byte("ab\x00cd")))
	late := append([]byte(strings.Repeat("a", 8000)), 0)
	assert.False(t, task.IsBinary(late), "git looks at the first 8000 bytes only")
	assert.True(t, task.IsBinary(late[len(late)-8000:]))
	d := t.TempDir()
	for name, data := range map[string][]byte{"late": late, "early": []byte("\x00x"), "empty": nil} {
		p := filepath.Join(d, name)
		require.NoError(t, os.WriteFile(p, data, 0o644))
		got, err := IsBinaryFile(p)
		require.NoError(t, err)
		assert.Equal(t, task.IsBinary(data), got, name)
	}
	_, err := IsBinaryFile(filepath.Join(d, "missing"))
	assert.Error(t, err)
}

func TestParseGoMod(t *testing.T) {
	cases := []struct {
		src  string
		want GoMod
	}{
		{"module example.com/m\n\ngo 1.22\n", GoMod{"example.com/m", "go1.22"}},
		{"// comment\nmodule \"example.com/q\" // trailing\ngo 1.21.3\n", GoMod{"example.com/q", "go1.21.3"}},
		{"module\"example.com/tight\"\n", GoMod{Path: "example.com/tight"}},
		{"modulex foo\ngo 1.x\n", GoMod{}},
		{"go 1.20\nmodule a/b\nmodule c/d\n", GoMod{"a/b", "go1.20"}},
		{"module m\ngo 1.23rc1\n", GoMod{Path: "m"}},
		{"modulex foo\nmodule real\n", GoMod{Path: "real"}},
		{"", GoMod{}},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, ParseGoMod([]byte(c.src)), c.src)
	}
	assert.Equal(t, GoMod{}, ReadGoMod(filepath.Join(t.TempDir(), "go.mod")))
}

func TestReadPytestConfig(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string
		want  PytestConfig
	}{
		{"ini continuation", map[string]string{"pytest.ini": "[pytest]\npythonpath = src\n    lib\ntestpaths = tests\n"},
			PytestConfig{File: "pytest.ini", PythonPath: []string{"src", "lib"}, TestPaths: []string{"tests"}}},
		{"ini without section still wins", map[string]string{"pytest.ini": "# empty\n", "tox.ini": "[pytest]\npythonpath = x\n"},
			PytestConfig{File: "pytest.ini"}},
		{"toml multi-line array", map[string]string{"pyproject.toml": "[project]\nname = \"p\"\n\n[tool.pytest.ini_options]\npythonpath = [\n  \"src\", # the code\n  'tests',\n]\ntestpaths = [\"tests\"]\n"},
			PytestConfig{File: "pyproject.toml", PythonPath: []string{"src", "tests"}, TestPaths: []string{"tests"}}},
		{"toml without the table falls through", map[string]string{"pyproject.toml": "[project]\nname='p'\n", "setup.cfg": "[metadata]\nname = p\n[tool:pytest]\ntestpaths = t1 t2\n"},
			PytestConfig{File: "setup.cfg", TestPaths: []string{"t1", "t2"}}},
		{"tox", map[string]string{"tox.ini": "[tox]\nenvlist = py3\n[pytest]\npythonpath: .\n"},
			PytestConfig{File: "tox.ini", PythonPath: []string{"."}}},
		{"none", map[string]string{"setup.cfg": "[metadata]\n"}, PytestConfig{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := t.TempDir()
			for f, s := range c.files {
				require.NoError(t, os.WriteFile(filepath.Join(d, f), []byte(s), 0o644))
			}
			assert.Equal(t, c.want, ReadPytestConfig(d))
		})
	}
}

func TestOwnerName(t *testing.T) {
	for url, want := range map[string]string{
		"https://github.com/sergi/go-diff.git":   "sergi/go-diff",
		"https://github.com/sergi/go-diff/":      "sergi/go-diff",
		"git@github.com:go-logr/logr.git":        "go-logr/logr",
		"ssh://git@gitlab.example.com/a/b/c.git": "b/c",
		"/srv/mirrors/owner/name":                "owner/name",
		"https://example.com/solo":               "",
		"file:///x":                              "",
	} {
		assert.Equal(t, want, OwnerName(url), url)
	}
}

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for f, s := range files {
		p := filepath.Join(root, filepath.FromSlash(f))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(s), 0o644))
	}
}

func TestDiscoverPythonLayouts(t *testing.T) {
	d := t.TempDir()
	writeFiles(t, d, map[string]string{
		// a src layout with pytest's pythonpath
		"srcproj/pyproject.toml":             "[tool.pytest.ini_options]\npythonpath = [\"src\", \"tests/helpers\"]\n",
		"srcproj/src/pkg/__init__.py":        "",
		"srcproj/src/pkg/sub/__init__.py":    "",
		"srcproj/tests/test_pkg.py":          "import pkg\n",
		"flat/setup.py":                      "",
		"flat/pkg/__init__.py":               "",
		"flat/pkg/core.py":                   "",
		"flat/pkg/tests/__init__.py":         "",
		"flat/pkg/tests/test_core.py":        "",
		"loose/collection/pkg/__init__.py":   "",
		"loose/collection/pkg/a/__init__.py": "",
		"loose/collection/conftest.py":       "",
		"loose/collection/other/x.py":        "",
		"scripts/run.py":                     "",
	})
	cases := []struct {
		dir  string
		want Project
	}{
		{"srcproj/src/pkg/sub", Project{Root: "srcproj", Target: "src/pkg/sub", Module: "pkg", PythonPath: []string{"src", "tests/helpers"}, Config: "pyproject.toml"}},
		{"srcproj", Project{Root: "srcproj", Target: ".", PythonPath: []string{"src", "tests/helpers"}, Config: "pyproject.toml"}},
		{"flat/pkg", Project{Root: "flat", Target: "pkg", Module: "pkg", Config: "setup.py"}},
		{"flat/pkg/tests", Project{Root: "flat", Target: "pkg/tests", Module: "pkg", Config: "setup.py"}},
		{"loose/collection/pkg/a", Project{Root: "loose/collection", Target: "pkg/a", Module: "pkg", Include: []string{"conftest.py", "pkg"}}},
		{"scripts", Project{Root: "scripts", Target: "."}},
	}
	for _, c := range cases {
		t.Run(c.dir, func(t *testing.T) {
			p, err := Discover(filepath.Join(d, c.dir), Python)
			require.NoError(t, err)
			assert.NotEmpty(t, p.Reason)
			p.Reason = ""
			want := c.want
			want.Root, want.Lang = filepath.Join(d, want.Root), Python
			assert.Equal(t, want, *p)
		})
	}
}

func TestDiscoverGitMarksPythonRoot(t *testing.T) {
	needGit(t)
	d := t.TempDir()
	writeFiles(t, d, map[string]string{"pkg/__init__.py": "", "pkg/mod.py": ""})
	gitRun(t, d, "init", "-q")
	p, err := Discover(filepath.Join(d, "pkg"), "")
	require.NoError(t, err)
	assert.Equal(t, d, p.Root)
	assert.Equal(t, ".git", p.Config)
	assert.Equal(t, "pkg", p.Target)
	assert.Empty(t, p.Include)
}

// TestDiscoverDebianPackages points at installed Debian packages (real layouts nobody here
// arranged): the project is the package, not the rest of dist-packages.
func TestDiscoverDebianPackages(t *testing.T) {
	dist := "/usr/lib/python3/dist-packages"
	found := 0
	for _, pkg := range []string{"simplejson", "bs4", "pyflakes", "networkx"} {
		dir := filepath.Join(dist, pkg)
		if !isFile(filepath.Join(dir, "__init__.py")) {
			continue
		}
		found++
		p, err := Discover(dir, "")
		require.NoError(t, err, pkg)
		assert.Equal(t, Python, p.Lang, pkg)
		assert.Equal(t, dist, p.Root, pkg)
		assert.Equal(t, []string{pkg}, p.Include, pkg)
		assert.Equal(t, pkg, p.Target, pkg)
		assert.Equal(t, pkg, p.Module, pkg)
		assert.Contains(t, p.Reason, "installed package")
		assert.True(t, p.Contains(pkg+"/tests/x.py"))
		assert.False(t, p.Contains("yaml/__init__.py"))
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		for _, e := range entries {
			if e.IsDir() && isFile(filepath.Join(dir, e.Name(), "__init__.py")) {
				sub, err := Discover(filepath.Join(dir, e.Name()), Python)
				require.NoError(t, err)
				assert.Equal(t, p.Root, sub.Root)
				assert.Equal(t, pkg+"/"+e.Name(), sub.Target)
				assert.True(t, sub.InTarget(pkg+"/"+e.Name()+"/x.py"))
				assert.False(t, sub.InTarget(pkg+"/other.py"))
				break
			}
		}
	}
	if found == 0 {
		t.Skip("no Debian Python package installed (apt-get install -y python3-simplejson python3-bs4)")
	}
}

func TestDiscoverGo(t *testing.T) {
	d := t.TempDir()
	writeFiles(t, d, map[string]string{
		"mod/go.mod":             "module example.com/mod\n\ngo 1.22\n",
		"mod/a/b/b.go":           "package b\n",
		"mod/vendor/modules.txt": "# none\n",
		"ws/go.work":             "go 1.22\nuse ./m\n",
		"ws/m/go.mod":            "module example.com/m\n",
		"ws/m/p/p.go":            "package p\n",
		"bare/x.go":              "package x\n",
		"nomodule/go.mod":        "go 1.22\n",
	})
	t.Setenv("GOWORK", "")
	p, err := Discover(filepath.Join(d, "mod/a/b"), "")
	require.NoError(t, err)
	assert.Equal(t, Project{Root: filepath.Join(d, "mod"), Target: "a/b", Lang: Go, Module: "example.com/mod", Vendor: true, Config: "go.mod", Reason: p.Reason}, *p)
	assert.Contains(t, p.Reason, "example.com/mod")

	p, err = Discover(filepath.Join(d, "ws/m/p"), Go)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(d, "ws/go.work"), p.GoWork)
	t.Setenv("GOWORK", "off")
	p, err = Discover(filepath.Join(d, "ws/m/p"), Go)
	require.NoError(t, err)
	assert.Empty(t, p.GoWork)

	_, err = Discover(filepath.Join(d, "bare"), Go)
	require.ErrorIs(t, err, ErrNoGoMod)
	assert.Contains(t, err.Error(), "go mod init")
	_, err = Discover(filepath.Join(d, "nomodule"), Go)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "module directive")
}

// TestDiscoverGoModuleCache points inside a real module (gonum, in the module cache as a
// dependency of this one): a package directory belongs to the module at the cache root.
func TestDiscoverGoModuleCache(t *testing.T) {
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Skipf("go env: %v", err)
	}
	mod := filepath.Join(strings.TrimSpace(string(out)), "gonum.org", "v1", "gonum@v0.17.0")
	if !isFile(filepath.Join(mod, "go.mod")) {
		t.Skip("gonum v0.17.0 is not in the module cache (go mod download)")
	}
	p, err := Discover(filepath.Join(mod, "graph", "simple"), "")
	require.NoError(t, err)
	assert.Equal(t, Go, p.Lang)
	assert.Equal(t, mod, p.Root)
	assert.Equal(t, "gonum.org/v1/gonum", p.Module)
	assert.Equal(t, "graph/simple", p.Target)
}

func TestDiscoverJavaScript(t *testing.T) {
	d := t.TempDir()
	writeFiles(t, d, map[string]string{"pkg/package.json": `{"name": "@s/pkg", "version": "1.0.0"}`, "pkg/lib/a.js": "", "pkg/lib/b.ts": "", "loose/c.mjs": ""})
	p, err := Discover(filepath.Join(d, "pkg/lib"), "")
	require.NoError(t, err)
	assert.Equal(t, JavaScript, p.Lang)
	assert.Equal(t, filepath.Join(d, "pkg"), p.Root)
	assert.Equal(t, "@s/pkg", p.Module)
	assert.Equal(t, "lib", p.Target)
	p, err = Discover(filepath.Join(d, "loose"), "")
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(d, "loose"), p.Root)
	if semver := "/usr/share/nodejs/semver"; isFile(filepath.Join(semver, "package.json")) {
		p, err := Discover(filepath.Join(semver, "functions"), "")
		require.NoError(t, err)
		assert.Equal(t, semver, p.Root)
		assert.Equal(t, "semver", p.Module)
	}
}

func TestDetectLanguage(t *testing.T) {
	d := t.TempDir()
	writeFiles(t, d, map[string]string{
		"go/go.mod": "module m\n", "go/a.go": "", "go/b.go": "", "go/tool.py": "",
		"py/a.py": "", "py/b.py": "", "py/node_modules/x/a.js": "", "py/node_modules/x/b.js": "", "py/node_modules/x/c.js": "",
		"venvd/m.js": "", "venvd/.venv/lib/x.py": "", "venvd/env/pyvenv.cfg": "", "venvd/env/lib/a.py": "", "venvd/env/lib/b.py": "",
		"types/a.d.ts": "", "types/b.d.ts": "", "types/c.py": "",
		"empty/README": "",
	})
	for dir, want := range map[string]Language{"go": Go, "py": Python, "venvd": JavaScript, "types": Python} {
		got, err := DetectLanguage(filepath.Join(d, dir))
		require.NoError(t, err, dir)
		assert.Equal(t, want, got, dir)
	}
	_, err := DetectLanguage(filepath.Join(d, "empty"))
	assert.ErrorIs(t, err, ErrNoSource)
	_, err = Discover(filepath.Join(d, "empty"), "")
	assert.ErrorIs(t, err, ErrNoSource)
	_, err = Discover(filepath.Join(d, "go", "a.go"), "")
	assert.ErrorContains(t, err, "not a directory")
	for in, want := range map[string]Language{"": "", "auto": "", "Go": Go, "py": Python, "ts": JavaScript} {
		got, err := ParseLanguage(in)
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}
	_, err = ParseLanguage("rust")
	assert.ErrorContains(t, err, "rust")
}

func needGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not found")
	}
}

func gitRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %v: %s", args, out)
	return strings.TrimSpace(string(out))
}

func TestGitProvenance(t *testing.T) {
	needGit(t)
	ctx := context.Background()
	d := t.TempDir()
	_, err := Git(ctx, d)
	require.True(t, errors.Is(err, ErrNotGit), "%v", err)

	writeFiles(t, d, map[string]string{"sub/pkg/a.py": "x = 1\n", "other/b.py": ""})
	gitRun(t, d, "init", "-q")
	_, err = Git(ctx, d)
	require.ErrorIs(t, err, ErrNotGit, "no commit yet")
	gitRun(t, d, "add", ".")
	gitRun(t, d, "commit", "-qm", "one")
	head := gitRun(t, d, "rev-parse", "HEAD")
	gitRun(t, d, "remote", "add", "origin", "git@github.com:acme/widgets.git")

	p, err := Git(ctx, filepath.Join(d, "sub", "pkg"))
	require.NoError(t, err)
	assert.Equal(t, Provenance{Commit: head, Subdir: "sub/pkg", Remote: "acme/widgets", RemoteURL: "git@github.com:acme/widgets.git"}, p)

	writeFiles(t, d, map[string]string{"other/new.py": ""})
	p, err = Git(ctx, filepath.Join(d, "sub"))
	require.NoError(t, err)
	assert.False(t, p.Dirty, "a change outside the directory does not make it dirty")
	p, err = Git(ctx, d)
	require.NoError(t, err)
	assert.True(t, p.Dirty)
	assert.Equal(t, ".", p.Subdir)
	before := gitRun(t, d, "status", "--porcelain")
	assert.Equal(t, "?? other/new.py", before, "reading provenance wrote nothing")
}

// TestDiscoverNamespacePackage: a package inside an installed namespace package (PEP 420:
// the namespace directory has no __init__.py), such as Debian's lazr.uri under lazr/. The
// project is the package with its namespace path, so a copy of it is imported as
// namespace.pkg, the name the tests use.
func TestDiscoverNamespacePackage(t *testing.T) {
	site := filepath.Join(t.TempDir(), "site-packages")
	for _, f := range []string{"ns/pkg/__init__.py", "ns/pkg/sub/__init__.py", "ns/other/__init__.py", "plain/__init__.py"} {
		full := filepath.Join(site, filepath.FromSlash(f))
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(t, os.WriteFile(full, nil, 0o644))
	}
	real, err := filepath.EvalSymlinks(site)
	require.NoError(t, err)
	for _, c := range []struct{ dir, target, include, module string }{
		{"ns/pkg", "ns/pkg", "ns/pkg", "ns.pkg"},
		{"ns/pkg/sub", "ns/pkg/sub", "ns/pkg", "ns.pkg"},
		{"plain", "plain", "plain", "plain"},
	} {
		p, err := Discover(filepath.Join(site, filepath.FromSlash(c.dir)), Python)
		require.NoError(t, err, c.dir)
		assert.Equal(t, real, p.Root, c.dir)
		assert.Equal(t, c.target, p.Target, c.dir)
		assert.Equal(t, []string{c.include}, p.Include, c.dir)
		assert.Equal(t, c.module, p.Module, c.dir)
	}
	if dir := "/usr/lib/python3/dist-packages/lazr/uri"; isFile(filepath.Join(dir, "__init__.py")) {
		p, err := Discover(dir, "")
		require.NoError(t, err)
		assert.Equal(t, "/usr/lib/python3/dist-packages", p.Root)
		assert.Equal(t, []string{"lazr/uri"}, p.Include)
		assert.Equal(t, "lazr.uri", p.Module)
	}
}

func TestDefaultName(t *testing.T) {
	for _, c := range []struct{ remote, module, dir, want string }{
		{"acme-lab/geo.shapes", "", "/src/shapes", "acme-lab/geo.shapes"},
		{"acme-lab/geo.shapes", "github.com/other/name", "/src/shapes", "acme-lab/geo.shapes"}, // the remote first
		{"", "github.com/rs/xid", "/root/go/pkg/mod/github.com/rs/xid@v1.6.0", "rs/xid"},
		// A major version suffix and a module in a subdirectory belong to the repository.
		{"", "github.com/hashicorp/golang-lru/v2", "/root/go/pkg/mod/github.com/hashicorp/golang-lru/v2@v2.0.7", "hashicorp/golang-lru"},
		{"", "github.com/hashicorp/golang-lru/v2/expirable", "/m/expirable", "hashicorp/golang-lru"},
		{"", "codeberg.org/go-pdf/fpdf", "/m/fpdf@v0.11.1", "go-pdf/fpdf"},
		{"", "bitbucket.org/o/r.git", "/m/r", "o/r"},
		{"", "gitlab.com/group/project/v3", "/m/v3", "group/project"},
		// Hosts without a fixed OWNER/NAME layout, and gitlab's subgroups, name nothing.
		{"", "gitlab.com/group/sub/project", "/m/project", "local/project"},
		{"", "gonum.org/v1/plot", "/root/go/pkg/mod/gonum.org/v1/plot@v0.17.0", "local/plot_v0.17.0"},
		{"", "example.com/m", "/src/m", "local/m"},
		{"", "github.com/justowner", "/src/justowner", "local/justowner"},
		{"", "", "/root/go/pkg/mod/github.com/rs/xid@v1.6.0", "local/xid_v1.6.0"},
		{"", "", "/usr/lib/python3/dist-packages/oslo_utils", "local/oslo_utils"},
		{"", "", "/tmp/.hidden dir", "local/x.hidden_dir"},
		{"odd owner/na..me", "", "/x", "odd_owner/na._me"},
		{"noslash", "", "/src/p", "local/p"},
	} {
		assert.Equal(t, c.want, DefaultName(c.remote, c.module, c.dir), "%q %q %q", c.remote, c.module, c.dir)
	}
}

func TestIsMajorSuffix(t *testing.T) {
	for s, want := range map[string]bool{"v2": true, "v10": true, "v1": false, "v0": false, "v02": false, "v": false, "x2": false, "v2a": false} {
		assert.Equal(t, want, isMajorSuffix(s), s)
	}
}

func TestSafeName(t *testing.T) {
	for in, want := range map[string]string{
		"sample.remove.1.0.92cc04f8": "sample.remove.1.0.92cc04f8", // accepted names are kept
		"xid@v1.6.0.remove.1.0":      "xid_v1.6.0.remove.1.0",
		"a..b...c":                   "a._b._.c",
		".hidden":                    "x.hidden",
		"":                           "x",
		"my repo/ü":                  "my_repo___",
		"refs.lock":                  "refs_lock",
	} {
		got := SafeName(in)
		require.Equal(t, want, got, in)
		require.True(t, mirrorNameRE.MatchString(got) && !strings.Contains(got, ".."), "%q is a valid mirror name", got)
	}
}
