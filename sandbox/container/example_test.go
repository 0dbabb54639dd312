package container_test

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/faultline-dev/faultline/sandbox/container"
)

// The tree goes into a container as a tar stream that keeps modes and symbolic links.
func ExampleWriteTreeTar() {
	root, _ := os.MkdirTemp("", "tree")
	defer os.RemoveAll(root)
	os.WriteFile(filepath.Join(root, "run.sh"), []byte("#!/bin/sh\n"), 0o755)
	os.Symlink("run.sh", filepath.Join(root, "start"))
	os.Mkdir(filepath.Join(root, "__pycache__"), 0o755) // left out

	var buf bytes.Buffer
	if err := container.WriteTreeTar(&buf, root, "work/pristine"); err != nil {
		panic(err)
	}
	tr := tar.NewReader(&buf)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if h.Typeflag == tar.TypeDir {
			fmt.Println(h.Name)
			continue
		}
		if h.Linkname != "" {
			fmt.Println(h.Name, os.FileMode(h.Mode).Perm(), "->", h.Linkname)
			continue
		}
		fmt.Println(h.Name, os.FileMode(h.Mode).Perm())
	}
	// Output:
	// work/pristine/
	// work/pristine/run.sh -rwxr-xr-x
	// work/pristine/start -rwxrwxrwx -> run.sh
}
