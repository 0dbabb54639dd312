package metrics

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/faultline-dev/faultline/task"
)

func text(ls ...string) string { return strings.Join(ls, "\n") }

// predicate is a hand-written oracle: a program passes iff every required string occurs in
// it and no forbidden string does. It counts its calls.
type predicate struct {
	require, forbid []string
	calls           atomic.Int64
}

func (p *predicate) Passes(_ context.Context, program string) (bool, error) {
	p.calls.Add(1)
	for _, r := range p.require {
		if !strings.Contains(program, r) {
			return false, nil
		}
	}
	for _, f := range p.forbid {
		if strings.Contains(program, f) {
			return false, nil
		}
	}
	return true, nil
}

func mustScore(t *testing.T, in Input, o task.Oracle, opts Options) Result {
	t.Helper()
	r, err := Score(context.Background(), in, o, opts)
	if err != nil {
		t.Fatalf("Score: %v", err)
	}
	return r
}

func near(a, b float64) bool { d := a - b; return d < 1e-12 && d > -1e-12 }

func checkPRU(t *testing.T, r Result, p, rc, u float64) {
	t.Helper()
	if !near(r.Precision, p) || !near(r.Recall, rc) || !near(r.Unit, u) {
		t.Errorf("precision %v recall %v unit %v, want %v %v %v (matches %+v)", r.Precision, r.Recall, r.Unit, p, rc, u, r.Matches)
	}
	if want := f1(p, rc); !near(r.F1, want) {
		t.Errorf("f1 %v, want %v", r.F1, want)
	}
}

// twelve lines, all distinct.
var base = []string{
	"def f(x):", "    a = x + 1", "    b = a * 2", "    c = b - 3", "    d = c // 4",
	"    e = d % 5", "    g = e ** 2", "    h = g + a", "    i = h - b", "    j = i * c",
	"    k = j + d", "    return k",
}

func with(ls []string, changes map[int]string) []string {
	out := append([]string(nil), ls...)
	for l, s := range changes {
		out[l-1] = s
	}
	return out
}

// Pass 1: the prediction is the ground truth: both blocks match exactly, no oracle call is
// needed for them; the only call is the unit test. P = 2/2, R = 2/2.
func TestPass1Exact(t *testing.T) {
	buggy := with(base, map[int]string{3: "    b = a * 3", 8: "    h = g - a"})
	gt := task.DiffLines(text(buggy...), text(base...))
	o := &predicate{require: []string{"b = a * 2", "h = g + a"}}
	r := mustScore(t, Input{TaskID: "t", Buggy: text(buggy...), GT: gt, Prediction: text(base...)}, o, Options{})
	checkPRU(t, r, 1, 1, 1)
	if r.OracleCalls != 1 || r.MatchedBlocks != 2 || r.PredEdits != 2 {
		t.Errorf("calls %d matched %d pred %d", r.OracleCalls, r.MatchedBlocks, r.PredEdits)
	}
	for _, m := range r.Matches {
		if m.Kind != KindExact {
			t.Errorf("match %+v, want exact", m)
		}
	}
}

// Pass 1 with an extra unrelated edit: the GT block matches exactly (1 line); the extra
// edit at line 11 is its own predicted block. It is not wrapping (no GT block left), its
// windows cannot near-match (no GT block left), so it counts against precision only:
// P = 1/2, R = 1/1.
func TestPass1ExtraEdit(t *testing.T) {
	buggy := with(base, map[int]string{3: "    b = a * 3"})
	pred := with(base, map[int]string{11: "    k = j + d + 0"})
	gt := task.DiffLines(text(buggy...), text(base...))
	o := &predicate{require: []string{"b = a * 2"}}
	r := mustScore(t, Input{Buggy: text(buggy...), GT: gt, Prediction: text(pred...)}, o, Options{})
	checkPRU(t, r, 0.5, 1, 1)
}

