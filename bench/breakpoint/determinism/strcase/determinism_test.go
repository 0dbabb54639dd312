// Package strcase runs breakpoint.Determinism on breakpoint.Strcase, a module fresh from the
// module proxy held out in the audit of issue 12 (see package determinism).
package strcase

import (
	"testing"

	"github.com/faultline-dev/faultline/bench/breakpoint"
)

func TestDeterminism(t *testing.T) {
	breakpoint.Determinism(t, breakpoint.Strcase, "iancoleman/strcase")
}
