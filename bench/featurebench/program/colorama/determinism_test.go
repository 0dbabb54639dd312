// Package colorama runs featurebench.PackageDirDeterminism on Debian's python3-colorama, pointed at as
// a package directory (held out: no test or tuning here used it before).
package colorama

import (
	"testing"

	"github.com/faultline-dev/faultline/bench/featurebench"
)

func TestPackageDirDeterminism(t *testing.T) {
	featurebench.PackageDirDeterminism(t, "colorama", 2)
}
