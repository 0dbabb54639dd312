// Package pyflakes runs featurebench.ProgramDeterminism on Debian's python3-pyflakes.
package pyflakes

import (
	"testing"

	"github.com/faultline-dev/faultline/bench/featurebench"
	"github.com/faultline-dev/faultline/bench/internal/twice"
)

func TestProgramDeterminism(t *testing.T) {
	twice.SkipUnlessFull(t)
	featurebench.ProgramDeterminism(t, func(t *testing.T) featurebench.Subject { return featurebench.Debian(t, "pyflakes") })
}
