package solo

import (
	"strings"
	"testing"
)

// TestUpper tests the standard library only: no solution package to build.
func TestUpper(t *testing.T) {
	if strings.ToUpper("a") != "A" {
		t.Fatal("ToUpper")
	}
}
