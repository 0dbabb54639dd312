package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/acceptance"
	"github.com/faultline-dev/faultline/task"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runRSSBound is the documented bound on the harness's peak RSS (the package doc, Evidence;
// testrun's HarnessRSSBound) while a run floods its output.
const runRSSBound = 200 << 20

const runRSSHelperEnv = "FAULTLINE_RUN_RSS_HELPER"

// TestRunMemoryHelper is the child process of TestRunMemoryBound: one Local run of
// testdata/hostile/flood of the kind named by the environment.
func TestRunMemoryHelper(t *testing.T) {
	mode := os.Getenv(runRSSHelperEnv)
	if mode == "" {
		t.Skip("run by TestRunMemoryBound in a child process")
	}
	root, _ := hostileFixture(t)
	// The quota holds pytest's capture of the 1 GiB (a file in TMPDIR) besides the tree.
	l := NewLocal(Options{Jobs: 1, DiskBytes: 3 << 30, Env: []string{"HOSTILE_FLOOD_MB=1024"}})
	defer l.Close()
	req := task.RunRequest{Root: root, Kind: task.GoTest, Select: task.Selection{Files: []string{"flood"}}, Limits: task.Limits{Timeout: 20 * time.Minute}}
	id := "example.com/hostile/flood.TestFlood"
	if mode == "pytest" {
		req.Kind, req.Select.Files, id = task.Pytest, []string{"flood/test_flood.py"}, "flood/test_flood.py::test_flood"
	}
	rep, err := l.Run(context.Background(), req)
	require.NoError(t, err)
	tr, _ := rep.Result(id)
	// The harness's own peak (VmHWM): the rusage of this process as its parent sees it would
	// include the go command, the test binary and pytest, all descendants.
	status, err := os.ReadFile("/proc/self/status")
	require.NoError(t, err)
	hwm := ""
	for _, l := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			hwm = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB"))
		}
	}
	fmt.Printf("RESULT %s %s output=%d message=%d hwm-kB=%s\n", rep.State, tr.Outcome, len(rep.Output), len(tr.Message), hwm)
}

// TestRunMemoryBound runs a Go test and a pytest test that each write 1 GiB to stdout
// through Local, end to end (the go command's -json stream, pytest's stdout), in a child
// process, and checks that process's own peak RSS (VmHWM) against the documented bound;
// the failing test keeps its verdict. testrun's TestHarnessMemoryBound feeds the JUnit and event files.
func TestRunMemoryBound(t *testing.T) {
	acceptance.Skip(t, "writes 1 GiB through a Go and a pytest run")
	needGo(t)
	for _, mode := range []string{"go", "pytest"} {
		t.Run(mode, func(t *testing.T) {
			if mode == "pytest" {
				needPytest(t)
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestRunMemoryHelper$", "-test.count=1", "-test.v")
			cmd.Env = append(os.Environ(), runRSSHelperEnv+"="+mode)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			require.NoError(t, cmd.Run(), out.String())
			i := strings.Index(out.String(), "RESULT ")
			require.GreaterOrEqual(t, i, 0, out.String())
			line, _, _ := strings.Cut(out.String()[i:], "\n")
			_, hwm, ok := strings.Cut(line, "hwm-kB=")
			require.True(t, ok, line)
			kb, err := strconv.ParseInt(hwm, 10, 64)
			require.NoError(t, err, line)
			tree := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss * 1024
			t.Logf("%s: harness peak RSS %d MiB (bound %d MiB; largest process of the run %d MiB): %s", mode, kb>>10, runRSSBound>>20, tree>>20, line)
			assert.Less(t, kb<<10, int64(runRSSBound))
			assert.True(t, strings.HasPrefix(line, "RESULT ok fail "), line)
		})
	}
}
