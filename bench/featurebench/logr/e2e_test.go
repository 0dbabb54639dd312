// Package logr runs the FeatureBench end-to-end acceptance test on
// github.com/go-logr/logr v1.4.3 from the module cache (see package featurebench).
package logr

import (
	"testing"

	"github.com/faultline-dev/faultline/bench/featurebench"
	"github.com/faultline-dev/faultline/bench/internal/twice"
)

func TestPipeline(t *testing.T) {
	twice.Skip(t)
	featurebench.Run(t, featurebench.GoModule(t, "go-logr/logr", "github.com/go-logr/logr@v1.4.3"))
}
