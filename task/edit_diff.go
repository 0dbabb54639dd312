package task

import (
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/faultline-dev/faultline/internal/difflib"
)

func itoa(n int) string { return strconv.Itoa(n) }

// isPySpace reports whether Python's str.isspace() holds for r: Unicode White_Space plus
// the four information separators U+001C–U+001F.
func isPySpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}

// rstrip is Python's str.rstrip() with no argument.
func rstrip(s string) string { return strings.TrimRightFunc(s, isPySpace) }

// blank reports whether Python's s.strip() == "".
func blank(s string) bool { return strings.TrimFunc(s, isPySpace) == "" }

// Lines splits text on "\n" and strips trailing whitespace from every line (see Edits).
// The empty text is one empty line, as in Python's "".split("\n").
func Lines(text string) []string {
	ls := strings.Split(text, "\n")
	for i, l := range ls {
		ls[i] = rstrip(l)
	}
	return ls
}

// Normalize returns text as the edit model sees it: Lines joined by "\n". Apply's output
// and Apply(old, DiffLines(old, new)) == Normalize(new) are in this form.
func Normalize(text string) string { return strings.Join(Lines(text), "\n") }

// DiffLines derives the edit script turning old into new, exactly as the PDB reference
// does: both texts go through Lines, are aligned with Python's ndiff (internal/difflib),
// and the deleted lines (1-based in old) and added lines (1-based in new) are merged in
// order, tracking delta = adds so far − deletes so far:
//
//   - del + delta == add: Modify keyed del (both lines consumed);
//   - del + delta < add (or no adds left): Delete keyed del, delta decreases;
//   - otherwise (or no deletes left): Add keyed add − delta, delta increases; an Add whose
//     key is taken gets the next Tie (the reference appends a space to the key).
//
// The result is in the reference's order: sorted by (Line, Type) with Add < Delete <
// Modify, stably. The merge itself already produces that order — Add keys never decrease,
// an Add is keyed below any delete still pending and at least two past a deleted line, so
// only Adds (told apart by Tie, in derivation order) ever share a line — and the stable
// sort leaves it unchanged; the golden vectors check this on every pair.
func DiffLines(old, new string) Edits {
	a, b := Lines(old), Lines(new)
	type num struct {
		line int
		text string
	}
	var dels, adds []num
	ia, ib := 0, 0
	for _, d := range difflib.Ndiff(a, b) {
		switch d.Op {
		case ' ':
			ia++
			ib++
		case '-':
			ia++
			dels = append(dels, num{ia, d.Text})
		case '+':
			ib++
			adds = append(adds, num{ib, d.Text})
		}
	}
	var out Edits
	ties := map[int]int{} // next free Tie of Add keys
	used := map[[2]int]bool{}
	addEdit := func(line int, text string) {
		t := ties[line]
		for used[[2]int{line, t}] {
			t++
		}
		ties[line] = t + 1
		used[[2]int{line, t}] = true
		out = append(out, LineEdit{Line: line, Tie: t, Type: Add, Modified: text})
	}
	keyed := func(e LineEdit) {
		used[[2]int{e.Line, e.Tie}] = true
		out = append(out, e)
	}
	delta, i, j := 0, 0, 0
	for i < len(dels) || j < len(adds) {
		switch {
		case i < len(dels) && j < len(adds) && dels[i].line+delta == adds[j].line:
			keyed(LineEdit{Line: dels[i].line, Type: Modify, Original: dels[i].text, Modified: adds[j].text})
			i++
			j++
		case i < len(dels) && (j == len(adds) || dels[i].line+delta < adds[j].line):
			keyed(LineEdit{Line: dels[i].line, Type: Delete, Original: dels[i].text})
			delta--
			i++
		default:
			addEdit(adds[j].line-delta, adds[j].text)
			delta++
			j++
		}
	}
	SortEdits(out)
	return out
}

// SortEdits sorts e in place by (Line, Type) with Add < Delete < Modify, keeping the
// relative order of equal elements (the reference's stable sort).
func SortEdits(e Edits) {
	slices.SortStableFunc(e, func(x, y LineEdit) int {
		if x.Line != y.Line {
			return x.Line - y.Line
		}
		return int(x.Type) - int(y.Type)
	})
}

// Clean returns the edits whose Original or Modified is not blank (spec: a "cleaned" diff
// drops edits whose original and modified are both blank — typically added or removed
// empty lines). Order is kept; e is not modified.
func (e Edits) Clean() Edits {
	out := make(Edits, 0, len(e))
	for _, x := range e {
		if blank(x.Original) && blank(x.Modified) {
			continue
		}
		out = append(out, x)
	}
	return out
}
