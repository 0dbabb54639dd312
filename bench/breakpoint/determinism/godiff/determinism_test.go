// Package godiff runs breakpoint.Determinism on breakpoint.GoDiff (see package determinism).
package godiff

import (
	"testing"

	"github.com/faultline-dev/faultline/bench/breakpoint"
	"github.com/faultline-dev/faultline/internal/acceptance"
)

// TestDeterminism runs REMOVE, whose corruptions make go-diff's tests panic (the re-runs
// of cut-off tests are part of what must give the same bytes); DISCOVERY too in the extended
// acceptance set (FAULTLINE_ACCEPTANCE=full): CI's time does not allow both here, and
// DISCOVERY's determinism runs on simplejson, debtcollector and strcase.
func TestDeterminism(t *testing.T) {
	modes := []string{"remove"}
	if acceptance.Full() {
		modes = append(modes, "discovery")
	}
	breakpoint.DeterminismModes(t, breakpoint.GoDiff, "sergi/go-diff", modes...)
}
