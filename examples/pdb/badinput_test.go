package main

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// badCase is a command line that must be refused before any run.
type badCase struct {
	name string
	args []string
	code int    // 2 for a usage error, 1 for a bad input file
	msg  string // the flag, or file:line, the message must name
}

// checkRefused runs c with an oracle that would leave a marker file on the host (through
// -unsafe-host) and asserts the refusal: exit status, the message, no output on stdout,
// the -out file not created, no run made.
func checkRefused(t *testing.T, c badCase, out, marker string) {
	t.Helper()
	code, stdout, stderr := runPDB(context.Background(), c.args...)
	if code != c.code {
		t.Errorf("exit %d, want %d\n%s", code, c.code, stderr)
	}
	if !strings.Contains(stderr, c.msg) {
		t.Errorf("message does not name %q:\n%s", c.msg, stderr)
	}
	if stdout != "" {
		t.Errorf("stdout not empty: %q", stdout)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("-out %s was written", out)
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Errorf("a program ran")
	}
	if ents, _ := os.ReadDir(filepath.Dir(out)); len(ents) > 0 {
		t.Errorf("files left beside -out: %v", ents)
	}
}

func TestScoreRefusesBadFlagsAndInput(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	oracle := "echo x >> " + shellQuote(marker) + "; true"
	outDir := filepath.Join(dir, "out")
	os.Mkdir(outDir, 0o755)
	out := filepath.Join(outDir, "scores.jsonl")
	buggy := strings.Replace(fixed, "x + 1", "x - 1", 1)
	good := example("good", buggy, fixed, fixed)
	goodLine := jsonl(t, good)
	in := writeFile(t, "ex.jsonl", goodLine)
	noPred := writeFile(t, "nopred.jsonl", jsonl(t, example("np", buggy, fixed, "")))
	pred := writeFile(t, "pred.jsonl", jsonl(t, map[string]any{"task_id": "np", "solution": fixed}))
	file := func(name, content string) string { return writeFile(t, name, content) }
	base := func(extra ...string) []string {
		return append([]string{"score", "-unsafe-host", "-oracle-cmd", oracle, "-out", out}, extra...)
	}
	mismatch := example("mm", buggy, fixed, fixed)
	mismatch.GTSolution = strings.Replace(fixed, "a * 2", "a * 3", 1)
	wrongCount := example("wc", buggy, fixed, fixed)
	wrongCount.BugCount = 2

	cases := []badCase{
		// Flags: usage errors (exit 2) naming the flag.
		{"no -in", []string{"score", "-oracle-cmd", oracle, "-out", out}, 2, "-in: is required"},
		{"missing -in", base("-in", filepath.Join(dir, "nope.jsonl")), 2, "-in: open"},
		{"-in directory", base("-in", dir), 2, "-in: " + dir + " is not a regular file"},
		{"missing -pred", base("-in", in, "-pred", filepath.Join(dir, "nope")), 2, "-pred: open"},
		{"no -oracle-cmd", []string{"score", "-in", in, "-out", out}, 2, "-oracle-cmd: is required"},
		{"blank -oracle-cmd", base("-in", in, "-oracle-cmd", "  "), 2, "-oracle-cmd: is required"},
		{"bad -mode", base("-in", in, "-mode", "bogus"), 2, "-mode: want paper or reference"},
		{"negative -epsilon", base("-in", in, "-epsilon", "-1"), 2, "-epsilon: want auto or a number"},
		{"word -epsilon", base("-in", in, "-epsilon", "two"), 2, "-epsilon: want auto or a number"},
		{"negative -stride", base("-in", in, "-stride", "-1"), 2, "-stride: must be ≥ 0"},
		{"zero -timeout", base("-in", in, "-timeout", "0"), 2, "-timeout: must be positive"},
		{"negative -timeout", base("-in", in, "-timeout", "-1s"), 2, "-timeout: must be positive"},
		{"negative -jobs", base("-in", in, "-jobs", "-1"), 2, "-jobs: want 0 (GOMAXPROCS) or more, got -1"},
		{"escaping -program-name", base("-in", in, "-program-name", "../x.py"), 2, "-program-name: must be a relative path"},
		{"absolute -program-name", base("-in", in, "-program-name", "/tmp/x.py"), 2, "-program-name: must be a relative path"},
		{"missing -repo", base("-in", in, "-repo", filepath.Join(dir, "nope")), 2, "-repo: "},
		{"file -repo", base("-in", in, "-repo", in), 2, "-repo: " + in + " is not a directory"},
		{"bad -env", base("-in", in, "-env", "NOEQUALS"), 2, "-env"},
		{"blank -python", base("-in", in, "-python", " "), 2, "-python: must name an interpreter"},
		{"empty -out", []string{"score", "-in", in, "-oracle-cmd", oracle, "-out", ""}, 2, "-out: must name a file"},
		{"directory -out", []string{"score", "-in", in, "-oracle-cmd", oracle, "-out", outDir}, 2, "-out: " + outDir + " is a directory"},
		{"-out in a missing directory", []string{"score", "-in", in, "-oracle-cmd", oracle, "-out", filepath.Join(dir, "no", "x.jsonl")}, 2, "-out: cannot write there"},
		// A bad -out is a bad command line: refused before the input is read, even a bad one.
		{"bad -out and bad input", []string{"score", "-in", file("x.jsonl", "{"), "-oracle-cmd", oracle, "-out", filepath.Join(dir, "no", "x.jsonl")}, 2, "-out: cannot write there"},
		{"positional argument", base("-in", in, "extra"), 2, `unexpected argument "extra"`},
		{"unknown flag", base("-in", in, "-bogus"), 2, "flag provided but not defined: -bogus"},

		// Input files: errors (exit 1) naming file:line.
		{"truncated line", base("-in", file("a.jsonl", goodLine+"\n"+`{"task_id": "t", "buggy_code": `)), 1, "a.jsonl:3:"},
		{"array syntax error", base("-in", file("b.json", "[\n  {\"task_id\": \"a\"},\n  {\"task_id\" \"b\"}\n]")), 1, "b.json:3:"},
		{"array truncated", base("-in", file("c.json", "[\n"+strings.TrimSpace(goodLine)+",\n")), 1, "c.json:3: unexpected end"},
		{"wrong member type", base("-in", file("d.jsonl", goodLine+`{"task_id": "t", "buggy_code": 5, "gt_diff": {}}`)), 1, "d.jsonl:2: field buggy_code"},
		{"not an object", base("-in", file("e.jsonl", goodLine+"[1, 2]\n")), 1, "e.jsonl:2: not a JSON object"},
		{"no task_id", base("-in", file("f.jsonl", goodLine+`{"buggy_code": "x", "gt_diff": {}}`)), 1, "f.jsonl:2: no task_id"},
		{"task_id object", base("-in", file("g.jsonl", `{"task_id": {"a": 1}}`)), 1, "g.jsonl:1: field task_id"},
		{"duplicate task_id", base("-in", file("h.jsonl", goodLine+goodLine)), 1, `h.jsonl:2: task_id "good" repeats line 1`},
		{"gt_diff does not give gt_solution", base("-in", file("i.jsonl", jsonl(t, mismatch))), 1, "i.jsonl:1: task mm: field gt_diff"},
		{"wrong bug_count", base("-in", file("j.jsonl", jsonl(t, wrongCount))), 1, "j.jsonl:1: task wc: field bug_count"},
		{"gt_diff off the program", base("-in", file("k.jsonl", `{"task_id": "k", "buggy_code": "a\nb", "gt_diff": {"9": {"type": "Modify", "original": "z", "modified": "y"}}, "debug_results": {"solution": "a"}}`)), 1, "k.jsonl:1: task k: field gt_diff"},
		{"empty gt_diff", base("-in", file("l.jsonl", `{"task_id": "l", "buggy_code": "a", "gt_diff": {}, "debug_results": {"solution": "a"}}`)), 1, "l.jsonl:1: task l: field gt_diff: no edits"},
		{"unknown edit type", base("-in", file("m.jsonl", `{"task_id": "m", "buggy_code": "a", "gt_diff": {"1": {"type": "Move"}}}`)), 1, "m.jsonl:1: field gt_diff"},
		{"empty buggy_code", base("-in", file("n.jsonl", `{"task_id": "n", "buggy_code": "", "gt_solution": "a", "debug_results": {"solution": "a"}}`)), 1, "n.jsonl:1: task n: field buggy_code"},
		{"solution not code", base("-in", file("o.jsonl", `{"task_id": "o", "buggy_code": "a", "gt_solution": "b", "debug_results": {"solution": 42}}`)), 1, "o.jsonl:1: field debug_results.solution"},
		{"debug_results without solution", base("-in", file("p.jsonl", `{"task_id": "p", "buggy_code": "a", "gt_solution": "b", "debug_results": {"model": "m"}}`)), 1, "p.jsonl:1: field debug_results: no solution"},
		{"no prediction", base("-in", noPred), 1, "nopred.jsonl:1: task np has no prediction"},
		{"-pred truncated", base("-in", noPred, "-pred", file("q.jsonl", `{"task_id": "np", "solution": "x"}`+"\n"+`{"task_id": "z", "sol`)), 1, "q.jsonl:2:"},
		{"-pred solution not code", base("-in", noPred, "-pred", file("r.jsonl", `{"task_id": "np", "solution": ["x"]}`)), 1, "r.jsonl:1: field solution: want a string"},
		{"-pred without solution", base("-in", noPred, "-pred", file("s.jsonl", `{"task_id": "np", "answer": "x"}`)), 1, "s.jsonl:1: no solution"},
		{"-pred duplicate", base("-in", noPred, "-pred", file("u.jsonl", jsonl(t, map[string]any{"task_id": "np", "solution": fixed}, map[string]any{"task_id": "np", "solution": fixed}))), 1, `u.jsonl:2: task_id "np" repeats line 1`},
		{"-pred lacks a task", base("-in", noPred, "-pred", file("v.jsonl", jsonl(t, map[string]any{"task_id": "other", "solution": fixed}))), 1, "nopred.jsonl:1: task np has no prediction in"},
		{"empty input", base("-in", file("w.jsonl", "\n\n")), 1, "w.jsonl: no task to score"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { checkRefused(t, c, out, marker) })
	}
	// The control: the same command line with good input runs the oracle and writes -out.
	code, _, stderr := runPDB(context.Background(), base("-in", noPred, "-pred", pred)...)
	if _, err := os.Stat(marker); code != 0 || err != nil {
		t.Fatalf("control run: exit %d, marker %v\n%s", code, err, stderr)
	}
	if _, err := os.Stat(out); err != nil {
		t.Errorf("control run wrote no -out: %v", err)
	}
}

