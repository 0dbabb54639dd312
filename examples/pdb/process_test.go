package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/internal/cli/clitest"
	"github.com/faultline-dev/faultline/sandbox"
)

var (
	buildOnce sync.Once
	buildPath string
	buildErr  error
)

// binary builds the pdb command once per test binary.
func binary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("pdb: builds the command; skipped in -short mode")
	}
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "pdb-test-bin-")
		if err != nil {
			buildErr = err
			return
		}
		buildPath = filepath.Join(dir, "pdb")
		out, err := exec.Command("go", "build", "-o", buildPath, ".").CombinedOutput()
		if err != nil {
			buildErr = &buildError{err, string(out)}
		}
	})
	if buildErr != nil {
		t.Fatalf("building pdb: %v", buildErr)
	}
	return buildPath
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return e.err.Error() + ": " + e.out }

// TestMain removes the built command.
func TestMain(m *testing.M) {
	code := m.Run()
	if buildPath != "" {
		os.RemoveAll(filepath.Dir(buildPath))
	}
	os.Exit(code)
}

// hashTree hashes every file under root (path, kind, permissions, content).
func hashTree(t *testing.T, root string) string {
	t.Helper()
	h, err := sandbox.NewTreeHasher().Hash(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// slowScoreInputs writes 12 tasks and a repository whose oracle takes a while per run.
func slowScoreInputs(t *testing.T) (in, repo string) {
	dir := t.TempDir()
	buggy := strings.Replace(fixed, "x + 1", "x - 1", 1)
	other := strings.Replace(fixed, "x + 1", "1 + x", 1) // needs pass 2: two oracle calls
	var recs []any
	for i := range 12 {
		recs = append(recs, example("t"+string(rune('a'+i)), buggy, fixed, other))
	}
	in = filepath.Join(dir, "ex.jsonl")
	os.WriteFile(in, []byte(jsonl(t, recs...)), 0o644)
	repo = filepath.Join(dir, "repo")
	os.Mkdir(repo, 0o755)
	os.WriteFile(filepath.Join(repo, "check.sh"), []byte("sleep 0.5\ngrep -Eq 'a = (x \\+ 1|1 \\+ x)' \"$PDB_PROGRAM\"\n"), 0o644)
	return in, repo
}

// startPDB starts the built command with a private TMPDIR and returns it with its stderr
// buffer, once a progress line shows it is running.
func startPDB(t *testing.T, tmp string, stdout io.Writer, args ...string) (*exec.Cmd, *syncBuffer) {
	t.Helper()
	cmd := exec.Command(binary(t), args...)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	cmd.Stdout = stdout
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(stderr.String(), "elapsed") {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("no progress line: %s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Let runs start: the sandbox's private copies appear in TMPDIR.
	time.Sleep(1500 * time.Millisecond)
	if ents, _ := os.ReadDir(tmp); len(ents) == 0 {
		t.Errorf("nothing in TMPDIR while running: the test would not see leftovers")
	}
	return cmd, &stderr
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func emptyDir(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if len(names) > 0 {
		t.Errorf("TMPDIR not empty after the run: %v", names)
	}
}

// TestInterrupt stops score with SIGINT and compose with SIGTERM and with SIGINT in the
// middle of their sandboxed runs, and score with a closed stdout pipe (SIGPIPE): each exits 128 + the
// signal, leaves its TMPDIR empty, writes no -out, and leaves its inputs unchanged.
func TestInterrupt(t *testing.T) {
	in, repo := slowScoreInputs(t)
	before := hashTree(t, filepath.Dir(in))
	out := filepath.Join(t.TempDir(), "scores.jsonl")

	tmp := clitest.TempDir(t)
	cmd, stderr := startPDB(t, tmp, io.Discard, "score", "-in", in, "-repo", repo, "-program-name", "prog.py",
		"-oracle-cmd", "sh check.sh", "-jobs", "2", "-out", out)
	cmd.Process.Signal(syscall.SIGINT)
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Errorf("score after SIGINT: exit %d, want 130\n%s", code, stderr.String())
	}
	emptyDir(t, tmp)
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("-out written by an interrupted run")
	}
	if ents, _ := os.ReadDir(filepath.Dir(out)); len(ents) > 0 {
		t.Errorf("files left beside -out: %v", ents)
	}

	// compose: SIGTERM while validating candidates.
	dir := t.TempDir()
	prog := filepath.Join(dir, "calc.py")
	os.WriteFile(prog, []byte("def calc(xs):\n    n = len(xs)\n    total = sum(xs)\n    mean = total / n\n    low = min(xs)\n    high = max(xs)\n    return mean, high - low\n"), 0o644)
	tmp2 := clitest.TempDir(t)
	progBefore := hashTree(t, dir)
	// -cache off: with the default on-disk cache, reports left by earlier runs of this test
	// let compose finish before the signal (CI failed on it), and the test is about the signal.
	// compose gets both signals (SIGTERM, then SIGINT in a run of its own).
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		cmd, stderr = startPDB(t, tmp2, io.Discard, "compose", "-program", prog, "-tests", "sleep 1; test -s {program}", "-m1", "20", "-jobs", "2", "-cache", "off", "-out", filepath.Join(dir, "out.jsonl"))
		cmd.Process.Signal(sig)
		cmd.Wait()
		if code := cmd.ProcessState.ExitCode(); code != 128+int(sig) {
			t.Errorf("compose after %v: exit %d, want %d\n%s", sig, code, 128+int(sig), stderr.String())
		}
		emptyDir(t, tmp2)
		if hashTree(t, dir) != progBefore {
			t.Errorf("compose changed its input directory (%v)", sig)
		}
	}

	// score with its stdout pipe closed by the reader: SIGPIPE at the first record.
	tmp3 := clitest.TempDir(t)
	c := exec.Command(binary(t), "score", "-in", in, "-repo", repo, "-program-name", "prog.py", "-oracle-cmd", "sh check.sh", "-jobs", "2")
	c.Env = append(os.Environ(), "TMPDIR="+tmp3)
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	c.Stdout = pw
	var errBuf syncBuffer
	c.Stderr = &errBuf
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	pr.Close()
	c.Wait()
	if code := c.ProcessState.ExitCode(); code != 141 {
		t.Errorf("score with a closed stdout: exit %d, want 141\n%s", code, errBuf.String())
	}
	emptyDir(t, tmp3)
	if hashTree(t, filepath.Dir(in)) != before {
		t.Errorf("score changed its inputs")
	}
}

// TestDeterminism runs compose and then score twice with one seed, with a different
// TMPDIR and a different -jobs: the outputs are byte-identical.
func TestDeterminism(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "calc.py")
	os.WriteFile(prog, []byte(strings.Join([]string{
		"def calc(xs):", "    n = len(xs)", "    total = 0", "    for x in xs:", "        total += x",
		"    mean = total / n", "    low = min(xs)", "    high = max(xs)", "    spread = high - low",
		"    return mean, spread", ""}, "\n")), 0o644)
	repo := filepath.Join(dir, "repo")
	os.Mkdir(repo, 0o755)
	// A test that tells some mutants from the program and not others: it checks three
	// lines only.
	os.WriteFile(filepath.Join(repo, "check.sh"), []byte("grep -q 'total += x' \"$PDB_PROGRAM\" && grep -q 'mean = total / n' \"$PDB_PROGRAM\" && grep -q 'spread = high - low' \"$PDB_PROGRAM\"\n"), 0o644)
	var outs [2][2][]byte
	for i, jobs := range []string{"2", "1"} {
		tmp := clitest.TempDir(t)
		run := func(args ...string) []byte {
			cmd := exec.Command(binary(t), args...)
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("%v: %v\n%s", args[:1], err, stderr.String())
			}
			return stdout.Bytes()
		}
		ex := run("compose", "-program", prog, "-repo", repo, "-tests", "sh check.sh", "-m1", "10", "-m3", "3", "-k-max", "3", "-seed", "7", "-jobs", jobs, "-format", "json")
		exPath := filepath.Join(tmp, "ex.json")
		os.WriteFile(exPath, ex, 0o644)
		// Predictions: the correct or the buggy programs with their last line rewritten.
		var recs []any
		var arr []map[string]any
		if err := json.Unmarshal(ex, &arr); err != nil || len(arr) == 0 {
			t.Fatalf("compose output: %v", err)
		}
		for k, r := range arr {
			from := []string{"gt_solution", "buggy_code"}[k%2]
			ls := strings.Split(r[from].(string), "\n")
			ls[len(ls)-1] = "    return (mean, spread)"
			recs = append(recs, map[string]any{"task_id": r["task_id"], "solution": strings.Join(ls, "\n")})
		}
		pred := filepath.Join(tmp, "pred.jsonl")
		os.WriteFile(pred, []byte(jsonl(t, recs...)), 0o644)
		sc := run("score", "-in", exPath, "-pred", pred, "-repo", repo, "-program-name", "calc.py", "-oracle-cmd", "sh check.sh", "-jobs", jobs)
		os.Remove(exPath)
		os.Remove(pred)
		emptyDir(t, tmp)
		outs[i] = [2][]byte{ex, sc}
	}
	if !bytes.Equal(outs[0][0], outs[1][0]) {
		t.Errorf("compose: same seed, different bytes")
	}
	if n := bytes.Count(outs[0][1], []byte("\n")); n < 4 || !bytes.Contains(outs[0][1], []byte(`"passed":true`)) || !bytes.Contains(outs[0][1], []byte(`"unit":0,`)) {
		t.Errorf("score output too trivial to show determinism:\n%s", outs[0][1])
	}
	if !bytes.Equal(outs[0][1], outs[1][1]) {
		t.Errorf("score: same inputs, different bytes:\n%s\n%s", outs[0][1], outs[1][1])
	}
}
