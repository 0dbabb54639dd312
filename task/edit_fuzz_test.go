package task_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/task"
)

// limitLines keeps fuzz inputs small enough that ndiff's quadratic replace refinement stays
// fast.
func limitLines(s string) string {
	ls := strings.SplitN(s, "\n", 81)
	if len(ls) > 80 {
		ls = ls[:80]
	}
	return strings.Join(ls, "\n")
}

func addEditSeeds(f *testing.F) {
	f.Add("a\nb\nc", "a\nB\nc\nd")
	f.Add("", "x\n")
	f.Add("x\r\ny  \n", "")
	f.Add("def f():\n    return 1\n\n\n", "def f():\n    x = 0\n\n    return x\n")
	f.Add(strings.Repeat("pass\n", 30), strings.Repeat("pass\nx\n", 16))
	f.Add("a\nb", "q\nr\ns\na\nb")
}

func FuzzDiffLinesApply(f *testing.F) {
	addEditSeeds(f)
	f.Fuzz(func(t *testing.T, old, new string) {
		old, new = limitLines(old), limitLines(new)
		e := task.DiffLines(old, new)
		got, err := task.ApplyStrict(old, e)
		if err != nil {
			t.Fatalf("DiffLines produced an out-of-range edit: %v", err)
		}
		if got != task.Normalize(new) {
			t.Fatalf("Apply(old, DiffLines(old, new)) = %q, want %q", got, task.Normalize(new))
		}
		for i := 1; i < len(e); i++ {
			if e[i-1].Line > e[i].Line || (e[i-1].Line == e[i].Line && e[i-1].Type > e[i].Type) {
				t.Fatalf("edits out of order at %d: %+v", i, e)
			}
		}
		n := 0
		for _, b := range task.Blocks(e) {
			n += len(b.Edits)
		}
		if n != len(e) {
			t.Fatalf("blocks hold %d edits, want %d", n, len(e))
		}
	})
}

func FuzzReverse(f *testing.F) {
	addEditSeeds(f)
	f.Fuzz(func(t *testing.T, old, new string) {
		old, new = limitLines(old), limitLines(new)
		e := task.DiffLines(old, new)
		if got := task.Apply(task.Apply(old, e), task.Reverse(old, e)); got != task.Normalize(old) {
			t.Fatalf("reverse round trip = %q, want %q", got, task.Normalize(old))
		}
	})
}

func FuzzEditsJSON(f *testing.F) {
	addEditSeeds(f)
	f.Add(`{"1": {"type": "add", "modified": "x"}, "1 ": {"type": "ADD"}}`, "")
	f.Add("\xff", "0")
	f.Fuzz(func(t *testing.T, old, new string) {
		old, new = limitLines(old), limitLines(new)
		// Scripts derived from texts, and arbitrary JSON that happens to parse.
		var candidates []task.Edits
		candidates = append(candidates, task.DiffLines(old, new))
		var parsed task.Edits
		if json.Unmarshal([]byte(old), &parsed) == nil {
			candidates = append(candidates, parsed)
		}
		for _, e := range candidates {
			data, err := json.Marshal(e)
			if err != nil {
				t.Fatalf("Marshal(%+v): %v", e, err)
			}
			var back task.Edits
			if err := json.Unmarshal(data, &back); err != nil {
				t.Fatalf("Unmarshal(%s): %v", data, err)
			}
			// JSON carries Unicode text: each invalid UTF-8 byte becomes U+FFFD.
			e = validUTF8(e)
			if !equalEdits(back, e) {
				t.Fatalf("round trip of %s = %+v, want %+v", data, back, e)
			}
			// The string-wrapped form decodes to the same script.
			wrapped, _ := json.Marshal(string(data))
			back = nil
			if err := json.Unmarshal(wrapped, &back); err != nil || !equalEdits(back, e) {
				t.Fatalf("string-wrapped round trip of %s: %v", data, err)
			}
		}
	})
}

func validUTF8(e task.Edits) task.Edits {
	out := make(task.Edits, len(e))
	for i, x := range e {
		x.Original, x.Modified = string([]rune(x.Original)), string([]rune(x.Modified))
		out[i] = x
	}
	return out
}
