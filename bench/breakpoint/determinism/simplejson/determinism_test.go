// Package simplejson runs breakpoint.Determinism on breakpoint.Simplejson (see package determinism).
package simplejson

import (
	"testing"

	"github.com/faultline-dev/faultline/bench/breakpoint"
)

func TestDeterminism(t *testing.T) {
	breakpoint.Determinism(t, breakpoint.Simplejson, "simplejson")
}
