package python

import (
	"testing"
	"unsafe"
)

// TestLayoutSizes guards the sizes of the records a large package has millions of
// (sympy: ≈4.1M symbolic expressions, ≈2M abstract values held in evaluation results):
// a field more moves each to a larger size.
func TestLayoutSizes(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want uintptr
	}{
		{"expr", unsafe.Sizeof(expr{}), 32},
		{"value", unsafe.Sizeof(value{}), 32},
		{"memoSlot", unsafe.Sizeof(memoSlot{}), 16},
	} {
		if c.got > c.want {
			t.Errorf("%s is %d bytes, want at most %d", c.name, c.got, c.want)
		}
	}
}
