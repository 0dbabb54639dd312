// Package discovery runs the Breakpoint end-to-end acceptance test in discovery mode on the
// repository of breakpoint.Simplejson (see package breakpoint).
package discovery

import (
	"testing"

	"github.com/faultline-dev/faultline/bench/breakpoint"
	"github.com/faultline-dev/faultline/bench/internal/twice"
	"github.com/faultline-dev/faultline/corrupt"
)

func TestSimplejsonDiscovery(t *testing.T) {
	twice.Skip(t)
	breakpoint.Run(t, breakpoint.Simplejson(t), corrupt.Discovery)
}
