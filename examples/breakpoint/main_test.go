package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/cli/clitest"
	"github.com/faultline-dev/faultline/task"
)

// runCLIMirror runs the command in-process and returns the task records' and the SWE
// instances' bytes and the mirror directory (the default, beside -swe).
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
			// Seed 10 reaches its tasks within three candidates (remove mode rejects one on the
			// way) and never tries next or before, whose corruptions loop until the run's time
			// limit (seed 3 tried next first: about half a minute per run on that alone).
			args := []string{"-repo", sample, "-mode", mode, "-n", "2", "-seed", "10", "-top", "0", "-commit", "abc123", "-name", "sample"}
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
				if p.Mode != mode || p.Repo != "sample" || p.Commit != "abc123" || p.Seed != 10 {
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
		{"bad swe lists", append(ok, "-swe", filepath.Join(dir, "s.jsonl"), "-swe-lists", "csv"), `-swe-lists "csv"`},
		{"mirror without swe", append(ok, "-mirror", filepath.Join(dir, "m.git")), "-mirror " + filepath.Join(dir, "m.git")},
		{"swe on stdout without mirror", append(ok, "-swe", "-"), "name the mirror with -mirror DIR"},
		{"mirror inside the repository", append(ok, "-swe", filepath.Join(dir, "s.jsonl"), "-mirror", filepath.Join(repo, "m.git")), "lies inside the repository"},
		{"mirror not a git repository", append(ok, "-swe", filepath.Join(dir, "s.jsonl"), "-mirror", filepath.Dir(repo)), "is not a bare git repository"},
		{"bad env", append(ok, "-env", "NOEQUALS"), `want KEY=VALUE, got "NOEQUALS"`},
		{"empty flaky", append(ok, "-flaky", " "), `want a value, got " "`},
		{"n zero", append(ok, "-n", "0"), "-n 0"},
		{"n negative", append(ok, "-n", "-3"), "-n -3"},
		{"multi zero", append(ok, "-multi", "0"), "-multi 0"},
		{"distance zero", append(ok, "-multi", "2", "-distance", "0"), "-distance 0"},
		{"min failures negative", append(ok, "-min-failures", "-1"), "-min-failures -1"},
		{"top negative", append(ok, "-top", "-1"), "-top -1"},
		{"jobs negative", append(ok, "-jobs", "-2"), "-jobs -2"},
		{"timeout negative", append(ok, "-timeout", "-5s"), "-timeout -5s"},
		{"n not a number", append(ok, "-n", "many"), "-n"},
		{"multi negative", append(ok, "-multi", "-2"), "-multi -2"},
		{"distance negative", append(ok, "-multi", "2", "-distance", "-1"), "-distance -1"},
		{"seed negative", append(ok, "-seed", "-1"), `invalid value "-1" for flag -seed`},
		{"timeout without a unit", append(ok, "-timeout", "90"), `invalid value "90" for flag -timeout`},
		{"impact", append(ok, "-impact", "maybe"), `-impact "maybe"`},
		{"swe with shard", append(ok, "-shard", "0/2", "-swe", filepath.Join(dir, "s.jsonl")), "-swe with -shard"},
		{"cache inside the repository", append(ok, "-cache", filepath.Join(repo, "c")), "-cache " + filepath.Join(repo, "c")},
		{"out empty", []string{"-repo", repo, "-out", ""}, "-out: empty path"},
		{"out a directory", []string{"-repo", repo, "-out", dir}, "is a directory"},
		{"out in a missing directory", []string{"-repo", repo, "-out", filepath.Join(dir, "no", "t.jsonl")}, "-out " + filepath.Join(dir, "no", "t.jsonl")},
		{"out inside the repository", []string{"-repo", repo, "-out", filepath.Join(repo, "t.jsonl")}, "lies inside the repository"},
		{"swe under a file", append(ok, "-swe", filepath.Join(file, "s.jsonl")), "-swe"},
		{"both on stdout", []string{"-repo", repo, "-out", "-", "-swe", "-"}, "cannot both be stdout"},
		{"same file", append(ok, "-swe", out), "name the same file"},
		{"mirror is the out file", append(ok, "-swe", filepath.Join(dir, "s.jsonl"), "-mirror", out), "-out and -mirror name the same path"},
		{"mirror is the swe file", append(ok, "-swe", filepath.Join(dir, "s.jsonl"), "-mirror", filepath.Join(dir, ".", "s.jsonl")), "-swe and -mirror name the same path"},
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

// TestAllowFailing: with -allow-failing a module with a test that fails on the clean tree
// is accepted, the run says so, and no task lists that test in FAIL_TO_PASS or
// PASS_TO_PASS (without the flag the same module is refused: TestBadRepositories).
func TestAllowFailing(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on a small module")
	}
	repo := goRepo(t, "package m\n\nimport \"testing\"\n\nfunc TestSum(t *testing.T) {\n\tif Sum([]int{1, 2}) != 3 {\n\t\tt.Fatal(\"sum\")\n\t}\n}\n\nfunc TestTwice(t *testing.T) {\n\tif Twice([]int{1, -2}) != 2 {\n\t\tt.Fatal(\"twice\")\n\t}\n}\n\nfunc TestBroken(t *testing.T) { t.Fatal(\"already broken\") }\n")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"-repo", repo, "-allow-failing", "-n", "1", "-min-failures", "1", "-out", "-", "-top", "0", "-cache", "off"}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d, want 0\n%s", code, stderr.String())
	}
	for _, m := range []string{"1 test(s) fail on the clean tree (e.g. example.com/m.TestBroken)", "baseline: 2 passing, 1 failing"} {
		if !strings.Contains(stderr.String(), m) {
			t.Errorf("stderr lacks %q:\n%s", m, stderr.String())
		}
	}
	var n int
	err := task.ReadJSONL(bytes.NewReader(stdout.Bytes()), func(_ int, p task.BreakpointProblem) error {
		n++
		if len(p.FailToPass) == 0 {
			t.Errorf("task %s has no FAIL_TO_PASS", p.ID)
		}
		for _, id := range append(append([]string(nil), p.FailToPass...), p.PassToPass...) {
			if strings.Contains(id, "TestBroken") {
				t.Errorf("task %s lists the clean-failing test %s", p.ID, id)
			}
		}
		return nil
	})
	if err != nil || n != 1 {
		t.Fatalf("want 1 task record, read %d (%v):\n%s", n, err, stdout.String())
	}
}

