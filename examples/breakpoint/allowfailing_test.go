package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/internal/acceptance"
	"github.com/faultline-dev/faultline/task"
)

// TestAllowFailingBitarray: Debian's python3-bitarray ships tests that fail on its own
// build (InternalTests need a debug build of the C extension). Without -allow-failing the
// package is refused and the message names the flag; with it, the run keeps tasks whose
// FAIL_TO_PASS and PASS_TO_PASS hold none of the clean-failing tests, and a second run
// with the same seed writes the same bytes.
func TestAllowFailingBitarray(t *testing.T) {
	acceptance.Skip(t, "runs the breakpoint program three times on Debian's bitarray")
	dir := "/usr/lib/python3/dist-packages/bitarray"
	if _, err := os.Stat(filepath.Join(dir, "test_bitarray.py")); err != nil {
		t.Skip("python3-bitarray is not installed (apt-get install -y python3-bitarray)")
	}
	if err := exec.Command("/usr/bin/python3", "-c", "import pytest").Run(); err != nil {
		t.Skip("needs /usr/bin/python3 with pytest (apt-get install python3-pytest)")
	}
	base := []string{"-repo", dir, "-python", "/usr/bin/python3", "-n", "2", "-seed", "3", "-top", "0", "-cache", "off"}

	var stderr bytes.Buffer
	if code := run(context.Background(), append(base, "-out", filepath.Join(t.TempDir(), "x.jsonl")), &bytes.Buffer{}, &stderr); code != 1 ||
		!strings.Contains(stderr.String(), "fail on the clean tree") || !strings.Contains(stderr.String(), "-allow-failing") {
		t.Fatalf("without -allow-failing: exit %d, want 1 and a message naming the flag\n%s", code, stderr.String())
	}

	outs := make([][]byte, 2)
	for i := range outs {
		out := filepath.Join(t.TempDir(), "tasks.jsonl")
		stderr.Reset()
		if code := run(context.Background(), append(base, "-allow-failing", "-out", out), &bytes.Buffer{}, &stderr); code != 0 {
			t.Fatalf("-allow-failing: exit %d\n%s", code, stderr.String())
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		outs[i] = b
	}
	// The clean-failing tests, as the run named them.
	failing := []string{}
	for _, line := range strings.Split(stderr.String(), "\n") {
		if i := strings.Index(line, "fail on the clean tree (e.g. "); i >= 0 {
			failing = append(failing, strings.Split(strings.SplitN(line[i+len("fail on the clean tree (e.g. "):], ")", 2)[0], ", ")...)
		}
	}
	if len(failing) == 0 {
		t.Fatalf("the run did not name the clean-failing tests:\n%s", stderr.String())
	}
	// The message names a few of them; the baseline's count bounds the rest: a task's lists
	// hold distinct baseline-passing tests only, so never more than that count.
	var passing, nfail int
	if m := regexp.MustCompile(`baseline: (\d+) passing, (\d+) failing`).FindStringSubmatch(stderr.String()); m != nil {
		passing, _ = strconv.Atoi(m[1])
		nfail, _ = strconv.Atoi(m[2])
	}
	if passing == 0 || nfail == 0 {
		t.Fatalf("the run did not report a baseline with passing and failing tests:\n%s", stderr.String())
	}
	n := 0
	err := task.ReadJSONL(bytes.NewReader(outs[0]), func(_ int, p task.BreakpointProblem) error {
		n++
		if len(p.FailToPass) == 0 {
			t.Errorf("task %s has no FAIL_TO_PASS", p.ID)
		}
		listed := append(append([]string(nil), p.FailToPass...), p.PassToPass...)
		for _, id := range listed {
			if slices.Contains(failing, id) {
				t.Errorf("task %s lists the clean-failing test %s", p.ID, id)
			}
		}
		if distinct := len(slices.Compact(slices.Sorted(slices.Values(listed)))); distinct != len(listed) || len(listed) > passing {
			t.Errorf("task %s lists %d tests (%d distinct); the baseline has %d passing", p.ID, len(listed), distinct, passing)
		}
		return nil
	})
	if err != nil || n != 2 {
		t.Fatalf("want 2 task records, read %d (%v)", n, err)
	}
	if !bytes.Equal(outs[0], outs[1]) {
		t.Error("two runs with the same seed wrote different tasks")
	}
}
