package task

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// gitSample is `git diff --cached` output (git 2.39) covering CRLF, a missing final newline
// on either side, a deletion, a creation with a space in the name and a quoted non-ASCII
// name.
const gitSample = "diff --git a/crlf.txt b/crlf.txt\n" +
	"index 4e349b5..06da500 100644\n" +
	"--- a/crlf.txt\n" +
	"+++ b/crlf.txt\n" +
	"@@ -1,2 +1,3 @@\n" +
	" one\r\n" +
	"-two\r\n" +
	"+TWO\r\n" +
	"+three\n" +
	"\\ No newline at end of file\n" +
	"diff --git a/d.txt b/d.txt\n" +
	"deleted file mode 100644\n" +
	"index abaddc0..0000000\n" +
	"--- a/d.txt\n" +
	"+++ /dev/null\n" +
	"@@ -1 +0,0 @@\n" +
	"-del\n" +
	"diff --git a/nn.txt b/nn.txt\n" +
	"index 20cbb4d..7bcfef5 100644\n" +
	"--- a/nn.txt\n" +
	"+++ b/nn.txt\n" +
	"@@ -1 +1 @@\n" +
	"-no newline\n" +
	"\\ No newline at end of file\n" +
	"+no newline\n" +
	"diff --git a/sp ace.txt b/sp ace.txt\n" +
	"new file mode 100644\n" +
	"index 0000000..3e75765\n" +
	"--- /dev/null\n" +
	"+++ b/sp ace.txt\t\n" +
	"@@ -0,0 +1 @@\n" +
	"+new\n" +
	"diff --git a/x.txt b/x.txt\n" +
	"index de98044..7be73ce 100644\n" +
	"--- a/x.txt\n" +
	"+++ b/x.txt\n" +
	"@@ -1,3 +1,3 @@ section text\n" +
	" a\n" +
	"-b\n" +
	"+B\n" +
	" c\n" +
	"diff --git \"a/\\303\\251.txt\" \"b/\\303\\251.txt\"\n" +
	"new file mode 100644\n" +
	"index 0000000..ea0c8a8\n" +
	"--- /dev/null\n" +
	"+++ \"b/\\303\\251.txt\"\n" +
	"@@ -0,0 +1 @@\n" +
	"+q\n" +
	"\\ No newline at end of file\n"

func TestParsePatchGitSample(t *testing.T) {
	p, err := ParsePatch([]byte(gitSample))
	if err != nil {
		t.Fatal(err)
	}
	want := []FilePatch{
		{OldPath: "crlf.txt", NewPath: "crlf.txt", OldMode: "100644", NewMode: "100644", OldHash: "4e349b5", NewHash: "06da500",
			Hunks: []Hunk{{OldStart: 1, OldLines: 2, NewStart: 1, NewLines: 3, Lines: []HunkLine{
				{Op: ' ', Text: "one\r"}, {Op: '-', Text: "two\r"}, {Op: '+', Text: "TWO\r"}, {Op: '+', Text: "three", NoNewline: true}}}}},
		{OldPath: "d.txt", NewPath: "d.txt", OldMode: "100644", OldHash: "abaddc0", NewHash: "0000000", Deleted: true,
			Hunks: []Hunk{{OldStart: 1, OldLines: 1, NewStart: 0, NewLines: 0, Lines: []HunkLine{{Op: '-', Text: "del"}}}}},
		{OldPath: "nn.txt", NewPath: "nn.txt", OldMode: "100644", NewMode: "100644", OldHash: "20cbb4d", NewHash: "7bcfef5",
			Hunks: []Hunk{{OldStart: 1, OldLines: 1, NewStart: 1, NewLines: 1, Lines: []HunkLine{
				{Op: '-', Text: "no newline", NoNewline: true}, {Op: '+', Text: "no newline"}}}}},
		{OldPath: "sp ace.txt", NewPath: "sp ace.txt", NewMode: "100644", OldHash: "0000000", NewHash: "3e75765", Created: true,
			Hunks: []Hunk{{OldStart: 0, OldLines: 0, NewStart: 1, NewLines: 1, Lines: []HunkLine{{Op: '+', Text: "new"}}}}},
		{OldPath: "x.txt", NewPath: "x.txt", OldMode: "100644", NewMode: "100644", OldHash: "de98044", NewHash: "7be73ce",
			Hunks: []Hunk{{OldStart: 1, OldLines: 3, NewStart: 1, NewLines: 3, Section: "section text", Lines: []HunkLine{
				{Op: ' ', Text: "a"}, {Op: '-', Text: "b"}, {Op: '+', Text: "B"}, {Op: ' ', Text: "c"}}}}},
		{OldPath: "é.txt", NewPath: "é.txt", NewMode: "100644", OldHash: "0000000", NewHash: "ea0c8a8", Created: true,
			Hunks: []Hunk{{OldStart: 0, OldLines: 0, NewStart: 1, NewLines: 1, Lines: []HunkLine{{Op: '+', Text: "q", NoNewline: true}}}}},
	}
	if !reflect.DeepEqual(p.Files, want) {
		t.Fatalf("parsed:\n%#v\nwant:\n%#v", p.Files, want)
	}
	if got := string(p.Format()); got != gitSample {
		t.Fatalf("Format differs from git's text:\n%s", got)
	}
	if a, r := p.Stat(); a != 6 || r != 4 {
		t.Fatalf("Stat = +%d -%d, want +6 -4", a, r)
	}
}

