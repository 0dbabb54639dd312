// Package godiff runs the Breakpoint end-to-end acceptance test on
// github.com/sergi/go-diff v1.4.0 from the module cache (see package breakpoint).
package godiff

import (
	"testing"

	"github.com/faultline-dev/faultline/bench/breakpoint"
)

func TestGoDiff(t *testing.T) {
	breakpoint.Run(t, breakpoint.GoDiff(t))
}
