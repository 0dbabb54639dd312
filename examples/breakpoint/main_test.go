package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/cli/clitest"
	"github.com/faultline-dev/faultline/task"
)

// runCLI runs the command in-process and returns the task records' bytes.
func runCLI(t *testing.T, args ...string) (records, swe []byte) {
	records, swe, _ = runCLIMirror(t, args...)
	return records, swe
}

// runCLIMirror is runCLI that also returns the mirror directory (the default, beside -swe).
func runCLIMirror(t *testing.T, args ...string) (records, swe []byte, mirror string) {
	t.Helper()
	dir := t.TempDir()
	mirror = filepath.Join(dir, "swe.mirror.git")
	out, sweOut := filepath.Join(dir, "tasks.jsonl"), filepath.Join(dir, "swe.jsonl")
	var stdout, stderr bytes.Buffer
	args = append(args, "-out", out, "-swe", sweOut)
	if code := run(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("breakpoint %s: exit %d\n%s", strings.Join(args, " "), code, stderr.String())
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout carries more than the machine output:\n%s", stdout.String())
	}
	if !strings.Contains(stderr.String(), " task(s) after ") {
		t.Errorf("no summary on stderr:\n%s", stderr.String())
	}
	records, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	swe, err = os.ReadFile(sweOut)
	if err != nil {
		t.Fatal(err)
	}
	return records, swe, mirror
}

