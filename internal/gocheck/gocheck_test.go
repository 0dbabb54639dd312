package gocheck

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/faultline-dev/faultline/task/repo"
	"github.com/stretchr/testify/require"
)

// writeModule writes files (slash path → contents) under a new temporary root.
func writeModule(t testing.TB, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, s := range files {
		abs := filepath.Join(root, filepath.FromSlash(p))
		require.NoError(t, os.MkdirAll(filepath.Dir(abs), 0o755))
		require.NoError(t, os.WriteFile(abs, []byte(s), 0o644))
	}
	return root
}

// goDiffDir returns github.com/sergi/go-diff@v1.4.0 in the module cache (read in place:
// the checker never writes), or skips.
func goDiffDir(tb testing.TB) string {
	tb.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		tb.Skip("gocheck: the go command is not on PATH")
	}
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		tb.Skipf("gocheck: go env GOMODCACHE: %v", err)
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), "github.com", "sergi", "go-diff@v1.4.0")
	if _, err := os.Stat(dir); err != nil {
		tb.Skipf("gocheck: github.com/sergi/go-diff@v1.4.0 is not in the module cache: %v", err)
	}
	return dir
}

// lineOf returns the 1-based line of the first occurrence of needle in src.
func lineOf(t testing.TB, src, needle string) int {
	t.Helper()
	i := strings.Index(src, needle)
	require.GreaterOrEqual(t, i, 0, "%q not in the source", needle)
	return strings.Count(src[:i], "\n") + 1
}

func msgs(es []Error) []string {
	out := []string{}
	for _, e := range es {
		out = append(out, e.Msg)
	}
	return out
}

var modes = []struct {
	name string
	imp  Imports
}{{"source", FromSource}, {"export", FromExportData}}

// TestSample removes a helper of the sample module (examples/sample): every use of it in
// the package is reported where it is, in both import modes.
func TestSample(t *testing.T) {
	root := filepath.Join("..", "..", "examples", "sample")
	src, err := os.ReadFile(filepath.Join(root, "ledger", "balance.go"))
	require.NoError(t, err)
	def := "func segments(account string) int { return strings.Count(account, \":\") + 1 }\n"
	require.Contains(t, string(src), def)
	ov := map[string][]byte{"ledger/balance.go": []byte(strings.Replace(string(src), def, "", 1))}
	// The expected errors: each call of segments in the package's non-test files.
	names, err := filepath.Glob(filepath.Join(root, "ledger", "*.go"))
	require.NoError(t, err)
	var want []Error
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") {
			continue
		}
		rel := "ledger/" + filepath.Base(n)
		text, ok := ov[rel]
		if !ok {
			text, err = os.ReadFile(n)
			require.NoError(t, err)
		}
		for i, l := range strings.Split(string(text), "\n") {
			if j := strings.Index(l, "segments("); j >= 0 {
				want = append(want, Error{File: rel, Line: i + 1, Column: j + 1, Msg: "undefined: segments"})
			}
		}
	}
	require.NotEmpty(t, want, "the sample no longer calls segments")
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			c, err := New(root, Options{Imports: m.imp})
			require.NoError(t, err)
			require.Equal(t, "example.com/ledger", c.Module().Path)
			base, err := c.Baseline([]string{"ledger"})
			require.NoError(t, err)
			require.Empty(t, base, "the sample type-checks")
			got, err := c.NewErrors([]string{"ledger"}, ov)
			require.NoError(t, err)
			require.Equal(t, want, got)
		})
	}
}

