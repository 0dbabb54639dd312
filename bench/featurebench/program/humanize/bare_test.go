package humanize

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/faultline-dev/faultline/bench/featurebench"
	"github.com/faultline-dev/faultline/bench/internal/twice"
	"github.com/faultline-dev/faultline/internal/cli/clitest"
	"github.com/faultline-dev/faultline/task"
)

// TestBareTestIDs runs the featurebench program with -swe-test-ids bare on go-humanize
// (Level 1 and 2): every id in instances.jsonl is a bare test name that test_packages maps
// to the module's packages, and -check re-verifies the Level 2 instances from those
// bare ids (it restores the full ids before running).
func TestBareTestIDs(t *testing.T) {
	twice.Skip(t)
	s := featurebench.GoModule(t, "dustin/go-humanize", "github.com/dustin/go-humanize@v1.0.1")
	bin := twice.Build(t, "github.com/faultline-dev/faultline/examples/featurebench")
	root := s.Copy(t)
	out := filepath.Join(clitest.TempDir(t), "out")
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Env = os.Environ()
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		require.NoError(t, cmd.Run(), "featurebench %v:\n%s", args, stderr.String())
		return stderr.String()
	}
	args := []string{"-repo", root, "-out", out, "-n", "1", "-seed", strconv.Itoa(featurebench.Seed), "-level", "1,2", "-swe-test-ids", "bare"}
	for _, e := range s.Env {
		args = append(args, "-env", e)
	}
	run(args...)
	f, err := os.Open(filepath.Join(out, "instances.jsonl"))
	require.NoError(t, err)
	defer f.Close()
	insts, err := task.ReadAllJSONL[task.SWEInstance](f)
	require.NoError(t, err)
	require.Len(t, insts, 2, "one item at Level 1 and 2")
	for _, inst := range insts {
		require.NotEmpty(t, inst.FailToPass)
		require.Contains(t, inst.Extra, task.TestPackagesKey, inst.InstanceID)
		for _, id := range append(append(task.TestList{}, inst.FailToPass...), inst.PassToPass...) {
			require.True(t, strings.HasPrefix(id, "Test") || strings.HasPrefix(id, "Example") || strings.HasPrefix(id, "Fuzz"), "%s: %q is not a bare test name", inst.InstanceID, id)
		}
		full := inst
		require.NoError(t, full.FullGoTestIDs())
		for _, id := range full.FailToPass {
			pkg, _, ok := task.SplitGoTestID(id)
			require.True(t, ok, id)
			require.True(t, strings.HasPrefix(pkg, "github.com/dustin/go-humanize"), id)
		}
	}
	checkArgs := []string{"-check", out}
	for _, e := range s.Env {
		checkArgs = append(checkArgs, "-env", e)
	}
	stderr := run(checkArgs...)
	require.Contains(t, stderr, "0 Level 1 and 1 Level 2 instances checked")
}
