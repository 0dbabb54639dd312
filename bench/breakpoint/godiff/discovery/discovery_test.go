// Package discovery runs the Breakpoint end-to-end acceptance test in discovery mode on the
// repository of breakpoint.GoDiff (see package breakpoint).
package discovery

import (
	"testing"

	"github.com/faultline-dev/faultline/bench/breakpoint"
	"github.com/faultline-dev/faultline/bench/internal/twice"
	"github.com/faultline-dev/faultline/corrupt"
)

func TestGoDiffDiscovery(t *testing.T) {
	twice.SkipUnlessFull(t)
	breakpoint.Run(t, breakpoint.GoDiff(t), corrupt.Discovery)
}