func TestParsePatchForms(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []FilePatch
	}{
		{"plain diff -u with time stamps and preamble",
			"Only in a: junk\n--- a/f.py\t2024-01-01 10:00:00.000000000 +0000\n+++ b/f.py\t2024-01-02 10:00:00.000000000 +0000\n@@ -2 +2,2 @@\n-x\n+y\n+z\n",
			[]FilePatch{{OldPath: "f.py", NewPath: "f.py", Hunks: []Hunk{{OldStart: 2, OldLines: 1, NewStart: 2, NewLines: 2,
				Lines: []HunkLine{{Op: '-', Text: "x"}, {Op: '+', Text: "y"}, {Op: '+', Text: "z"}}}}}}},
		{"plain creation gets the regular mode",
			"--- /dev/null\n+++ new.txt\n@@ -0,0 +1 @@\n+hi\n",
			[]FilePatch{{OldPath: "new.txt", NewPath: "new.txt", Created: true, NewMode: "100644", Hunks: []Hunk{{NewStart: 1, NewLines: 1,
				Lines: []HunkLine{{Op: '+', Text: "hi"}}}}}}},
		{"rename with similarity and mode change",
			"diff --git a/old name.py b/new.py\nold mode 100644\nnew mode 100755\nsimilarity index 90%\nrename from old name.py\nrename to new.py\n",
			[]FilePatch{{OldPath: "old name.py", NewPath: "new.py", OldMode: "100644", NewMode: "100755", Renamed: true, Similarity: 90}}},
		{"copy",
			"diff --git a/a.go b/b.go\nsimilarity index 100%\ncopy from a.go\ncopy to b.go\n",
			[]FilePatch{{OldPath: "a.go", NewPath: "b.go", Copied: true, Similarity: 100}}},
		{"binary",
			"diff --git a/img.png b/img.png\nindex 1111111..2222222 100644\nGIT binary patch\nliteral 5\nMcmZ?wbaD*>00D;ni2wiq\n\nliteral 0\nHcmV?d00001\n\n",
			[]FilePatch{{OldPath: "img.png", NewPath: "img.png", OldMode: "100644", NewMode: "100644", OldHash: "1111111", NewHash: "2222222", Binary: true}}},
		{"empty file created, CRLF header lines, e-mail wrapper",
			"From 1234 Mon Sep 17 00:00:00 2001\r\nSubject: [PATCH] x\r\n\r\n---\r\ndiff --git a/e b/e\r\nnew file mode 100644\r\nindex 0000000..e69de29\r\n-- \r\n2.39.5\r\n",
			[]FilePatch{{OldPath: "e", NewPath: "e", NewMode: "100644", Created: true, OldHash: "0000000", NewHash: "e69de29"}}},
		{"blank context line without its space, missing final newline of the patch",
			"--- a/k\n+++ b/k\n@@ -1,3 +1,3 @@\n a\n\n-b\n+c",
			[]FilePatch{{OldPath: "k", NewPath: "k", Hunks: []Hunk{{OldStart: 1, OldLines: 3, NewStart: 1, NewLines: 3,
				Lines: []HunkLine{{Op: ' ', Text: "a"}, {Op: ' '}, {Op: '-', Text: "b"}, {Op: '+', Text: "c"}}}}}}},
		{"two plain files and a quoted tab name",
			"--- \"a/t\\tb\"\n+++ \"b/t\\tb\"\n@@ -1 +1 @@\n-1\n+2\n--- a/u\n+++ b/u\n@@ -1 +1 @@\n-3\n+4\n",
			[]FilePatch{
				{OldPath: "t\tb", NewPath: "t\tb", Hunks: []Hunk{{OldStart: 1, OldLines: 1, NewStart: 1, NewLines: 1, Lines: []HunkLine{{Op: '-', Text: "1"}, {Op: '+', Text: "2"}}}}},
				{OldPath: "u", NewPath: "u", Hunks: []Hunk{{OldStart: 1, OldLines: 1, NewStart: 1, NewLines: 1, Lines: []HunkLine{{Op: '-', Text: "3"}, {Op: '+', Text: "4"}}}}}}},
		{"nothing", "just a commit message\n", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := ParsePatch([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(p.Files, tc.want) {
				t.Fatalf("got\n%#v\nwant\n%#v", p.Files, tc.want)
			}
			q, err := ParsePatch(p.Format())
			if err != nil {
				t.Fatalf("reparse: %v\n%s", err, p.Format())
			}
			if !reflect.DeepEqual(q.Files, p.Files) {
				t.Fatalf("round trip changed the patch:\n%s", p.Format())
			}
		})
	}
}

func TestParsePatchErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		line int
		msg  string
	}{
		{"hunk outside a file", "@@ -1 +1 @@\n-a\n+b\n", 1, "hunk outside a file patch"},
		{"short hunk", "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+c\n", 3, "ends early"},
		{"garbage inside a hunk", "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n*b\n", 5, "expected ' ', '-' or '+'"},
		{"too many lines", "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n+c\n", 6, "header counts are wrong"},
		{"bad header numbers", "--- a/f\n+++ b/f\n@@ -x +1 @@\n", 3, "bad number"},
		{"no closing @@", "--- a/f\n+++ b/f\n@@ -1 +1\n", 3, "no closing @@"},
		{"line zero", "--- a/f\n+++ b/f\n@@ -0,1 +1 @@\n-a\n+b\n", 3, "starts at line 0"},
		{"empty hunk", "--- a/f\n+++ b/f\n@@ -1,0 +1,0 @@\n", 3, "empty hunk"},
		{"both /dev/null", "--- /dev/null\n+++ /dev/null\n", 2, "both sides"},
		{"stray no-newline marker", "--- a/f\n+++ b/f\n@@ -1 +1 @@\n\\ No newline at end of file\n", 4, "unexpected"},
		{"line after end of file", "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-a\n\\ No newline at end of file\n a\n+b\n", 3, "a line follows"},
		{"ambiguous names and nothing else", "diff --git a/x b/y b/z b/w\nold mode 100644\nnew mode 100755\n", 1, "cannot determine the file name"},
		{"bad index", "diff --git a/x b/x\nindex abc\n", 2, "bad index line"},
		{"bad quoting", "diff --git a/x b/x\nrename from \"x\\q\"\nrename to y\n", 2, "bad quoted file name"},
		{"bad similarity", "diff --git a/x b/y\nsimilarity index 120%\n", 2, "bad similarity"},
		{"hunk in binary patch", "diff --git a/x b/x\nBinary files a/x and b/x differ\n@@ -1 +1 @@\n-a\n+b\n", 3, "binary"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParsePatch([]byte(tc.in))
			var pe *PatchError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v (%T), want *PatchError", err, err)
			}
			if pe.Line != tc.line || !strings.Contains(pe.Msg, tc.msg) {
				t.Fatalf("got line %d %q, want line %d containing %q", pe.Line, pe.Msg, tc.line, tc.msg)
			}
			if !strings.HasPrefix(err.Error(), "task: patch line ") {
				t.Fatalf("message %q lacks the package prefix", err)
			}
		})
	}
}

