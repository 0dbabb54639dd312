// Package bs4 runs the FeatureBench end-to-end acceptance test on Debian's python3-bs4
// (see package featurebench).
package bs4

import (
	"testing"

	"github.com/faultline-dev/faultline/bench/featurebench"
	"github.com/faultline-dev/faultline/bench/internal/twice"
)

func TestPipeline(t *testing.T) {
	twice.SkipUnlessFull(t)
	featurebench.Run(t, featurebench.Debian(t, "bs4"))
}
