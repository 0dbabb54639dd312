package testrun

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/faultline-dev/faultline/task"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const listHelperEnv = "FAULTLINE_LIST_RSS_HELPER"

// TestListMemoryHelper is the child process of TestListMemoryBound: it reads a discovery
// stream the way Local.List does (a Capture of Limits.OutputBytes feeding the list parser)
// while the tested binary prints 640 MiB: a 512 MiB line, then 128 MiB of well-formed listing
// events naming distinct tests.
func TestListMemoryHelper(t *testing.T) {
	if os.Getenv(listHelperEnv) == "" {
		t.Skip("run by TestListMemoryBound in a child process")
	}
	lim := defaultLimits()
	lp := newListParser(task.GoTest)
	stdout := NewCapture(lim.OutputBytes, func(p []byte) { lp.Write(p) })
	io.Copy(stdout, newRepeat(`{"Action":"output","Package":"p","Output":"`, strings.Repeat("x", 64<<10), "\"}\n", gib/2))
	name := strings.Repeat("N", 4000)
	var buf bytes.Buffer
	for i := 0; buf.Len() < 4<<20; i++ {
		fmt.Fprintf(&buf, `{"Action":"output","Package":"p","Output":"Test%s%d\n"}`+"\n", name, i)
	}
	for n := 0; n < gib/8; n += buf.Len() {
		stdout.Write(buf.Bytes())
	}
	lp.Close()
	ids, err := lp.result("", 0, lim.MessageLen)
	fmt.Printf("RESULT ids=%d err=%v\n", len(ids), err)
}

// TestListMemoryBound checks that listing output of any size keeps the harness under
// HarnessRSSBound, and that a listing naming more than the bounds fails (ErrListFailed)
// instead of returning a partial list.
func TestListMemoryBound(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 640 MiB of generated output")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestListMemoryHelper$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), listHelperEnv+"=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Run(), out.String())
	s := out.String()
	require.Contains(t, s, "RESULT ")
	line := s[strings.Index(s, "RESULT "):]
	line = line[:strings.IndexByte(line, '\n')]
	rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss * 1024
	t.Logf("peak RSS %d MiB (bound %d MiB): %s", rss>>20, HarnessRSSBound>>20, line)
	assert.Less(t, rss, int64(HarnessRSSBound))
	assert.Contains(t, line, "RESULT ids=0 err=sandbox: the test listing names more than")
}
