package compose

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/faultline-dev/faultline/internal/linemut"
	"github.com/faultline-dev/faultline/task"
)

func TestMarkPython(t *testing.T) {
	prog := strings.Join([]string{
		"import os",              // 1 frozen (import)
		"def f(xs, n):",          // 2 def
		`    """Doc string`,      // 3 docstring open
		`    more = 1 + 2`,       // 4 inside docstring
		`    """`,                // 5 closes
		"    total = 0",          // 6 editable, deletable
		"    for x in xs:",       // 7 header: editable, not deletable
		"        total += x",     // 8 sole statement of the for block
		"    # a comment",        // 9 comment only
		"",                       // 10 blank
		"    if n > 0:",          // 11 header
		"        total *= n",     // 12 first of two
		"        total -= 1",     // 13
		"    try:",               // 14 try
		"        y = g(total,",   // 15 leaves a bracket open
		"              n)",       // 16 starts inside
		"    except ValueError:", // 17 except
		"        raise",          // 18 sole statement
		"    return total",       // 19
		"@decorator",             // 20
		"class C:",               // 21
		"    x = 1",              // 22 sole statement of the class
	}, "\n")
	marks := MarkPython(prog, 0)
	type want struct{ e, d bool }
	exp := map[int]want{
		1: {false, false}, 2: {false, false}, 3: {false, false}, 4: {false, false}, 5: {false, false},
		6: {true, true}, 7: {true, false}, 8: {true, false}, 9: {false, false}, 10: {false, false},
		11: {true, false}, 12: {true, true}, 13: {true, true}, 14: {false, false}, 15: {true, false},
		16: {true, false}, 17: {false, false}, 18: {true, false}, 19: {true, true}, 20: {false, false},
		21: {false, false}, 22: {true, false},
	}
	for l, w := range exp {
		got := marks[l-1]
		if got.Editable != w.e || got.Deletable != w.d {
			t.Errorf("line %d %q: editable %v deletable %v, want %v %v", l, task.Lines(prog)[l-1], got.Editable, got.Deletable, w.e, w.d)
		}
	}
	// The frozen prefix is never editable.
	if m := MarkPython(prog, 6); m[5].Editable || !m[6].Editable {
		t.Errorf("frozen prefix: %+v %+v", m[5], m[6])
	}
}

const small = "def f(x):\n    a = x + 1\n    b = a * 2\n    return b\n"

// smallOracle: passes iff line 2 computes x + 1 and line 3 computes a * 2 or 2 * a.
var smallOracle = task.OracleFunc(func(_ context.Context, p string) (bool, error) {
	return strings.Contains(p, "a = x + 1") && (strings.Contains(p, "b = a * 2") || strings.Contains(p, "b = 2 * a")) && strings.Contains(p, "return b"), nil
})

func modify(l int, from, to string) task.LineEdit {
	return task.LineEdit{Line: l, Type: task.Modify, Original: from, Modified: to}
}