// TestGoDiff type-checks github.com/sergi/go-diff (a real module, read from the module
// cache): the unchanged package is clean, a changed return type is one error, and both
// import modes agree.
func TestGoDiff(t *testing.T) {
	root := goDiffDir(t)
	src, err := os.ReadFile(filepath.Join(root, "diffmatchpatch", "diff.go"))
	require.NoError(t, err)
	s := string(src)
	sig := "func commonPrefixLength(text1, text2 []rune) int {"
	require.Contains(t, s, sig)
	bad := strings.Replace(s, sig, sig+"\n\treturn \"x\"", 1)
	var results [][]Error
	for _, m := range modes {
		c, err := New(root, Options{Imports: m.imp})
		require.NoError(t, err)
		require.Equal(t, "github.com/sergi/go-diff", c.Module().Path)
		base, err := c.Baseline([]string{"diffmatchpatch"})
		require.NoError(t, err)
		require.Empty(t, base, "%s: go-diff type-checks", m.name)
		got, err := c.NewErrors([]string{"diffmatchpatch"}, map[string][]byte{"diffmatchpatch/diff.go": []byte(bad)})
		require.NoError(t, err)
		require.Len(t, got, 1, "%s: %v", m.name, got)
		require.Equal(t, "diffmatchpatch/diff.go", got[0].File)
		require.Equal(t, lineOf(t, bad, "return \"x\""), got[0].Line)
		require.Contains(t, got[0].Msg, "cannot use \"x\"")
		results = append(results, got)
	}
	require.Equal(t, results[0], results[1], "the import modes disagree")
}

var twoPackages = map[string]string{
	"go.mod":     "module example.com/two\n\ngo 1.22\n",
	"lib/lib.go": "package lib\n\nimport \"strings\"\n\n// F upper-cases.\nfunc F(s string) string { return strings.ToUpper(s) }\n\nfunc G() int { return 1 }\n",
	"app/app.go": "package app\n\nimport \"example.com/two/lib\"\n\nfunc Run() string { return lib.F(\"x\") }\n",
	"main.go":    "package main\n\nimport \"example.com/two/app\"\n\nfunc main() { println(app.Run()) }\n",
}

// TestOverlayReachesImporters checks that a package importing an overlaid one (directly or
// not) is checked against the overlay, and that the clean-package cache is not poisoned by
// an overlay, nor stale after one.
func TestOverlayReachesImporters(t *testing.T) {
	root := writeModule(t, twoPackages)
	c, err := New(root, Options{})
	require.NoError(t, err)
	all := []string{".", "app", "lib"}
	clean, err := c.Check(all, nil)
	require.NoError(t, err)
	require.Empty(t, clean)
	noF := map[string][]byte{"lib/lib.go": []byte("package lib\n\nimport \"strings\"\n\nfunc G() int { return 1 }\n")}
	for round := range 2 {
		got, err := c.Check(all, noF)
		require.NoError(t, err)
		require.Equal(t, []Error{
			{File: "lib/lib.go", Line: 3, Column: 8, Msg: `"strings" imported and not used`},
			{File: "app/app.go", Line: 5, Column: strings.Index(twoPackages["app/app.go"][strings.Index(twoPackages["app/app.go"], "func Run"):], "F(") + 1, Msg: "undefined: lib.F"},
		}, got, "round %d", round)
		p, ok := UnusedImport(got[0].Msg)
		require.True(t, ok)
		require.Equal(t, "strings", p)
		again, err := c.Check(all, nil)
		require.NoError(t, err)
		require.Empty(t, again, "round %d: an overlay leaked into the cache", round)
	}
	// The root package sees app's change through app (an indirect importer of lib is
	// re-checked, not served from the cache).
	noRun := map[string][]byte{"app/app.go": []byte("package app\n")}
	got, err := c.Check([]string{"."}, noRun)
	require.NoError(t, err)
	require.Equal(t, []string{"undefined: app.Run"}, msgs(got))
}

// TestBaseline: errors a package has on its own are not charged to the overlay.
func TestBaseline(t *testing.T) {
	root := writeModule(t, map[string]string{
		"go.mod": "module example.com/b\n\ngo 1.22\n",
		"b.go":   "package b\n\nvar X int = \"already wrong\"\n\nfunc F() int { return 1 }\n",
	})
	c, err := New(root, Options{})
	require.NoError(t, err)
	base, err := c.Baseline([]string{"."})
	require.NoError(t, err)
	require.Len(t, base, 1)
	require.Equal(t, "b.go", base[0].File)
	same, err := c.NewErrors([]string{"."}, map[string][]byte{"b.go": []byte("package b\n\n\nvar X int = \"already wrong\"\n\nfunc F() int { return 2 }\n")})
	require.NoError(t, err)
	require.Empty(t, same, "a moved baseline error is not new")
	worse, err := c.NewErrors([]string{"."}, map[string][]byte{"b.go": []byte("package b\n\nvar X int = \"already wrong\"\n\nfunc F() int { return \"\" }\n")})
	require.NoError(t, err)
	require.Len(t, worse, 1)
	require.Equal(t, 5, worse[0].Line)
}

