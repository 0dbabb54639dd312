// Package cast runs breakpoint.Determinism on breakpoint.Cast, a module fresh from the
// module proxy whose test dependencies are downloaded by the program (see package
// determinism).
package cast

import (
	"testing"

	"github.com/faultline-dev/faultline/bench/breakpoint"
	"github.com/faultline-dev/faultline/bench/internal/twice"
)

func TestDeterminism(t *testing.T) {
	twice.SkipUnlessFull(t)
	breakpoint.Determinism(t, breakpoint.Cast, "spf13/cast")
}