// Pass 2 wrap: GT = modify line 5. The prediction modifies lines 4, 5, 6 (one block 4..6),
// wrapping GT start 5. ε = 2 (single-line GT), T = max(min(2·1, 3−1), 0) = 2. The
// pseudo-revision (prediction block alone) passes. Essential search, w = 1: window [5]
// alone passes (the fix), so tolerance = 0: P = (1 + 0)/3, R = 1.
func TestPass2WrapEssentialSingle(t *testing.T) {
	buggy := with(base, map[int]string{5: "    d = c // 5"})
	pred := with(base, map[int]string{4: "    c = b - 3  # ok", 6: "    e = d % 5  # ok"})
	gt := task.DiffLines(text(buggy...), text(base...))
	o := &predicate{require: []string{"d = c // 4"}}
	for _, mode := range []Mode{Paper, Reference} {
		r := mustScore(t, Input{Buggy: text(buggy...), GT: gt, Prediction: text(pred...)}, o, Options{Mode: mode})
		checkPRU(t, r, 1.0/3, 1, 1)
		if len(r.Matches) != 1 || r.Matches[0].Kind != KindWrap || r.Matches[0].Tolerance != 0 {
			t.Errorf("%v: matches %+v", mode, r.Matches)
		}
	}
}

// The essential search where two predicted lines are needed together, and the Reference
// membership bug. GT: modify line 5 "d = c // 5" → "d = c // 4". The prediction instead
// changes line 4 to define t and line 5 to use it, and touches line 6 harmlessly. The
// oracle passes iff "d = c // 4" is present, or both "t = 4" and "d = c // t" are.
//
// Match: wrap (4 ≤ 5 ≤ 6), T = min(2, 3 − 1) = 2; the pseudo-revision passes.
// Paper: w = 1 windows [4], [5], [6] each alone fail (buggy line 5 or a dangling t);
// w = 2 window [4, 5] passes → tolerance 1 → P = (1 + 1)/3 = 2/3.
// Reference: every GT block is applied too, so window [4] (t = 4, plus the GT fix at 5)
// passes at w = 1 → tolerance 0 → P = 1/3.
func TestEssentialReferenceBug(t *testing.T) {
	buggy := with(base, map[int]string{5: "    d = c // 5"})
	pred := with(base, map[int]string{4: "    c = b - 3; t = 4", 5: "    d = c // t", 6: "    e = d % 5  # ok"})
	gt := task.DiffLines(text(buggy...), text(base...))
	o := task.OracleFunc(func(_ context.Context, p string) (bool, error) {
		return strings.Contains(p, "d = c // 4") || (strings.Contains(p, "t = 4") && strings.Contains(p, "d = c // t")), nil
	})
	in := Input{Buggy: text(buggy...), GT: gt, Prediction: text(pred...)}
	paper := mustScore(t, in, o, Options{Mode: Paper})
	checkPRU(t, paper, 2.0/3, 1, 1)
	ref := mustScore(t, in, o, Options{Mode: Reference})
	checkPRU(t, ref, 1.0/3, 1, 1)
	if paper.Matches[0].Tolerance != 1 || ref.Matches[0].Tolerance != 0 {
		t.Errorf("tolerances paper %d reference %d, want 1 and 0", paper.Matches[0].Tolerance, ref.Matches[0].Tolerance)
	}
	// With ε = 0 there is no search at all: T = 0 → P = 1/3 in both modes.
	zero := mustScore(t, in, o, Options{Mode: Paper, Epsilon: NoTolerance})
	checkPRU(t, zero, 1.0/3, 1, 1)
	// ε = 1 caps T at 1: window sizes 1 only, none passes alone, T stays 1 → P = 2/3.
	one := mustScore(t, in, o, Options{Mode: Paper, Epsilon: 1})
	checkPRU(t, one, 2.0/3, 1, 1)
}