func TestParseError(t *testing.T) {
	root := writeModule(t, twoPackages)
	c, err := New(root, Options{})
	require.NoError(t, err)
	_, err = c.Check([]string{"lib"}, map[string][]byte{"lib/lib.go": []byte("package lib\n\nfunc F( {\n")})
	var pe *ParseError
	require.True(t, errors.As(err, &pe), "%v", err)
	require.Equal(t, "lib/lib.go", pe.File)
	require.Contains(t, err.Error(), filepath.Join(root, "lib", "lib.go")+":3:")
	// An importer of a package that does not parse reports the failed import.
	got, err := c.Check([]string{"app"}, map[string][]byte{"lib/lib.go": []byte("package lib\n\nfunc F( {\n")})
	require.NoError(t, err)
	require.Len(t, got, 1)
	require.Contains(t, got[0].Msg, "could not import example.com/two/lib")
}

// TestGoVersion: with the go.mod's language version, a builtin newer than it is an error
// (as for the go command); without it, it is not.
func TestGoVersion(t *testing.T) {
	root := writeModule(t, map[string]string{
		"go.mod": "module example.com/old // a comment\n\ngo 1.13\n",
		"old.go": "package old\n\nfunc F(a, b int) int { return a }\n",
	})
	mod := repo.ReadGoMod(filepath.Join(root, "go.mod"))
	require.Equal(t, Module{Path: "example.com/old", GoVersion: "go1.13"}, mod)
	ov := map[string][]byte{"old.go": []byte("package old\n\nfunc F(a, b int) int { return min(a, b) }\n")}
	for _, v := range []string{"", mod.GoVersion} {
		c, err := New(root, Options{GoVersion: v})
		require.NoError(t, err)
		got, err := c.NewErrors([]string{"."}, ov)
		require.NoError(t, err)
		if v == "" {
			require.Empty(t, got)
			continue
		}
		require.Len(t, got, 1)
		require.Contains(t, got[0].Msg, "min requires go1.21")
	}
}

func TestNoModule(t *testing.T) {
	root := writeModule(t, map[string]string{"p/p.go": "package p\n\nfunc F() int { return \"\" }\n"})
	c, err := New(root, Options{})
	require.NoError(t, err)
	require.Equal(t, Module{}, c.Module())
	_, err = c.Check([]string{"p", "empty"}, nil)
	require.Error(t, err, "a missing directory is an error")
	got, err := c.Check([]string{"p"}, nil)
	require.NoError(t, err)
	require.Len(t, got, 1)
	names, err := c.GoFiles("p")
	require.NoError(t, err)
	require.Equal(t, []string{"p.go"}, names)
	_, err = New(filepath.Join(root, "p", "p.go"), Options{})
	require.ErrorContains(t, err, "not a directory")
	_, err = New(root, Options{Imports: 7})
	require.ErrorContains(t, err, "unknown Imports")
}

