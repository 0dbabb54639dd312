package repo_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/faultline-dev/faultline/task/repo"
)

// A user points at a package directory inside a src-layout project: the project root is the
// directory with pyproject.toml, src goes on sys.path, and results are reported for the
// package the user named.
func ExampleDiscover() {
	dir, _ := os.MkdirTemp("", "repo-example-")
	defer os.RemoveAll(dir)
	for _, f := range []string{"pyproject.toml", "src/shop/__init__.py", "src/shop/cart.py", "tests/test_cart.py"} {
		p := filepath.Join(dir, filepath.FromSlash(f))
		_ = os.MkdirAll(filepath.Dir(p), 0o755)
		_ = os.WriteFile(p, nil, 0o644)
	}
	p, err := repo.Discover(filepath.Join(dir, "src", "shop"), "")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.Lang, p.Target, p.Module, p.PythonPath, p.Config)
	fmt.Println(p.Reason)
	fmt.Println(repo.IsTestPath("tests/test_cart.py"), repo.IsTestPath("src/shop/cart.py"))
	// Output:
	// python src/shop shop [src] pyproject.toml
	// the nearest directory with pyproject.toml
	// true false
}
