package task

import (
	"fmt"
	"slices"
	"strings"
)

// EditRangeError reports an edit whose line is outside the text when it is applied:
// Modify and Delete need 1 ≤ Line ≤ n, Add needs 1 ≤ Line ≤ n+1, where n is the number of
// lines at that point of the (reverse-order) application.
type EditRangeError struct {
	Index int      // position of the edit in the Edits slice
	Edit  LineEdit // the edit
	Lines int      // number of lines when it was applied
}

func (e *EditRangeError) Error() string {
	return fmt.Sprintf("task: edit %d (%s at line %q) out of range: text has %d lines",
		e.Index, e.Edit.Type, e.Edit.Key(), e.Lines)
}

// Apply applies e to code as the PDB reference does: code goes through Lines, the edits
// are applied from the last to the first (so earlier line numbers stay valid), Modify
// replaces line L, Add inserts before line L, Delete removes line L, and an edit whose line
// is out of range is skipped. The lines are joined by "\n". Apply(code, nil) is
// Normalize(code).
func Apply(code string, e Edits) string {
	out, _ := apply(code, e, false)
	return out
}

// ApplyStrict is Apply that stops at the first out-of-range edit (in application order,
// that is from the end of e) and returns an *EditRangeError naming it.
func ApplyStrict(code string, e Edits) (string, error) {
	return apply(code, e, true)
}

func apply(code string, e Edits, strict bool) (string, error) {
	ls := Lines(code)
	for k := len(e) - 1; k >= 0; k-- {
		x := e[k]
		n := len(ls)
		ok := x.Line >= 1 && (x.Line <= n || (x.Type == Add && x.Line == n+1))
		if !ok || x.Type < Add || x.Type > Modify {
			if strict {
				return "", &EditRangeError{Index: k, Edit: x, Lines: n}
			}
			continue
		}
		switch x.Type {
		case Modify:
			ls[x.Line-1] = rstrip(x.Modified)
		case Add:
			ls = slices.Insert(ls, x.Line-1, rstrip(x.Modified))
		case Delete:
			ls = slices.Delete(ls, x.Line-1, x.Line)
		}
	}
	return strings.Join(ls, "\n"), nil
}

// Reverse returns the edits that undo e on old: Apply(Apply(old, e), Reverse(old, e)) ==
// Normalize(old). It is the canonical script the reference would derive for the reverse
// direction, DiffLines(Apply(old, e), old), so its keys are lines of the edited text and
// blocks and strides computed on it are the reference's.
func Reverse(old string, e Edits) Edits {
	return DiffLines(Apply(old, e), old)
}
