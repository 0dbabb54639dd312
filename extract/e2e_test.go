package extract

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/faultline-dev/faultline/sandbox"
	"github.com/faultline-dev/faultline/task"
)

// copyTree copies src into dst (regular files and directories only).
func copyTree(t testing.TB, src, dst string) {
	t.Helper()
	require.NoError(t, os.CopyFS(dst, os.DirFS(src)))
}

// debianRepo copies /usr/lib/python3/dist-packages/<pkg> under a fresh ROOT/<pkg>.
func debianRepo(t testing.TB, pkg string) string {
	t.Helper()
	src := filepath.Join("/usr/lib/python3/dist-packages", pkg)
	if _, err := os.Stat(src); err != nil {
		t.Skipf("extract: %s is not installed (apt-get install python3-%s)", src, pkg)
	}
	root := t.TempDir()
	cmd := exec.Command("cp", "-r", src, filepath.Join(root, pkg))
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	return root
}

// TestPipelineDebian runs the pipeline on Debian's own copies of real Python packages (no
// one here wrote them) and requires at least five accepted instances each, every one
// re-verified in a fresh copy of the package.
func TestPipelineDebian(t *testing.T) {
	py := pythonWithPytest(t)
	for _, pkg := range []string{"simplejson", "pyflakes", "bs4"} {
		t.Run(pkg, func(t *testing.T) {
			t.Parallel()
			root := debianRepo(t, pkg)
			r := sandbox.NewLocal(sandbox.Options{WorkDir: t.TempDir(), Python: py})
			defer r.Close()
			res, err := Pipeline(context.Background(), r, root, Options{Seed: 1, N: 5})
			require.NoError(t, err)
			acc := res.Accepted()
			for _, it := range res.Items {
				if !it.Accepted {
					require.NotEmpty(t, it.Reason)
					t.Logf("rejected %s: %s", it.TestFile, it.Reason)
				}
			}
			require.Len(t, acc, 5)
			for _, it := range acc {
				require.NotEmpty(t, it.Extraction.Extracted)
				require.NotEmpty(t, it.Mask.Removed)
				require.NotEmpty(t, it.P2PFiles)
				require.LessOrEqual(t, it.Verification.F2PPassRate, DefaultMaxF2PPassRate)
				reverify(t, r, root, it)
			}
		})
	}
}

// goModule copies a module from the module cache (read-only there) to a writable temp dir.
func goModule(t testing.TB, modVersion string) string {
	t.Helper()
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
	out, err := exec.Command("cp", "-r", src, root).CombinedOutput()
	require.NoError(t, err, string(out))
	out, err = exec.Command("chmod", "-R", "u+w", root).CombinedOutput()
	require.NoError(t, err, string(out))
	return root
}

// TestPipelineGoModule runs the pipeline on a real Go module from the module cache (one
// whose dependencies are all in the standard library).
func TestPipelineGoModule(t *testing.T) {
	root := goModule(t, "github.com/go-logr/logr@v1.4.3")
	r := sandbox.NewLocal(sandbox.Options{WorkDir: t.TempDir(), Env: []string{"GOFLAGS=-mod=mod", "GOPROXY=off"}})
	defer r.Close()
	res, err := Pipeline(context.Background(), r, root, Options{Seed: 1, N: 5})
	require.NoError(t, err)
	require.Equal(t, task.GoTest, res.Kind)
	for _, it := range res.Items {
		if !it.Accepted {
			require.NotEmpty(t, it.Reason)
			t.Logf("rejected %s: %s", it.TestFile, it.Reason)
		}
	}
	acc := res.Accepted()
	require.Len(t, acc, 5)
	for _, it := range acc {
		require.NotEmpty(t, it.Mask.Removed)
		require.NotEmpty(t, it.Verification.F2PTests)
		reverify(t, r, root, it)
	}
}
