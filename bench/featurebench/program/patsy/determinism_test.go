// Package patsy runs featurebench.PackageDirDeterminism on Debian's python3-patsy, pointed at as
// a package directory (held out: no test or tuning here used it before).
package patsy

import (
	"testing"

	"github.com/faultline-dev/faultline/bench/featurebench"
	"github.com/faultline-dev/faultline/bench/internal/twice"
)

func TestPackageDirDeterminism(t *testing.T) {
	twice.SkipUnlessFull(t)
	featurebench.PackageDirDeterminism(t, "patsy", 2)
}
