// Package colorama runs breakpoint.Determinism on breakpoint.Colorama, a package directory
// given as -repo (see package determinism).
package colorama

import (
	"testing"

	"github.com/faultline-dev/faultline/bench/breakpoint"
	"github.com/faultline-dev/faultline/bench/internal/twice"
)

func TestDeterminism(t *testing.T) {
	twice.SkipUnlessFull(t)
	breakpoint.Determinism(t, breakpoint.Colorama, "tartley/colorama")
}
