package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/faultline-dev/faultline/internal/fstree"

	"github.com/faultline-dev/faultline/callgraph"
	"github.com/faultline-dev/faultline/callgraph/golang"
	"github.com/faultline-dev/faultline/callgraph/python"
	"github.com/faultline-dev/faultline/corrupt"
	"github.com/faultline-dev/faultline/internal/cli/clitest"
	"github.com/faultline-dev/faultline/sandbox"
	"github.com/faultline-dev/faultline/task"
)

const sample = "../sample"

// sampleTasks generates two REMOVE and two DISCOVERY tasks from the sample with
// corrupt.Generate and writes them as JSONL. Its runs are capped at 1 GiB of address
// space: some corruptions of the sample loop allocating, and under the 8 GiB default each
// took minutes to fail the way it fails at 1 GiB in seconds.
func sampleTasks(t *testing.T) (string, []task.BreakpointProblem) {
	t.Helper()
	ctx := context.Background()
	root, err := filepath.Abs(sample)
	if err != nil {
		t.Fatal(err)
	}
	r := sandbox.NewLocal(sandbox.Options{Limits: task.Limits{MemoryBytes: 1 << 30}})
	t.Cleanup(func() { r.Close() })
	cached := sandbox.NewCache(r, sandbox.CacheOptions{})
	req := task.RunRequest{Root: root, Kind: task.GoTest}
	b, err := sandbox.Baseline(ctx, r, req, 2)
	if err != nil {
		t.Fatalf("baseline: %v", err)
	}
	g, err := callgraph.Build(ctx, root, []callgraph.Language{golang.New(golang.Options{})}, callgraph.BuildOptions{SkipTests: true})
	if err != nil {
		t.Fatal(err)
	}
	cent, err := g.Centrality(ctx, callgraph.CentralityOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var problems []task.BreakpointProblem
	for _, mode := range []corrupt.Mode{corrupt.Remove, corrupt.Discovery} {
		res, err := corrupt.Generate(ctx, root, g, cent, cached, corrupt.Baseline{Passing: b.Passing, Failing: b.Failing, Flaky: b.Flaky},
			corrupt.Options{Mode: mode, N: 2, Seed: 1, Run: req})
		if err != nil {
			t.Fatal(err)
		}
		if len(res) != 2 {
			t.Fatalf("%s: %d tasks, want 2", mode, len(res))
		}
		for _, x := range res {
			problems = append(problems, x.Problem("sample", "0123456789abcdef0123456789abcdef01234567"))
		}
	}
	path := filepath.Join(t.TempDir(), "tasks.jsonl")
	var buf bytes.Buffer
	if err := task.WriteJSONL(&buf, problems); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, problems
}

// hashTree reads every file below root.
func hashTree(t *testing.T, root string) map[string]string {
	t.Helper()
	m, err := fstree.Read(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// readResults splits an output file into task lines and the summary line.
func readResults(t *testing.T, path string) ([]Result, Summary) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if len(lines) == 0 {
		t.Fatal("empty output")
	}
	var rs []Result
	for _, l := range lines[:len(lines)-1] {
		var r Result
		if err := json.Unmarshal([]byte(l), &r); err != nil || r.ID == "" {
			t.Fatalf("task line %q: %v", l, err)
		}
		rs = append(rs, r)
	}
	var s struct {
		Summary *Summary `json:"summary"`
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &s); err != nil || s.Summary == nil {
		t.Fatalf("summary line %q: %v", lines[len(lines)-1], err)
	}
	return rs, *s.Summary
}

func TestSolveSample(t *testing.T) {
	if testing.Short() {
		t.Skip("generates tasks from the sample and runs its tests")
	}
	tasks, problems := sampleTasks(t)
	before := hashTree(t, sample)
	ctx := context.Background()

	t.Run("gold", func(t *testing.T) {
		dir := t.TempDir()
		out, traj := filepath.Join(dir, "results.jsonl"), filepath.Join(dir, "trajectories.jsonl")
		var stdout, stderr bytes.Buffer
		code := run(ctx, []string{"-repo", sample, "-tasks", tasks, "-gold", "-tools", "8", "-attempts", "2", "-out", out, "-trajectories", traj}, &stdout, &stderr)
		if code != 0 {
			t.Fatalf("exit %d:\n%s", code, stderr.String())
		}
		rs, sum := readResults(t, out)
		if len(rs) != len(problems) {
			t.Fatalf("%d result lines for %d tasks", len(rs), len(problems))
		}
		for i, r := range rs {
			p := problems[i]
			wantUses := 1
			if p.Mode == string(corrupt.Discovery) {
				wantUses = len(p.Functions) + 1
			}
			if r.ID != p.ID || r.Mode != p.Mode || r.Solver != "gold" || !r.Success || r.Partial != 1 || r.Best != 1 || !r.Diagnosed || r.Hacked ||
				r.ToolUses != wantUses || r.Attempts != 1 || r.Error != "" {
				t.Errorf("result %d = %+v", i, r)
			}
		}
		if want := (Summary{Tasks: 4, SuccessRate: 1, MeanPartial: 1, MeanBest: 1, DiagnosisRate: 1}); sum != want {
			t.Errorf("summary = %+v, want %+v", sum, want)
		}
		// One full trajectory per task, in task order.
		data, err := os.ReadFile(traj)
		if err != nil {
			t.Fatal(err)
		}
		trs, err := task.ReadAllJSONL[corrupt.Trajectory](bytes.NewReader(data))
		if err != nil || len(trs) != len(problems) {
			t.Fatalf("%d trajectories, %v", len(trs), err)
		}
		for i, tr := range trs {
			if tr.ProblemID != problems[i].ID || !tr.Score.Success || len(tr.Calls) != rs[i].ToolUses {
				t.Errorf("trajectory %d: %s, score %+v, %d calls", i, tr.ProblemID, tr.Score, len(tr.Calls))
			}
		}
		if !strings.Contains(stderr.String(), "success rate 1.000") {
			t.Errorf("stderr:\n%s", stderr.String())
		}
	})

	t.Run("model", func(t *testing.T) {
		// A scripted model: on REMOVE it reads the target and submits the stub unchanged; on
		// DISCOVERY it gives up at once.
		var mu sync.Mutex
		requests := 0
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var req struct {
				Messages []struct {
					Role, Content string
				}
				Tools []struct {
					Function struct{ Name string }
				}
			}
			if err := json.NewDecoder(r.Body).Decode(&req); err != nil || r.Header.Get("Authorization") != "Bearer k" {
				http.Error(w, "bad request", http.StatusBadRequest)
				return
			}
			mu.Lock()
			requests++
			mu.Unlock()
			msg := map[string]any{"role": "assistant", "content": "I give up."}
			removeTask := strings.Contains(req.Messages[0].Content, "submit_attempt(code)")
			if removeTask && len(req.Messages) == 2 {
				msg = map[string]any{"role": "assistant", "content": nil, "tool_calls": []map[string]any{{"id": "1", "type": "function",
					"function": map[string]any{"name": "submit_attempt", "arguments": `{"code": "func nope() {}"}`}}}}
			}
			json.NewEncoder(w).Encode(map[string]any{"id": "x", "choices": []map[string]any{{"index": 0, "message": msg, "finish_reason": "stop"}},
				"usage": map[string]int{"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}})
		}))
		defer srv.Close()
		t.Setenv("FAULTLINE_LLM_BASE_URL", srv.URL+"/v1")
		t.Setenv("FAULTLINE_LLM_API_KEY", "k")
		t.Setenv("FAULTLINE_LLM_MODEL", "fake-model")
		out := filepath.Join(t.TempDir(), "results.jsonl")
		var stdout, stderr bytes.Buffer
		if code := run(ctx, []string{"-repo", sample, "-tasks", tasks, "-out", out, "-temperature", "0"}, &stdout, &stderr); code != 0 {
			t.Fatalf("exit %d:\n%s", code, stderr.String())
		}
		rs, sum := readResults(t, out)
		for i, r := range rs {
			if r.Solver != "fake-model" || r.Success || r.Best != 0 || r.Error != "" {
				t.Errorf("result %d = %+v", i, r)
			}
			if p := problems[i]; p.Mode == string(corrupt.Remove) {
				// The submission replaces the function by another that leaves it undefined:
				// the build fails, an execution error scored 0.
				if r.ToolUses != 1 || r.Attempts != 1 || r.Turns != 2 || r.TotalTokens != 20 || !r.Diagnosed {
					t.Errorf("REMOVE result %d = %+v", i, r)
				}
			} else if r.ToolUses != 0 || r.Attempts != 0 || r.Turns != 1 || r.Diagnosed || r.Stop != "the model ended the conversation" {
				t.Errorf("DISCOVERY result %d = %+v", i, r)
			}
		}
		if want := (Summary{Tasks: 4, DiagnosisRate: 0.5}); sum != want {
			t.Errorf("summary = %+v, want %+v", sum, want)
		}
		if requests != 6 {
			t.Errorf("%d model requests, want 6", requests)
		}
	})

	// The built program, interrupted mid-task, stops its runs, removes its private copies
	// and exits 130/143 without writing its outputs; TMPDIR is empty, the repository
	// unchanged. A normal end leaves TMPDIR empty too.
	t.Run("signals", func(t *testing.T) {
		bin := clitest.Build(t, ".")
		root, _ := filepath.Abs(sample)
		dir := t.TempDir()
		out := filepath.Join(dir, "results.jsonl")
		args := []string{"-repo", root, "-tasks", tasks, "-gold", "-out", out, "-trajectories", filepath.Join(dir, "traj.jsonl")}
		clitest.Interrupt(t, bin, args, nil, "solving: 4 to do", syscall.SIGINT, root)
		clitest.Interrupt(t, bin, args, nil, "solving: 1/4", syscall.SIGTERM, root)
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Errorf("an interrupted run left %d files", len(ents))
		}
		clitest.Finish(t, bin, args, nil, 0)
		if rs, sum := readResults(t, out); len(rs) != 4 || sum.SuccessRate != 1 {
			t.Errorf("after a normal end: %d results, %+v", len(rs), sum)
		}
	})

	// A task file made from another tree is refused before any test runs: the first task's
	// corrupted file is changed in a copy of the sample, so its corruption patch no longer
	// applies there (exit 2, file:line and task named, nothing written). In a git tree at
	// another commit than the tasks record, tasks whose patches apply are scored with a
	// warning naming them.
	t.Run("another tree", func(t *testing.T) {
		if _, err := exec.LookPath("git"); err != nil {
			t.Skip("git is not installed")
		}
		other := t.TempDir()
		if err := os.CopyFS(other, os.DirFS(sample)); err != nil {
			t.Fatal(err)
		}
		f := filepath.Join(other, problems[0].Functions[0].Path)
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, append([]byte("// changed since the tasks were made\n"), bytes.ReplaceAll(src, []byte("\n\t"), []byte("\n\t\t"))...), 0o644); err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		out := filepath.Join(dir, "results.jsonl")
		var stdout, stderr bytes.Buffer
		code := run(ctx, []string{"-repo", other, "-tasks", tasks, "-gold", "-out", out}, &stdout, &stderr)
		want := fmt.Sprintf("solve: %s:1: task %s: its corruption patch does not apply to -repo %s: ", tasks, problems[0].ID, other)
		if code != 2 || !strings.Contains(stderr.String(), want) {
			t.Errorf("exit %d, want 2 and %q:\n%s", code, want, stderr.String())
		}
		if strings.Contains(stderr.String(), "solving") || stdout.Len() > 0 {
			t.Errorf("work started:\n%s", stderr.String())
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Errorf("a refused run left %d files", len(ents))
		}

		// The sample itself as a git work tree whose HEAD is not the tasks' commit.
		gitTree := t.TempDir()
		if err := os.CopyFS(gitTree, os.DirFS(sample)); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "sample"}} {
			if b, err := exec.Command("git", append([]string{"-C", gitTree}, args...)...).CombinedOutput(); err != nil {
				t.Fatalf("git %v: %v\n%s", args, err, b)
			}
		}
		head := strings.TrimSpace(string(must(exec.Command("git", "-C", gitTree, "rev-parse", "HEAD").Output())))
		stdout.Reset()
		stderr.Reset()
		code = run(ctx, []string{"-repo", gitTree, "-tasks", tasks, "-gold", "-out", out}, &stdout, &stderr)
		want = fmt.Sprintf("warning: 4 of 4 tasks record another commit than -repo's HEAD %s (their patches apply; they are scored on -repo's tree): %s, ", head, problems[0].ID)
		if code != 0 || !strings.Contains(stderr.String(), want) {
			t.Errorf("exit %d, want 0 and %q:\n%s", code, want, stderr.String())
		}
		if rs, sum := readResults(t, out); len(rs) != 4 || sum.SuccessRate != 1 {
			t.Errorf("%d results, %+v", len(rs), sum)
		}
	})

	if !equalTrees(before, hashTree(t, sample)) {
		t.Error("the repository was written")
	}
}