func TestQuoteGit(t *testing.T) {
	for _, s := range []string{"plain.go", "sp ace", "tab\there", "q\"uote", `back\slash`, "é", "\x00\x7f\xff", "nl\nx"} {
		q := quoteGit(s)
		if s == "plain.go" || s == "sp ace" {
			if q != s {
				t.Errorf("quoteGit(%q) = %q, want unchanged", s, q)
			}
			continue
		}
		u, rest, err := unquoteGit(q)
		if err != nil || rest != "" || u != s {
			t.Errorf("unquoteGit(quoteGit(%q)) = %q, %q, %v", s, u, rest, err)
		}
	}
	if q := quoteGit("é"); q != `"\303\251"` {
		t.Errorf("quoteGit(é) = %s, want git's octal form", q)
	}
}

func TestReverse(t *testing.T) {
	p, err := ParsePatch([]byte(gitSample))
	if err != nil {
		t.Fatal(err)
	}
	r := p.Reverse()
	if !r.Files[1].Created || r.Files[1].Deleted || r.Files[1].NewMode != "100644" || r.Files[1].OldMode != "" {
		t.Fatalf("reverse of a deletion is not a creation: %+v", r.Files[1])
	}
	h := r.Files[0].Hunks[0]
	if h.OldStart != 1 || h.OldLines != 3 || h.NewLines != 2 {
		t.Fatalf("reverse hunk ranges %s", h.Header())
	}
	var ops []byte
	for _, l := range h.Lines {
		ops = append(ops, l.Op)
	}
	if string(ops) != " --+" {
		t.Fatalf("reverse line order %q, want removed lines first", ops)
	}
	if rr := r.Reverse(); !reflect.DeepEqual(rr, p) {
		t.Fatalf("double reverse differs:\n%s", rr.Format())
	}
	if len(p.Files[0].Hunks[0].Lines) != 4 || p.Files[0].Hunks[0].Lines[1].Op != '-' {
		t.Fatal("Reverse modified its receiver")
	}
}

// memTree is a read function over a map, for Apply tests.
func memTree(m map[string]string) func(string) ([]byte, error) {
	return func(p string) ([]byte, error) {
		s, ok := m[p]
		if !ok {
			return nil, &fs.PathError{Op: "open", Path: p, Err: fs.ErrNotExist}
		}
		return []byte(s), nil
	}
}

func TestApplyOffsetsAndAnchors(t *testing.T) {
	patch := "--- a/f\n+++ b/f\n@@ -3,3 +3,3 @@\n c\n-d\n+D\n e\n@@ -8,3 +8,3 @@\n h\n-i\n+I\n j\n"
	p, err := ParsePatch([]byte(patch))
	if err != nil {
		t.Fatal(err)
	}
	base := "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\n"
	tests := []struct {
		name, in, want string
	}{
		{"at the stated lines", base, "a\nb\nc\nD\ne\nf\ng\nh\nI\nj\nk\n"},
		{"two lines inserted above", "0\n1\n" + base, "0\n1\na\nb\nc\nD\ne\nf\ng\nh\nI\nj\nk\n"},
		{"one line removed above", base[2:], "b\nc\nD\ne\nf\ng\nh\nI\nj\nk\n"},
		{"lines inserted between the hunks", "a\nb\nc\nd\ne\nX\nY\nZ\nf\ng\nh\ni\nj\nk\n", "a\nb\nc\nD\ne\nX\nY\nZ\nf\ng\nh\nI\nj\nk\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o, err := p.Apply(memTree(map[string]string{"f": tc.in}))
			if err != nil {
				t.Fatal(err)
			}
			if got := string(o["f"].Data); got != tc.want {
				t.Fatalf("got %q want %q", got, tc.want)
			}
		})
	}
	// A hunk with less leading than trailing context is anchored at the start of the file.
	start, _ := ParsePatch([]byte("--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n-a\n+A\n b\n c\n"))
	if _, err := start.Apply(memTree(map[string]string{"f": "x\na\nb\nc\n"})); err == nil {
		t.Fatal("a hunk at the start of the file applied further down")
	}
	// A hunk stated at line 1 stays there even with full context (git's rule).
	first, _ := ParsePatch([]byte("--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"))
	if _, err := first.Apply(memTree(map[string]string{"f": "x\na\nb\nc\n"})); err == nil {
		t.Fatal("a hunk stated at line 1 applied at line 2")
	}
	end, _ := ParsePatch([]byte("--- a/f\n+++ b/f\n@@ -2,3 +2,3 @@\n a\n b\n-c\n+C\n"))
	if _, err := end.Apply(memTree(map[string]string{"f": "x\na\nb\nc\nd\n"})); err == nil {
		t.Fatal("a hunk at the end of the file applied before the end")
	}
	if o, err := end.Apply(memTree(map[string]string{"f": "z\ny\na\nb\nc\n"})); err != nil || string(o["f"].Data) != "z\ny\na\nb\nC\n" {
		t.Fatalf("end-anchored hunk with an offset: %v %q", err, o["f"].Data)
	}
}

