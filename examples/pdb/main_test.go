package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
	gt := task.DiffLines(buggy, fixed)
	ex := task.PDBExample{TaskID: id, BuggyCode: buggy, GTSolution: fixed, GTDiff: gt, BugCount: len(task.Blocks(gt))}
	if solution != "" {
		ex.DebugResults = []task.DebugResult{{Solution: solution}}
	}
	return ex
}

type outLine struct {
	TaskID      string   `json:"task_id"`
	Precision   *float64 `json:"precision"`
	Recall      *float64 `json:"recall"`
	F1          *float64 `json:"f1"`
	Unit        *float64 `json:"unit"`
	PredEdits   *int     `json:"pred_edits"`
	OracleCalls *int     `json:"oracle_calls"`
	Error       string   `json:"error"`
	Summary     *struct {
		Tasks  int `json:"tasks"`
		Errors int `json:"errors"`
		Macro  struct {
			Precision struct{ Mean float64 } `json:"precision"`
		} `json:"macro"`
		Micro struct {
			Recall struct{ Mean float64 } `json:"recall"`
		} `json:"micro"`
	} `json:"summary"`
}

func runScore(t *testing.T, args ...string) ([]outLine, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), append([]string{"score"}, args...), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var out []outLine
	for _, l := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		var o outLine
		if err := json.Unmarshal([]byte(l), &o); err != nil {
			t.Fatalf("bad output line %q: %v", l, err)
		}
		out = append(out, o)
	}
	return out, stdout.String()
}

const fixed = "def f(x):\n    a = x + 1\n    b = a * 2\n    return b\n"

// The oracle: a shell test that passes iff the program computes a = x + 1 and b = a * 2.
const grepOracle = `grep -q 'a = x + 1' {program} && grep -q 'b = a \* 2' {program}`

func TestScoreBatchWithBadInputs(t *testing.T) {
	if _, err := exec.LookPath("grep"); err != nil {
		t.Skip("grep not available")
	}
	buggy := strings.Replace(fixed, "x + 1", "x - 1", 1)
	good := example("good", buggy, fixed, fixed)
	partial := example("partial", buggy, fixed, strings.Replace(fixed, "return b", "return (b)", 1))
	mismatch := example("mismatch", buggy, fixed, fixed)
	mismatch.GTDiff = task.Edits{{Line: 2, Type: task.Modify, Original: "    a = x + 7", Modified: "    a = x + 1"}}
	mismatch.GTSolution = ""
	crlfBuggy := strings.ReplaceAll(buggy, "\n", "\r\n")
	crlf := example("crlf", crlfBuggy, strings.ReplaceAll(fixed, "\n", "\r\n"), strings.ReplaceAll(fixed, "\n", "\r\n"))
	empty := example("empty", "", fixed, fixed)
	hang := example("hang", buggy, fixed, fixed)
	crash := example("crash", buggy, fixed, fixed)
	noPred := example("nopred", buggy, fixed, "")
	in := writeFile(t, "ex.jsonl", jsonl(t, good, partial, mismatch,
		`{"task_id": "notcode", "buggy_code": "x", "gt_diff": {}, "debug_results": {"solution": 42}}`,
		`{"task_id": 17, "buggy_code": `, // truncated line
		crlf, empty, hang, crash, noPred))
	cmd := `case {task_id} in hang) sleep 30;; crash) kill -SEGV $$;; esac; ` + grepOracle
	start := time.Now()
	out, raw := runScore(t, "-in", in, "-oracle-cmd", cmd, "-timeout", "500ms", "-jobs", "2")
	if time.Since(start) > 20*time.Second {
		t.Errorf("the hanging oracle was not killed in time")
	}
	if len(out) != 11 || out[10].Summary == nil {
		t.Fatalf("want 10 task lines and a summary, got:\n%s", raw)
	}
	byID := map[string]outLine{}
	for _, o := range out[:10] {
		byID[o.TaskID] = o
	}
	check := func(id string, p, r, u float64) {
		o := byID[id]
		if o.Error != "" || o.Precision == nil || *o.Precision != p || *o.Recall != r || *o.Unit != u {
			t.Errorf("%s: %+v", id, o)
		}
	}
	check("good", 1, 1, 1)
	check("partial", 0.5, 1, 1) // wrap over lines 2-3, T = min(2, 1) = 1, window [2] passes → 0
	check("crlf", 1, 1, 1)
	wantErr := map[string]string{
		"mismatch": "gt_diff does not match buggy_code",
		"notcode":  "solution",
		"line-5":   "line 5", // truncated JSON: no task id can be read
		"empty":    "buggy_code",
		"hang":     "timed out",
		"crash":    "signal",
		"nopred":   "no debug_results.solution",
	}
	for id, frag := range wantErr {
		o, ok := byID[id]
		if !ok || !strings.Contains(o.Error, frag) {
			t.Errorf("%s: error %q, want it to mention %q", id, o.Error, frag)
		}
		if o.Precision == nil || *o.Precision != 0 {
			t.Errorf("%s: errored task must report zeros: %+v", id, o)
		}
	}
	if s := out[10].Summary; s.Tasks != 10 || s.Errors != 7 || s.Macro.Precision.Mean != 2.5/3 {
		t.Errorf("summary %+v", s)
	}
	// Every task line has exactly the documented keys.
	first := strings.SplitN(raw, "\n", 2)[0]
	var keys map[string]json.RawMessage
	json.Unmarshal([]byte(first), &keys)
	for _, k := range []string{"task_id", "precision", "recall", "f1", "unit", "pred_edits", "oracle_calls"} {
		if _, ok := keys[k]; !ok {
			t.Errorf("missing key %q in %s", k, first)
		}
	}
}

