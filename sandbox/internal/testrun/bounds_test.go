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
	"time"

	"github.com/faultline-dev/faultline/task"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// HarnessRSSBound is the documented bound on the peak resident memory of a process that
// reads one attempt's output through AttemptOutput (with the default limits), however much
// the tested code writes into its streams and files.
const HarnessRSSBound = 200 << 20

const rssHelperEnv = "FAULTLINE_RSS_HELPER"

const gib = 1 << 30

// defaultLimits are the limits sandbox.FillLimits gives a request that sets none: the
// sandbox package's defaults, written out because this package cannot import sandbox.
func defaultLimits() task.Limits {
	return task.Limits{Timeout: 10 * time.Minute, OutputBytes: 1 << 20, MemoryBytes: 8 << 30, MessageLen: DefaultMessageLen}
}

// repeatReader yields n bytes: head, then body repeated, then tail.
type repeatReader struct {
	head, body, tail []byte
	n                int64 // bytes of body still to give
	pos              int
	stage            int
}

func newRepeat(head, body, tail string, n int64) *repeatReader {
	return &repeatReader{head: []byte(head), body: []byte(body), tail: []byte(tail), n: n}
}

func (r *repeatReader) Read(p []byte) (int, error) {
	for {
		switch r.stage {
		case 0:
			if r.pos < len(r.head) {
				n := copy(p, r.head[r.pos:])
				r.pos += n
				return n, nil
			}
			r.stage, r.pos = 1, 0
		case 1:
			if r.n > 0 {
				chunk := r.body[r.pos:]
				if int64(len(chunk)) > r.n {
					chunk = chunk[:r.n]
				}
				n := copy(p, chunk)
				r.pos = (r.pos + n) % len(r.body)
				r.n -= int64(n)
				return n, nil
			}
			r.stage, r.pos = 2, 0
		case 2:
			if r.pos < len(r.tail) {
				n := copy(p, r.tail[r.pos:])
				r.pos += n
				return n, nil
			}
			return 0, io.EOF
		}
	}
}

// TestHarnessMemoryHelper is the child process of TestHarnessMemoryBound.
func TestHarnessMemoryHelper(t *testing.T) {
	mode := os.Getenv(rssHelperEnv)
	if mode == "" {
		t.Skip("run by TestHarnessMemoryBound in a child process")
	}
	lim := defaultLimits()
	switch mode {
	case "go":
		out := NewAttemptOutput(task.GoTest, Attempt{Limits: lim})
		w := out.Stdout
		io.WriteString(w, `{"Action":"start","Package":"p"}`+"\n"+`{"Action":"run","Package":"p","Test":"TestBig"}`+"\n")
		// 1 GiB in one line (a test printing without a newline, or a forged event).
		io.Copy(w, newRepeat(`{"Action":"output","Package":"p","Test":"TestBig","Output":"`, strings.Repeat("x", 64<<10), "\"}\n", gib))
		// 256 MiB of well-formed output events for the same test (decoding them is the
		// slow part; what is kept does not grow with their number).
		line := `{"Action":"output","Package":"p","Test":"TestBig","Output":"` + strings.Repeat("y", 4000) + `\n"}` + "\n"
		io.Copy(w, newRepeat("", strings.Repeat(line, 16), "", gib/4))
		io.WriteString(w, `{"Action":"fail","Package":"p","Test":"TestBig"}`+"\n"+`{"Action":"output","Package":"p","Output":"FAIL\n"}`+"\n"+`{"Action":"fail","Package":"p"}`+"\n")
		res := out.Result(1, false, 0, nil, nil, nil)
		rep := BuildReport(task.GoTest, task.Selection{}, lim, res)
		r, _ := rep.Result("p.TestBig")
		fmt.Printf("RESULT %s %s %d %d\n", rep.State, r.Outcome, len(r.Message), len(rep.Output))
	case "pytest":
		out := NewAttemptOutput(task.Pytest, Attempt{Limits: lim})
		// 1 GiB on stdout in 64 KiB lines that look like -rA lines.
		io.Copy(out.Stdout, newRepeat("", "PASSED t.py::"+strings.Repeat("z", 64<<10)+"\n", "", gib))
		// A JUnit file whose one <failure> holds 1 GiB, and an event file with a 1 GiB line.
		junit := newRepeat(`<testsuites><testsuite><testcase classname="t" name="test_a" file="t.py"><failure message="m">`,
			strings.Repeat("f&amp;", 8192), `</failure></testcase></testsuite></testsuites>`, gib)
		events := newRepeat(`{"e":"start","id":"t.py::test_a","msg":"`, strings.Repeat("e", 64<<10), "\"}\n", gib)
		res := out.Result(1, false, 0, nil, junit, events)
		rep := BuildReport(task.Pytest, task.Selection{}, lim, res)
		jr := res.junit
		fmt.Printf("RESULT %s junit=%v tests=%d truncated=%v msg=%d output=%d\n", rep.State, res.junitErr, len(jr.Tests), jr.Truncated, len(jr.Tests[0].Message), len(rep.Output))
	default:
		t.Fatalf("unknown helper mode %q", mode)
	}
}

// TestHarnessMemoryBound feeds 1.25 GiB through the Go stream parser (a 1 GiB line, 256 MiB
// of events) and 1 GiB into each of
// pytest's stdout, JUnit file and event file, in a child process, and checks the child's
// peak RSS against HarnessRSSBound.
func TestHarnessMemoryBound(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 3 GiB of generated output")
	}
	for _, mode := range []string{"go", "pytest"} {
		t.Run(mode, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestHarnessMemoryHelper$", "-test.count=1", "-test.v")
			cmd.Env = append(os.Environ(), rssHelperEnv+"="+mode)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			require.NoError(t, cmd.Run(), out.String())
			require.Contains(t, out.String(), "RESULT ")
			rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss * 1024
			line := out.String()[strings.Index(out.String(), "RESULT "):]
			line = line[:strings.IndexByte(line, '\n')]
			t.Logf("%s: peak RSS %d MiB (bound %d MiB): %s", mode, rss>>20, HarnessRSSBound>>20, line)
			assert.Less(t, rss, int64(HarnessRSSBound))
			if testing.Verbose() {
				fmt.Println(line)
			}
			switch mode {
			case "go":
				assert.Contains(t, line, "RESULT untrusted fail", "the 1 GiB line is not an event of the go command")
			case "pytest":
				assert.Contains(t, line, "junit=<nil> tests=1 truncated=true")
			}
		})
	}
}