// Wrap of several GT blocks: GT modifies lines 3 and 5 (two blocks); the prediction
// rewrites lines 3..6 (4 edits). Both GT starts are inside 3..6 → one candidate with m = 2,
// T = max(min(2·2, 4 − 2), 0) = 2. The candidate passes. Essential search (paper: no other
// GT block is applied): w = 1 windows all fail (each fixes one bug only); w = 2 windows
// [3,4], [4,5], [5,6] fail (each fixes at most one of the two bug lines), so T stays 2.
// P = (2 + 2)/4 = 1, R = 2/2.
func TestPass2WrapSeveral(t *testing.T) {
	buggy := with(base, map[int]string{3: "    b = a * 3", 5: "    d = c // 5"})
	pred := with(base, map[int]string{4: "    c = b - 3  # ok", 6: "    e = d % 5  # ok"})
	gt := task.DiffLines(text(buggy...), text(base...))
	o := &predicate{require: []string{"b = a * 2", "d = c // 4"}}
	r := mustScore(t, Input{Buggy: text(buggy...), GT: gt, Prediction: text(pred...)}, o, Options{})
	checkPRU(t, r, 1, 1, 1)
	if len(r.Matches) != 1 || len(r.Matches[0].GTBlocks) != 2 || r.Matches[0].Tolerance != 2 {
		t.Fatalf("matches %+v", r.Matches)
	}
	// Oracle calls: unit (= the candidate program: same text, one call) + 4 windows of
	// size 1 + 3 windows of size 2 = 8.
	if r.OracleCalls != 8 {
		t.Errorf("oracle calls %d, want 8", r.OracleCalls)
	}
}

// A failing pseudo-revision: the block wraps the GT block but does not fix it: success
// false, tolerance 0, matched 0 → P = 0, R = 0.
func TestSemanticFailure(t *testing.T) {
	buggy := with(base, map[int]string{5: "    d = c // 5"})
	pred := with(buggy, map[int]string{5: "    d = c // 6"})
	gt := task.DiffLines(text(buggy...), text(base...))
	o := &predicate{require: []string{"d = c // 4"}}
	r := mustScore(t, Input{Buggy: text(buggy...), GT: gt, Prediction: text(pred...)}, o, Options{})
	checkPRU(t, r, 0, 0, 0)
	if r.MatchedBlocks != 0 || len(r.Matches) != 1 || r.Matches[0].Passed {
		t.Errorf("matches %+v", r.Matches)
	}
}

// Two bugs; the prediction fixes one exactly and breaks the other's line differently. The
// pseudo-revision for the second applies the first GT block plus the predicted block.
// Exact: 1 line; second: wrap, fails → P = 1/2, R = 1/2, unit 0.
func TestOtherBugsFixedByGroundTruth(t *testing.T) {
	buggy := with(base, map[int]string{3: "    b = a * 3", 9: "    i = h + b"})
	pred := with(base, map[int]string{9: "    i = h * b"})
	gt := task.DiffLines(text(buggy...), text(base...))
	o := &predicate{require: []string{"b = a * 2", "i = h - b"}}
	r := mustScore(t, Input{Buggy: text(buggy...), GT: gt, Prediction: text(pred...)}, o, Options{})
	checkPRU(t, r, 0.5, 0.5, 0)
	// And when the prediction fixes the second bug in a different but passing way, the
	// oracle (which accepts "i = h - b" or "i = -b + h") sees GT block 0 applied.
	o2 := task.OracleFunc(func(_ context.Context, p string) (bool, error) {
		return strings.Contains(p, "b = a * 2") && (strings.Contains(p, "i = h - b") || strings.Contains(p, "i = -b + h")), nil
	})
	pred2 := with(base, map[int]string{9: "    i = -b + h"})
	r2 := mustScore(t, Input{Buggy: text(buggy...), GT: gt, Prediction: text(pred2...)}, o2, Options{})
	checkPRU(t, r2, 1, 1, 1)
}

// Distant-identical: the prediction applies the GT's (original, modified) pair at another
// line whose text is the same, and the near rule fails.
func TestPass2Distant(t *testing.T) {
	// n = 8. GT: modify line 2 "x = y" → "x = z". Prediction: modify line 7 "x = y" →
	// "x = z" (same pair). Pred windows: before = lines 1..6 (paper) / 8,1..6 (reference);
	// after = line 8 (paper) / none (reference). GT windows: before = line 1 (blank,
	// dropped → empty) in both modes (reference: j in [1, 1) → empty); after = lines 3..8
	// (paper) / lines 3..7 (reference, S = n − start = 6).
	// Before side: the pred set is non-empty, the GT set is empty, and the first line "" is
	// blank (never in a set) → no match. So near fails in both modes; distant matches, the
	// pseudo-revision passes, T = min(2, 1 − 1) = 0 → P = 1/1, R = 1.
	buggy := []string{"", "x = y", "a3", "a4", "a5", "a6", "x = y", "a8"}
	fixed := append([]string(nil), buggy...)
	fixed[1] = "x = z"
	pred := append([]string(nil), buggy...)
	pred[6] = "x = z"
	gt := task.DiffLines(text(buggy...), text(fixed...))
	o := task.OracleFunc(func(_ context.Context, p string) (bool, error) { return strings.Contains(p, "x = z"), nil })
	for _, mode := range []Mode{Paper, Reference} {
		r := mustScore(t, Input{Buggy: text(buggy...), GT: gt, Prediction: text(pred...)}, o, Options{Mode: mode})
		checkPRU(t, r, 1, 1, 1)
		if len(r.Matches) != 1 || r.Matches[0].Kind != KindDistant {
			t.Errorf("%v: matches %+v", mode, r.Matches)
		}
	}
}