// must returns v, failing the test binary on err.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func equalTrees(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestBadFlagsAndInputs: each bad flag or task record is refused before any work, with a
// message naming the flag or file:line and exit status 2, and nothing is written.
func TestBadFlagsAndInputs(t *testing.T) {
	dir := t.TempDir()
	// Flags are checked before the records are read: any file does for the flag cases.
	tasks := filepath.Join(dir, "tasks.jsonl")
	os.WriteFile(tasks, []byte("{}\n"), 0o644)
	noFunctions := filepath.Join(dir, "nofn.jsonl")
	os.WriteFile(noFunctions, []byte(`{"id":"x","repo":"r","commit":"c","mode":"remove","functions":[],"corruption_patch":"","gold_patch":"","seed":0,"FAIL_TO_PASS":[],"PASS_TO_PASS":[]}`+"\n"), 0o644)
	truncated := filepath.Join(dir, "truncated.jsonl")
	os.WriteFile(truncated, []byte(`{"id": "cut`), 0o644)
	empty := filepath.Join(dir, "empty.jsonl")
	os.WriteFile(empty, nil, 0o644)
	out := filepath.Join(dir, "out.jsonl")
	ok := []string{"-repo", sample, "-tasks", tasks, "-gold", "-out", out}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no repo", []string{"-tasks", tasks, "-gold"}, "-repo DIR is required"},
		{"no tasks", []string{"-repo", sample, "-gold"}, "-tasks FILE is required"},
		{"repo is a file", []string{"-repo", tasks, "-tasks", tasks, "-gold"}, "not a directory"},
		{"positional", append(ok, "x"), `unexpected argument "x"`},
		{"tools zero", append(ok, "-tools", "0"), "-tools 0"},
		{"attempts over tools", append(ok, "-tools", "2", "-attempts", "3"), "-attempts 3: want 1 to -tools (2)"},
		{"attempts zero", append(ok, "-attempts", "0"), "-attempts 0"},
		{"max turns negative", append(ok, "-max-turns", "-1"), "-max-turns -1"},
		{"timeout zero", append(ok, "-timeout", "0s"), "-timeout 0s"},
		{"timeout negative", append(ok, "-timeout", "-1s"), "-timeout -1s"},
		{"bad lang", append(ok, "-lang", "cobol"), `-lang "cobol"`},
		{"bad env", append(ok, "-env", "X"), `want KEY=VALUE, got "X"`},
		{"python missing", append(ok, "-python", "/nonexistent/python3"), "-python /nonexistent/python3"},
		{"out empty", []string{"-repo", sample, "-tasks", tasks, "-gold", "-out", ""}, "-out: empty path"},
		{"out a directory", []string{"-repo", sample, "-tasks", tasks, "-gold", "-out", dir}, "is a directory"},
		{"out inside the repository", []string{"-repo", sample, "-tasks", tasks, "-gold", "-out", filepath.Join(sample, "r.jsonl")}, "lies inside the repository"},
		{"both on stdout", []string{"-repo", sample, "-tasks", tasks, "-gold", "-out", "-", "-trajectories", "-"}, "cannot both be stdout"},
		{"same file", append(ok, "-trajectories", out), "name the same file"},
		{"tasks missing", []string{"-repo", sample, "-tasks", filepath.Join(dir, "none.jsonl"), "-gold", "-out", out}, "-tasks: open"},
		{"empty tasks", []string{"-repo", sample, "-tasks", empty, "-gold", "-out", out}, "holds no task"},
		{"invalid record", []string{"-repo", sample, "-tasks", noFunctions, "-gold", "-out", out}, noFunctions + ":1: x: "},
		{"truncated line", []string{"-repo", sample, "-tasks", truncated, "-gold", "-out", out}, truncated + ": task: jsonl line 1"},
		{"no endpoint", []string{"-repo", sample, "-tasks", tasks, "-out", out}, "or pass -gold"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("FAULTLINE_LLM_MODEL", "")
			t.Setenv("OPENAI_MODEL", "")
			var stdout, stderr bytes.Buffer
			if code := run(context.Background(), tc.args, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("exit %d, stderr:\n%s\nwant 2 and %q", code, stderr.String(), tc.want)
			}
			if strings.Contains(stderr.String(), "solving") || stdout.Len() > 0 {
				t.Errorf("work started:\n%s", stderr.String())
			}
			if _, err := os.Stat(out); err == nil {
				t.Error("an output was written")
			}
		})
	}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"-h"}, &stdout, &stderr); code != 0 {
		t.Errorf("-h: exit %d", code)
	}
}

