package programs

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/internal/acceptance"
	"github.com/faultline-dev/faultline/internal/cli/clitest"
)

// programs are the commands under examples/, each with the arguments of a -h that reaches
// its usage (pdb and analyze have subcommands).
var programs = []struct {
	name string
	help []string
}{
	{"analyze", []string{"logit", "-h"}},
	{"breakpoint", []string{"-h"}},
	{"callgraph", []string{"-h"}},
	{"doctor", []string{"-h"}},
	{"featurebench", []string{"-h"}},
	{"pdb", []string{"score", "-h"}},
	{"solve", []string{"-h"}},
}

// build compiles every program into one temporary directory.
func build(t *testing.T) string {
	t.Helper()
	bin := t.TempDir()
	args := []string{"build", "-o", bin + string(filepath.Separator)}
	for _, p := range programs {
		args = append(args, "github.com/faultline-dev/faultline/examples/"+p.name)
	}
	if out, err := exec.Command("go", args...).CombinedOutput(); err != nil {
		t.Fatalf("go %v: %v\n%s", args, err, out)
	}
	return bin
}

// run runs a program and returns its exit status, stdout and stderr.
func run(t *testing.T, bin, name, dir string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin, name), args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, stdout.String(), stderr.String()
	case errors.As(err, &exit):
		return exit.ExitCode(), stdout.String(), stderr.String()
	}
	t.Fatalf("%s %v: %v", name, args, err)
	return 0, "", ""
}

// TestConvention: -h exits 0 with the usage on stderr and nothing on stdout; an unknown
// flag exits 2 with stderr naming it and nothing on stdout; and -out - (doctor: -json) puts
// on stdout only JSON — one document or JSON lines — while the human messages go to
// stderr. featurebench writes a directory, so its -out - is a usage error.
func TestConvention(t *testing.T) {
	acceptance.Skip(t, "builds and runs every program (the quickstart sample, a Breakpoint task, a solve, a PDB score)")
	bin := build(t)
	work := clitest.TempDir(t)
	for _, p := range programs {
		t.Run(p.name, func(t *testing.T) {
			if len(p.help) > 1 {
				// A program with subcommands: -h before any of them lists them, on stderr.
				code, stdout, stderr := run(t, bin, p.name, work, "-h")
				if code != 0 || stdout != "" || !strings.Contains(stderr, p.help[0]) {
					t.Errorf("%s -h: exit %d, stdout %q, stderr %q; want 0, nothing, the commands", p.name, code, stdout, stderr)
				}
			}
			code, stdout, stderr := run(t, bin, p.name, work, p.help...)
			if code != 0 || stdout != "" || !strings.Contains(stderr, "-") {
				t.Errorf("%s %v: exit %d, stdout %q, stderr %q; want 0, nothing, the usage", p.name, p.help, code, stdout, stderr)
			}
			args := append(append([]string(nil), p.help[:len(p.help)-1]...), "-bogus")
			code, stdout, stderr = run(t, bin, p.name, work, args...)
			if code != 2 || stdout != "" || !strings.Contains(stderr, "-bogus") {
				t.Errorf("%s %v: exit %d, stdout %q, stderr %q; want 2, nothing, a message naming -bogus", p.name, args, code, stdout, stderr)
			}
		})
	}

	// The quickstart's sample, copied: no program may write into it.
	sample := filepath.Join(work, "sample")
	if out, err := exec.Command("cp", "-R", "../sample", sample).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v\n%s", err, out)
	}
	tasks := filepath.Join(work, "tasks.jsonl")
	abs := func(p string) string {
		a, err := filepath.Abs(p)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	machine := []struct {
		name  string
		args  []string
		lines bool // JSON lines (else one JSON document)
		save  string
	}{
		{"callgraph", []string{"-repo", sample, "-out", "-"}, false, ""},
		{"analyze", []string{"logit", "-in", abs("../../stats/testdata/functions.csv"), "-y", "tested", "-x", "code_lines,harmonic", "-json", "-out", "-"}, false, ""},
		{"doctor", []string{"-repo", sample, "-json", "-runs", "1"}, false, ""},
		{"breakpoint", []string{"-repo", sample, "-n", "1", "-out", "-"}, true, tasks},
		{"solve", []string{"-repo", sample, "-tasks", tasks, "-gold", "-out", "-"}, true, ""},
		{"pdb", []string{"score", "-in", abs("../pdb/testdata/release/debug_results_single.json"), "-oracle-cmd", "true", "-out", "-"}, true, ""},
	}
	for _, m := range machine {
		t.Run(m.name+" stdout", func(t *testing.T) {
			code, stdout, stderr := run(t, bin, m.name, work, m.args...)
			if code != 0 {
				t.Fatalf("%s %v: exit %d\n%s", m.name, m.args, code, stderr)
			}
			if strings.TrimSpace(stdout) == "" {
				t.Fatalf("%s %v: nothing on stdout", m.name, m.args)
			}
			if m.lines {
				sc := bufio.NewScanner(strings.NewReader(stdout))
				sc.Buffer(nil, 64<<20)
				for n := 1; sc.Scan(); n++ {
					if !json.Valid(sc.Bytes()) {
						t.Errorf("%s: stdout line %d is not JSON: %.200q", m.name, n, sc.Text())
					}
				}
			} else if !json.Valid([]byte(stdout)) {
				t.Errorf("%s: stdout is not one JSON document: %.300q", m.name, stdout)
			}
			if m.save != "" {
				if err := os.WriteFile(m.save, []byte(stdout), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
	code, stdout, stderr := run(t, bin, "featurebench", work, "-repo", sample, "-out", "-")
	if code != 2 || stdout != "" || !strings.Contains(stderr, "-out -") {
		t.Errorf("featurebench -out -: exit %d, stdout %q, stderr %q; want 2 naming -out", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(work, "-")); err == nil {
		t.Error("featurebench -out - made a directory named -")
	}
	if _, err := os.Stat(filepath.Join(sample, "tasks.jsonl")); err == nil {
		t.Error("a program wrote into the repository")
	}
}