func TestApplyErrors(t *testing.T) {
	tree := map[string]string{"f": "a\nb\nc\n", "g": "x\n", "crlf": "a\r\nb\r\n"}
	tests := []struct {
		name  string
		patch string
		path  string
		hunk  int
		msg   string
		cause error
	}{
		{"context mismatch", "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-B\n+b2\n c\n", "f", 1, `expected "B\n", found "b\n"`, nil},
		{"second hunk", "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+A\n@@ -3 +3 @@\n-q\n+Q\n", "f", 2, "does not apply", nil},
		{"LF patch on a CRLF file", "--- a/crlf\n+++ b/crlf\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n", "crlf", 1, "does not apply", nil},
		{"missing file", "--- a/nope\n+++ b/nope\n@@ -1 +1 @@\n-a\n+b\n", "nope", 0, "does not exist", fs.ErrNotExist},
		{"creating an existing file", "--- /dev/null\n+++ b/g\n@@ -0,0 +1 @@\n+y\n", "g", 0, "already exists", fs.ErrExist},
		{"deleting with leftovers", "--- a/f\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n", "f", 0, "keeps 2 bytes", nil},
		{"parent traversal", "--- a/../x\n+++ b/../x\n@@ -1 +1 @@\n-a\n+b\n", "../x", 0, "unsafe path", ErrUnsafePath},
		{"absolute", "--- /dev/null\n+++ /etc/passwd\n@@ -0,0 +1 @@\n+root::0:0::/:/bin/sh\n", "/etc/passwd", 0, "unsafe path", ErrUnsafePath},
		{"binary", "diff --git a/f b/f\nBinary files a/f and b/f differ\n", "f", 0, "binary", ErrBinaryPatch},
		{"rename onto an existing file", "diff --git a/f b/g\nrename from f\nrename to g\n", "g", 0, "already exists", fs.ErrExist},
		{"symbolic link", "diff --git a/l b/l\nnew file mode 120000\n--- /dev/null\n+++ b/l\n@@ -0,0 +1 @@\n+target\n\\ No newline at end of file\n", "l", 0, "mode 120000", ErrUnsupportedMode},
		{"insertion past the end", "--- a/g\n+++ b/g\n@@ -5,0 +6 @@\n+z\n", "g", 1, "outside the file", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := ParsePatch([]byte(tc.patch))
			if err != nil {
				t.Fatal(err)
			}
			_, err = p.Apply(memTree(tree))
			var ae *ApplyError
			if !errors.As(err, &ae) {
				t.Fatalf("error %v (%T), want *ApplyError", err, err)
			}
			if ae.Path != tc.path || ae.Hunk != tc.hunk || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("got %q (path %q hunk %d)", err, ae.Path, ae.Hunk)
			}
			if tc.cause != nil && !errors.Is(err, tc.cause) {
				t.Fatalf("%v does not wrap %v", err, tc.cause)
			}
		})
	}
}

