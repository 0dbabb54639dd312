package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/internal/acceptance"
)

// TestImpactFlag: -impact on and -impact off write byte-identical tasks for a Python
// package (impact validation only skips whole-suite runs of candidates it rejects), and
// the run with the impact says it recorded one; a bad value is refused naming the flag.
func TestImpactFlag(t *testing.T) {
	acceptance.Skip(t, "runs the breakpoint program twice on a Python package")
	if err := exec.Command("/usr/bin/python3", "-c", "import pytest").Run(); err != nil {
		t.Skip("needs /usr/bin/python3 with pytest (apt-get install python3-pytest)")
	}
	pkg := pyPackage(t, "faultline_impactpkg")
	outs := map[string][]byte{}
	for _, mode := range []string{"on", "off"} {
		out := filepath.Join(t.TempDir(), "tasks.jsonl")
		var stdout, stderr bytes.Buffer
		args := []string{"-repo", pkg, "-python", "/usr/bin/python3", "-n", "2", "-min-failures", "2", "-top", "0", "-out", out, "-impact", mode}
		if code := run(context.Background(), args, &stdout, &stderr); code != 0 {
			t.Fatalf("-impact %s: exit %d\n%s", mode, code, stderr.String())
		}
		if recorded := strings.Contains(stderr.String(), "test group(s) recorded"); recorded != (mode == "on") {
			t.Errorf("-impact %s: recorded=%v\n%s", mode, recorded, stderr.String())
		}
		// The recording phase counts its runs (it said "0 done" for its whole length).
		if steps := strings.Contains(stderr.String(), "recording which tests run which functions (-impact off skips this): 1/"); steps != (mode == "on") {
			t.Errorf("-impact %s: recording steps printed=%v\n%s", mode, steps, stderr.String())
		}
		b, err := os.ReadFile(out)
		if err != nil || len(b) == 0 {
			t.Fatalf("-impact %s: no tasks (%v)", mode, err)
		}
		outs[mode] = b
	}
	if !bytes.Equal(outs["on"], outs["off"]) {
		t.Errorf("tasks differ:\n-impact on:\n%s\n-impact off:\n%s", outs["on"], outs["off"])
	}
	var stderr bytes.Buffer
	if code := run(context.Background(), []string{"-repo", pkg, "-impact", "maybe"}, &bytes.Buffer{}, &stderr); code != 2 || !strings.Contains(stderr.String(), "-impact \"maybe\"") {
		t.Errorf("-impact maybe: exit %d, stderr %s", code, stderr.String())
	}
}