func Example_summarize() {
	s := summarize([]Result{
		{ID: "a", Success: true, Partial: 1, Best: 1, Diagnosed: true},
		{ID: "b", Partial: 0.5, Best: 0.75, Diagnosed: true},
		{ID: "c", Hacked: true},
		{ID: "d", Error: "llm: HTTP 401"},
	})
	fmt.Printf("%d tasks: success %.2f, partial %.3f, best %.4f, diagnosed %.2f, %d hacked, %d errors\n",
		s.Tasks, s.SuccessRate, s.MeanPartial, s.MeanBest, s.DiagnosisRate, s.Hacked, s.Errors)
	// Output:
	// 4 tasks: success 0.25, partial 0.375, best 0.4375, diagnosed 0.50, 1 hacked, 1 errors
}

const statsPy = `def mean(xs):
    """Arithmetic mean of a non-empty sequence."""
    total = 0.0
    for x in xs:
        total += x
    return total / len(xs)


class Summary:
    """Summary statistics of a sample."""

    def __init__(self, xs):
        self.xs = list(xs)

    def spread(self):
        """Largest minus smallest value."""
        lo = min(self.xs)
        hi = max(self.xs)
        if lo == hi:
            return 0.0
        return hi - lo

    def describe(self):
        return "mean=%g spread=%g" % (mean(self.xs), self.spread())
`

