// Package glob runs featurebench.ProgramDeterminism on github.com/gobwas/glob
// v1.1.0 from the module proxy, held out in the audit of issue 12.
package glob

import (
	"testing"

	"github.com/faultline-dev/faultline/bench/featurebench"
	"github.com/faultline-dev/faultline/bench/internal/twice"
)

func TestProgramDeterminism(t *testing.T) {
	twice.SkipUnlessFull(t) // and go mod download github.com/gobwas/glob@v1.1.0 first
	featurebench.ProgramDeterminism(t, func(t *testing.T) featurebench.Subject {
		return featurebench.GoModule(t, "gobwas/glob", "github.com/gobwas/glob@v1.1.0")
	})
}
