package stats

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestDependencies enforces DESIGN.md's rule for this package: stats imports the standard
// library and gonum only (no module package, no other third-party code), and it builds
// without cgo. stats/plot may add gonum.org/v1/plot and its own dependencies.
func TestDependencies(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go command not found")
	}
	cmd := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, p := range strings.Fields(string(out)) {
		if p == "github.com/faultline-dev/faultline/stats" || strings.HasPrefix(p, "gonum.org/v1/gonum/") {
			continue
		}
		t.Errorf("stats depends on %s", p)
	}
}
