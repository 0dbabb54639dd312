// Package pyflakes runs breakpoint.Determinism on breakpoint.Pyflakes (see package determinism).
package pyflakes

import (
	"testing"

	"github.com/faultline-dev/faultline/bench/breakpoint"
)

func TestDeterminism(t *testing.T) {
	breakpoint.Determinism(t, breakpoint.Pyflakes, "pyflakes")
}
