package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/task"
)

// TestScoreContainsPrograms scores a prediction that, run by the oracle, writes the LLM key
// from its environment to a file of the host (issue 13's finding: score ran predictions on
// the host with the full environment). Through the sandbox the write fails; with
// -unsafe-host it may land, but the key is not in the environment the program gets. The key
// appears nowhere in score's output either way.
func TestScoreContainsPrograms(t *testing.T) {
	secret := fmt.Sprintf("sk-pdb-contain-%d-%d", os.Getpid(), time.Now().UnixNano())
	t.Setenv("OPENAI_API_KEY", secret)
	buggy := strings.Replace(fixed, "x + 1", "x - 1", 1)
	for _, unsafe := range []bool{false, true} {
		t.Run(fmt.Sprintf("unsafe-host=%v", unsafe), func(t *testing.T) {
			dir := t.TempDir()
			if err := os.Chmod(dir, 0o777); err != nil { // only the sandbox may keep the program out
				t.Fatal(err)
			}
			leak := filepath.Join(dir, "leak")
			evil := fixed + "\n\nimport os\nopen(" + fmt.Sprintf("%q", leak) + ", 'w').write('key=' + os.environ.get('OPENAI_API_KEY', ''))\n"
			in := writeFile(t, "ex.jsonl", jsonl(t, example("evil", buggy, fixed, evil)))
			args := []string{"-in", in, "-oracle-cmd", "{python} {program}", "-timeout", "60s"}
			if unsafe {
				args = append(args, "-unsafe-host")
			}
			out, raw, stderr := runScore(t, args...)
			// The program ran: its write failed in the sandbox (a failing verdict) and
			// succeeded on the host.
			if want := map[bool]task.Outcome{false: task.Fail, true: task.Pass}[unsafe]; len(out) == 0 || out[0].UnitOutcome != want {
				t.Errorf("want the unit outcome %s:\n%s\n%s", want, raw, stderr)
			}
			if strings.Contains(raw+stderr, secret) {
				t.Errorf("the key reached score's output:\n%s\n%s", raw, stderr)
			}
			got, err := os.ReadFile(leak)
			switch {
			case err == nil && strings.Contains(string(got), secret):
				t.Errorf("the program read the key from its environment: %q", got)
			case err == nil && !unsafe:
				t.Errorf("the sandboxed program wrote the host's %s: %q", leak, got)
			case err == nil:
				t.Logf("-unsafe-host: the program wrote %q (no key)", got)
			case !os.IsNotExist(err):
				t.Fatal(err)
			}
		})
	}
}
