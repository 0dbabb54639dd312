// Package fstree makes the private, writable copies of real test subjects that the bench
// programs work on (the module cache and Debian's packages are read-only).
package fstree

import (
	"io/fs"
	"os"
	"path/filepath"
)

// CopyTree copies the regular files and directories of src to dst, files with mode 0644 so
// the copy is writable. __pycache__ directories are left out (byte code of another
// interpreter run), and so are symbolic links and other non-regular files: a link could
// point back into the read-only source.
func CopyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		out := filepath.Join(dst, rel)
		switch {
		case d.IsDir() && d.Name() == "__pycache__":
			return filepath.SkipDir
		case d.IsDir():
			return os.MkdirAll(out, 0o755)
		case !d.Type().IsRegular():
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(out, b, 0o644)
	})
}
