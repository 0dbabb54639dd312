// Package simplejson runs the FeatureBench end-to-end acceptance test on Debian's python3-simplejson
// (see package featurebench).
package simplejson

import (
	"testing"

	"github.com/faultline-dev/faultline/bench/featurebench"
	"github.com/faultline-dev/faultline/bench/internal/twice"
)

func TestPipeline(t *testing.T) {
	twice.Skip(t)
	featurebench.Run(t, featurebench.Debian(t, "simplejson"))
}