func TestApplySequenceAndRename(t *testing.T) {
	// Two file patches of the same file apply one after the other; a rename moves the
	// result; a copy keeps its source; an empty file is created and another deleted.
	in := "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n" +
		"diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-b\n+c\n" +
		"diff --git a/f b/g\nsimilarity index 50%\nrename from f\nrename to g\n--- a/f\n+++ b/g\n@@ -1 +1,2 @@\n c\n+d\n" +
		"diff --git a/g b/h\ncopy from g\ncopy to h\n" +
		"diff --git a/empty b/empty\nnew file mode 100644\nindex 0000000..e69de29\n" +
		"diff --git a/gone b/gone\ndeleted file mode 100644\nindex e69de29..0000000\n"
	p, err := ParsePatch([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	o, err := p.Apply(memTree(map[string]string{"f": "a\n", "gone": ""}))
	if err != nil {
		t.Fatal(err)
	}
	want := Overlay{"f": {Delete: true}, "g": {Data: []byte("c\nd\n")}, "h": {Data: []byte("c\nd\n")}, "empty": {Data: []byte{}}, "gone": {Delete: true}}
	if len(o) != len(want) {
		t.Fatalf("overlay %v, want %v", o.Paths(), want.Paths())
	}
	for _, k := range want.Paths() {
		if o[k].Delete != want[k].Delete || !bytes.Equal(o[k].Data, want[k].Data) {
			t.Errorf("%s: got %+v want %+v", k, o[k], want[k])
		}
	}
}

func TestDiffTextRoundTrip(t *testing.T) {
	cases := []struct{ name, a, b string }{
		{"modify", "a\nb\nc\n", "a\nB\nc\n"},
		{"add final newline", "a\nb", "a\nb\n"},
		{"drop final newline", "a\nb\n", "a\nb"},
		{"CRLF", "a\r\nb\r\nc\r\n", "a\r\nB\r\nc\r\n"},
		{"to empty", "a\nb\n", ""},
		{"from empty", "", "x"},
		{"invalid UTF-8", "\xff\xfe\n\xc3\x28\n", "\xff\xfe\n\xa0\xa1\n"},
		{"lone CR is not a terminator", "a\rb\rc\n", "a\rB\rc\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fp := DiffText("f", "f", []byte(tc.a), []byte(tc.b), 3)
			got, err := fp.ApplyBytes([]byte(tc.a))
			if err != nil || string(got) != tc.b {
				t.Fatalf("apply: %v %q want %q\n%s", err, got, tc.b, fp.Format())
			}
			r := fp.Reverse()
			back, err := r.ApplyBytes([]byte(tc.b))
			if err != nil || string(back) != tc.a {
				t.Fatalf("reverse apply: %v %q want %q", err, back, tc.a)
			}
			q, err := ParsePatch(fp.Format())
			if err != nil || !reflect.DeepEqual(q.Files[0], fp) {
				t.Fatalf("reparse: %v\n%s", err, fp.Format())
			}
		})
	}
	if fp := DiffText("f", "f", []byte("same\n"), []byte("same\n"), 3); len(fp.Hunks) != 0 {
		t.Fatal("identical inputs gave hunks")
	}
	if b := DiffBytes("f", []byte("x\n"), []byte("x\n"), 3); b != nil {
		t.Fatalf("DiffBytes of equal inputs = %q", b)
	}
}

// TestDiffTextMatchesPythonDifflib compares DiffText's hunks with Python's
// difflib.unified_diff on seeded edits of real files (testdata/patch/gen_difflib.py).
func TestDiffTextMatchesPythonDifflib(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "patch", "difflib_vectors.json"))
	if err != nil {
		t.Fatal(err)
	}
	var vectors struct {
		Cases []struct {
			Name     string
			Old, New string
			Hunks    map[string]string
		}
	}
	if err := json.Unmarshal(data, &vectors); err != nil {
		t.Fatal(err)
	}
	if len(vectors.Cases) < 20 {
		t.Fatalf("only %d cases", len(vectors.Cases))
	}
	for _, c := range vectors.Cases {
		for _, n := range []string{"0", "1", "3", "5"} {
			want, ok := c.Hunks[n]
			if !ok {
				t.Fatalf("%s: no context %s", c.Name, n)
			}
			ctx, _ := strconv.Atoi(n)
			fp := DiffText("f", "f", []byte(c.Old), []byte(c.New), ctx)
			var b bytes.Buffer
			for i := range fp.Hunks {
				fp.Hunks[i].format(&b)
			}
			if b.String() != want {
				t.Errorf("%s -U%s: hunks differ from difflib.unified_diff:\n%s", c.Name, n, firstDifference(b.Bytes(), []byte(want)))
				continue
			}
			got, err := fp.ApplyBytes([]byte(c.Old))
			if err != nil || string(got) != c.New {
				t.Errorf("%s -U%s: applying the diff: %v", c.Name, n, err)
			}
		}
	}
}

