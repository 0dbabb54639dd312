package gocheck_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/faultline-dev/faultline/internal/gocheck"
)

// A module of two packages: replacing lib.go by a version without Greet breaks the package
// that calls it, and leaves an import unused in lib itself.
func Example() {
	root, err := os.MkdirTemp("", "gocheck-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(root)
	for name, text := range map[string]string{
		"go.mod":     "module example.com/hello\n\ngo 1.22\n",
		"lib/lib.go": "package lib\n\nimport \"fmt\"\n\nfunc Greet(n string) string { return fmt.Sprint(\"hi \", n) }\n",
		"cmd/cmd.go": "package cmd\n\nimport \"example.com/hello/lib\"\n\nvar Msg = lib.Greet(\"you\")\n",
	} {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			panic(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			panic(err)
		}
	}
	c, err := gocheck.New(root, gocheck.Options{})
	if err != nil {
		panic(err)
	}
	errs, err := c.NewErrors([]string{"cmd", "lib"}, map[string][]byte{
		"lib/lib.go": []byte("package lib\n\nimport \"fmt\"\n"),
	})
	if err != nil {
		panic(err)
	}
	for _, e := range errs {
		fmt.Println(e)
		if p, ok := gocheck.UnusedImport(e.Msg); ok {
			fmt.Println("  prune:", p)
		}
	}
	// Output:
	// lib/lib.go:3:8: "fmt" imported and not used
	//   prune: fmt
	// cmd/cmd.go:5:15: undefined: lib.Greet
}
