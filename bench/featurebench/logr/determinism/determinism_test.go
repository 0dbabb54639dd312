// Package determinism checks on github.com/go-logr/logr v1.4.3 that the FeatureBench
// pipeline makes byte-identical instances from the same seed (see
// featurebench.Determinism).
package determinism

import (
	"testing"

	"github.com/faultline-dev/faultline/bench/featurebench"
	"github.com/faultline-dev/faultline/bench/internal/twice"
)

func TestSameSeedSameInstances(t *testing.T) {
	twice.Skip(t)
	featurebench.Determinism(t, featurebench.GoModule(t, "go-logr/logr", "github.com/go-logr/logr@v1.4.3"))
}