// verifyMirror clones the mirror and checks, for each instance, that its patch applies at its
// base_commit (`git apply --check`) and restores the clean tree (the analysed repository's
// files), and that base_commit is the task's branch and tag.
func verifyMirror(t *testing.T, mirror, repo string, insts []task.SWEInstance) {
	t.Helper()
	git := func(dir string, args ...string) string {
		t.Helper()
		out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	clone := filepath.Join(t.TempDir(), "clone")
	if out, err := exec.Command("git", "clone", "-q", mirror, clone).CombinedOutput(); err != nil || len(out) > 0 {
		t.Fatalf("git clone %s: %v\n%s", mirror, err, out)
	}
	for _, s := range insts {
		ref := "task/" + s.InstanceID
		if got := git(clone, "rev-parse", "origin/"+ref); got != s.BaseCommit {
			t.Errorf("%s: branch %s is %s, base_commit %s", s.InstanceID, ref, got, s.BaseCommit)
		}
		if got := git(clone, "rev-parse", ref+"^{commit}"); got != s.BaseCommit {
			t.Errorf("%s: tag %s is %s, base_commit %s", s.InstanceID, ref, got, s.BaseCommit)
		}
		git(clone, "checkout", "-q", s.BaseCommit)
		patch := filepath.Join(t.TempDir(), "gold.diff")
		if err := os.WriteFile(patch, []byte(s.Patch), 0o644); err != nil {
			t.Fatal(err)
		}
		git(clone, "apply", "--check", patch)
		git(clone, "apply", patch)
		for _, f := range strings.Fields(git(clone, "diff", "--name-only")) {
			want, err := os.ReadFile(filepath.Join(repo, f))
			got, err2 := os.ReadFile(filepath.Join(clone, f))
			if err != nil || err2 != nil || !bytes.Equal(want, got) {
				t.Errorf("%s: %s after the gold patch differs from the repository's (%v, %v)", s.InstanceID, f, err, err2)
			}
		}
		git(clone, "checkout", "-q", ".")
	}
}

// digest hashes every file below dir (paths and contents).
func digest(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		fmt.Fprintf(h, "%s %d\n", p, len(b))
		h.Write(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func TestSameSeedSameBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the sample's tests")
	}
	sample, err := filepath.Abs("../sample")
	if err != nil {
		t.Fatal(err)
	}
	before := digest(t, sample)
	for _, mode := range []string{"remove", "discovery"} {
		t.Run(mode, func(t *testing.T) {
			args := []string{"-repo", sample, "-mode", mode, "-n", "2", "-seed", "3", "-top", "0", "-commit", "abc123"}
			first, firstSWE, mirror := runCLIMirror(t, args...)
			// A different worker count must not change the output either (nor the mirror's
			// commit ids, which the instances carry).
			second, secondSWE, _ := runCLIMirror(t, append(args, "-jobs", "1")...)
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
			var insts []task.SWEInstance
			err = task.ReadJSONL(bytes.NewReader(firstSWE), func(line int, s task.SWEInstance) error {
				p := problems[n]
				n++
				if s.InstanceID != p.ID || s.Patch != p.GoldPatch || len(s.BaseCommit) != 40 || len(s.FailToPass) != len(p.FailToPass) {
					t.Errorf("SWE instance %d does not match its task: %+v", line, s)
				}
				insts = append(insts, s)
				return nil
			})
			if err != nil || n != len(problems) {
				t.Fatalf("SWE instances: %d read, err %v", n, err)
			}
			verifyMirror(t, mirror, sample, insts)
			if after := digest(t, sample); after != before {
				t.Error("the repository changed")
			}
		})
	}
}

// TestBadFlags: each bad flag is refused before any work (no call graph, no test run),
// with a message naming it and exit status 2, and nothing is written.
func TestBadFlags(t *testing.T) {
	repo := goRepo(t, "")
	dir := t.TempDir()
	out := filepath.Join(dir, "tasks.jsonl")
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	ok := []string{"-repo", repo, "-out", out}
	for _, c := range []struct {
		name string
		args []string
		msg  string
	}{
		{"no repo", []string{"-out", out}, "-repo DIR is required"},
		{"positional", append(ok, "x"), `unexpected argument "x"`},
		{"missing dir", []string{"-repo", "/nonexistent/dir", "-out", out}, "-repo /nonexistent/dir"},
		{"repo is a file", []string{"-repo", file, "-out", out}, "not a directory"},
		{"bad mode", append(ok, "-mode", "chaos"), `-mode "chaos"`},
		{"bad lang", append(ok, "-lang", "cobol"), `-lang "cobol"`},
		{"no sources", []string{"-repo", t.TempDir(), "-out", out}, "no Go, Python or JavaScript source files"},
		{"bad swe test ids", append(ok, "-swe", filepath.Join(dir, "s.jsonl"), "-swe-test-ids", "short"), `-swe-test-ids "short"`},
		{"mirror without swe", append(ok, "-mirror", filepath.Join(dir, "m.git")), "-mirror " + filepath.Join(dir, "m.git")},
		{"swe on stdout without mirror", append(ok, "-swe", "-"), "name the mirror with -mirror DIR"},
		{"mirror inside the repository", append(ok, "-swe", filepath.Join(dir, "s.jsonl"), "-mirror", filepath.Join(repo, "m.git")), "lies inside the repository"},
		{"mirror not a git repository", append(ok, "-swe", filepath.Join(dir, "s.jsonl"), "-mirror", filepath.Dir(repo)), "is not a bare git repository"},
		{"bad env", append(ok, "-env", "NOEQUALS"), `want KEY=VALUE, got "NOEQUALS"`},
		{"n zero", append(ok, "-n", "0"), "-n 0"},
		{"n negative", append(ok, "-n", "-3"), "-n -3"},
		{"multi zero", append(ok, "-multi", "0"), "-multi 0"},
		{"distance zero", append(ok, "-multi", "2", "-distance", "0"), "-distance 0"},
		{"min failures negative", append(ok, "-min-failures", "-1"), "-min-failures -1"},
		{"top negative", append(ok, "-top", "-1"), "-top -1"},
		{"jobs negative", append(ok, "-jobs", "-2"), "-jobs -2"},
		{"timeout zero", append(ok, "-timeout", "0s"), "-timeout 0s"},
		{"timeout negative", append(ok, "-timeout", "-5s"), "-timeout -5s"},
		{"n not a number", append(ok, "-n", "many"), "-n"},
		{"out empty", []string{"-repo", repo, "-out", ""}, "-out: empty path"},
		{"out a directory", []string{"-repo", repo, "-out", dir}, "is a directory"},
		{"out in a missing directory", []string{"-repo", repo, "-out", filepath.Join(dir, "no", "t.jsonl")}, "-out " + filepath.Join(dir, "no", "t.jsonl")},
		{"out inside the repository", []string{"-repo", repo, "-out", filepath.Join(repo, "t.jsonl")}, "lies inside the repository"},
		{"swe under a file", append(ok, "-swe", filepath.Join(file, "s.jsonl")), "-swe"},
		{"both on stdout", []string{"-repo", repo, "-out", "-", "-swe", "-"}, "cannot both be stdout"},
		{"same file", append(ok, "-swe", out), "name the same file"},
		{"python missing", append(ok, "-python", "/nonexistent/python3"), "-python /nonexistent/python3"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), c.args, &stdout, &stderr)
			if code != 2 || !strings.Contains(stderr.String(), c.msg) {
				t.Errorf("exit %d, stderr %q; want exit 2 and %q", code, stderr.String(), c.msg)
			}
			if strings.Contains(stderr.String(), "call graph") || stdout.Len() > 0 {
				t.Errorf("work started or stdout written:\n%s%s", stderr.String(), stdout.String())
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 1 {
				t.Errorf("%d entries in the output directory, want only the fixture file", len(ents))
			}
		})
	}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"-h"}, &stdout, &stderr); code != 0 || !strings.Contains(stderr.String(), "-repo") {
		t.Errorf("-h: exit %d\n%s", code, stderr.String())
	}
}

