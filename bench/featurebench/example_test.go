package featurebench_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/faultline-dev/faultline/bench/featurebench"
)

// CopyTree makes the writable private copy a run works on, without byte-code caches.
func ExampleCopyTree() {
	src, _ := os.MkdirTemp("", "src")
	dst, _ := os.MkdirTemp("", "dst")
	defer os.RemoveAll(src)
	defer os.RemoveAll(dst)
	os.MkdirAll(filepath.Join(src, "lib", "tests", "__pycache__"), 0o755)
	os.WriteFile(filepath.Join(src, "lib", "core.py"), []byte("def f():\n    return 1\n"), 0o444)
	os.WriteFile(filepath.Join(src, "lib", "tests", "test_core.py"), []byte("def test_f():\n    pass\n"), 0o444)
	os.WriteFile(filepath.Join(src, "lib", "tests", "__pycache__", "test_core.pyc"), []byte{0}, 0o444)
	if err := featurebench.CopyTree(src, dst); err != nil {
		fmt.Println(err)
		return
	}
	filepath.WalkDir(dst, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dst, p)
			info, _ := d.Info()
			fmt.Printf("%s writable=%v\n", filepath.ToSlash(rel), info.Mode().Perm()&0o200 != 0)
		}
		return nil
	})
	// Output:
	// lib/core.py writable=true
	// lib/tests/test_core.py writable=true
}