// TestFlaky: a test named with -flaky is counted flaky and never enters a task's
// FAIL_TO_PASS or PASS_TO_PASS; a -flaky id the clean runs do not know is an error naming
// the flag.
func TestFlaky(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on a small module")
	}
	repo := goRepo(t, "package m\n\nimport \"testing\"\n\nfunc TestSum(t *testing.T) {\n\tif Sum([]int{1, 2}) != 3 {\n\t\tt.Fatal(\"sum\")\n\t}\n}\n\nfunc TestTwice(t *testing.T) {\n\tif Twice([]int{1, -2}) != 2 {\n\t\tt.Fatal(\"twice\")\n\t}\n}\n\nfunc TestSumTimed(t *testing.T) {\n\tif Sum([]int{4}) != 4 {\n\t\tt.Fatal(\"sum\")\n\t}\n}\n")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"-repo", repo, "-flaky", "example.com/m.TestSumTimed", "-n", "1", "-min-failures", "1", "-out", "-", "-top", "0", "-cache", "off"}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d, want 0\n%s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "baseline: 2 passing, 0 failing, 1 flaky tests") {
		t.Errorf("stderr does not count the -flaky test as flaky:\n%s", stderr.String())
	}
	var n int
	err := task.ReadJSONL(bytes.NewReader(stdout.Bytes()), func(_ int, p task.BreakpointProblem) error {
		n++
		for _, id := range append(append([]string(nil), p.FailToPass...), p.PassToPass...) {
			if strings.HasSuffix(id, "TestSumTimed") {
				t.Errorf("task %s lists the -flaky test %s", p.ID, id)
			}
		}
		if len(p.FailToPass) == 0 {
			t.Errorf("task %s has no FAIL_TO_PASS", p.ID)
		}
		return nil
	})
	if err != nil || n != 1 {
		t.Fatalf("want 1 task record, read %d (%v):\n%s", n, err, stdout.String())
	}
	stdout.Reset()
	stderr.Reset()
	code = run(context.Background(), []string{"-repo", repo, "-flaky", "TestSumTimed", "-n", "1", "-out", "-", "-top", "0", "-cache", "off"}, &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), `-flaky: the clean runs have no test "TestSumTimed" (ids as the records write them, e.g. "example.com/m.TestSum")`) || stdout.Len() > 0 {
		t.Errorf("unknown -flaky id: exit %d\n%s%s", code, stderr.String(), stdout.String())
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
			nil, []string{"is not ready", "1 test(s) fail on the clean tree (e.g. example.com/m.TestBroken)", "fix them first", "-allow-failing"}},
		{"no tests", "", nil, []string{"is not ready", "no tests were found"}},
		{"slower than the limit", "package m\n\nimport (\n\t\"testing\"\n\t\"time\"\n)\n\nfunc TestSlow(t *testing.T) { time.Sleep(time.Minute) }\n",
			// Under load the listing itself may hit the limit first: either way the fix is
			// to raise -timeout.
			[]string{"-timeout", "3s"}, []string{"is not ready", "longer than the limit", "raise -timeout"}},
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
			// Only a run under -timeout has a bound to keep: the others run the clean tests
			// twice, which under load takes what it takes.
			if d := time.Since(start); slices.Contains(c.args, "-timeout") && d > 50*time.Second {
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

// pyPackage writes a Python package named name (a module of statistics and its tests inside
// the package) under a fresh directory with no project file, and returns the package's
// directory.
func pyPackage(t *testing.T, name string) string {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		name + "/__init__.py": "",
		name + "/stats.py": "def mean(xs):\n    \"\"\"Arithmetic mean.\"\"\"\n    total = 0.0\n    for x in xs:\n        total += x\n    return total / len(xs)\n\n\n" +
			"def spread(xs):\n    \"\"\"Largest minus smallest.\"\"\"\n    lo = min(xs)\n    hi = max(xs)\n    if lo == hi:\n        return 0.0\n    return hi - lo\n\n\n" +
			"def describe(xs):\n    m = mean(xs)\n    s = spread(xs)\n    text = \"mean=%g spread=%g\" % (m, s)\n    return text\n",
		name + "/tests/__init__.py": "",
		name + "/tests/test_stats.py": "from " + name + ".stats import mean, spread, describe\n\n\n" +
			"def test_mean():\n    assert mean([1, 2, 3]) == 2\n\n\ndef test_mean_one():\n    assert mean([5]) == 5\n\n\n" +
			"def test_spread():\n    assert spread([1, 5, 3]) == 4\n\n\ndef test_spread_flat():\n    assert spread([2, 2]) == 0\n\n\n" +
			"def test_describe():\n    assert describe([1, 3]) == \"mean=2 spread=2\"\n\n\ndef test_describe_one():\n    assert describe([7]) == \"mean=7 spread=0\"\n",
	}
	for p, src := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(root, name)
}

