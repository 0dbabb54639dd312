// Package humanize runs breakpoint.Determinism on breakpoint.Humanize (see package determinism).
package humanize

import (
	"testing"

	"github.com/faultline-dev/faultline/bench/breakpoint"
	"github.com/faultline-dev/faultline/bench/internal/twice"
)

func TestDeterminism(t *testing.T) {
	twice.SkipUnlessFull(t)
	breakpoint.Determinism(t, breakpoint.Humanize, "dustin/go-humanize")
}
