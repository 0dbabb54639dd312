// Package bs4 runs breakpoint.Determinism on breakpoint.Bs4 (see package determinism).
package bs4

import (
	"testing"

	"github.com/faultline-dev/faultline/bench/breakpoint"
)

func TestDeterminism(t *testing.T) {
	breakpoint.Determinism(t, breakpoint.Bs4, "bs4")
}
