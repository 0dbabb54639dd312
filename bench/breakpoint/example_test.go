package breakpoint_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/faultline-dev/faultline/bench/breakpoint"
)

// CopyTree makes the private, writable copy a run works on; __pycache__ is left out.
func ExampleCopyTree() {
	src, _ := os.MkdirTemp("", "src")
	dst, _ := os.MkdirTemp("", "dst")
	defer os.RemoveAll(src)
	defer os.RemoveAll(dst)
	os.MkdirAll(filepath.Join(src, "pkg", "__pycache__"), 0o755)
	os.WriteFile(filepath.Join(src, "pkg", "m.py"), []byte("X = 1\n"), 0o444)
	os.WriteFile(filepath.Join(src, "pkg", "__pycache__", "m.cpython-311.pyc"), []byte{0}, 0o444)
	if err := breakpoint.CopyTree(src, dst); err != nil {
		panic(err)
	}
	filepath.WalkDir(dst, func(p string, d os.DirEntry, err error) error {
		if rel, _ := filepath.Rel(dst, p); !d.IsDir() {
			info, _ := d.Info()
			fmt.Println(filepath.ToSlash(rel), info.Mode().Perm()&0o200 != 0)
		}
		return nil
	})
	// Output:
	// pkg/m.py true
}