// The atomicity filter on two constructed 2-line bugs. Non-atomic: line 2 → "x - 1" and
// line 3 → "2 * a"; reverting only line 2 passes (2 * a is equivalent) → rejected.
// Atomic: line 2 → "x - 1" and line 3 → "a * 3"; neither single revert passes → kept.
func TestAtomicityFilter(t *testing.T) {
	nonAtomic := Candidate{Rule: "non-atomic", Edits: task.Edits{modify(2, "    a = x + 1", "    a = x - 1"), modify(3, "    b = a * 2", "    b = 2 * a")}}
	atomic := Candidate{Rule: "atomic", Edits: task.Edits{modify(2, "    a = x + 1", "    a = x - 1"), modify(3, "    b = a * 2", "    b = a * 3")}}
	res, err := Generate(context.Background(), small, smallOracle, Options{
		Multi: true, Source: Given{nonAtomic, atomic}, Seed: 1, KMax: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Pool) != 1 || res.Pool[0].Rule != "atomic" || res.Pool[0].Atomicity != AtomicExhaustive {
		t.Fatalf("pool %+v", res.Pool)
	}
	if res.Stats.Rejected[RejectNotAtomic] != 1 {
		t.Errorf("rejections %v", res.Stats.Rejected)
	}
	// The correct program, the empty program (the probe), both buggy programs and two
	// partial reverts each (2^2 − 2), of which one is shared ("a = x - 1" with
	// "b = a * 2"): 1 + 1 + 2 + 4 − 1 = 7 calls.
	if res.Stats.OracleCalls != 7 {
		t.Errorf("oracle calls %d, want 7", res.Stats.OracleCalls)
	}
	// With ExhaustiveLimit 1 the same atomic bug is checked by single-edit reverts.
	res, err = Generate(context.Background(), small, smallOracle, Options{
		Multi: true, Source: Given{atomic}, Seed: 1, KMax: 1, ExhaustiveLimit: 1,
	})
	if err != nil || len(res.Pool) != 1 || res.Pool[0].Atomicity != AtomicSingleEdit {
		t.Fatalf("single-edit: %v %+v", err, res.Pool)
	}
}

func TestValidationRejects(t *testing.T) {
	cands := Given{
		{Rule: "passes", Edits: task.Edits{modify(3, "    b = a * 2", "    b = 2 * a")}},
		{Rule: "def line", Edits: task.Edits{modify(1, "def f(x):", "def f(y):")}},
		{Rule: "two blocks", Edits: task.Edits{modify(2, "    a = x + 1", "    a = x"), modify(4, "    return b", "    return a")}},
		{Rule: "no change", Buggy: small},
		{Rule: "too large", Edits: task.Edits{modify(2, "    a = x + 1", "    a = x"), modify(3, "    b = a * 2", "    b = a")}},
		{Rule: "good", Buggy: strings.Replace(small, "x + 1", "x + 2", 1)},
		{Rule: "duplicate", Edits: task.Edits{modify(2, "    a = x + 1", "    a = x + 2")}},
	}
	res, err := Generate(context.Background(), small, smallOracle, Options{Source: cands, KMax: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{RejectPasses: 1, RejectFrozen: 1, RejectNotContiguous: 1, RejectNoChange: 1, RejectTooLarge: 1, RejectDuplicate: 1}
	for k, v := range want {
		if res.Stats.Rejected[k] != v {
			t.Errorf("rejected[%s] = %d, want %d (all %v)", k, res.Stats.Rejected[k], v, res.Stats.Rejected)
		}
	}
	if len(res.Pool) != 1 || res.Pool[0].Rule != "good" || res.Pool[0].Source != "given" {
		t.Errorf("pool %+v", res.Pool)
	}
	if _, err := Generate(context.Background(), strings.Replace(small, "x + 1", "x - 1", 1), smallOracle, Options{}); !errors.Is(err, ErrCorrectFails) {
		t.Errorf("failing correct program: %v", err)
	}
}

// A synthetic program with many independent lines; the in-process oracle fails iff any
// line differs from the original (so every mutation is a bug and every bug is atomic).
func synthetic(n int) (string, task.Oracle) {
	ls := []string{"def f(x):"}
	for i := 1; i < n-1; i++ {
		ls = append(ls, "    v"+itoa(i)+" = x + "+itoa(i))
	}
	ls = append(ls, "    return x")
	prog := strings.Join(ls, "\n")
	want := task.Normalize(prog)
	return prog, task.OracleFunc(func(_ context.Context, p string) (bool, error) { return p == want, nil })
}

func itoa(i int) string { return strconv.Itoa(i) }

// Composition: the stride holds in correct-program coordinates (start_i − end_{i−1} > s)
// and in buggy coordinates (task.Verify on gt_diff), round trips hold, k and M3 are
// respected, and the same seed gives byte-identical output.
func TestComposeStrideAndDeterminism(t *testing.T) {
	prog, oracle := synthetic(40)
	for _, multi := range []bool{false, true} {
		opts := Options{TaskID: "syn", Seed: 42, M1: 12, M2: 30, M3: 4, Stride: 3, Multi: multi, Jobs: 3}
		if multi {
			opts.Stride = 5
		}
		res, err := Generate(context.Background(), prog, oracle, opts)
		if err != nil {
			t.Fatal(err)
		}
		multiLine := 0
		for _, b := range res.Pool {
			if len(b.Edits) > 1 {
				multiLine++
				if b.Atomicity != AtomicExhaustive {
					t.Errorf("multi-line bug %+v: atomicity %q", b, b.Atomicity)
				}
			}
		}
		if multi != (multiLine > 0) {
			t.Errorf("multi=%v: %d multi-line bugs in the pool", multi, multiLine)
		}
		perK := map[int]int{}
		for _, ex := range res.Examples {
			perK[ex.BugCount]++
			if len(ex.Bugs) != ex.BugCount {
				t.Fatalf("%s: %d bugs, bug_count %d", ex.TaskID, len(ex.Bugs), ex.BugCount)
			}
			for i := 1; i < len(ex.Bugs); i++ {
				if d := ex.Bugs[i].Start - ex.Bugs[i-1].End; d <= opts.Stride {
					t.Errorf("%s: correct-program stride %d ≤ %d", ex.TaskID, d, opts.Stride)
				}
			}
			maxLines := 1
			if multi {
				maxLines = 4
			}
			if err := task.Verify(ex.GTDiff, ex.BugCount, opts.Stride, maxLines, 1); err != nil {
				t.Errorf("%s: %v", ex.TaskID, err)
			}
			if task.Apply(ex.BuggyCode, ex.GTDiff) != ex.GTSolution {
				t.Errorf("%s: round trip fails", ex.TaskID)
			}
			if ok, _ := oracle.Passes(context.Background(), ex.BuggyCode); ok {
				t.Errorf("%s: buggy program passes", ex.TaskID)
			}
		}
		for k := 1; k <= map[bool]int{false: 4, true: 3}[multi]; k++ {
			if perK[k] == 0 || perK[k] > 4 {
				t.Errorf("multi=%v: %d examples with k=%d (want 1..4)", multi, perK[k], k)
			}
		}
		a, _ := json.Marshal(res)
		res2, err := Generate(context.Background(), prog, oracle, opts)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(res2)
		if string(a) != string(b) {
			t.Errorf("multi=%v: same seed, different output", multi)
		}
		opts.Seed++
		res3, _ := Generate(context.Background(), prog, oracle, opts)
		if c, _ := json.Marshal(res3); string(c) == string(a) {
			t.Errorf("multi=%v: another seed gave the same output", multi)
		}
	}
}

// The independence check rejects compositions whose bugs cancel out: with one bug per
// line, the oracle passes the correct program and also any program whose only changes are
// the bugs on lines 2 and 8 together. Each bug alone fails, so both enter the pool; their
// composition passes, which only the independence check notices.
func TestIndependence(t *testing.T) {
	prog, strict := synthetic(12)
	lines := task.Lines(prog)
	var given Given
	for l := 2; l <= 11; l++ {
		given = append(given, Candidate{Edits: task.Edits{modify(l, lines[l-1], lines[l-1]+"00")}})
	}
	both := task.Apply(prog, task.Edits{given[0].Edits[0], given[6].Edits[0]})
	oracle := task.OracleFunc(func(ctx context.Context, p string) (bool, error) {
		if p == both {
			return true, nil
		}
		return strict.Passes(ctx, p)
	})
	hasPair := func(r *Result) bool {
		for _, ex := range r.Examples {
			if ex.BuggyCode == both {
				return true
			}
		}
		return false
	}
	opts := Options{Source: given, Seed: 3, M2: 300, M3: 1000, KMax: 2, SkipSingle: true}
	without, err := Generate(context.Background(), prog, oracle, opts)
	if err != nil {
		t.Fatal(err)
	}
	opts.Independence = true
	with, err := Generate(context.Background(), prog, oracle, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(without.Pool) != 10 || !hasPair(without) {
		t.Fatalf("without the check: pool %d, cancelling pair kept %v", len(without.Pool), hasPair(without))
	}
	if hasPair(with) || len(with.Examples) != len(without.Examples)-1 {
		t.Errorf("with the check: %d examples (without: %d), cancelling pair kept %v", len(with.Examples), len(without.Examples), hasPair(with))
	}
}

func TestLLMSource(t *testing.T) {
	var cats []string
	src := LLM{Calls: 3, Generate: func(_ context.Context, req LLMRequest) ([]string, error) {
		cats = append(cats, req.Category)
		return []string{strings.Replace(req.Program, "x + 1", "x + 3", 1)}, nil
	}}
	res, err := Generate(context.Background(), small, smallOracle, Options{Source: src, Seed: 9, KMax: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(cats) != 3 || len(res.Pool) != 1 || res.Pool[0].Source != "llm" || res.Pool[0].Rule != cats[0] {
		t.Errorf("categories %v pool %+v", cats, res.Pool)
	}
	for _, c := range cats {
		found := false
		for _, o := range ODC {
			found = found || o.Category == c
		}
		if !found {
			t.Errorf("unknown category %q", c)
		}
	}
	boom := errors.New("quota")
	_, err = Generate(context.Background(), small, smallOracle, Options{Source: LLM{Generate: func(context.Context, LLMRequest) ([]string, error) { return nil, boom }}})
	if !errors.Is(err, boom) {
		t.Errorf("generator error: %v", err)
	}
}

// pytestOracle runs /usr/bin/python3 -m pytest on a temp dir holding the program as
// module name and the given test file.
func pytestOracle(t *testing.T, module, tests string) task.Oracle {
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import pytest").Run(); err != nil {
		t.Skipf("compose: %s with pytest is not available: %v", py, err)
	}
	return task.OracleFunc(func(ctx context.Context, program string) (bool, error) {
		dir, err := os.MkdirTemp(t.TempDir(), "run")
		if err != nil {
			return false, err
		}
		defer os.RemoveAll(dir)
		if err := os.WriteFile(filepath.Join(dir, module+".py"), []byte(program+"\n"), 0o644); err != nil {
			return false, err
		}
		if err := os.WriteFile(filepath.Join(dir, "test_"+module+".py"), []byte(tests), 0o644); err != nil {
			return false, err
		}
		cmd := exec.CommandContext(ctx, py, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", dir)
		cmd.Dir = dir
		err = cmd.Run()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return false, nil
		}
		return err == nil, err
	})
}

// CRLF input is normalised (task.Normalize): the same program with CRLF line ends gives
// the same examples.
func TestCRLFProgram(t *testing.T) {
	prog, oracle := synthetic(20)
	opts := Options{Seed: 8, M1: 6, M2: 10, M3: 2, KMax: 3}
	a, err := Generate(context.Background(), prog, oracle, opts)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Generate(context.Background(), strings.ReplaceAll(prog, "\n", "\r\n"), oracle, opts)
	if err != nil {
		t.Fatal(err)
	}
	ja, _ := json.Marshal(a.Examples)
	jb, _ := json.Marshal(b.Examples)
	if len(a.Examples) == 0 || string(ja) != string(jb) {
		t.Errorf("CRLF program gave different examples")
	}
	if _, err := Generate(context.Background(), "", oracle, opts); !errors.Is(err, ErrCorrectFails) {
		t.Errorf("empty program failing its tests: %v", err)
	}
	// Tests that pass whatever the program is do not exercise it: refused before any bug is
	// tried. Without the probe, an empty program that passes has no editable line: no bug,
	// no example, no error.
	pass := task.OracleFunc(func(context.Context, string) (bool, error) { return true, nil })
	if res, err := Generate(context.Background(), prog, pass, opts); !errors.Is(err, ErrTestsIgnoreProgram) || res.Stats.Candidates != 0 || res.Stats.OracleCalls != 2 {
		t.Errorf("tests that ignore the program: %v %+v", err, res)
	}
	noProbe := opts
	noProbe.SkipProbe = true
	res, err := Generate(context.Background(), "\n\n", pass, noProbe)
	if err != nil || len(res.Pool) != 0 || len(res.Examples) != 0 || res.Stats.Candidates != 0 {
		t.Errorf("empty program: %v %+v", err, res)
	}
}

// Examples convert to task.PDBExample, which validates, and whose JSON decodes back to
// the same example.
func TestExamplePDB(t *testing.T) {
	prog, oracle := synthetic(20)
	res, err := Generate(context.Background(), prog, oracle, Options{TaskID: "syn", Seed: 2, M1: 6, M3: 1, KMax: 2})
	if err != nil || len(res.Examples) == 0 {
		t.Fatal(err, res)
	}
	for _, ex := range res.Examples {
		p, err := ex.PDB()
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Validate(); err != nil {
			t.Errorf("%s: %v", ex.TaskID, err)
		}
		data, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		var back Example
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatal(err)
		}
		a, _ := json.Marshal(ex)
		b, _ := json.Marshal(back)
		if string(a) != string(b) {
			t.Errorf("%s: round trip through task.PDBExample:\n%s\n%s", ex.TaskID, a, b)
		}
	}
}

// hangOracle passes the correct program, reports a timeout for programs in which the
// mutated line of a "hang" set appears, and fails the rest. It counts timeouts.
type hangOracle struct {
	want  string
	hangs func(string) bool
	n     *atomic.Int64
}

func (h hangOracle) Passes(ctx context.Context, p string) (bool, error) {
	v, err := h.Verdict(ctx, p)
	return v.Passed(), err
}

func (h hangOracle) Verdict(_ context.Context, p string) (task.Verdict, error) {
	switch {
	case p == h.want:
		return task.Verdict{Outcome: task.Pass}, nil
	case h.hangs(p):
		h.n.Add(1)
		return task.Verdict{Outcome: task.Timeout, Detail: "killed"}, nil
	}
	return task.Verdict{Outcome: task.Fail}, nil
}

// A candidate whose tests hang is rejected and generation goes on (PDB-Wild included);
// the examples record the release's fields.
func TestTimeoutRejected(t *testing.T) {
	prog, _ := synthetic(30)
	var n atomic.Int64
	// Every mutant of lines 3..9 hangs.
	o := hangOracle{want: Canonical(prog), n: &n, hangs: func(p string) bool {
		ls := task.Lines(p)
		for i := 2; i < 9 && i < len(ls); i++ {
			if ls[i] != "    v"+itoa(i)+" = x + "+itoa(i) {
				return true
			}
		}
		return false
	}}
	for _, multi := range []bool{false, true} {
		n.Store(0)
		res, err := Generate(context.Background(), prog, o, Options{TaskID: "h", Seed: 3, M1: 10, M3: 2, Multi: multi, TaskPrompt: "Fix f."})
		if err != nil {
			t.Fatalf("multi=%v: %v", multi, err)
		}
		if n.Load() == 0 || res.Stats.Rejected[RejectTimeout] == 0 {
			t.Fatalf("multi=%v: no hanging candidate met (%d timeouts, %v)", multi, n.Load(), res.Stats.Rejected)
		}
		if len(res.Pool) != 10 || len(res.Examples) == 0 {
			t.Errorf("multi=%v: %d bugs, %d examples", multi, len(res.Pool), len(res.Examples))
		}
		for _, b := range res.Pool {
			if b.Start <= 9 && b.End >= 3 {
				t.Errorf("multi=%v: a hanging bug was kept: %+v", multi, b)
			}
		}
		for _, ex := range res.Examples {
			if ex.TaskPrompt != "Fix f." || ex.SourceModel != "faultline/rule" || ex.GTLength != 30 || ex.EditableLines != 29 {
				t.Errorf("%s: %+v", ex.TaskID, ex)
			}
			if single := ex.BugCount == 1; single != ex.IsBuggy || single != (ex.BugSubtype != "") {
				t.Errorf("%s: single-bug labels on a %d-bug example: %q %q %v", ex.TaskID, ex.BugCount, ex.BugType, ex.BugSubtype, ex.IsBuggy)
			}
		}
	}
	// The correct program hanging is reported as such.
	hangAll := hangOracle{want: "", n: &n, hangs: func(string) bool { return true }}
	if _, err := Generate(context.Background(), prog, hangAll, Options{}); !errors.Is(err, ErrCorrectFails) || !strings.Contains(err.Error(), "timed out: killed") {
		t.Errorf("correct program hangs: %v", err)
	}
}

// Every default linemut rule has an ODC category, so single rule bugs are labelled.
func TestRuleCategories(t *testing.T) {
	odc := map[string]bool{}
	for _, c := range ODC {
		odc[c.Category] = true
	}
	for _, r := range linemut.Default() {
		if c := RuleCategory[r.Name]; !odc[c] {
			t.Errorf("rule %s: category %q is not an ODC category", r.Name, c)
		}
	}
	if got := candidateCategory(Candidate{Source: "rule", Rule: "[off-by-one change-constant]"}); got != "Assignment" {
		t.Errorf("span of Assignment rules: %q", got)
	}
	if got := candidateCategory(Candidate{Source: "rule", Rule: "[off-by-one swap-arithmetic]"}); got != "" {
		t.Errorf("mixed span: %q", got)
	}
}

// Canonical is the release's program form: no trailing white space, no final line break.
func TestCanonical(t *testing.T) {
	for in, want := range map[string]string{
		"a  \r\nb\t\n\n \n": "a\nb",
		"a\nb":              "a\nb",
		"\n\nx\n":           "\n\nx",
		"":                  "",
	} {
		if got := Canonical(in); got != want {
			t.Errorf("Canonical(%q) = %q, want %q", in, got, want)
		}
	}
}
