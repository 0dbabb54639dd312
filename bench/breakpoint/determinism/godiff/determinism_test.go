// Package godiff runs breakpoint.Determinism on breakpoint.GoDiff (see package determinism).
package godiff

import (
	"testing"

	"github.com/faultline-dev/faultline/bench/breakpoint"
)

func TestDeterminism(t *testing.T) {
	breakpoint.Determinism(t, breakpoint.GoDiff, "sergi/go-diff")
}
