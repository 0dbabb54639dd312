package callgraph

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/fstree"

	"github.com/faultline-dev/faultline/task"
	"github.com/stretchr/testify/require"
)

// fakeLang is a toy front end for files ending in ext. A line `def NAME` starts a
// function NAME that lasts until the next def; a line `call NAME` inside it is a call,
// resolved to any function NAME of any of its files (first by path); a call at top level
// belongs to the file's module pseudo-definition. A line `syntax error` yields a
// *SyntaxError. It records the files it was given.
type fakeLang struct {
	name, ext string
	mu        sync.Mutex
	got       []SourceFile
	hook      func(ctx context.Context) error
}

func (l *fakeLang) Name() string           { return l.name }
func (l *fakeLang) Match(path string) bool { return strings.HasSuffix(path, l.ext) }

func (l *fakeLang) Analyze(ctx context.Context, files []SourceFile) (*Analysis, error) {
	l.mu.Lock()
	l.got = append(l.got, files...)
	l.mu.Unlock()
	if l.hook != nil {
		if err := l.hook(ctx); err != nil {
			return nil, err
		}
	}
	a := &Analysis{}
	byName := map[string]string{}
	type site struct {
		caller, name string
		line         int
	}
	var sites []site
	for _, f := range files {
		cur := ""
		hasModule := false
		sc := bufio.NewScanner(bytes.NewReader(f.Src))
		sc.Buffer(nil, 1<<30)
		for line := 1; sc.Scan(); line++ {
			text := strings.TrimSpace(sc.Text())
			switch {
			case strings.HasPrefix(text, "def "):
				name := strings.TrimPrefix(text, "def ")
				id := task.MakeID(f.Path, name)
				cur = id
				if _, ok := byName[name]; !ok {
					byName[name] = id
				}
				a.Definitions = append(a.Definitions, Definition{
					Function: task.Function{ID: id, File: f.Path, Name: name, Kind: task.KindFunction, Line: line, EndLine: line},
					Metrics:  Metrics{CodeLines: 1, Cyclomatic: 1},
				})
			case strings.HasPrefix(text, "call "):
				a.CallSites++
				caller := cur
				if caller == "" {
					caller = task.MakeID(f.Path, ModuleName)
					if !hasModule {
						hasModule = true
						a.Definitions = append(a.Definitions, Definition{Function: task.Function{
							ID: caller, File: f.Path, Name: ModuleName, Kind: task.KindModule, Line: 1}})
					}
				}
				sites = append(sites, site{caller, strings.TrimPrefix(text, "call "), line})
			case text == "syntax error":
				a.Errors = append(a.Errors, &SyntaxError{Path: f.Path, Line: line, Column: 1, Msg: "syntax error"})
			}
		}
	}
	for _, s := range sites {
		if callee, ok := byName[s.name]; ok {
			a.Resolved++
			a.Calls = append(a.Calls, Call{Caller: s.caller, Callee: callee, Line: s.line})
		} else {
			a.Unresolved++
		}
	}
	return a, nil
}

func (l *fakeLang) paths() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var p []string
	for _, f := range l.got {
		p = append(p, f.Path)
	}
	return p
}

func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	require.NoError(t, fstree.Write(root, files))
	return root
}

func TestBuildWalk(t *testing.T) {
	root := writeTree(t, map[string]string{
		"b/two.fk":                "def two\ncall one\ncall missing\n",
		"a/one.fk":                "def one\ncall two\n",
		"main.fk":                 "call one\ndef main\ncall two\ncall two\n",
		"readme.txt":              "def ignored\n",
		".hidden/x.fk":            "def hidden\n",
		".dot.fk":                 "def dot\n",
		"vendor/v.fk":             "def vendored\n",
		"node_modules/m/i.fk":     "def nm\n",
		"tests/test_one.fk":       "def test_one\ncall one\n",
		"pkg/one_test.fk":         "def helper\n",
		"broken.fk":               "def broken\nsyntax error\n",
		"other/claimed_by_two.fk": "def x\n",
	})
	first := &fakeLang{name: "fake", ext: ".fk"}
	second := &fakeLang{name: "fake2", ext: ".fk"} // never claims: the first language wins
	g, err := Build(context.Background(), root, []Language{first, second}, BuildOptions{})
	require.NoError(t, err)
	require.Equal(t, []string{"a/one.fk", "b/two.fk", "broken.fk", "main.fk", "other/claimed_by_two.fk", "pkg/one_test.fk", "tests/test_one.fk"}, first.paths())
	require.Empty(t, second.paths())

	var ids []string
	for _, n := range g.Nodes() {
		ids = append(ids, n.ID)
		require.Equal(t, "fake", n.Language)
	}
	require.Equal(t, []string{"a/one.fk::one", "b/two.fk::two", "broken.fk::broken", "main.fk::<module>", "main.fk::main",
		"other/claimed_by_two.fk::x", "pkg/one_test.fk::helper", "tests/test_one.fk::test_one"}, ids)
	main, _ := g.Lookup("main.fk::main")
	two, _ := g.Lookup("b/two.fk::two")
	e, ok := g.Edge(main, two)
	require.True(t, ok)
	require.Equal(t, []int{3, 4}, e.Lines)
	s := g.Stats()
	require.Equal(t, 7, s.Files)
	require.Equal(t, 7, s.Functions)
	require.Equal(t, 7, s.Calls)
	require.Equal(t, 6, s.Resolved)
	require.Equal(t, 1, s.Unresolved)
	require.Equal(t, 1, s.ParseErrors)
	require.Empty(t, s.Skipped)
	require.Len(t, g.Errors(), 1)

	skipT := &fakeLang{name: "fake", ext: ".fk"}
	g, err = Build(context.Background(), root, []Language{skipT}, BuildOptions{
		SkipTests: true,
		IsTest:    func(p string) bool { return IsTestPath(p) || strings.HasSuffix(p, "_test.fk") },
		SkipDir:   func(p string) bool { return p == "other" },
	})
	require.NoError(t, err)
	require.Equal(t, []string{"a/one.fk", "b/two.fk", "broken.fk", "main.fk"}, skipT.paths())
	require.Equal(t, []Skipped{{"pkg/one_test.fk", SkipTest}, {"tests/test_one.fk", SkipTest}}, g.Stats().Skipped)
}