const statsTestPy = `from pkg.stats import Summary, mean


def test_mean_ints():
    assert mean([1, 2, 3]) == 2


def test_mean_one():
    assert mean([4]) == 4


def test_mean_floats():
    assert mean([0.5, 1.5]) == 1.0


def test_spread():
    assert Summary([3, 1, 2]).spread() == 2


def test_spread_constant():
    assert Summary([5, 5]).spread() == 0.0


def test_spread_negative():
    assert Summary([-4, 4]).spread() == 8


def test_describe():
    assert Summary([1, 3]).describe() == "mean=2 spread=2"


def test_describe_single():
    assert Summary([7]).describe() == "mean=7 spread=0"
`

// TestSolvePythonGold: tasks generated from a small Python package (a function and a
// method), solved by the gold solver through the CLI with the real pytest.
func TestSolvePythonGold(t *testing.T) {
	if testing.Short() {
		t.Skip("runs pytest")
	}
	if err := exec.Command("/usr/bin/python3", "-c", "import pytest").Run(); err != nil {
		t.Skip("needs /usr/bin/python3 with pytest (apt-get install python3-pytest)")
	}
	ctx := context.Background()
	root := t.TempDir()
	r, req, b, g, cent := pythonProject(t, root, map[string]string{"pkg/__init__.py": "", "pkg/stats.py": statsPy, "tests/__init__.py": "", "tests/test_stats.py": statsTestPy}, 2)
	var problems []task.BreakpointProblem
	names := map[string]bool{}
	for _, mode := range []corrupt.Mode{corrupt.Remove, corrupt.Discovery} {
		res, err := corrupt.Generate(ctx, root, g, cent, r, corrupt.Baseline{Passing: b.Passing, Failing: b.Failing, Flaky: b.Flaky},
			corrupt.Options{Mode: mode, N: 2, Seed: 1, Run: req, MinFailures: 2})
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range res {
			p := x.Problem("stats", "0123456789abcdef0123456789abcdef01234567")
			problems = append(problems, p)
			names[p.Functions[0].Name] = true
		}
	}
	if !names["Summary.spread"] {
		t.Fatalf("no task corrupts the method Summary.spread (tasks: %v)", names)
	}
	tasks := filepath.Join(t.TempDir(), "tasks.jsonl")
	var buf bytes.Buffer
	if err := task.WriteJSONL(&buf, problems); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tasks, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	before := hashTree(t, root)
	out := filepath.Join(t.TempDir(), "results.jsonl")
	var stdout, stderr bytes.Buffer
	if code := run(ctx, []string{"-repo", root, "-tasks", tasks, "-gold", "-out", out}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d:\n%s", code, stderr.String())
	}
	rs, sum := readResults(t, out)
	if len(rs) != len(problems) || sum.SuccessRate != 1 || sum.DiagnosisRate != 1 || sum.MeanPartial != 1 {
		t.Errorf("results %+v, summary %+v\n%s", rs, sum, stderr.String())
	}
	if !equalTrees(before, hashTree(t, root)) {
		t.Error("the repository was written")
	}
}