// TestPackageDirectory: -repo names a Python package directory with no project file around
// it. The root chosen (the import root, limited to the package) is printed; the package is
// staged under its own name, so the tests import the corrupted copy and fail for the
// corruption; the records' paths keep the package's name; outside git the records carry no
// commit and a warning says so; the -swe instances' patches apply in the mirror; the
// directory is only read.
func TestPackageDirectory(t *testing.T) {
	if testing.Short() {
		t.Skip("runs pytest")
	}
	if err := exec.Command("/usr/bin/python3", "-c", "import pytest").Run(); err != nil {
		t.Skip("needs /usr/bin/python3 with pytest (apt-get install python3-pytest)")
	}
	pkg := pyPackage(t, "faultline_statpkg")
	root := filepath.Dir(pkg)
	before := digest(t, root)
	dir := t.TempDir()
	out, swe := filepath.Join(dir, "tasks.jsonl"), filepath.Join(dir, "swe.jsonl")
	var stdout, stderr bytes.Buffer
	args := []string{"-repo", pkg, "-python", "/usr/bin/python3", "-n", "2", "-min-failures", "2", "-top", "0", "-out", out, "-swe", swe}
	if code := run(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	for _, want := range []string{
		"root " + root + " (no project file: the import root of package faultline_statpkg, limited to the package); target faultline_statpkg; python",
		"staged faultline_statpkg under a private root",
		"warning: " + root + " is not a git checkout: the records carry no commit",
	} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
	records, _ := os.ReadFile(out)
	var problems []task.BreakpointProblem
	if err := task.ReadJSONL(bytes.NewReader(records), func(_ int, p task.BreakpointProblem) error {
		problems = append(problems, p)
		return p.Validate()
	}); err != nil || len(problems) != 2 {
		t.Fatalf("%d records, %v", len(problems), err)
	}
	for _, p := range problems {
		// Outside git the repository is local/ and the directory's name (repo.DefaultName),
		// as featurebench names it: SWE-bench's repo field is owner/name.
		if p.Commit != "" || p.Repo != "local/faultline_statpkg" || !strings.HasPrefix(p.ID, "local__faultline_statpkg.") {
			t.Errorf("%s: commit %q repo %q, want none and local/ and the package's name", p.ID, p.Commit, p.Repo)
		}
		if !strings.HasPrefix(p.Functions[0].Path, "faultline_statpkg/") {
			t.Errorf("%s: path %s does not keep the package's name", p.ID, p.Functions[0].Path)
		}
		for _, id := range p.FailToPass {
			if !strings.HasPrefix(id, "faultline_statpkg/tests/test_stats.py::") {
				t.Errorf("%s: FAIL_TO_PASS %s", p.ID, id)
			}
		}
		var prov struct {
			Commit, Target, Tool string
			Seed                 uint64
		}
		if err := json.Unmarshal(p.Extra["provenance"], &prov); err != nil || prov.Commit != "" || prov.Target != "faultline_statpkg" || prov.Seed != 1 || prov.Tool == "" {
			t.Errorf("%s: provenance %s (%v)", p.ID, p.Extra["provenance"], err)
		}
	}
	var insts []task.SWEInstance
	sweData, _ := os.ReadFile(swe)
	if err := task.ReadJSONL(bytes.NewReader(sweData), func(_ int, s task.SWEInstance) error { insts = append(insts, s); return nil }); err != nil {
		t.Fatal(err)
	}
	verifyMirror(t, filepath.Join(dir, "swe.mirror.git"), root, insts)
	if digest(t, root) != before {
		t.Error("the package directory was written")
	}
}

// TestModuleSubdirectory: -repo names a package directory inside a Go module. The module's
// root is chosen (and printed), the whole module is tested, and only functions of the
// directory given are corrupted.
func TestModuleSubdirectory(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test")
	}
	root := goRepo(t, "package m\n\nimport (\n\t\"testing\"\n\n\t\"example.com/m/sub\"\n)\n\nfunc TestSum(t *testing.T) {\n\tif Sum([]int{1, 2}) != 3 {\n\t\tt.Fatal(\"sum\")\n\t}\n}\n\nfunc TestTwice(t *testing.T) {\n\tif Twice([]int{1, -2}) != 2 {\n\t\tt.Fatal(\"twice\")\n\t}\n}\n\nfunc TestScale(t *testing.T) {\n\tif sub.Scale(2, 3) != 6 || sub.Scale(0, 3) != 0 {\n\t\tt.Fatal(\"scale\")\n\t}\n}\n")
	if err := os.MkdirAll(filepath.Join(root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "sub", "sub.go"), []byte("package sub\n\n// Scale multiplies.\nfunc Scale(a, b int) int {\n\tr := 0\n\tfor i := 0; i < a; i++ {\n\t\tr = add(r, b)\n\t}\n\treturn r\n}\n\nfunc add(x, y int) int { return x + y }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	args := []string{"-repo", filepath.Join(root, "sub"), "-n", "1", "-min-failures", "1", "-top", "5", "-out", "-"}
	if code := run(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	// The most central functions listed are those of the directory given, as the candidates
	// are (go-toml/unstable listed the module root's decoder functions).
	_, top, _ := strings.Cut(stderr.String(), "by harmonic centrality")
	top, _, _ = strings.Cut(top, "\n\n")
	if !strings.Contains(top, "sub/sub.go::Scale") || strings.Contains(top, " m.go::") {
		t.Errorf("top functions not those of sub/:\n%s", top)
	}
	if want := "root " + root + " (the nearest go.mod above the directory (module example.com/m)); target sub; go"; !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
	}
	var problems []task.BreakpointProblem
	if err := task.ReadJSONL(bytes.NewReader(stdout.Bytes()), func(_ int, p task.BreakpointProblem) error { problems = append(problems, p); return nil }); err != nil || len(problems) != 1 {
		t.Fatalf("%d records, %v\n%s", len(problems), err, stderr.String())
	}
	if f := problems[0].Functions[0]; f.Path != "sub/sub.go" || f.Name != "Scale" {
		t.Errorf("corrupted %s %s, want sub/sub.go Scale (the directory given)", f.Path, f.Name)
	}
	if got := problems[0].FailToPass; len(got) != 1 || got[0] != "example.com/m.TestScale" {
		t.Errorf("FAIL_TO_PASS %v, want the module root's test of sub", got)
	}
}

// TestMissingModulesOffline: a module whose tests need a module that is not in a private,
// empty module cache, with downloads off, is refused before any test runs, naming the
// module and the fix.
func TestMissingModulesOffline(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	root := goRepo(t, "package m\n\nimport (\n\t\"testing\"\n\n\t\"github.com/dustin/go-humanize\"\n)\n\nfunc TestSum(t *testing.T) {\n\tif Sum([]int{1, 2}) != 3 {\n\t\tt.Fatal(humanize.Comma(3))\n\t}\n}\n")
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/m\n\ngo 1.22\n\nrequire github.com/dustin/go-humanize v1.0.1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	var stdout, stderr bytes.Buffer
	args := []string{"-repo", root, "-top", "0", "-out", filepath.Join(t.TempDir(), "t.jsonl"),
		"-env", "GOMODCACHE=" + cache, "-env", "GOPROXY=off", "-env", "GOFLAGS=-mod=mod"}
	if code := run(context.Background(), args, &stdout, &stderr); code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, stderr.String())
	}
	for _, want := range []string{"is not ready", "github.com/dustin/go-humanize@v1.0.1", "GOPROXY=off"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
	if strings.Contains(stderr.String(), "baseline") || strings.Contains(stderr.String(), "checking readiness") {
		t.Errorf("a test run started:\n%s", stderr.String())
	}
}

// TestWriteInstancesLists: -swe-lists string writes the test lists as the Hugging Face
// dataset's JSON-encoded strings; json writes arrays; both read back to the same instances.
func TestWriteInstancesLists(t *testing.T) {
	in := &task.SWEInstance{Repo: "o/r", InstanceID: "o__r-1", BaseCommit: "abc", Patch: "p",
		FailToPass: task.TestList{"pkg.TestA", `pkg.TestB/"q"`}, PassToPass: task.TestList{"pkg.TestC"}}
	for _, lists := range []string{"json", "string"} {
		var buf bytes.Buffer
		if err := writeInstances(&buf, []*task.SWEInstance{in}, lists); err != nil {
			t.Fatal(err)
		}
		var raw map[string]any
		if err := json.Unmarshal(buf.Bytes(), &raw); err != nil {
			t.Fatalf("%s: %v\n%s", lists, err, buf.String())
		}
		f2p := raw["FAIL_TO_PASS"]
		switch lists {
		case "json":
			if _, ok := f2p.([]any); !ok {
				t.Errorf("json: FAIL_TO_PASS is %T, want an array", f2p)
			}
		case "string":
			s, ok := f2p.(string)
			if !ok {
				t.Fatalf("string: FAIL_TO_PASS is %T, want a string", f2p)
			}
			var ids []string
			if err := json.Unmarshal([]byte(s), &ids); err != nil || len(ids) != 2 || ids[1] != `pkg.TestB/"q"` {
				t.Errorf("string: FAIL_TO_PASS %q decodes to %v, %v", s, ids, err)
			}
		}
		var back []task.SWEInstance
		if err := task.ReadJSONL(&buf, func(_ int, v task.SWEInstance) error { back = append(back, v); return nil }); err != nil {
			t.Fatalf("%s: reading back: %v", lists, err)
		}
		if len(back) != 1 || !slices.Equal([]string(back[0].FailToPass), []string(in.FailToPass)) || !slices.Equal([]string(back[0].PassToPass), []string(in.PassToPass)) {
			t.Errorf("%s: read back %+v", lists, back)
		}
	}
}