// Near, Reference only (top-most predicted block reads the last line). n = 8:
//
//	1 ""  2 "q = 2"  3 "r = 3"  4 "s = 4"  5 "t = 5"  6 "u = 6"  7 "v = 7"  8 "s = 4"
//
// GT modifies line 6. The prediction modifies line 2 only.
// Reference: pred before = i in [0, 2) → line 0 = last line "s = 4", line 1 "" (blank) →
// {"s = 4"}; GT before = 6 − j, j in [1, 5) → lines 5, 4, 3, 2 → {"t = 5","s = 4","r = 3",
// "q = 2"} → intersect. pred after = [3, 8) → lines 3..7 ∋ "v = 7"; GT after = 6 + j, j in
// [1, 2) → line 7 "v = 7" → intersect. Near → candidate passes → T = min(2, 0) = 0 →
// P = 1/1, R = 1.
// Paper: pred before = line 1 "" → empty set; GT before = lines 1..5 (non-empty) and the
// first line "" is blank, so not in it → no match; distant fails (different pair) →
// unmatched: P = 0, R = 0.
func TestNearTopMostReadsLastLine(t *testing.T) {
	buggy := []string{"", "q = 2", "r = 3", "s = 4", "t = 5", "u = 6", "v = 7", "s = 4"}
	fixed := with(buggy, map[int]string{6: "u = 60"})
	pred := with(buggy, map[int]string{2: "q = 2; u = 60"})
	gt := task.DiffLines(text(buggy...), text(fixed...))
	o := task.OracleFunc(func(_ context.Context, p string) (bool, error) { return strings.Contains(p, "u = 60"), nil })
	in := Input{Buggy: text(buggy...), GT: gt, Prediction: text(pred...)}
	ref := mustScore(t, in, o, Options{Mode: Reference})
	checkPRU(t, ref, 1, 1, 1)
	if len(ref.Matches) != 1 || ref.Matches[0].Kind != KindNear {
		t.Errorf("reference matches %+v", ref.Matches)
	}
	paper := mustScore(t, in, o, Options{Mode: Paper})
	checkPRU(t, paper, 0, 0, 1)
}

// Near, Paper only (bottom-most predicted block excludes the last line in Reference).
// n = 8: 1 "p = 1" 2 "q = 2" 3 "r = 3" 4 "s = 4" 5 "t = 5" 6 "u = 6" 7 "v = 7" 8 "w = 8".
// GT modifies line 5; the prediction modifies line 7.
// Reference: pred after = [8, 8) → empty; GT after = 5 + j, j in [1, 3) → lines 6, 7 →
// non-empty, and the last line "w = 8" is not in it → no match → unmatched: P = R = 0.
// Paper: pred after = line 8 {"w = 8"}; GT after = lines 6..8 ∋ "w = 8" → match; before:
// pred lines 1..6, GT lines 1..4 → intersect → near → passes → P = 1, R = 1.
func TestNearBottomMostExcludesLastLine(t *testing.T) {
	buggy := []string{"p = 1", "q = 2", "r = 3", "s = 4", "t = 5", "u = 6", "v = 7", "w = 8"}
	fixed := with(buggy, map[int]string{5: "t = 50"})
	pred := with(buggy, map[int]string{7: "v = 7; t = 50"})
	gt := task.DiffLines(text(buggy...), text(fixed...))
	o := task.OracleFunc(func(_ context.Context, p string) (bool, error) { return strings.Contains(p, "t = 50"), nil })
	in := Input{Buggy: text(buggy...), GT: gt, Prediction: text(pred...)}
	checkPRU(t, mustScore(t, in, o, Options{Mode: Reference}), 0, 0, 1)
	paper := mustScore(t, in, o, Options{Mode: Paper})
	checkPRU(t, paper, 1, 1, 1)
	if len(paper.Matches) != 1 || paper.Matches[0].Kind != KindNear {
		t.Errorf("paper matches %+v", paper.Matches)
	}
}

