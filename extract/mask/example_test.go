package mask_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/faultline-dev/faultline/extract/mask"
)

// Masking removes a decorated function with its comment, fills the emptied block with
// pass and drops the import of the removed name, keeping the alias of the other one.
func ExampleMask() {
	root, _ := os.MkdirTemp("", "mask-example")
	defer os.RemoveAll(root)
	_ = os.MkdirAll(filepath.Join(root, "shop"), 0o755)
	_ = os.WriteFile(filepath.Join(root, "shop", "price.py"), []byte(`import functools

if True:
    # Cached total.
    @functools.cache
    def total(items):
        return sum(items)

def tax(x):
    return x / 5
`), 0o644)
	_ = os.WriteFile(filepath.Join(root, "shop", "__init__.py"), []byte("from .price import total, tax as vat\n"), 0o644)

	target, _ := mask.ParseTarget("shop/price.py::total::5")
	res, err := mask.Mask(context.Background(), root, []mask.Target{target}, mask.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range res.Removed {
		fmt.Printf("removed %s (lines %d-%d)\n", r.Target, r.StartLine, r.EndLine)
	}
	for _, p := range res.Overlay.Paths() {
		fmt.Printf("--- %s\n%s", p, res.Overlay[p].Data)
	}
	// Output:
	// removed shop/price.py::total::6 (lines 4-7)
	// --- shop/__init__.py
	// from .price import tax as vat
	// --- shop/price.py
	// import functools
	//
	// if True:
	//     pass
	//
	// def tax(x):
	//     return x / 5
}