func TestBuildSymlinks(t *testing.T) {
	outside := writeTree(t, map[string]string{"secret.fk": "def secret\n"})
	root := writeTree(t, map[string]string{
		"real/f.fk": "def f\ncall f\n",
	})
	link := func(target, name string) {
		require.NoError(t, os.Symlink(target, filepath.Join(root, filepath.FromSlash(name))))
	}
	link("..", "real/loop")                                // directory loop
	link(".", "self")                                      // another loop, at the root
	link("f.fk", "real/alias.fk")                          // file inside root: read
	link(filepath.Join(outside, "secret.fk"), "escape.fk") // file outside root: skipped
	link("knot.fk", "knot.fk")                             // self-referential file link
	link("missing.fk", "dangling.fk")                      // broken link
	link("real", "dir.fk")                                 // a "source file" that is a directory
	l := &fakeLang{name: "fake", ext: ".fk"}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	g, err := Build(ctx, root, []Language{l}, BuildOptions{})
	require.NoError(t, err)
	require.Equal(t, []string{"real/alias.fk", "real/f.fk"}, l.paths())
	require.Equal(t, 2, g.Len())
	require.Equal(t, []Skipped{
		{"dangling.fk", SkipSymlinkBroken},
		{"dir.fk", SkipSymlinkDir},
		{"escape.fk", SkipSymlinkOut},
		{"knot.fk", SkipSymlinkBroken},
	}, g.Stats().Skipped)

	// The root itself may be a symlink.
	alias := filepath.Join(t.TempDir(), "alias")
	require.NoError(t, os.Symlink(root, alias))
	l2 := &fakeLang{name: "fake", ext: ".fk"}
	_, err = Build(ctx, alias, []Language{l2}, BuildOptions{})
	require.NoError(t, err)
	require.Equal(t, l.paths(), l2.paths())
}

func TestBuildContentChecks(t *testing.T) {
	latin1 := "def caf\xe9\n# \xff\xfe not UTF-8\n"
	root := writeTree(t, map[string]string{
		"bin.fk":    "def x\x00\x01\n",
		"latin1.fk": latin1,
		"small.fk":  "def small\n",
		"mid.fk":    "def mid\n" + strings.Repeat("# padding\n", 200),
	})
	// A generated file just over the default cap: text in its first 16 KB (so it is not
	// binary by the 8000-byte rule), then a sparse tail, which costs no writing.
	huge := filepath.Join(root, "gen.fk")
	f, err := os.Create(huge)
	require.NoError(t, err)
	w := bufio.NewWriter(f)
	for i := 0; i < 1024; i++ {
		fmt.Fprintf(w, "def g%011d\n", i)
	}
	require.NoError(t, w.Flush())
	require.NoError(t, f.Truncate(DefaultMaxFileSize+1))
	require.NoError(t, f.Close())

	l := &fakeLang{name: "fake", ext: ".fk"}
	g, err := Build(context.Background(), root, []Language{l}, BuildOptions{})
	require.NoError(t, err)
	require.Equal(t, []string{"latin1.fk", "mid.fk", "small.fk"}, l.paths())
	require.Equal(t, []byte(latin1), l.got[0].Src, "bytes pass through unchanged")
	_, ok := g.Lookup("latin1.fk::caf\xe9")
	require.True(t, ok)
	require.Equal(t, []Skipped{{"bin.fk", SkipBinary}, {"gen.fk", SkipTooLarge}}, g.Stats().Skipped)

	l = &fakeLang{name: "fake", ext: ".fk"}
	g, err = Build(context.Background(), root, []Language{l}, BuildOptions{MaxFileSize: 1024})
	require.NoError(t, err)
	require.Equal(t, []string{"latin1.fk", "small.fk"}, l.paths())
	require.Equal(t, []Skipped{{"bin.fk", SkipBinary}, {"gen.fk", SkipTooLarge}, {"mid.fk", SkipTooLarge}}, g.Stats().Skipped)

	l = &fakeLang{name: "fake", ext: ".fk"}
	_, err = Build(context.Background(), root, []Language{l}, BuildOptions{MaxFileSize: -1})
	require.NoError(t, err)
	require.Contains(t, l.paths(), "gen.fk", "no cap")
}

