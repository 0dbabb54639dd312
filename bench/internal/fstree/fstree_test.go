package fstree

import (
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCopyTree: read-only files become writable copies; __pycache__ and symbolic links
// are left out; the source is unchanged.
func TestCopyTree(t *testing.T) {
	src, dst := t.TempDir(), filepath.Join(t.TempDir(), "copy")
	require.NoError(t, os.MkdirAll(filepath.Join(src, "lib", "tests", "__pycache__"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(src, "lib", "core.py"), []byte("def f():\n    return 1\n"), 0o444))
	require.NoError(t, os.WriteFile(filepath.Join(src, "lib", "tests", "test_core.py"), []byte("def test_f():\n    pass\n"), 0o444))
	require.NoError(t, os.WriteFile(filepath.Join(src, "lib", "tests", "__pycache__", "x.pyc"), []byte{0}, 0o444))
	require.NoError(t, os.Symlink("/etc/passwd", filepath.Join(src, "lib", "link")))

	require.NoError(t, CopyTree(src, dst))
	var got []string
	require.NoError(t, filepath.WalkDir(dst, func(p string, d os.DirEntry, err error) error {
		require.NoError(t, err)
		if !d.IsDir() {
			rel, _ := filepath.Rel(dst, p)
			info, err := d.Info()
			require.NoError(t, err)
			require.Equal(t, os.FileMode(0o644), info.Mode().Perm(), rel)
			got = append(got, filepath.ToSlash(rel))
		}
		return nil
	}))
	sort.Strings(got)
	require.Equal(t, []string{"lib/core.py", "lib/tests/test_core.py"}, got)
	b, err := os.ReadFile(filepath.Join(dst, "lib", "core.py"))
	require.NoError(t, err)
	require.Equal(t, "def f():\n    return 1\n", string(b))
	info, err := os.Stat(filepath.Join(src, "lib", "core.py"))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o444), info.Mode().Perm())
}

// A missing source is an error naming it.
func TestCopyTreeMissing(t *testing.T) {
	err := CopyTree(filepath.Join(t.TempDir(), "absent"), t.TempDir())
	require.Error(t, err)
	require.Contains(t, err.Error(), "absent")
}