func TestEmptyPrediction(t *testing.T) {
	buggy := with(base, map[int]string{5: "    d = c // 5"})
	gt := task.DiffLines(text(buggy...), text(base...))
	o := &predicate{require: []string{"d = c // 4"}}
	r := mustScore(t, Input{Buggy: text(buggy...), GT: gt, Prediction: " \n"}, o, Options{})
	checkPRU(t, r, 0, 0, 0)
	if r.OracleCalls != 0 {
		t.Errorf("empty prediction made %d oracle calls", r.OracleCalls)
	}
	// A prediction identical to the buggy program has an empty diff: P = R = 0, and the
	// unit test runs the (failing) buggy program.
	r = mustScore(t, Input{Buggy: text(buggy...), GT: gt, Prediction: text(buggy...) + "\n"}, o, Options{})
	checkPRU(t, r, 0, 0, 0)
	if r.PredEdits != 0 || r.OracleCalls != 1 {
		t.Errorf("pred edits %d calls %d", r.PredEdits, r.OracleCalls)
	}
}

func TestBadGroundTruth(t *testing.T) {
	buggy := text(base...)
	o := &predicate{}
	cases := []struct {
		name string
		gt   task.Edits
	}{
		{"wrong original", task.Edits{{Line: 3, Type: task.Modify, Original: "    b = 7", Modified: "x"}}},
		{"beyond end", task.Edits{{Line: 13, Type: task.Delete, Original: "x"}}},
		{"add beyond end", task.Edits{{Line: 14, Type: task.Add, Modified: "x"}}},
	}
	for _, c := range cases {
		r, err := Score(context.Background(), Input{TaskID: "bad", Buggy: buggy, GT: c.gt, Prediction: buggy}, o, Options{})
		var me *MismatchError
		if !errors.As(err, &me) || r.Error == "" || r.TaskID != "bad" {
			t.Errorf("%s: err %v result %+v", c.name, err, r)
		}
	}
	if _, err := Score(context.Background(), Input{Buggy: buggy, Prediction: buggy}, o, Options{}); !errors.Is(err, ErrNoGroundTruth) {
		t.Errorf("empty gt: %v", err)
	}
	if o.calls.Load() != 0 {
		t.Errorf("bad ground truth made oracle calls")
	}
}

func TestOracleError(t *testing.T) {
	buggy := with(base, map[int]string{5: "    d = c // 5"})
	gt := task.DiffLines(text(buggy...), text(base...))
	boom := errors.New("boom")
	o := task.OracleFunc(func(context.Context, string) (bool, error) { return false, boom })
	r, err := Score(context.Background(), Input{Buggy: text(buggy...), GT: gt, Prediction: text(base...)}, o, Options{})
	if !errors.Is(err, boom) || !strings.Contains(r.Error, "boom") {
		t.Errorf("err %v result %+v", err, r)
	}
}

// CRLF and trailing whitespace are normalised away: the same task in CRLF scores the same.
func TestCRLF(t *testing.T) {
	buggy := with(base, map[int]string{5: "    d = c // 5"})
	gt := task.DiffLines(text(buggy...), text(base...))
	crlf := strings.Join(base, "\r\n") + "\r\n"
	o := &predicate{require: []string{"d = c // 4"}, forbid: []string{"\r"}}
	r := mustScore(t, Input{Buggy: strings.Join(buggy, "\r\n"), GT: gt, Prediction: crlf}, o, Options{})
	// The CRLF prediction adds a trailing empty line (blank: cleaned away) and fixes line 5.
	checkPRU(t, r, 1, 1, 1)
}

