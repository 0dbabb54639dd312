// Package debtcollector runs breakpoint.Determinism on breakpoint.Debtcollector, Debian's
// package directory held out in the audit of issue 12 (see package determinism).
package debtcollector

import (
	"testing"

	"github.com/faultline-dev/faultline/bench/breakpoint"
)

func TestDeterminism(t *testing.T) {
	breakpoint.Determinism(t, breakpoint.Debtcollector, "openstack/debtcollector")
}
