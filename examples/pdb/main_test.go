package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/compose"
	"github.com/faultline-dev/faultline/metrics"
	"github.com/faultline-dev/faultline/task"
)

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func jsonl(t *testing.T, vs ...any) string {
	var b strings.Builder
	for _, v := range vs {
		switch x := v.(type) {
		case string:
			b.WriteString(x)
		default:
			data, err := json.Marshal(x)
			if err != nil {
				t.Fatal(err)
			}
			b.Write(data)
		}
		b.WriteString("\n")
	}
	return b.String()
}

func example(id, buggy, fixed, solution string) task.PDBExample {
	gt := task.DiffLines(buggy, fixed).Clean()
	ex := task.PDBExample{TaskID: id, BuggyCode: buggy, GTSolution: fixed, GTDiff: gt, BugCount: len(task.Blocks(gt))}
	if solution != "" {
		ex.DebugResults = []task.DebugResult{{Solution: solution}}
	}
	return ex
}

// outLine is one output line of score: a task record or the summary.
type outLine struct {
	metrics.Result
	Summary *struct {
		metrics.Summary
		Skipped int `json:"skipped"`
	} `json:"summary"`
}

// runPDB runs the command in process and returns its exit status, stdout and stderr.
func runPDB(ctx context.Context, args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := run(ctx, args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// runScore runs score, which must succeed, and parses its output lines.
func runScore(t *testing.T, args ...string) ([]outLine, string, string) {
	t.Helper()
	code, out, errOut := runPDB(context.Background(), append([]string{"score"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	return parseScore(t, out), out, errOut
}

func parseScore(t *testing.T, out string) []outLine {
	t.Helper()
	var lines []outLine
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var o outLine
		if err := json.Unmarshal([]byte(l), &o); err != nil {
			t.Fatalf("bad output line %q: %v", l, err)
		}
		lines = append(lines, o)
	}
	return lines
}

const fixed = "def f(x):\n    a = x + 1\n    b = a * 2\n    return b"

// The oracle: a test that passes iff the program computes a = x + 1 and b = a * 2.
const grepOracle = `grep -q 'a = x + 1' {program} && grep -q 'b = a \* 2' {program}`

// TestScoreVerdicts scores through the sandbox: exact and partial fixes, CRLF input, a
// program whose tests hang and one that crashes (both failing verdicts, counted in the
// averages, as the release's evaluator counts them), and a broken oracle command (an
// error: left out of the averages, exit status 1). Records come in input order with the
// documented members; stdout holds nothing else.
func TestScoreVerdicts(t *testing.T) {
	buggy := strings.Replace(fixed, "x + 1", "x - 1", 1)
	good := example("good", buggy, fixed, fixed)
	partial := example("partial", buggy, fixed, strings.Replace(fixed, "return b", "return (b)", 1))
	crlf := example("crlf", strings.ReplaceAll(buggy, "\n", "\r\n"), strings.ReplaceAll(fixed, "\n", "\r\n"), strings.ReplaceAll(fixed, "\n", "\r\n"))
	// hang and crash fix the bug another way, which needs the oracle (pass 2).
	other := strings.Replace(fixed, "x + 1", "1 + x", 1)
	hang := example("hang", buggy, fixed, other)
	crash := example("crash", buggy, fixed, other)
	in := writeFile(t, "ex.jsonl", jsonl(t, good, partial, crlf, hang, crash))
	cmd := `case {task_id} in hang) sleep 30;; crash) kill -SEGV $$;; esac; ` +
		`grep -Eq 'a = (x \+ 1|1 \+ x)' {program} && grep -q 'b = a \* 2' {program}`
	start := time.Now()
	out, raw, stderr := runScore(t, "-in", in, "-oracle-cmd", cmd, "-timeout", "5s", "-jobs", "2")
	if time.Since(start) > 30*time.Second {
		t.Errorf("the hanging oracle was not stopped in time")
	}
	if len(out) != 6 || out[5].Summary == nil {
		t.Fatalf("want 5 task lines and a summary, got:\n%s", raw)
	}
	want := []struct {
		id       string
		p, r, u  float64
		unit     task.Outcome
		timeouts int
	}{
		{"good", 1, 1, 1, task.Pass, 0},
		{"partial", 0.5, 1, 1, task.Pass, 0}, // line 2 exact, line 4 unmatched
		{"crlf", 1, 1, 1, task.Pass, 0},
		{"hang", 0, 0, 0, task.Timeout, 2}, // one call, its verdict used twice (unit, match)
		{"crash", 0, 0, 0, task.Fail, 0},
	}
	for i, w := range want {
		o := out[i]
		if o.TaskID != w.id || o.Error != "" || o.Precision != w.p || o.Recall != w.r || o.Unit != w.u ||
			o.UnitOutcome != w.unit || o.OracleTimeouts != w.timeouts || o.BugCount != 1 {
			t.Errorf("%s: %+v", w.id, o.Result)
		}
	}
	if o := out[3]; len(o.Matches) != 1 || o.Matches[0].Outcome != task.Timeout || o.OracleCalls != 1 {
		t.Errorf("hang: the match's verdict must be the timeout: %+v", o.Result)
	}
	if s := out[5].Summary; s.Tasks != 5 || s.Errors != 0 || !near(s.Macro.Unit.Mean, 3.0/5) || s.Macro.Unit.N != 5 {
		t.Errorf("summary %+v", s)
	}
	if !strings.Contains(stderr, "unit=0.600 prec=0.500 rec=0.600 f1=0.533 (n=5)") || !strings.Contains(stderr, "5/5 tasks") {
		t.Errorf("stderr lacks the release's summary line or the progress:\n%s", stderr)
	}
	first := strings.SplitN(raw, "\n", 2)[0]
	var keys map[string]json.RawMessage
	json.Unmarshal([]byte(first), &keys)
	for _, k := range []string{"task_id", "bug_count", "precision", "recall", "f1", "unit", "unit_outcome", "matches", "unmatched_pred", "unmatched_gt", "oracle_calls", "oracle_timeouts"} {
		if _, ok := keys[k]; !ok {
			t.Errorf("missing key %q in %s", k, first)
		}
	}

	// A command the shell cannot find is a broken oracle: the task has an error, the
	// average leaves it out and the exit status is 1.
	code, stdout, stderr := runPDB(context.Background(), "score", "-in", in, "-oracle-cmd", "/nonexistent/tool {program}")
	if code != 1 {
		t.Fatalf("broken oracle: exit %d", code)
	}
	lines := parseScore(t, stdout)
	if !strings.Contains(lines[0].Error, "could not run (exit status 127)") || lines[5].Summary.Errors != 5 {
		t.Errorf("broken oracle: %+v\n%s", lines[0].Result, stderr)
	}
}

func near(a, b float64) bool { d := a - b; return d < 1e-9 && d > -1e-9 }

func TestScorePredFileAndModes(t *testing.T) {
	buggy := strings.Replace(fixed, "x + 1", "x - 1", 1)
	ex := example("t1", buggy, fixed, "")
	in := writeFile(t, "ex.jsonl", jsonl(t, ex))
	pred := writeFile(t, "pred.jsonl", jsonl(t, map[string]any{"task_id": "t1", "solution": fixed}))
	for _, mode := range []string{"paper", "reference"} {
		out, _, _ := runScore(t, "-in", in, "-pred", pred, "-oracle-cmd", grepOracle, "-mode", mode, "-epsilon", "2")
		if len(out) != 2 || out[0].Error != "" || out[0].Precision != 1 || out[0].OracleCalls != 1 {
			t.Errorf("%s: %+v", mode, out[0])
		}
	}
	// -epsilon 0 is ε = 0 (the release's --tolerance 0), auto the paper's default: a fix
	// of a one-line bug that needs a second line (these tests want b = 2 * a) is credited
	// the extra line with ε ≥ 1, not with ε = 0.
	over := strings.Replace(fixed, "b = a * 2", "b = 2 * a", 1)
	ex2 := example("t2", buggy, fixed, over)
	in2 := writeFile(t, "ex2.jsonl", jsonl(t, ex2))
	cmd := `grep -q 'a = x + 1' {program} && grep -q 'b = 2 \* a' {program}`
	for eps, want := range map[string]float64{"auto": 1, "1": 1, "0": 0.5} {
		out, _, _ := runScore(t, "-in", in2, "-oracle-cmd", cmd, "-epsilon", eps)
		if out[0].Precision != want {
			t.Errorf("-epsilon %s: precision %v, want %v", eps, out[0].Precision, want)
		}
	}
	// -stride rejects a ground truth whose blocks are too close, before any run.
	two := example("two", strings.Replace(buggy, "return b", "return a", 1), fixed, fixed)
	in3 := writeFile(t, "two.jsonl", jsonl(t, two))
	if out, _, _ := runScore(t, "-in", in3, "-oracle-cmd", grepOracle, "-stride", "2"); out[0].Precision != 1 {
		t.Errorf("stride 2: %+v", out[0])
	}
	code, stdout, stderr := runPDB(context.Background(), "score", "-in", in3, "-oracle-cmd", grepOracle, "-stride", "3")
	if code != 1 || stdout != "" || !strings.Contains(stderr, "two.jsonl:1: task two: -stride 3") {
		t.Errorf("stride 3: exit %d\n%s", code, stderr)
	}
	// -skip-invalid skips it with a warning, like the release's evaluator.
	both := writeFile(t, "both.jsonl", jsonl(t, ex, two))
	out, _, stderr := runScore(t, "-in", both, "-pred", writeFile(t, "p.jsonl", jsonl(t,
		map[string]any{"task_id": "t1", "solution": fixed}, map[string]any{"task_id": "two", "solution": fixed})),
		"-oracle-cmd", grepOracle, "-stride", "3", "-skip-invalid")
	if len(out) != 2 || out[0].TaskID != "t1" || out[1].Summary.Skipped != 1 || !strings.Contains(stderr, "both.jsonl:2: skipped task two") {
		t.Errorf("skip-invalid: %+v\n%s", out, stderr)
	}
}

// calcProgram writes a correct program and, in a directory for -repo, the byte copy its
// "tests" compare with: the program must be byte-identical to the correct one, as written
// (compose writes programs without a final line break). It returns the program's path, the
// directory and the -tests command.
func calcProgram(t *testing.T) (prog, repo, tests string) {
	t.Helper()
	prog = writeFile(t, "calc.py", strings.Join([]string{
		"def calc(xs):",
		"    n = len(xs)",
		"    total = 0",
		"    for x in xs:",
		"        total += x",
		"    mean = total / n",
		"    low = min(xs)",
		"    high = max(xs)",
		"    spread = high - low",
		"    return mean, spread",
	}, "\n")+"\n")
	repo = t.TempDir()
	src, _ := os.ReadFile(prog)
	if err := os.WriteFile(filepath.Join(repo, "want.py"), []byte(compose.Canonical(string(src))), 0o644); err != nil {
		t.Fatal(err)
	}
	return prog, repo, "cmp -s {program} want.py"
}

func TestComposeCmd(t *testing.T) {
	prog, repo, tests := calcProgram(t)
	outPath := filepath.Join(t.TempDir(), "out.jsonl")
	args := []string{"compose", "-program", prog, "-repo", repo, "-tests", tests, "-k-max", "3", "-m1", "8", "-m2", "20", "-m3", "2", "-stride", "2", "-seed", "5", "-out", outPath}
	code, stdout, stderr := runPDB(context.Background(), args...)
	if code != 0 || stdout != "" {
		t.Fatalf("exit %d, stdout %q: %s", code, stdout, stderr)
	}
	data, err := os.ReadFile(outPath)
	if err != nil {
		t.Fatal(err)
	}
	exs, err := task.ReadAllJSONL[task.PDBExample](bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	perK := map[int]int{}
	for _, ex := range exs {
		perK[ex.BugCount]++
		if err := ex.Validate(); err != nil {
			t.Errorf("%s: %v", ex.TaskID, err)
		}
		if _, ok := ex.Extra["seed"]; !ok {
			t.Errorf("%s: no seed recorded", ex.TaskID)
		}
		if ex.TaskPrompt != "Fix the bugs in calc.py." || ex.SourceModel != "faultline/rule" {
			t.Errorf("%s: task_prompt %q source_model %q", ex.TaskID, ex.TaskPrompt, ex.SourceModel)
		}
		if (ex.BugCount == 1) != (ex.BugType != "") {
			t.Errorf("%s: bug_type %q on a %d-bug example", ex.TaskID, ex.BugType, ex.BugCount)
		}
		if strings.HasSuffix(ex.BuggyCode, "\n") || strings.HasSuffix(ex.GTSolution, "\n") {
			t.Errorf("%s: programs must not end with a line break (the release's form)", ex.TaskID)
		}
	}
	if !bytes.Contains(data, []byte(`"type":"Modify"`)) || bytes.Contains(data, []byte(`"type":"modify"`)) {
		t.Errorf("edit types not in the release's spelling")
	}
	if perK[1] != 2 || perK[2] != 2 || perK[3] == 0 {
		t.Errorf("examples per k %v", perK)
	}
	if !strings.Contains(stderr, "examples of 6 asked") || !strings.Contains(stderr, "k=2: 2 of 2 examples") {
		t.Errorf("stderr does not say what was produced against what was asked:\n%s", stderr)
	}
	// -format json: the same records as an indented array, which score reads as it is.
	arrPath := filepath.Join(t.TempDir(), "out.json")
	args[len(args)-1] = arrPath
	if code, _, stderr := runPDB(context.Background(), append(args, "-format", "json")...); code != 0 {
		t.Fatal(stderr)
	}
	arr, _ := os.ReadFile(arrPath)
	var fromArr []task.PDBExample
	if err := json.Unmarshal(arr, &fromArr); err != nil || len(fromArr) != len(exs) || !bytes.HasPrefix(arr, []byte("[\n  {\n")) {
		t.Fatalf("array output: %v, %d records", err, len(fromArr))
	}
	for i := range exs {
		a, _ := json.Marshal(exs[i])
		b, _ := json.Marshal(fromArr[i])
		if !bytes.Equal(a, b) {
			t.Errorf("record %d differs between the formats", i)
		}
	}
	// Tests that do not look at the program they are given (here they compare the wanted
	// file with itself) are refused before any bug is tried, saying what to change.
	ignorePath := filepath.Join(t.TempDir(), "ignored.jsonl")
	code, _, stderr = runPDB(context.Background(), "compose", "-program", prog, "-repo", repo, "-tests", "cmp -s want.py want.py", "-out", ignorePath)
	if code != 1 || !strings.Contains(stderr, "the tests pass on an empty program") || !strings.Contains(stderr, "empty file at calc.py") {
		t.Errorf("tests that ignore the program: exit %d:\n%s", code, stderr)
	}
	if _, err := os.Stat(ignorePath); !os.IsNotExist(err) {
		t.Errorf("a refused compose left %s (%v)", ignorePath, err)
	}
	// A program whose tests fail is refused.
	bad := writeFile(t, "bad.py", "x = 1\n")
	if code, _, _ := runPDB(context.Background(), "compose", "-program", bad, "-tests", "false"); code != 1 {
		t.Errorf("failing correct program: exit %d", code)
	}
	// The refusal says why: the end of the tests' output, or the limit that stopped them
	// and the flag that sets it.
	code, _, stderr = runPDB(context.Background(), "compose", "-program", bad, "-tests", "echo AssertionError-in-test_bad; exit 1")
	if code != 1 || !strings.Contains(stderr, "AssertionError-in-test_bad") {
		t.Errorf("failing correct program: exit %d, the tests' output not shown:\n%s", code, stderr)
	}
	code, _, stderr = runPDB(context.Background(), "compose", "-program", bad, "-tests", "sleep 20", "-timeout", "1s")
	if code != 1 || !strings.Contains(stderr, "time limit of 1s") || !strings.Contains(stderr, "-timeout") {
		t.Errorf("hanging correct program: exit %d, the limit and its flag not named:\n%s", code, stderr)
	}
}

// A mutant whose tests hang is rejected (a timeout verdict) and compose goes on, also in
// multi-line mode; stderr counts the rejections.
func TestComposeHangingMutant(t *testing.T) {
	prog := writeFile(t, "calc.py", strings.Join([]string{
		"def calc(xs):", "    n = len(xs)", "    total = 0", "    for x in xs:", "        total += x",
		"    mean = total / n", "    low = min(xs)", "    high = max(xs)", "    spread = high - low",
		"    return mean, spread"}, "\n"))
	repo := t.TempDir()
	src, _ := os.ReadFile(prog)
	os.WriteFile(filepath.Join(repo, "want.py"), src, 0o644)
	// Mutants of the "low" line hang; every other mutant fails.
	tests := `cmp -s {program} want.py && exit 0; grep -q '    low = min(xs)' {program} || sleep 30; exit 1`
	for _, multi := range []string{"-multi=false", "-multi=true"} {
		start := time.Now()
		code, stdout, stderr := runPDB(context.Background(), "compose", multi, "-program", prog, "-repo", repo, "-tests", tests,
			"-timeout", "1s", "-m1", "10", "-m3", "1", "-k-max", "2", "-seed", "3", "-jobs", "2")
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s", multi, code, stderr)
		}
		if !strings.Contains(stderr, "timeout ") || time.Since(start) > 2*time.Minute {
			t.Errorf("%s: no hanging mutant was met, or it was not stopped:\n%s", multi, stderr)
		}
		exs, err := task.ReadAllJSONL[task.PDBExample](strings.NewReader(stdout))
		if err != nil || len(exs) == 0 {
			t.Fatalf("%s: %v, %d examples", multi, err, len(exs))
		}
		for _, ex := range exs {
			if !strings.Contains(ex.BuggyCode, "    low = min(xs)") {
				t.Errorf("%s: %s keeps a hanging bug", multi, ex.TaskID)
			}
		}
	}
}

// TestPackageDirNote: -repo given as a package directory of a Python project gets a note
// naming the project root and the flags to use; the project root itself, or a directory
// that is no package, gets none.
func TestPackageDirNote(t *testing.T) {
	proj := t.TempDir()
	pkg := filepath.Join(proj, "calcpkg")
	if err := os.MkdirAll(filepath.Join(pkg, "tests"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"calcpkg/__init__.py": "", "calcpkg/calc.py": "X = 1\n", "calcpkg/tests/test_calc.py": "from calcpkg import calc\n"} {
		if err := os.WriteFile(filepath.Join(proj, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root, err := filepath.EvalSymlinks(proj)
	if err != nil {
		t.Fatal(err)
	}
	note := packageDirNote(filepath.Join(root, "calcpkg"))
	for _, want := range []string{"is the package directory calcpkg of the Python project rooted at " + root, "give -repo " + root + " and a -program-name under calcpkg/"} {
		if !strings.Contains(note, want) {
			t.Errorf("note lacks %q: %q", want, note)
		}
	}
	if n := packageDirNote(root); n != "" {
		t.Errorf("the project root got a note: %q", n)
	}
	if n := packageDirNote(t.TempDir()); n != "" {
		t.Errorf("a directory that is no package got a note: %q", n)
	}
}
