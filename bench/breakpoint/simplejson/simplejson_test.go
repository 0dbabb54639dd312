// Package simplejson runs the Breakpoint end-to-end acceptance test on Debian's
// python3-simplejson (see package breakpoint).
package simplejson

import (
	"testing"

	"github.com/faultline-dev/faultline/bench/breakpoint"
)

func TestSimplejson(t *testing.T) {
	breakpoint.Run(t, breakpoint.Simplejson(t))
}
