package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSnapshotSkipsRepoDirs: the private copy and the content hash leave out the
// directories repo.SkipSnapshotDir names (version control, regenerated caches) and keep a
// regular file that happens to have such a name.
func TestSnapshotSkipsRepoDirs(t *testing.T) {
	write := func(root, rel, data string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(data), 0o644))
	}
	plain := t.TempDir()
	write(plain, "a.py", "x = 1\n")
	write(plain, "pkg/.hg", "a file, not a repository\n")
	busy := t.TempDir()
	write(busy, "a.py", "x = 1\n")
	write(busy, "pkg/.hg", "a file, not a repository\n")
	write(busy, ".git/HEAD", "ref: refs/heads/main\n")
	write(busy, "pkg/__pycache__/a.cpython-311.pyc", "\x00bytecode")
	write(busy, ".pytest_cache/v/cache/lastfailed", "{}")

	dst := filepath.Join(t.TempDir(), "copy")
	require.NoError(t, copyTree(busy, dst))
	for _, gone := range []string{".git", "pkg/__pycache__", ".pytest_cache"} {
		_, err := os.Lstat(filepath.Join(dst, filepath.FromSlash(gone)))
		assert.True(t, os.IsNotExist(err), "%s copied", gone)
	}
	for _, kept := range []string{"a.py", "pkg/.hg"} {
		_, err := os.Lstat(filepath.Join(dst, filepath.FromSlash(kept)))
		assert.NoError(t, err, "%s not copied", kept)
	}

	h := NewTreeHasher()
	a, err := h.Hash(plain, nil)
	require.NoError(t, err)
	b, err := h.Hash(busy, nil)
	require.NoError(t, err)
	assert.Equal(t, a, b, "the skipped directories change the hash")
	write(busy, "pkg/b.py", "y = 2\n")
	c, err := NewTreeHasher().Hash(busy, nil)
	require.NoError(t, err)
	assert.NotEqual(t, b, c, "a new source file does not change the hash")
}