// Scoring the same prediction twice with a shared cache costs no new oracle call.
func TestCacheReuse(t *testing.T) {
	buggy := with(base, map[int]string{5: "    d = c // 5"})
	pred := with(base, map[int]string{4: "    c = b - 3  # ok", 6: "    e = d % 5  # ok"})
	gt := task.DiffLines(text(buggy...), text(base...))
	o := &predicate{require: []string{"d = c // 4"}}
	c := NewCache()
	in := Input{TaskID: "t1", Buggy: text(buggy...), GT: gt, Prediction: text(pred...)}
	r1 := mustScore(t, in, o, Options{Cache: c})
	r2 := mustScore(t, in, o, Options{Cache: c})
	if r1.OracleCalls == 0 || r2.OracleCalls != 0 || int(o.calls.Load()) != r1.OracleCalls {
		t.Errorf("first %d second %d underlying %d", r1.OracleCalls, r2.OracleCalls, o.calls.Load())
	}
	if r1.Precision != r2.Precision || r1.Recall != r2.Recall || r1.Unit != r2.Unit {
		t.Errorf("cached score differs: %+v vs %+v", r1, r2)
	}
	// Another task id is another test identity: no sharing.
	in.TaskID = "t2"
	if r3 := mustScore(t, in, o, Options{Cache: c}); r3.OracleCalls != r1.OracleCalls {
		t.Errorf("other scope: %d calls, want %d", r3.OracleCalls, r1.OracleCalls)
	}
	// The naive baseline calls once per program, duplicates included.
	naive := mustScore(t, Input{TaskID: "t1", Buggy: text(buggy...), GT: gt, Prediction: text(pred...)}, o, Options{noCache: true})
	if naive.Precision != r1.Precision || naive.OracleCalls < r1.OracleCalls {
		t.Errorf("naive %+v vs cached %+v", naive, r1)
	}
}

// An empty buggy program (one empty line) whose ground truth adds two lines: a prediction
// adding the same two lines matches exactly (P = R = 1); the reference windows, which read
// line 0 as the last line, are never needed.
func TestEmptyBuggyProgram(t *testing.T) {
	gt := task.DiffLines("", "x = 1\ny = 2")
	o := &predicate{require: []string{"x = 1\ny = 2"}}
	for _, mode := range []Mode{Paper, Reference} {
		r := mustScore(t, Input{Buggy: "", GT: gt, Prediction: "x = 1\ny = 2\n"}, o, Options{Mode: mode})
		checkPRU(t, r, 1, 1, 1)
		// A prediction adding an unrelated line: near-match on empty windows (both empty →
		// match) → pseudo-revision fails → 0.
		r = mustScore(t, Input{Buggy: "", GT: gt, Prediction: "z = 3"}, o, Options{Mode: mode})
		checkPRU(t, r, 0, 0, 0)
	}
}

// Ground-truth texts with trailing whitespace (as a hand-edited gt_diff may have) still
// match the predicted edits exactly.
func TestGroundTruthTrailingWhitespace(t *testing.T) {
	buggy := with(base, map[int]string{3: "    b = a * 3"})
	gt := task.DiffLines(text(buggy...), text(base...))
	gt[0].Original += "  "
	gt[0].Modified += "\t"
	o := &predicate{require: []string{"b = a * 2"}}
	r := mustScore(t, Input{Buggy: text(buggy...), GT: gt, Prediction: text(base...)}, o, Options{})
	checkPRU(t, r, 1, 1, 1)
	if r.Matches[0].Kind != KindExact {
		t.Errorf("match %+v, want exact", r.Matches[0])
	}
}

// Candidates are verified concurrently, never more than Options.Jobs at once.
func TestConcurrencyBounded(t *testing.T) {
	ins, _ := benchInputs(5, 8)
	var cur, peak atomic.Int64
	o := task.OracleFunc(func(_ context.Context, p string) (bool, error) {
		n := cur.Add(1)
		for {
			old := peak.Load()
			if n <= old || peak.CompareAndSwap(old, n) {
				break
			}
		}
		time.Sleep(2 * time.Millisecond)
		cur.Add(-1)
		return !strings.Contains(p, " - "), nil
	})
	for _, in := range ins {
		mustScore(t, in, o, Options{Jobs: 3})
	}
	if p := peak.Load(); p > 3 || p < 2 {
		t.Errorf("peak concurrency %d, want 2..3", p)
	}
}