// TestSolvePackageDirectory: -repo names a Python package directory (no project file around
// it), as breakpoint was given it. Solve stages the package under its own name, as
// breakpoint did, so the tasks' paths resolve and the tests import the copy being repaired:
// the gold solver solves every task.
func TestSolvePackageDirectory(t *testing.T) {
	if testing.Short() {
		t.Skip("runs pytest")
	}
	if err := exec.Command("/usr/bin/python3", "-c", "import pytest").Run(); err != nil {
		t.Skip("needs /usr/bin/python3 with pytest (apt-get install python3-pytest)")
	}
	ctx := context.Background()
	root := t.TempDir()
	const name = "faultline_solvepkg"
	test := strings.ReplaceAll(statsTestPy, "from pkg.stats", "from "+name+".stats")
	// The tasks, made on the package's import root (the same relative paths breakpoint
	// records for the package directory).
	r, req, b, g, cent := pythonProject(t, root, map[string]string{name + "/__init__.py": "", name + "/stats.py": statsPy, name + "/tests/__init__.py": "", name + "/tests/test_stats.py": test}, 1)
	res, err := corrupt.Generate(ctx, root, g, cent, r, corrupt.Baseline{Passing: b.Passing}, corrupt.Options{Mode: corrupt.Remove, N: 2, Seed: 1, Run: req, MinFailures: 2})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	for _, x := range res {
		if err := task.WriteJSONL(&buf, []task.BreakpointProblem{x.Problem(name, "")}); err != nil {
			t.Fatal(err)
		}
	}
	tasks := filepath.Join(t.TempDir(), "tasks.jsonl")
	if err := os.WriteFile(tasks, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	before := hashTree(t, root)
	out := filepath.Join(t.TempDir(), "results.jsonl")
	var stdout, stderr bytes.Buffer
	if code := run(ctx, []string{"-repo", filepath.Join(root, name), "-tasks", tasks, "-gold", "-out", out}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d:\n%s", code, stderr.String())
	}
	if want := "root " + root + " (no project file: the import root of package " + name + ", limited to the package)"; !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
	}
	rs, sum := readResults(t, out)
	if len(rs) != len(res) || sum.SuccessRate != 1 {
		t.Errorf("results %+v, summary %+v\n%s", rs, sum, stderr.String())
	}
	if !equalTrees(before, hashTree(t, root)) {
		t.Error("the repository was written")
	}
}