func TestValidateHandBuiltPatches(t *testing.T) {
	line := func(op byte, s string) HunkLine { return HunkLine{Op: op, Text: s} }
	tests := []struct {
		name string
		fp   FilePatch
		msg  string
	}{
		{"empty path", FilePatch{NewPath: "f"}, "empty path"},
		{"bad op", FilePatch{OldPath: "f", NewPath: "f", Hunks: []Hunk{{OldStart: 1, OldLines: 1, NewStart: 1, NewLines: 1, Lines: []HunkLine{line('*', "a")}}}}, "line op"},
		{"newline in text", FilePatch{OldPath: "f", NewPath: "f", Hunks: []Hunk{{OldStart: 1, OldLines: 1, NewStart: 1, NewLines: 1, Lines: []HunkLine{line(' ', "a\nb")}}}}, "contains a newline"},
		{"counts", FilePatch{OldPath: "f", NewPath: "f", Hunks: []Hunk{{OldStart: 1, OldLines: 2, NewStart: 1, NewLines: 1, Lines: []HunkLine{line(' ', "a")}}}}, "header counts 2 old and 1 new"},
		{"no-newline in the middle", FilePatch{OldPath: "f", NewPath: "f", Hunks: []Hunk{{OldStart: 1, OldLines: 2, NewStart: 1, NewLines: 2,
			Lines: []HunkLine{{Op: ' ', Text: "a", NoNewline: true}, line(' ', "b")}}}}, "a line follows"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := &Patch{Files: []FilePatch{tc.fp}}
			err := p.Validate()
			var ae *ApplyError
			if !errors.As(err, &ae) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("Validate: %v, want an *ApplyError containing %q", err, tc.msg)
			}
			if _, err := p.Apply(memTree(map[string]string{"f": "a\nb\n"})); !errors.As(err, &ae) {
				t.Fatalf("Apply accepted an invalid patch: %v", err)
			}
			if _, err := tc.fp.ApplyBytes([]byte("a\nb\n")); !errors.As(err, &ae) {
				t.Fatalf("ApplyBytes accepted an invalid patch: %v", err)
			}
		})
	}
}

func TestReadPatchAndQuoting(t *testing.T) {
	p, err := ReadPatch(strings.NewReader(gitSample))
	if err != nil || len(p.Files) != 6 {
		t.Fatalf("ReadPatch: %v", err)
	}
	boom := errors.New("boom")
	if _, err := ReadPatch(iotestErrReader{boom}); !errors.Is(err, boom) || !strings.HasPrefix(err.Error(), "task: read patch") {
		t.Fatalf("read error: %v", err)
	}
	for _, bad := range []string{`"abc`, `"a\`, `"\q"`, `"\12"`, `"\400"`, `abc`} {
		if _, _, err := unquoteGit(bad); err == nil {
			t.Errorf("unquoteGit(%s) accepted", bad)
		}
	}
	for q, want := range map[string]string{`"\a\b\f\n\r\t\v\"\\"`: "\a\b\f\n\r\t\v\"\\", `"\101\060"`: "A0"} {
		if got, rest, err := unquoteGit(q + "tail"); err != nil || got != want || rest != "tail" {
			t.Errorf("unquoteGit(%s) = %q, %q, %v", q, got, rest, err)
		}
	}
	// A name that would make an unquoted header ambiguous is quoted in the header.
	fp := FilePatch{OldPath: "x b/y", NewPath: "z", Renamed: true}
	if h := strings.SplitN(string(fp.Format()), "\n", 2)[0]; h != `diff --git "a/x b/y" "b/z"` {
		t.Errorf("header %s", h)
	}
}

type iotestErrReader struct{ err error }

func (r iotestErrReader) Read([]byte) (int, error) { return 0, r.err }