// hangOracle reports a timeout for every program containing "hang", passes programs that
// satisfy the predicate, and fails the rest.
type hangOracle struct{ p *predicate }

func (h hangOracle) Passes(ctx context.Context, program string) (bool, error) {
	v, err := h.Verdict(ctx, program)
	return v.Passed(), err
}

func (h hangOracle) Verdict(ctx context.Context, program string) (task.Verdict, error) {
	if strings.Contains(program, "hang") {
		return task.Verdict{Outcome: task.Timeout, Detail: "killed at 1s"}, nil
	}
	if ok, _ := h.p.Passes(ctx, program); ok {
		return task.Verdict{Outcome: task.Pass}, nil
	}
	return task.Verdict{Outcome: task.Fail}, nil
}

// A timeout is a failing verdict, as in the released evaluator: the task is scored (no
// error), the timed-out pseudo-revision does not count, and the record says which verdicts
// were timeouts. The record lists the unmatched predicted and ground-truth edits.
func TestTimeoutIsFailingVerdict(t *testing.T) {
	buggy := with(base, map[int]string{3: "    b = a * 3", 10: "    j = i * d"})
	gt := task.DiffLines(text(buggy...), text(base...))
	o := hangOracle{&predicate{require: []string{"b = a * 2", "j = i * c"}}}
	// Bug 1 fixed by a rewrite of its line that hangs; bug 2 left alone.
	pred := with(buggy, map[int]string{3: "    b = a * 2  # hang"})
	r, err := Score(context.Background(), Input{TaskID: "t", Buggy: text(buggy...), GT: gt, Prediction: text(pred...)}, o, Options{})
	if err != nil {
		t.Fatalf("a timeout must not be an error: %v", err)
	}
	checkPRU(t, r, 0, 0, 0)
	if r.UnitOutcome != task.Timeout || r.OracleTimeouts != 2 {
		t.Errorf("unit outcome %q, %d timeouts, want timeout and 2", r.UnitOutcome, r.OracleTimeouts)
	}
	if len(r.Matches) != 1 || r.Matches[0].Outcome != task.Timeout || r.Matches[0].Passed || r.Matches[0].GTBlocks[0] != 0 {
		t.Errorf("matches %+v", r.Matches)
	}
	if len(r.UnmatchedPred) != 0 || len(r.UnmatchedGT) != 1 || r.UnmatchedGT[0].Line != 10 {
		t.Errorf("unmatched predicted edits %+v, ground-truth edits %+v", r.UnmatchedPred, r.UnmatchedGT)
	}
	// Without the hang the match passes and nothing times out: R = 1/2.
	pred[2] = "    b = a * 2  # ok"
	r = mustScore(t, Input{TaskID: "t2", Buggy: text(buggy...), GT: gt, Prediction: text(pred...)}, o, Options{})
	if r.OracleTimeouts != 0 || r.Matches[0].Outcome != task.Pass || r.Recall != 0.5 || r.UnitOutcome != task.Fail {
		t.Errorf("without the hang: %+v", r)
	}
	// An exact fix plus an edit far away, once no ground-truth block is left to pair it
	// with: the far edit is unmatched and halves precision.
	one := with(base, map[int]string{3: "    b = a * 3"})
	gt1 := task.DiffLines(text(one...), text(base...))
	pred1 := with(base, map[int]string{12: "    return k + 0"})
	r = mustScore(t, Input{TaskID: "t3", Buggy: text(one...), GT: gt1, Prediction: text(pred1...)}, o, Options{})
	if r.Precision != 0.5 || r.Recall != 1 || len(r.UnmatchedPred) != 1 || r.UnmatchedPred[0].Line != 12 || len(r.UnmatchedGT) != 0 {
		t.Errorf("far edit: %+v", r)
	}
	// A blank prediction: no call, every ground-truth edit unmatched.
	r = mustScore(t, Input{TaskID: "t4", Buggy: text(buggy...), GT: gt, Prediction: " "}, o, Options{})
	if r.UnitOutcome != "" || len(r.UnmatchedGT) != 2 || len(r.Matches) != 0 || r.OracleCalls != 0 {
		t.Errorf("blank prediction: %+v", r)
	}
}