func TestBuildEmptyAndBadRoots(t *testing.T) {
	l := &fakeLang{name: "fake", ext: ".fk"}
	g, err := Build(context.Background(), t.TempDir(), []Language{l}, BuildOptions{})
	require.NoError(t, err)
	require.Zero(t, g.Len())
	require.Equal(t, Stats{}, g.Stats())
	require.Empty(t, l.paths(), "a language without files is not called")

	_, err = Build(context.Background(), filepath.Join(t.TempDir(), "nope"), []Language{l}, BuildOptions{})
	require.ErrorIs(t, err, os.ErrNotExist)
	file := filepath.Join(t.TempDir(), "f.fk")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	_, err = Build(context.Background(), file, []Language{l}, BuildOptions{})
	require.ErrorContains(t, err, "not a directory")
}

func TestBuildUnreadable(t *testing.T) {
	root := writeTree(t, map[string]string{"a.fk": "def a\n", "b.fk": "def b\n", "sub/c.fk": "def c\n"})
	// Injected read failure: works for any user.
	w := walker{open: func(name string) (io.ReadCloser, error) {
		if filepath.Base(name) == "b.fk" {
			return nil, &os.PathError{Op: "open", Path: name, Err: os.ErrPermission}
		}
		return os.Open(name)
	}}
	l := &fakeLang{name: "fake", ext: ".fk"}
	g, err := w.build(context.Background(), root, []Language{l}, BuildOptions{})
	require.NoError(t, err)
	require.Equal(t, []string{"a.fk", "sub/c.fk"}, l.paths())
	require.Equal(t, []Skipped{{"b.fk", SkipUnreadable + ": permission denied"}}, g.Stats().Skipped)

	// Real permissions, where they apply (root reads everything).
	if os.Geteuid() == 0 {
		t.Log("running as root: file permissions are not enforced, skipping the chmod half")
		return
	}
	require.NoError(t, os.Chmod(filepath.Join(root, "b.fk"), 0))
	require.NoError(t, os.Chmod(filepath.Join(root, "sub"), 0))
	t.Cleanup(func() { _ = os.Chmod(filepath.Join(root, "sub"), 0o755) })
	l = &fakeLang{name: "fake", ext: ".fk"}
	g, err = Build(context.Background(), root, []Language{l}, BuildOptions{})
	require.NoError(t, err)
	require.Equal(t, []string{"a.fk"}, l.paths())
	sk := g.Stats().Skipped
	require.Len(t, sk, 2)
	require.Equal(t, "b.fk", sk[0].Path)
	require.Equal(t, "sub", sk[1].Path)
}

func TestBuildConcurrentLanguagesAndErrors(t *testing.T) {
	root := writeTree(t, map[string]string{"a.fk": "def a\ncall b\n", "b.fg": "def b\n"})
	// Each language waits until the other has started: Build must run them concurrently.
	startedA, startedB := make(chan struct{}), make(chan struct{})
	wait := func(mine, other chan struct{}) func(ctx context.Context) error {
		return func(ctx context.Context) error {
			close(mine)
			select {
			case <-other:
				return nil
			case <-time.After(20 * time.Second):
				return errors.New("the other language never started")
			}
		}
	}
	la := &fakeLang{name: "fa", ext: ".fk", hook: wait(startedA, startedB)}
	lb := &fakeLang{name: "fb", ext: ".fg", hook: wait(startedB, startedA)}
	g, err := Build(context.Background(), root, []Language{la, lb}, BuildOptions{})
	require.NoError(t, err)
	require.Equal(t, 2, g.Len())
	require.Equal(t, 2, g.Stats().Files)
	require.Equal(t, "fb", g.Node(1).Language)

	boom := errors.New("boom")
	lc := &fakeLang{name: "fc", ext: ".fg", hook: func(context.Context) error { return boom }}
	_, err = Build(context.Background(), root, []Language{&fakeLang{name: "fa", ext: ".fk"}, lc}, BuildOptions{})
	require.ErrorIs(t, err, boom)
	require.ErrorContains(t, err, "fc front end")

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = Build(ctx, root, []Language{&fakeLang{name: "fa", ext: ".fk"}}, BuildOptions{})
	require.ErrorIs(t, err, context.Canceled)
}

func TestIsTestPath(t *testing.T) {
	for p, want := range map[string]bool{
		"pkg/test_x.py": true, "pkg/x_test.py": true, "conftest.py": true, "tests/helpers.py": true,
		"a/testing/b.go": true, "x_test.go": true, "src/__tests__/a.js": true, "a.test.ts": true,
		"b.spec.js": true, "pkg/x.py": false, "contest.py": false, "latest.go": false,
		"testutil/x.go": false, "spec.js": false, "protest/x.py": false, "attest.test": false,
	} {
		require.Equal(t, want, IsTestPath(p), p)
	}
}