// TestShortfallAndStdout: asked for more tasks than the repository has candidates, the
// program writes what it found, says how many of how many and why the rest failed, and
// exits 1; with -out - stdout carries only the JSONL.
func TestShortfallAndStdout(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on a small module")
	}
	repo := goRepo(t, "package m\n\nimport \"testing\"\n\nfunc TestSum(t *testing.T) {\n\tif Sum([]int{1, 2}) != 3 {\n\t\tt.Fatal(\"sum\")\n\t}\n}\n\nfunc TestTwice(t *testing.T) {\n\tif Twice([]int{1, -2}) != 2 {\n\t\tt.Fatal(\"twice\")\n\t}\n}\n")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"-repo", repo, "-n", "5", "-min-failures", "1", "-out", "-", "-top", "0"}, &stdout, &stderr)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (fewer tasks than asked)\n%s", code, stderr.String())
	}
	var n int
	if err := task.ReadJSONL(bytes.NewReader(stdout.Bytes()), func(int, task.BreakpointProblem) error { n++; return nil }); err != nil || n == 0 {
		t.Fatalf("stdout is not JSONL task records only (%d read, %v):\n%s", n, err, stdout.String())
	}
	want := fmt.Sprintf("breakpoint: %d of 5 remove task(s): candidates exhausted after 2 tried", n)
	if !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
	}
	for _, phase := range []string{"baseline", "validating remove corruptions: 5 to do", "/5 (", "elapsed"} {
		if !strings.Contains(stderr.String(), phase) {
			t.Errorf("progress lacks %q:\n%s", phase, stderr.String())
		}
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
			nil, []string{"is not ready", "1 test(s) fail on the clean tree (e.g. example.com/m.TestBroken)", "fix them first"}},
		{"no tests", "", nil, []string{"is not ready", "no tests were found"}},
		{"slower than the limit", "package m\n\nimport (\n\t\"testing\"\n\t\"time\"\n)\n\nfunc TestSlow(t *testing.T) { time.Sleep(time.Minute) }\n",
			[]string{"-timeout", "3s"}, []string{"the clean tests could not run", "timeout"}},
		{"vet finding", "package m\n\nimport (\n\t\"fmt\"\n\t\"testing\"\n)\n\nfunc TestSum(t *testing.T) {\n\tif Sum([]int{1, 2}) != 3 {\n\t\tt.Fatal(fmt.Sprintf(\"%d\", \"sum\"))\n\t}\n}\n",
			nil, []string{"go vet (the checks `go test` runs by default) fails on the clean tree", "Sprintf format %d has arg", "breakpoint -vet=false"}},
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

// TestSignals: the built program, interrupted mid-run, stops its test runs, removes its
// private copies and exits 130 (SIGINT, during validation) or 143 (SIGTERM, during the
// baseline); TMPDIR is empty and the repository unchanged. A normal end leaves TMPDIR
// empty too (no cgo objects from type-checking a subject that imports net).
func TestSignals(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the program and runs go test")
	}
	bin := clitest.Build(t, ".")
	slow := "package m\n\nimport (\n\t\"net\"\n\t\"testing\"\n\t\"time\"\n)\n\nvar _ = net.ParseIP\n\n" +
		"func TestSum(t *testing.T) {\n\ttime.Sleep(2 * time.Second)\n\tif Sum([]int{1, 2}) != 3 {\n\t\tt.Fatal(\"sum\")\n\t}\n}\n\n" +
		"func TestTwice(t *testing.T) {\n\ttime.Sleep(2 * time.Second)\n\tif Twice([]int{1, -2}) != 2 {\n\t\tt.Fatal(\"twice\")\n\t}\n}\n"
	repo := goRepo(t, slow)
	// m.go imports net too, so the type checker meets a cgo package.
	src, _ := os.ReadFile(filepath.Join(repo, "m.go"))
	os.WriteFile(filepath.Join(repo, "m.go"), []byte(strings.Replace(string(src), "package m\n", "package m\n\nimport \"net\"\n\nvar _ = net.IPv4len\n", 1)), 0o644)
	out := filepath.Join(t.TempDir(), "tasks.jsonl")
	args := []string{"-repo", repo, "-out", out, "-min-failures", "1", "-mode", "discovery", "-top", "0"}
	clitest.Interrupt(t, bin, args, nil, "validating", syscall.SIGINT, repo)
	clitest.Interrupt(t, bin, args, nil, "baseline", syscall.SIGTERM, repo)
	if _, err := os.Stat(out); err == nil {
		t.Error("an interrupted run wrote its output")
	}
	clitest.Finish(t, bin, append(args, "-n", "1"), nil, 0)
	if _, err := os.Stat(out); err != nil {
		t.Errorf("a finished run wrote no output: %v", err)
	}
}