// TestConcurrent runs checks of one checker from several goroutines (go test -race).
func TestConcurrent(t *testing.T) {
	root := writeModule(t, twoPackages)
	c, err := New(root, Options{})
	require.NoError(t, err)
	var wg sync.WaitGroup
	res := make([][]Error, 8)
	for i := range res {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ov := map[string][]byte{"lib/lib.go": []byte(fmt.Sprintf("package lib\n\nimport \"strings\"\n\nfunc F(s string) string { return strings.ToUpper(s) }\n\nfunc G() int { return %d }\n", i))}
			if i%2 == 1 {
				ov["lib/lib.go"] = []byte("package lib\n\nfunc G() int { return 1 }\n")
			}
			var err error
			res[i], err = c.NewErrors([]string{"app", "lib"}, ov)
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	for i, r := range res {
		if i%2 == 0 {
			require.Empty(t, r, "goroutine %d", i)
		} else {
			require.Equal(t, []string{"undefined: lib.F"}, msgs(r), "goroutine %d", i)
		}
	}
}

func TestUnusedImport(t *testing.T) {
	cases := map[string]string{
		`"os" imported and not used`:              "os",
		`"fmt" imported as f and not used`:        "fmt",
		`"example.com/a/b" imported and not used`: "example.com/a/b",
		`declared and not used: x`:                "",
		`"os" is not used`:                        "",
		`undefined: "imported and not used"`:      "",
	}
	for msg, want := range cases {
		got, ok := UnusedImport(msg)
		require.Equal(t, want != "", ok, msg)
		require.Equal(t, want, got, msg)
	}
}

func TestSubtract(t *testing.T) {
	e := func(file, msg string) Error { return Error{File: file, Msg: msg} }
	got := []Error{e("a.go", "x"), e("b.go", "x"), e("a.go", "y"), e("a.go", "z")}
	base := []Error{e("c.go", "x"), e("a.go", "z"), e("a.go", "w")}
	require.Equal(t, []Error{e("b.go", "x"), e("a.go", "y")}, Subtract(got, base))
	require.Nil(t, Subtract(nil, base))
	require.Equal(t, got, Subtract(got, nil))
}

func TestErrorString(t *testing.T) {
	require.Equal(t, "a/b.go:3:7: undefined: x", Error{File: "a/b.go", Line: 3, Column: 7, Msg: "undefined: x"}.String())
	require.Equal(t, "boom", Error{Msg: "boom"}.String())
}

// TestCgoPackagesLeaveNoFiles: checking a module that imports cgo packages of the standard
// library (net, os/user) writes nothing to TMPDIR — go/importer's source importer left
// `go tool cgo` objects there (srcimporterN_cgo_K.o) — and still sees their API: a
// mutant that misuses it is caught, in both import modes.
func TestCgoPackagesLeaveNoFiles(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("gocheck: the go command is not on PATH")
	}
	root := writeModule(t, map[string]string{
		"go.mod": "module example.com/netuse\n\ngo 1.22\n",
		"n.go": "package netuse\n\nimport (\n\t\"net\"\n\t\"os/user\"\n)\n\n" +
			"func Host(s string) string { h, _, _ := net.SplitHostPort(s); return h }\n\n" +
			"func Dial(c net.Conn) error { return c.SetDeadline(c.LocalAddr().(*net.TCPAddr).AddrPort().Addr().IsValid) }\n\n" +
			"func Name() string { u, _ := user.Current(); return u.Username }\n",
	})
	// Dial is deliberately wrong (a method value where a time.Time is wanted): its error
	// is the baseline, so the mutant below must add exactly one new error.
	bad := "package netuse\n\nimport (\n\t\"net\"\n\t\"os/user\"\n)\n\n" +
		"func Host(s string) string { h, _ := net.SplitHostPort(s); return h }\n\n" +
		"func Dial(c net.Conn) error { return c.SetDeadline(c.LocalAddr().(*net.TCPAddr).AddrPort().Addr().IsValid) }\n\n" +
		"func Name() string { u, _ := user.Current(); return u.Username }\n"
	for _, mode := range []Imports{FromSource, FromExportData} {
		tmp := t.TempDir()
		t.Setenv("TMPDIR", tmp)
		c, err := New(root, Options{Imports: mode})
		require.NoError(t, err)
		base, err := c.Baseline([]string{"."})
		require.NoError(t, err)
		require.Len(t, base, 1, "mode %d: baseline %v", mode, base)
		require.Contains(t, base[0].Msg, "SetDeadline")
		errs, err := c.NewErrors([]string{"."}, map[string][]byte{"n.go": []byte(bad)})
		require.NoError(t, err)
		require.Len(t, errs, 1, "mode %d: %v", mode, errs)
		require.Contains(t, errs[0].Msg, "assignment mismatch")
		left, err := os.ReadDir(tmp)
		require.NoError(t, err)
		var names []string
		for _, e := range left {
			names = append(names, e.Name())
		}
		require.Empty(t, names, "mode %d left files in TMPDIR", mode)
	}
}