// TestSolveRefusesUnreadyRepository: a repository whose tests do not collect is refused
// before any task runs, with examples/doctor's words.
func TestSolveRefusesUnreadyRepository(t *testing.T) {
	if testing.Short() {
		t.Skip("runs pytest")
	}
	if err := exec.Command("/usr/bin/python3", "-c", "import pytest").Run(); err != nil {
		t.Skip("needs /usr/bin/python3 with pytest (apt-get install python3-pytest)")
	}
	root := t.TempDir()
	for name, src := range map[string]string{"m.py": "def f():\n    x = 1\n    return x\n", "test_m.py": "import m\n\ndef test_f(:\n    assert m.f() == 1\n"} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	patch, err := task.DiffOverlay(root, task.Overlay{"m.py": {Data: []byte("def f():\n    x = 2\n    return x\n")}}, task.DiffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := task.BreakpointProblem{ID: "m.remove.1.0.x", Repo: "m", Mode: "remove", Seed: 1,
		Functions:       []task.CorruptedFunction{{Path: "m.py", Name: "f", Span: task.Span{Start: 0, End: 30}, Line: 1, EndLine: 3}},
		CorruptionPatch: string(patch.Format()), GoldPatch: string(patch.Reverse().Format()), FailToPass: task.TestList{"test_m.py::test_f"}}
	var buf bytes.Buffer
	if err := task.WriteJSONL(&buf, []task.BreakpointProblem{p}); err != nil {
		t.Fatal(err)
	}
	tasks := filepath.Join(t.TempDir(), "tasks.jsonl")
	if err := os.WriteFile(tasks, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "results.jsonl")
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"-repo", root, "-tasks", tasks, "-gold", "-out", out, "-python", "/usr/bin/python3"}, &stdout, &stderr); code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, stderr.String())
	}
	for _, want := range []string{"is not ready", "the tests cannot be collected on the clean tree", "python3 -m pytest --collect-only"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a refused run wrote its output")
	}
}

// pythonProject writes files under root and returns a runner for it (closed with t), the
// run template, the clean baseline over runs runs, and the call graph and centrality that
// Breakpoint tasks are made from.
func pythonProject(t *testing.T, root string, files map[string]string, runs int) (*sandbox.Local, task.RunRequest, *sandbox.BaselineResult, *callgraph.Graph, *callgraph.Centrality) {
	t.Helper()
	ctx := context.Background()
	for p, src := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, p), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := sandbox.NewLocal(sandbox.Options{Python: "/usr/bin/python3"})
	t.Cleanup(func() { r.Close() })
	req := task.RunRequest{Root: root, Kind: task.Pytest}
	b, err := sandbox.Baseline(ctx, r, req, runs)
	if err != nil {
		t.Fatalf("baseline: %v", err)
	}
	g, err := callgraph.Build(ctx, root, []callgraph.Language{python.New(python.Options{})}, callgraph.BuildOptions{SkipTests: true})
	if err != nil {
		t.Fatal(err)
	}
	cent, err := g.Centrality(ctx, callgraph.CentralityOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return r, req, b, g, cent
}
