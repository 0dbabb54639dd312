package fstree

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// readOnlySource writes a small read-only package with a byte-code cache, an executable
// script, a symbolic link and a fifo.
func readOnlySource(t *testing.T) string {
	src := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(src, "lib", "tests", "__pycache__"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(src, "lib", "core.py"), []byte("def f():\n    return 1\n"), 0o444))
	require.NoError(t, os.WriteFile(filepath.Join(src, "lib", "tests", "test_core.py"), []byte("def test_f():\n    pass\n"), 0o444))
	require.NoError(t, os.WriteFile(filepath.Join(src, "lib", "tests", "__pycache__", "x.pyc"), []byte{0}, 0o444))
	require.NoError(t, os.WriteFile(filepath.Join(src, "run.sh"), []byte("#!/bin/sh\n"), 0o555))
	require.NoError(t, os.Symlink("lib/core.py", filepath.Join(src, "link")))
	return src
}

func modes(t *testing.T, root string) map[string]fs.FileMode {
	m := map[string]fs.FileMode{}
	require.NoError(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		info, err := os.Lstat(p)
		require.NoError(t, err)
		rel, _ := filepath.Rel(root, p)
		m[filepath.ToSlash(rel)] = info.Mode()
		return nil
	}))
	return m
}

// The writable copy of a read-only package without byte code or links: what the bench
// programs and the acceptance tests work on.
func TestCopyWritable(t *testing.T) {
	src := readOnlySource(t)
	dst := filepath.Join(t.TempDir(), "copy")
	require.NoError(t, Copy(src, dst, Options{Writable: true, Skip: PyCache}))
	got, err := Read(dst, nil)
	require.NoError(t, err)
	require.Equal(t, map[string]string{
		"lib/core.py":            "def f():\n    return 1\n",
		"lib/tests/test_core.py": "def test_f():\n    pass\n",
		"run.sh":                 "#!/bin/sh\n",
	}, got)
	m := modes(t, dst)
	require.Equal(t, fs.FileMode(0o644), m["lib/core.py"].Perm())
	require.Equal(t, fs.FileMode(0o755), m["run.sh"].Perm(), "the execute bits are kept")
	// The source is unchanged.
	require.Equal(t, fs.FileMode(0o444), modes(t, src)["lib/core.py"].Perm())
}

// The sandbox's snapshot: modes and links kept as they are, named directories left out.
func TestCopyLinksAndModes(t *testing.T) {
	src := readOnlySource(t)
	dst := filepath.Join(t.TempDir(), "copy")
	require.NoError(t, Copy(src, dst, Options{Links: true, Skip: SkipNames(func(n string) bool { return n == "tests" })}))
	got, err := Read(dst, nil)
	require.NoError(t, err)
	require.Equal(t, map[string]string{
		"lib/core.py": "def f():\n    return 1\n",
		"link":        LinkPrefix + "lib/core.py",
		"run.sh":      "#!/bin/sh\n",
	}, got)
	m := modes(t, dst)
	require.Equal(t, fs.FileMode(0o444), m["lib/core.py"].Perm())
	require.Equal(t, fs.FileMode(0o555), m["run.sh"].Perm())
	require.NotZero(t, m["link"]&fs.ModeSymlink)
	// A copy never overwrites: copying again into the same place fails.
	require.Error(t, Copy(src, dst, Options{Links: true}))
}

// A missing source or a file as the source is an error naming it.
func TestCopyBadSource(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "absent")
	err := Copy(missing, t.TempDir(), Options{})
	require.ErrorContains(t, err, "absent")
	file := filepath.Join(t.TempDir(), "f")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	require.ErrorContains(t, Copy(file, t.TempDir(), Options{}), "not a directory")
}

func TestWriteReadDiff(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{"a.py": "x = 1\n", "pkg/sub/b.py": "", "pkg/c.txt": "c"}
	require.NoError(t, Write(root, files))
	got, err := Read(root, nil)
	require.NoError(t, err)
	require.Equal(t, files, got)
	require.Nil(t, Diff(got, files))

	skipPkg := func(rel string, d fs.DirEntry) bool { return rel == "pkg/sub" }
	got, err = Read(root, skipPkg)
	require.NoError(t, err)
	require.Equal(t, []string{"pkg/sub/b.py (missing)"}, Diff(got, files))

	changed := map[string]string{"a.py": "x = 2\n", "pkg/sub/b.py": "", "pkg/c.txt": "c", "new": ""}
	require.Equal(t, []string{"a.py", "new (extra)"}, Diff(changed, files))
}

// Strict refuses what a copy would leave out for its type, naming it.
func TestCopyStrict(t *testing.T) {
	src := readOnlySource(t)
	err := Copy(src, filepath.Join(t.TempDir(), "copy"), Options{Strict: true})
	require.ErrorContains(t, err, "link is not a regular file")
	require.NoError(t, Copy(src, filepath.Join(t.TempDir(), "copy"), Options{Strict: true, Links: true}))
}
