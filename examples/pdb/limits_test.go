package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/sandbox"
	"github.com/faultline-dev/faultline/task"
)

// Without -timeout, compose times the correct program's run and derives the mutants' limits
// from it (sandbox.DeriveLimits): a fast program's mutants get seconds, not a fixed minute.
// A positive -timeout bounds every limit.
func TestComposeDerivedLimits(t *testing.T) {
	prog := writeFile(t, "calc.py", "def calc(xs):\n    total = sum(xs)\n    return total / len(xs)")
	repo := t.TempDir()
	src, _ := os.ReadFile(prog)
	os.WriteFile(filepath.Join(repo, "want.py"), src, 0o644)
	tests := `cmp -s {program} want.py`
	args := []string{"compose", "-program", prog, "-repo", repo, "-tests", tests, "-m1", "2", "-m3", "1", "-k-max", "1", "-cache", "off"}
	code, _, stderr := runPDB(context.Background(), args...)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	// The correct program's run takes well under a second here: 2× it + 10 s, 4× it + 1 min.
	re := regexp.MustCompile(`pdb compose: time limits: the correct program's run 30m0s, a mutant's run 1[01]s, its retry 1m[0-9]s\n`)
	if !re.MatchString(stderr) {
		t.Errorf("derived limits not said, or not derived from the run:\n%s", stderr)
	}
	code, _, stderr = runPDB(context.Background(), append(args, "-timeout", "5s")...)
	if code != 0 || !strings.Contains(stderr, "pdb compose: time limits: the correct program's run 5s, a mutant's run 5s, its retry 5s\n") {
		t.Errorf("-timeout 5s: exit %d, limits not bounded by it:\n%s", code, stderr)
	}
}

// A run stopped at the limit runs once more at the retry limit, and the second verdict is
// the answer: a program slower than the first limit but within the retry passes; one that
// hangs is a timeout naming the retry limit.
func TestOracleRetriesTimeouts(t *testing.T) {
	local := sandbox.NewLocal(sandbox.Options{Jobs: 2})
	defer local.Close()
	ctx := context.Background()
	for _, c := range []struct {
		name, cmd      string
		timeout, retry time.Duration
		want           task.Outcome
		detail         string
	}{
		{"slow, within the retry", "sleep 2", time.Second, 20 * time.Second, task.Pass, ""},
		{"slow, no retry", "sleep 2", time.Second, 0, task.Timeout, "time limit of 1s"},
		{"hangs", "sleep 60", time.Second, 3 * time.Second, task.Timeout, "time limit of 3s"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := oracleConfig{cmd: c.cmd, root: t.TempDir(), name: "p.py", python: "python3", timeout: c.timeout, retry: c.retry}
			v, err := (&runOracle{cfg: cfg, runner: local, taskID: "t"}).Verdict(ctx, "x = 1\n")
			if err != nil {
				t.Fatal(err)
			}
			if v.Outcome != c.want || !strings.Contains(v.Detail, c.detail) {
				t.Errorf("verdict %+v, want %s (%q)", v, c.want, c.detail)
			}
		})
	}
}
