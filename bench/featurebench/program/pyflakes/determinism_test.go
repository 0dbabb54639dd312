// Package pyflakes runs featurebench.ProgramDeterminism on Debian's python3-pyflakes.
package pyflakes

import (
	"testing"

	"github.com/faultline-dev/faultline/bench/featurebench"
)

func TestProgramDeterminism(t *testing.T) {
	featurebench.ProgramDeterminism(t, func(t *testing.T) featurebench.Subject { return featurebench.Debian(t, "pyflakes") })
}
