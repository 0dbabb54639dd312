// Package remove runs the Breakpoint end-to-end acceptance test in remove mode on the
// repository of breakpoint.Simplejson (see package breakpoint).
package remove

import (
	"testing"

	"github.com/faultline-dev/faultline/bench/breakpoint"
	"github.com/faultline-dev/faultline/bench/internal/twice"
	"github.com/faultline-dev/faultline/corrupt"
)

func TestSimplejsonRemove(t *testing.T) {
	twice.SkipUnlessFull(t)
	breakpoint.Run(t, breakpoint.Simplejson(t), corrupt.Remove)
}
