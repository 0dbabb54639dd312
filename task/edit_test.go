package task_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/task"
)

func TestLines(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{"empty", "", []string{""}},
		{"trailing newline", "a\nb\n", []string{"a", "b", ""}},
		{"crlf", "a \r\n\tb\r\n", []string{"a", "\tb", ""}},
		{"lone cr is not a separator", "a\rb", []string{"a\rb"}},
		{"python whitespace", "x\u3000\x1f\u00a0\ny\u200b", []string{"x", "y\u200b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := task.Lines(tt.in)
			if strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
				t.Errorf("Lines(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestDiffLinesTies(t *testing.T) {
	e := task.DiffLines("a\nb", "a\nx\ny\nz\nb")
	want := []string{"2", "2 ", "2  "}
	if got := keys(e); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("keys = %q, want %q", got, want)
	}
	for i, x := range e {
		if x.Type != task.Add || x.Tie != i || x.Modified != string("xyz"[i]) {
			t.Errorf("edit %d = %+v", i, x)
		}
	}
}

func TestClean(t *testing.T) {
	e := task.Edits{
		{Line: 1, Type: task.Add, Modified: "   "},
		{Line: 2, Type: task.Delete, Original: "\t"},
		{Line: 3, Type: task.Modify, Original: "", Modified: "x"},
		{Line: 4, Type: task.Modify, Original: " \u3000", Modified: ""},
	}
	got := e.Clean()
	if len(got) != 1 || got[0].Line != 3 {
		t.Errorf("Clean = %+v, want only the edit of line 3", got)
	}
	if len(e) != 4 {
		t.Error("Clean modified its receiver")
	}
}

func TestApplyOutOfRange(t *testing.T) {
	e := task.Edits{
		{Line: 1, Type: task.Modify, Original: "a", Modified: "A"},
		{Line: 4, Type: task.Add, Modified: "end"},     // n+1: appends
		{Line: 5, Type: task.Delete, Original: "?"},    // beyond the end: skipped
		{Line: 0, Type: task.Modify, Modified: "zero"}, // before the start: skipped
	}
	if got := task.Apply("a\nb\nc", e); got != "A\nb\nc\nend" {
		t.Errorf("Apply = %q", got)
	}
	_, err := task.ApplyStrict("a\nb\nc", e)
	var re *task.EditRangeError
	if !errors.As(err, &re) || re.Index != 3 || re.Lines != 3 {
		t.Fatalf("ApplyStrict error = %v, want the edit at index 3 (applied first)", err)
	}
	if !strings.Contains(err.Error(), `"0"`) || !strings.HasPrefix(err.Error(), "task: ") {
		t.Errorf("error %q does not name the edit", err)
	}
	got, err := task.ApplyStrict("a\nb\nc", e[:2])
	if err != nil || got != "A\nb\nc\nend" {
		t.Errorf("ApplyStrict(in range) = %q, %v", got, err)
	}
}

func TestApplyOrder(t *testing.T) {
	// Reverse application: the Add before line 2 and the Delete of line 2 both refer to the
	// original numbering.
	e := task.Edits{
		{Line: 2, Type: task.Add, Modified: "new"},
		{Line: 2, Type: task.Delete, Original: "b"},
		{Line: 3, Type: task.Modify, Original: "c", Modified: "C   "},
	}
	if got := task.Apply("a\nb\nc\n", e); got != "a\nnew\nC\n" {
		t.Errorf("Apply = %q", got)
	}
}

func TestBlocksAndStrides(t *testing.T) {
	e := task.Edits{
		{Line: 2, Type: task.Modify},
		{Line: 3, Type: task.Delete},
		{Line: 7, Type: task.Add},
		{Line: 7, Tie: 1, Type: task.Add},
		{Line: 9, Type: task.Add},
		{Line: 9, Type: task.Modify},
		{Line: 10, Type: task.Modify},
		{Line: 14, Type: task.Add},
	}
	bs := task.Blocks(e)
	type blk struct{ id, start, end, n int }
	want := []blk{{0, 2, 3, 2}, {1, 7, 7, 2}, {2, 9, 10, 3}, {3, 14, 14, 1}}
	if len(bs) != len(want) {
		t.Fatalf("%d blocks: %+v", len(bs), bs)
	}
	for i, b := range bs {
		if (blk{b.ID, b.Start, b.End, len(b.Edits)}) != want[i] {
			t.Errorf("block %d = %+v, want %+v", i, b, want[i])
		}
	}
	// before: 2−1; 7−3−1 (block 0 ends with a Delete); 9−7−0 (block 1 ends with an Add);
	// 14−10−1.
	for i, w := range []int{1, 3, 2, 3} {
		if got := task.StrideBefore(bs, i); got != w {
			t.Errorf("StrideBefore(%d) = %d, want %d", i, got, w)
		}
		if i > 0 {
			if a, ok := task.StrideAfter(bs, i-1); !ok || a != w {
				t.Errorf("StrideAfter(%d) = %d, %v, want %d", i-1, a, ok, w)
			}
		}
	}
	if _, ok := task.StrideAfter(bs, 3); ok {
		t.Error("the last block has a stride after it")
	}
}

func TestVerify(t *testing.T) {
	e := task.DiffLines("a\nb\nc\nd\ne\nf\ng", "a\nB\nc\nd\ne\nF\nG")
	// blocks: {2} and {6,7}
	tests := []struct {
		name                string
		k, stride, max, min int
		ok                  bool
	}{
		{"exact", 2, 4, 2, 1, true},
		{"any count", -1, 0, 0, 1, true},
		{"wrong count", 3, 0, 0, 1, false},
		{"stride too large", 2, 5, 0, 1, false},
		{"block too long", 2, 0, 1, 1, false},
		{"block too short", 2, 0, 0, 2, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := task.Verify(e, tt.k, tt.stride, tt.max, tt.min)
			if (err == nil) != tt.ok {
				t.Errorf("Verify = %v, want ok=%v", err, tt.ok)
			}
			if err != nil && !errors.Is(err, task.ErrEditBlocks) {
				t.Errorf("error %v does not wrap ErrEditBlocks", err)
			}
		})
	}
}

func TestEditsJSON(t *testing.T) {
	e := task.Edits{
		{Line: 12, Type: task.Modify, Original: "x = 1", Modified: "x = 2"},
		{Line: 15, Type: task.Add, Modified: "y()"},
		{Line: 15, Tie: 1, Type: task.Add, Modified: "z()"},
		{Line: 3, Type: task.Delete, Original: "\"quoted\" \\ <tag>"},
	}
	data, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"12":{"type":"Modify","original":"x = 1","modified":"x = 2"},` +
		`"15":{"type":"Add","original":"","modified":"y()"},` +
		`"15 ":{"type":"Add","original":"","modified":"z()"},` +
		`"3":{"type":"Delete","original":"\"quoted\" \\ \u003ctag\u003e","modified":""}}`
	if string(data) != want {
		t.Errorf("Marshal =\n%s\nwant\n%s", data, want)
	}
	var back task.Edits
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if !equalEdits(back, e) {
		t.Errorf("round trip = %+v", back)
	}

	// The release's variants: a string-encoded object, upper-case types, missing fields,
	// a duplicate key (first position, last value), whitespace around the number.
	str, _ := json.Marshal(`{"7": {"type": "ADD", "modified": "a"}, " 2": {"type": "Delete", "original": "b"}, "7": {"type": "add", "modified": "c"}}`)
	var got task.Edits
	if err := json.Unmarshal(str, &got); err != nil {
		t.Fatal(err)
	}
	wantGot := task.Edits{{Line: 7, Type: task.Add, Modified: "c"}, {Line: 2, Type: task.Delete, Original: "b"}}
	if !equalEdits(got, wantGot) {
		t.Errorf("decoded %+v, want %+v", got, wantGot)
	}

	for _, empty := range []task.Edits{nil, {}, task.DiffLines("same", "same  ")} {
		if data, err := json.Marshal(empty); err != nil || string(data) != "{}" {
			t.Errorf("Marshal(%#v) = %s, %v; want {}", empty, data, err)
		}
	}
	var nilEdits task.Edits
	if err := json.Unmarshal([]byte("null"), &nilEdits); err != nil || nilEdits != nil {
		t.Errorf("null decoded to %v, %v", nilEdits, err)
	}
	for _, bad := range []string{
		`[]`, `{"x": {"type": "add"}}`, `{"1": {"type": "move"}}`, `{"1": {"original": "a"}}`,
		`{"-1": {"type": "add"}}`, `{"1": {"type": "add"}} {}`, `{"1": {"type": "add"}`, `"\"x\""`,
	} {
		var x task.Edits
		if err := json.Unmarshal([]byte(bad), &x); err == nil {
			t.Errorf("Unmarshal(%s) succeeded: %+v", bad, x)
		}
	}
	if _, err := json.Marshal(task.Edits{{Line: 1}, {Line: 1}}); err == nil {
		t.Error("Marshal accepted a duplicate key")
	}
}

func equalEdits(a, b task.Edits) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestEditTypeString(t *testing.T) {
	for ty, want := range map[task.EditType]string{task.Add: "add", task.Delete: "delete", task.Modify: "modify", 7: "EditType(7)"} {
		if ty.String() != want {
			t.Errorf("%d.String() = %q, want %q", int(ty), ty.String(), want)
		}
	}
}