func TestScorePredFileAndModes(t *testing.T) {
	buggy := strings.Replace(fixed, "x + 1", "x - 1", 1)
	ex := example("t1", buggy, fixed, "")
	in := writeFile(t, "ex.jsonl", jsonl(t, ex))
	pred := writeFile(t, "pred.jsonl", jsonl(t, map[string]any{"task_id": "t1", "solution": fixed}))
	for _, mode := range []string{"paper", "reference"} {
		out, _ := runScore(t, "-in", in, "-pred", pred, "-oracle-cmd", grepOracle, "-mode", mode, "-epsilon", "2")
		if len(out) != 2 || out[0].Error != "" || *out[0].Precision != 1 || *out[0].OracleCalls != 1 {
			t.Errorf("%s: %+v", mode, out[0])
		}
	}
	var stderr bytes.Buffer
	if code := run(context.Background(), []string{"score", "-in", in, "-oracle-cmd", "true", "-mode", "bogus"}, &bytes.Buffer{}, &stderr); code == 0 {
		t.Error("bad mode accepted")
	}
	if code := run(context.Background(), []string{"score", "-in", in}, &bytes.Buffer{}, &stderr); code == 0 {
		t.Error("missing -oracle-cmd accepted")
	}
	// A missing command is an error, not a failing test.
	out, _ := runScore(t, "-in", in, "-pred", pred, "-oracle-cmd", "/nonexistent/tool {program}")
	if !strings.Contains(out[0].Error, "could not run") {
		t.Errorf("missing command: %+v", out[0])
	}
	// -stride rejects a ground truth whose blocks are too close.
	// Bugs on lines 2 and 4: block starts 2 apart, fine for -stride 2, not for -stride 3.
	two := example("two", strings.Replace(buggy, "return b", "return a", 1), fixed, fixed)
	in2 := writeFile(t, "two.jsonl", jsonl(t, two))
	out, _ = runScore(t, "-in", in2, "-oracle-cmd", grepOracle, "-stride", "2")
	if out[0].Error != "" || *out[0].Precision != 1 {
		t.Errorf("stride 2: %+v", out[0])
	}
	out, _ = runScore(t, "-in", in2, "-oracle-cmd", grepOracle, "-stride", "3")
	if !strings.Contains(out[0].Error, "stride") {
		t.Errorf("stride: %+v", out[0])
	}
}

func TestComposeCmd(t *testing.T) {
	prog := writeFile(t, "calc.py", strings.Join([]string{
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
	want, _ := os.ReadFile(prog)
	// The "tests": the program must be byte-identical to the correct one.
	ref := writeFile(t, "ref.py", string(want))
	tests := "cmp -s {program} " + shellQuote(ref)
	outPath := filepath.Join(t.TempDir(), "out.jsonl")
	args := []string{"compose", "-program", prog, "-tests", tests, "-k-max", "3", "-m1", "8", "-m2", "20", "-m3", "2", "-stride", "2", "-seed", "5", "-out", outPath}
	var stderr bytes.Buffer
	if code := run(context.Background(), args, &bytes.Buffer{}, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
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
	}
	if perK[1] != 2 || perK[2] != 2 || perK[3] == 0 {
		t.Errorf("examples per k %v", perK)
	}
	// Same seed → byte-identical file.
	out2 := filepath.Join(t.TempDir(), "out2.jsonl")
	args[len(args)-1] = out2
	if code := run(context.Background(), args, &bytes.Buffer{}, &stderr); code != 0 {
		t.Fatal(stderr.String())
	}
	if data2, _ := os.ReadFile(out2); !bytes.Equal(data, data2) {
		t.Error("same seed, different output")
	}
	// A program whose tests fail is refused.
	bad := writeFile(t, "bad.py", "x = 1\n")
	if code := run(context.Background(), []string{"compose", "-program", bad, "-tests", "false"}, &bytes.Buffer{}, &stderr); code == 0 {
		t.Error("failing correct program accepted")
	}
	empty := writeFile(t, "empty.py", "\n")
	if code := run(context.Background(), []string{"compose", "-program", empty, "-tests", "true"}, &bytes.Buffer{}, &stderr); code == 0 {
		t.Error("empty program accepted")
	}
}
