package difflib

import (
	"slices"
	"strings"
	"testing"
)

// applyOpCodes rebuilds b from a and the opcodes, checking their structural invariants.
func applyOpCodes(t *testing.T, a, b []string, ops []OpCode) []string {
	t.Helper()
	var out []string
	i, j := 0, 0
	for _, op := range ops {
		if op.I1 != i || op.J1 != j || op.I2 < op.I1 || op.J2 < op.J1 {
			t.Fatalf("opcode %v does not continue at (%d, %d)", op, i, j)
		}
		switch op.Tag {
		case 'e':
			if !slices.Equal(a[op.I1:op.I2], b[op.J1:op.J2]) {
				t.Fatalf("equal opcode %v covers different elements", op)
			}
			out = append(out, a[op.I1:op.I2]...)
		case 'r', 'i':
			out = append(out, b[op.J1:op.J2]...)
		case 'd':
		default:
			t.Fatalf("bad tag in %v", op)
		}
		i, j = op.I2, op.J2
	}
	if i != len(a) || j != len(b) {
		t.Fatalf("opcodes end at (%d, %d), want (%d, %d)", i, j, len(a), len(b))
	}
	return out
}

func FuzzMatcher(f *testing.F) {
	f.Add("a\nb\nc\nd", "a\nc\nb\nd", false)
	f.Add("", "x", true)
	f.Add(strings.Repeat("x\ny\n", 150), strings.Repeat("y\nx\n", 140)+"z", true)
	f.Add("def f():\n    return 1\n", "def f():\n    return 2\n", true)
	f.Fuzz(func(t *testing.T, as, bs string, junkBlank bool) {
		a, b := strings.Split(as, "\n"), strings.Split(bs, "\n")
		opts := Options{AutoJunk: true}
		if junkBlank {
			opts.IsJunk = func(s string) bool { return strings.TrimSpace(s) == "" }
		}
		m := NewMatcherOptions(a, b, opts)
		if got := applyOpCodes(t, a, b, m.OpCodes()); !slices.Equal(got, b) && !(len(got) == 0 && len(b) == 0) {
			t.Fatalf("opcodes rebuild %q, want %q", got, b)
		}
		r, q, rq := m.Ratio(), m.QuickRatio(), m.RealQuickRatio()
		if r < 0 || r > q || q > rq || rq > 1 {
			t.Fatalf("ratios not ordered: %v <= %v <= %v <= 1", r, q, rq)
		}
		for _, g := range m.GroupedOpCodes(3) {
			if len(g) == 0 {
				t.Fatal("empty group")
			}
		}
		d := Ndiff(a, b)
		if !slices.Equal(Restore(d, 1), a) || !slices.Equal(Restore(d, 2), b) {
			t.Fatalf("ndiff does not restore its inputs: %q", d)
		}
		h := Differ{CharJunk: IsCharacterJunk, Hints: true}.Compare(a, b)
		var plain []DiffLine
		for k, l := range h {
			if l.Op != '?' {
				plain = append(plain, l)
				continue
			}
			if k == 0 || (h[k-1].Op != '-' && h[k-1].Op != '+') || strings.TrimSpace(l.Text) == "" {
				t.Fatalf("misplaced or empty hint at %d: %q", k, h)
			}
		}
		if !slices.Equal(plain, d) {
			t.Fatalf("hints changed the classification: %q vs %q", plain, d)
		}
	})
}
