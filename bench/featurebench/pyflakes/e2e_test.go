// Package pyflakes runs the FeatureBench end-to-end acceptance test on Debian's python3-pyflakes
// (see package featurebench).
package pyflakes

import (
	"testing"

	"github.com/faultline-dev/faultline/bench/featurebench"
	"github.com/faultline-dev/faultline/bench/internal/twice"
)

func TestPipeline(t *testing.T) {
	twice.Skip(t)
	featurebench.Run(t, featurebench.Debian(t, "pyflakes"))
}
