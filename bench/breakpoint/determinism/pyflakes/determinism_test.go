// Package pyflakes runs breakpoint.Determinism on breakpoint.Pyflakes (see package determinism).
package pyflakes

import (
	"testing"

	"github.com/faultline-dev/faultline/bench/breakpoint"
	"github.com/faultline-dev/faultline/bench/internal/twice"
)

func TestDeterminism(t *testing.T) {
	twice.SkipUnlessFull(t)
	breakpoint.Determinism(t, breakpoint.Pyflakes, "pyflakes")
}
