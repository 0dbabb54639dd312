// Package humanize runs featurebench.ProgramDeterminism on github.com/dustin/go-humanize.
package humanize

import (
	"testing"

	"github.com/faultline-dev/faultline/bench/featurebench"
)

func TestProgramDeterminism(t *testing.T) {
	featurebench.ProgramDeterminism(t, func(t *testing.T) featurebench.Subject {
		return featurebench.GoModule(t, "dustin/go-humanize", "github.com/dustin/go-humanize@v1.0.1")
	})
}
