package extract

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/internal/fstree"

	"github.com/stretchr/testify/require"

	"github.com/faultline-dev/faultline/internal/acceptance"
)

// The end-to-end runs of Pipeline on real repositories (Debian's simplejson, pyflakes and
// bs4; github.com/go-logr/logr) live in bench/featurebench, one test package per
// repository, so that they run in parallel and `go test ./extract` stays quick. This file
// keeps the helpers that copy such repositories for the tests here; a test that uses them is
// an acceptance run (see acceptance).

// copyTree copies src into dst (regular files and directories only), writable.
// writeFile writes src at the slash path rel below root, making its directories.
func writeFile(t testing.TB, root, rel, src string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(src), 0o644))
}

func copyTree(t testing.TB, src, dst string) {
	t.Helper()
	require.NoError(t, fstree.Copy(src, dst, fstree.Options{Writable: true}))
}

// debianRepo copies /usr/lib/python3/dist-packages/<pkg> under a fresh ROOT/<pkg>.
func debianRepo(t testing.TB, pkg string) string {
	t.Helper()
	acceptance.Skip(t, "runs the tests of Debian's python3-"+pkg+", a real repository")
	src := filepath.Join("/usr/lib/python3/dist-packages", pkg)
	if _, err := os.Stat(src); err != nil {
		t.Skipf("extract: %s is not installed (apt-get install python3-%s)", src, pkg)
	}
	root := t.TempDir()
	require.NoError(t, fstree.CopySubject(src, filepath.Join(root, pkg)))
	return root
}

// goModule copies a module from the module cache (read-only there) to a writable temp dir.
func goModule(t testing.TB, modVersion string) string {
	t.Helper()
	acceptance.Skip(t, "runs the tests of "+modVersion+", a real repository")
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("extract: go command not found")
	}
	cache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	require.NoError(t, err)
	src := filepath.Join(strings.TrimSpace(string(cache)), filepath.FromSlash(modVersion))
	if _, err := os.Stat(src); err != nil {
		t.Skipf("extract: %s is not in the module cache", modVersion)
	}
	root := filepath.Join(t.TempDir(), "m")
	require.NoError(t, fstree.CopySubject(src, root))
	return root
}
