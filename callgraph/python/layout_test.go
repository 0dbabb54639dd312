package python

import (
	"testing"
	"unsafe"
)

// TestExprSize guards the size of the symbolic expression, of which a large package has
// millions (sympy ≈4.3M): 64 bytes is a Go size class, and every field more costs the
// next one (80).
func TestExprSize(t *testing.T) {
	if got := unsafe.Sizeof(expr{}); got > 64 {
		t.Fatalf("expr is %d bytes, want at most 64", got)
	}
}