func TestComposeRefusesBadFlags(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	tests := "echo x >> " + shellQuote(marker) + "; true"
	outDir := filepath.Join(dir, "out")
	os.Mkdir(outDir, 0o755)
	out := filepath.Join(outDir, "ex.jsonl")
	prog := writeFile(t, "p.py", "def f(x):\n    return x + 1\n")
	empty := writeFile(t, "e.py", " \n\n")
	base := func(extra ...string) []string {
		return append([]string{"compose", "-unsafe-host", "-program", prog, "-tests", tests, "-out", out}, extra...)
	}
	cases := []badCase{
		{"no -program", []string{"compose", "-tests", tests, "-out", out}, 2, "-program: is required"},
		{"missing -program", base("-program", filepath.Join(dir, "nope.py")), 2, "-program: open"},
		{"empty -program", base("-program", empty), 2, "-program: " + empty + " is empty"},
		{"no -tests", []string{"compose", "-program", prog, "-out", out}, 2, "-tests: is required"},
		{"zero -k-max", base("-k-max", "0"), 2, "-k-max: must be at least 1"},
		{"zero -m1", base("-m1", "0"), 2, "-m1: must be at least 1"},
		{"zero -m2", base("-m2", "0"), 2, "-m2: must be at least 1"},
		{"negative -m3", base("-m3", "-3"), 2, "-m3: must be at least 1"},
		{"zero -stride", base("-stride", "0"), 2, "-stride: must be at least 1"},
		{"zero -max-lines", base("-max-lines", "0"), 2, "-max-lines: must be at least 1"},
		{"negative -frozen", base("-frozen", "-1"), 2, "-frozen: must be at least 0"},
		{"bad -format", base("-format", "xml"), 2, "-format: want jsonl or json"},
		{"empty -task-id", base("-task-id", ""), 2, "-task-id: must not be empty"},
		{"negative -timeout", base("-timeout", "-1s"), 2, "-timeout: want 0 (derived from the clean program's run) or a positive duration"},
		{"negative -jobs", base("-jobs", "-2"), 2, "-jobs: want 0 (GOMAXPROCS) or more, got -2"},
		{"escaping -program-name", base("-program-name", "a/../../b.py"), 2, "-program-name: must be a relative path"},
		{"empty -out", []string{"compose", "-program", prog, "-tests", tests, "-out", ""}, 2, "-out: must name a file"},
		{"directory -out", base("-out", outDir), 2, "-out: " + outDir + " is a directory"},
		{"-out in a missing directory and an empty -program", base("-program", empty, "-out", filepath.Join(dir, "no", "x.jsonl")), 2, "-out: cannot write there"},
		{"bad -seed", base("-seed", "x"), 2, "-seed"},
		{"positional argument", base("x.py"), 2, `unexpected argument "x.py"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { checkRefused(t, c, out, marker) })
	}
	// A correct program whose tests fail: the run starts, fails (exit 1) and writes nothing.
	code, stdout, stderr := runPDB(context.Background(), "compose", "-unsafe-host", "-program", prog, "-tests", "false", "-out", out)
	if code != 1 || stdout != "" || !strings.Contains(stderr, "the correct program fails its tests") {
		t.Errorf("failing tests: exit %d\n%s", code, stderr)
	}
	if ents, _ := os.ReadDir(outDir); len(ents) > 0 {
		t.Errorf("files left beside -out: %v", ents)
	}
	// -h exits 0.
	for _, cmd := range []string{"score", "compose"} {
		if code, stdout, stderr := runPDB(context.Background(), cmd, "-h"); code != 0 || stdout != "" || !strings.Contains(stderr, "usage: pdb "+cmd) {
			t.Errorf("%s -h: exit %d, stdout %q", cmd, code, stdout)
		}
	}
	if code, _, _ := runPDB(context.Background(), "bogus"); code != 2 {
		t.Errorf("unknown command: exit %d", code)
	}
	if code, _, _ := runPDB(context.Background()); code != 2 {
		t.Errorf("no command: exit %d", code)
	}
}

// TestJobsZeroIsGOMAXPROCS: -jobs 0 (the default) means GOMAXPROCS, as in breakpoint and
// featurebench; an explicit count is kept.
func TestJobsZeroIsGOMAXPROCS(t *testing.T) {
	for _, c := range []struct {
		args []string
		want int
	}{
		{nil, runtime.GOMAXPROCS(0)},
		{[]string{"-jobs", "0"}, runtime.GOMAXPROCS(0)},
		{[]string{"-jobs", "3"}, 3},
	} {
		var sf sandboxFlags
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		addSandboxFlags(fs, &sf)
		if err := parseFlags(fs, c.args); err != nil {
			t.Fatal(err)
		}
		if err := checkSandboxFlags(&sf); err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		if sf.jobs != c.want {
			t.Errorf("%v: jobs %d, want %d", c.args, sf.jobs, c.want)
		}
	}
}

// TestScoreUnreadablePredNamesOnlyItsError: a -pred file that cannot be read (a truncated
// last line) is one error naming its file and line; the tasks whose predictions stand on its
// good lines are not also reported as having "no prediction", which would be false.
func TestScoreUnreadablePredNamesOnlyItsError(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "scores.jsonl")
	buggy := strings.Replace(fixed, "x + 1", "x - 1", 1)
	in := writeFile(t, "ex.jsonl", jsonl(t, example("a", buggy, fixed, ""), example("b", buggy, fixed, "")))
	pred := writeFile(t, "pred.jsonl", jsonl(t, map[string]any{"task_id": "a", "solution": fixed}, map[string]any{"task_id": "b", "solution": fixed})+`{"task_id": "c", "sol`)
	code, _, stderr := runPDB(context.Background(), "score", "-unsafe-host", "-oracle-cmd", "true", "-out", out, "-in", in, "-pred", pred)
	if code != 1 {
		t.Errorf("exit %d, want 1\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "pred.jsonl:3:") {
		t.Errorf("the error does not name pred.jsonl:3:\n%s", stderr)
	}
	if strings.Contains(stderr, "has no prediction") {
		t.Errorf("tasks a and b have predictions on lines 1 and 2, yet are reported without one:\n%s", stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("-out %s was written", out)
	}
}
