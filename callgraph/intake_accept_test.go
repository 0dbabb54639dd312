package callgraph_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/fstree"

	"github.com/stretchr/testify/require"

	"github.com/faultline-dev/faultline/callgraph"
	"github.com/faultline-dev/faultline/callgraph/golang"
	"github.com/faultline-dev/faultline/callgraph/internal/fetest"
	"github.com/faultline-dev/faultline/callgraph/python"
	"github.com/faultline-dev/faultline/task/repo"
)

// minIntakeJaccard is the agreement Build must reach between the graph of a directory
// inside a project and the graph of the project's root restricted to that directory.
const minIntakeJaccard = 0.98

// copyPython copies the .py files of the package directory src into dst/<base of src>, so
// that dst is a directory holding the package, the layout that resolved before root
// discovery.
func copyPython(t *testing.T, src, dst string) {
	t.Helper()
	skip := func(rel string, d fs.DirEntry) bool {
		if d.IsDir() {
			return repo.SkipSourceDir(d.Name())
		}
		return !strings.HasSuffix(rel, ".py")
	}
	require.NoError(t, fstree.Copy(src, filepath.Join(dst, filepath.Base(src)), fstree.Options{Writable: true, Skip: skip}))
}

// TestIntakeRealPython points Build at installed Debian packages (a package directory in
// dist-packages and one of its subpackages) and compares with the graph of a directory
// holding a copy of the package, restricted to it. networkx is the package the problem was
// found on; oauthlib (absolute self-imports throughout) was held out, and so were urwid and
// cssutils (Debian's python3-urwid and python3-cssutils, added by the intake audit).
func TestIntakeRealPython(t *testing.T) {
	fetest.Acceptance(t)
	cases := []struct {
		pkg, sub string
		heldOut  bool
	}{
		{"networkx", "algorithms", false},
		{"oauthlib", "oauth2", true},
		{"urwid", "tests", true},
		{"cssutils", "css", true},
	}
	for _, c := range cases {
		t.Run(c.pkg, func(t *testing.T) {
			dir := filepath.Join("/usr/lib/python3/dist-packages", c.pkg)
			if _, err := os.Stat(filepath.Join(dir, "__init__.py")); err != nil {
				t.Skipf("%s is not installed (Debian package python3-%s): %v", dir, c.pkg, err)
			}
			tmp := t.TempDir()
			copyPython(t, dir, tmp)
			ref := build(t, tmp, python.New(python.Options{}), callgraph.BuildOptions{Standalone: true})
			for _, target := range []string{c.pkg, c.pkg + "/" + c.sub} {
				start := time.Now()
				g := build(t, filepath.Join("/usr/lib/python3/dist-packages", filepath.FromSlash(target)), python.New(python.Options{}), callgraph.BuildOptions{})
				p := g.Project()
				require.Equal(t, []string{c.pkg}, p.Include, "only the package is analysed")
				require.Equal(t, target, p.Target)
				got, want := fetest.Edges(g, "."), fetest.Edges(ref, target)
				j := fetest.Jaccard(got, want)
				st := g.Stats()
				t.Logf("%s (held out: %v): %d edges, reference %d, Jaccard %.4f; %d of %d calls resolved; %s",
					target, c.heldOut, len(got), len(want), j, st.Resolved, st.Calls, time.Since(start).Round(time.Millisecond))
				require.GreaterOrEqual(t, j, minIntakeJaccard, target)
				require.NotEmpty(t, got)
			}
			// Before root discovery: the package directory as a root of its own.
			alone := build(t, dir, python.New(python.Options{}), callgraph.BuildOptions{Standalone: true})
			t.Logf("%s alone: %d edges, Jaccard %.4f with the reference", c.pkg, len(fetest.Edges(alone, ".")), fetest.Jaccard(fetest.Edges(alone, "."), fetest.Edges(ref, c.pkg)))
		})
	}
}

// TestIntakeRealGo points Build at a subdirectory of a module from the module proxy (no
// go.mod in it) and compares with the graph of the module root restricted to it. gonum's
// graph/ is where the problem was found; klauspost/compress's zstd/ was held out, and so was
// participle's lexer/ (added by the intake audit).
func TestIntakeRealGo(t *testing.T) {
	fetest.Acceptance(t)
	cases := []struct {
		module, version, sub string
		heldOut              bool
	}{
		{"gonum.org/v1/gonum", "v0.17.0", "graph", false},
		{"github.com/klauspost/compress", "v1.18.7", "zstd", true},
		{"github.com/alecthomas/participle/v2", "v2.1.4", "lexer", true},
	}
	for _, c := range cases {
		t.Run(c.module, func(t *testing.T) {
			root := fetest.ModuleDir(t, c.module, c.version)
			opts := callgraph.BuildOptions{SkipTests: true}
			ref := build(t, root, golang.New(golang.Options{}), opts)
			start := time.Now()
			g := build(t, filepath.Join(root, c.sub), golang.New(golang.Options{}), opts)
			p := g.Project()
			require.Equal(t, c.module, p.Module)
			require.Equal(t, c.sub, p.Target)
			got, want := fetest.Edges(g, "."), fetest.Edges(ref, c.sub)
			j := fetest.Jaccard(got, want)
			alone := build(t, filepath.Join(root, c.sub), golang.New(golang.Options{}), callgraph.BuildOptions{SkipTests: true, Standalone: true})
			ja := fetest.Jaccard(fetest.Edges(alone, "."), want)
			t.Logf("%s/%s (held out: %v): %d edges, reference %d, Jaccard %.4f (the directory alone: %d edges, Jaccard %.4f); %s",
				c.module, c.sub, c.heldOut, len(got), len(want), j, len(fetest.Edges(alone, ".")), ja, time.Since(start).Round(time.Millisecond))
			require.GreaterOrEqual(t, j, minIntakeJaccard)
			require.NotEmpty(t, got)
		})
	}
}
