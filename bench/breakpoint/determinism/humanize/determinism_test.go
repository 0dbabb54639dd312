// Package humanize runs breakpoint.Determinism on breakpoint.Humanize (see package determinism).
package humanize

import (
	"testing"

	"github.com/faultline-dev/faultline/bench/breakpoint"
)

func TestDeterminism(t *testing.T) {
	breakpoint.Determinism(t, breakpoint.Humanize, "dustin/go-humanize")
}
