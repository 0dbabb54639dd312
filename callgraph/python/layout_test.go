package python

import (
	"testing"
	"unsafe"
)

// TestLayoutSizes guards the sizes of the records a large package has millions of
// (sympy: ≈4.3M symbolic expressions, ≈2M abstract values held in evaluation results,
// ≈1.7M memo slots): a field more moves each to a larger size.
func TestLayoutSizes(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want uintptr
	}{
		{"expr", unsafe.Sizeof(expr{}), 16},
		{"exprX", unsafe.Sizeof(exprX{}), 24},
		{"nameRec", unsafe.Sizeof(nameRec{}), 16},
		{"value", unsafe.Sizeof(value{}), 24},
		{"memoSlot", unsafe.Sizeof(memoSlot{}), 16},
		{"litData", unsafe.Sizeof(litData{}), 24},
		{"callSite", unsafe.Sizeof(callSite{}), 24},
		{"lazySite", unsafe.Sizeof(lazySite{}), 24},
		{"defInfo", unsafe.Sizeof(defInfo{}), 512},
		{"scope", unsafe.Sizeof(scope{}), 80},
		{"param", unsafe.Sizeof(param{}), 64},
	} {
		if c.got > c.want {
			t.Errorf("%s is %d bytes, want at most %d", c.name, c.got, c.want)
		}
	}
}
