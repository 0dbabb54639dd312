package metrics

import (
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/task"
)

func joinW(ls []string) string { return strings.Join(ls, ",") }

// The released evaluator's window arithmetic, worked by hand on lines L1..L8 (n = 8).
func TestReferenceWindows(t *testing.T) {
	buggy := []string{"L1", "L2", "L3", "L4", "L5", "L6", "L7", "L8"}
	m := &matcher{mode: Reference, buggy: buggy}
	mod := func(l int) task.LineEdit {
		return task.LineEdit{Line: l, Type: task.Modify, Original: buggy[l-1], Modified: "x"}
	}

	// Predicted blocks at 2 and 5..6.
	rb := task.Blocks(task.Edits{mod(2), mod(5), mod(6)})
	// Top-most: i in [0, 2) → line 0 is the LAST line (L8), then L1.
	b, a := m.refPredWindows(rb, 0)
	if joinW(b) != "L8,L1" || joinW(a) != "L3,L4" {
		t.Errorf("top-most: before %v after %v, want [L8 L1] [L3 L4]", b, a)
	}
	// Bottom-most: before i in [3, 5) → L3, L4; after i in [7, 8) → L7 only (L8 excluded).
	b, a = m.refPredWindows(rb, 1)
	if joinW(b) != "L3,L4" || joinW(a) != "L7" {
		t.Errorf("bottom-most: before %v after %v, want [L3 L4] [L7]", b, a)
	}

	// GT blocks: 3..4 (multi-line) and 7. stride_before(0) = 3 − 1 = 2 → j in [1, 2) → L2.
	// stride_after(0) = 7 − 4 − 1 = 2 → start + j, j in [1, 2) → L4: the block's own second
	// line (relative to start, not end).
	m.gtBlocks = task.Blocks(task.Edits{mod(3), mod(4), mod(7)})
	b, a = m.refGTWindows(0)
	if joinW(b) != "L2" || joinW(a) != "L4" {
		t.Errorf("gt 0: before %v after %v, want [L2] [L4]", b, a)
	}
	// stride_before(1) = 7 − 4 − 1 = 2 → L6; stride_after none → S = n − start = 1 → empty.
	b, a = m.refGTWindows(1)
	if joinW(b) != "L6" || len(a) != 0 {
		t.Errorf("gt 1: before %v after %v, want [L6] []", b, a)
	}

	// stride_after 0 (hand-built adjacent blocks, which Blocks never produces): S = n − start.
	m.gtBlocks = []task.Block{
		{ID: 0, Start: 2, End: 2, Edits: task.Edits{mod(2)}},
		{ID: 1, Start: 3, End: 3, Edits: task.Edits{mod(3)}},
	}
	if s, ok := task.StrideAfter(m.gtBlocks, 0); !ok || s != 0 {
		t.Fatalf("stride_after = %d, %v; want 0", s, ok)
	}
	_, a = m.refGTWindows(0)
	if joinW(a) != "L3,L4,L5,L6,L7" { // 2 + j, j in [1, 6)
		t.Errorf("stride_after 0: after %v", a)
	}

	// An Add block at line 5 after a Modify at 2: stride_before = 5 − 2 − 1 = 2 → L4;
	// the Add block's own gap adjustment is 0 → it has no next block → S = 8 − 5 = 3 →
	// L6, L7.
	add := task.LineEdit{Line: 5, Type: task.Add, Modified: "new"}
	m.gtBlocks = task.Blocks(task.Edits{mod(2), add})
	b, a = m.refGTWindows(1)
	if joinW(b) != "L4" || joinW(a) != "L6,L7" {
		t.Errorf("add block: before %v after %v", b, a)
	}
}

// The paper windows are the untouched lines between neighbours, no wrap-around, through
// the last line; an Add before line L leaves L untouched.
func TestPaperWindows(t *testing.T) {
	buggy := []string{"L1", "L2", "L3", "L4", "L5", "L6", "L7", "L8"}
	m := &matcher{mode: Paper, buggy: buggy}
	mod := func(l int) task.LineEdit {
		return task.LineEdit{Line: l, Type: task.Modify, Original: buggy[l-1], Modified: "x"}
	}
	bs := task.Blocks(task.Edits{mod(2), {Line: 5, Type: task.Add, Modified: "n"}, mod(7)})
	cases := []struct{ before, after string }{
		{"L1", "L3,L4"},
		{"L3,L4", "L5,L6"}, // the Add before 5 leaves L5 untouched
		{"L5,L6", "L8"},
	}
	for i, c := range cases {
		b, a := m.paperWindows(bs, i)
		if joinW(b) != c.before || joinW(a) != c.after {
			t.Errorf("block %d: before %v after %v, want %s / %s", i, b, a, c.before, c.after)
		}
	}
}

func TestSetMatch(t *testing.T) {
	cases := []struct {
		name     string
		pred, gt []string
		top      string
		want     bool
	}{
		{"intersect", []string{"a", "b"}, []string{"b", "c"}, "z", true},
		{"disjoint", []string{"a"}, []string{"c"}, "a", false},
		{"both empty", nil, nil, "z", true},
		{"blanks dropped both empty", []string{"", ""}, []string{""}, "z", true},
		{"blank shared does not count", []string{"", "a"}, []string{"", "c"}, "", false},
		{"gt empty, top in pred", []string{"top", "a"}, nil, "top", true},
		{"gt empty, top not in pred", []string{"a"}, nil, "top", false},
		{"pred empty, top in gt", nil, []string{"top"}, "top", true},
		{"pred empty, top not in gt", nil, []string{"a"}, "top", false},
	}
	for _, c := range cases {
		if got := setMatch(c.pred, c.gt, c.top, true); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
