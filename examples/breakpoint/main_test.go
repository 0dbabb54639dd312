package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/task"
)

// runCLI runs the command in-process and returns the task records' bytes.
func runCLI(t *testing.T, args ...string) (records, swe []byte) {
	t.Helper()
	dir := t.TempDir()
	out, sweOut := filepath.Join(dir, "tasks.jsonl"), filepath.Join(dir, "swe.jsonl")
	var stdout, stderr bytes.Buffer
	args = append(args, "-out", out, "-swe", sweOut)
	if code := run(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("breakpoint %s: exit %d\n%s", strings.Join(args, " "), code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "wrote ") {
		t.Errorf("no summary on stdout:\n%s", stdout.String())
	}
	records, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	swe, err = os.ReadFile(sweOut)
	if err != nil {
		t.Fatal(err)
	}
	return records, swe
}

func TestSameSeedSameBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the sample's tests")
	}
	sample, err := filepath.Abs("../sample")
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"remove", "discovery"} {
		t.Run(mode, func(t *testing.T) {
			args := []string{"-repo", sample, "-mode", mode, "-n", "2", "-seed", "3", "-top", "0", "-commit", "abc123"}
			first, firstSWE := runCLI(t, args...)
			// A different worker count must not change the output either.
			second, secondSWE := runCLI(t, append(args, "-jobs", "1")...)
			if !bytes.Equal(first, second) || !bytes.Equal(firstSWE, secondSWE) {
				t.Fatalf("same seed, different output:\n%s\n---\n%s", first, second)
			}
			var problems []task.BreakpointProblem
			err := task.ReadJSONL(bytes.NewReader(first), func(line int, p task.BreakpointProblem) error {
				problems = append(problems, p)
				return p.Validate()
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(problems) != 2 {
				t.Fatalf("%d records, want 2", len(problems))
			}
			for _, p := range problems {
				if p.Mode != mode || p.Repo != "sample" || p.Commit != "abc123" || p.Seed != 3 {
					t.Errorf("%s: mode %q repo %q commit %q seed %d", p.ID, p.Mode, p.Repo, p.Commit, p.Seed)
				}
				min := 5
				if mode == "discovery" {
					min = 2
				}
				if len(p.FailToPass) < min || len(p.PassToPass) == 0 {
					t.Errorf("%s: %d FAIL_TO_PASS, %d PASS_TO_PASS", p.ID, len(p.FailToPass), len(p.PassToPass))
				}
				if mode == "remove" && p.Rule != "remove" || mode == "discovery" && p.Rule == "remove" {
					t.Errorf("%s: rule %q in %s mode", p.ID, p.Rule, mode)
				}
				if _, err := task.ParsePatch([]byte(p.GoldPatch)); err != nil {
					t.Errorf("%s: gold patch: %v", p.ID, err)
				}
			}
			var n int
			err = task.ReadJSONL(bytes.NewReader(firstSWE), func(line int, s task.SWEInstance) error {
				p := problems[n]
				n++
				if s.InstanceID != p.ID || s.Patch != p.GoldPatch || s.BaseCommit != "abc123" || len(s.FailToPass) != len(p.FailToPass) {
					t.Errorf("SWE instance %d does not match its task: %+v", line, s)
				}
				return nil
			})
			if err != nil || n != len(problems) {
				t.Fatalf("SWE instances: %d read, err %v", n, err)
			}
		})
	}
}

func TestBadArguments(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no repo", nil, 2, "-repo DIR is required"},
		{"positional", []string{"-repo", ".", "x"}, 2, "no positional arguments"},
		{"missing dir", []string{"-repo", "/nonexistent/dir"}, 1, "is not a directory"},
		{"bad mode", []string{"-repo", ".", "-mode", "chaos"}, 1, `unknown -mode "chaos"`},
		{"bad lang", []string{"-repo", ".", "-lang", "cobol"}, 1, `unknown -lang "cobol"`},
		{"no sources", []string{"-repo", t.TempDir()}, 1, "neither a go.mod nor Python files"},
		{"bad env", []string{"-repo", ".", "-env", "NOEQUALS"}, 2, `want KEY=VALUE, got "NOEQUALS"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), c.args, &stdout, &stderr)
			if code != c.code || !strings.Contains(stderr.String(), c.msg) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, stderr.String(), c.code, c.msg)
			}
		})
	}
}

// goRepo writes a one-package Go module whose test file is testSrc.
func goRepo(t *testing.T, testSrc string) string {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.22\n",
		"m.go":   "package m\n\nfunc Sum(xs []int) int {\n\ts := 0\n\tfor _, x := range xs {\n\t\tif x > 0 {\n\t\t\ts += x\n\t\t}\n\t}\n\treturn s\n}\n\nfunc Twice(xs []int) int {\n\ta := Sum(xs)\n\tb := Sum(xs)\n\tc := a + b\n\treturn c\n}\n",
	}
	if testSrc != "" {
		files["m_test.go"] = testSrc
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(root, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestBadRepositories(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on small modules")
	}
	for _, c := range []struct {
		name, test string
		args       []string
		msg        []string
	}{
		{"baseline not green", "package m\n\nimport \"testing\"\n\nfunc TestSum(t *testing.T) {\n\tif Sum([]int{1, 2}) != 3 {\n\t\tt.Fatal(\"sum\")\n\t}\n}\n\nfunc TestBroken(t *testing.T) { t.Fatal(\"already broken\") }\n",
			nil, []string{"1 test(s) fail on the clean repository", "example.com/m.TestBroken", "baseline not green"}},
		{"no tests", "", nil, []string{"baseline run did not run", "the repository has no tests to run"}},
		{"slower than the limit", "package m\n\nimport (\n\t\"testing\"\n\t\"time\"\n)\n\nfunc TestSlow(t *testing.T) { time.Sleep(time.Minute) }\n",
			[]string{"-timeout", "3s"}, []string{"slower than -timeout"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"-repo", goRepo(t, c.test), "-out", filepath.Join(t.TempDir(), "x.jsonl")}, c.args...)
			var stdout, stderr bytes.Buffer
			start := time.Now()
			code := run(context.Background(), args, &stdout, &stderr)
			if code != 1 {
				t.Fatalf("exit %d, want 1\n%s", code, stderr.String())
			}
			for _, m := range c.msg {
				if !strings.Contains(stderr.String(), m) {
					t.Errorf("stderr lacks %q:\n%s", m, stderr.String())
				}
			}
			if d := time.Since(start); d > 50*time.Second {
				t.Errorf("took %v: the time limit did not stop the run", d)
			}
		})
	}
}
