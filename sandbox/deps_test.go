package sandbox

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDependencies writes down DESIGN.md's rule for this package: sandbox imports the
// standard library and task only (task may use the module's internal packages), and builds
// without cgo.
func TestDependencies(t *testing.T) {
	needGo(t)
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").CombinedOutput()
	require.NoError(t, err, string(out))
	for _, p := range strings.Fields(string(out)) {
		ok := p == "github.com/faultline-dev/faultline/sandbox" || p == "github.com/faultline-dev/faultline/task" ||
			strings.HasPrefix(p, "github.com/faultline-dev/faultline/internal/")
		assert.True(t, ok, "sandbox must not depend on %s", p)
	}
	cmd := exec.Command("go", "build", "-o", "/dev/null", ".")
	cmd.Env = append(cmd.Environ(), "CGO_ENABLED=0")
	out, err = cmd.CombinedOutput()
	assert.NoError(t, err, "CGO_ENABLED=0 build: %s", out)
}
