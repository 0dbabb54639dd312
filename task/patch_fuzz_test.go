package task

import (
	"errors"
	"reflect"
	"testing"
)

var patchSeeds = []string{
	gitSample,
	"--- a/f.py\t2024-01-01\n+++ b/f.py\t2024-01-02\n@@ -2 +2,2 @@ def f():\n-x\n+y\n+z\n",
	"diff --git a/old name.py b/new.py\nold mode 100644\nnew mode 100755\nsimilarity index 90%\nrename from old name.py\nrename to new.py\n--- a/old name.py\t\n+++ b/new.py\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n",
	"diff --git a/a.go b/b.go\nsimilarity index 100%\ncopy from a.go\ncopy to b.go\n",
	"diff --git a/img.png b/img.png\nindex 1111111..2222222 100644\nGIT binary patch\nliteral 5\nMcmZ?wbaD*>00D;ni2wiq\n\n",
	"diff --git a/e b/e\r\nnew file mode 100644\r\nindex 0000000..e69de29\r\n",
	"--- a/k\n+++ b/k\n@@ -1,3 +1,3 @@\n a\n\n-b\r\n+c",
	"--- \"a/t\\tb\"\n+++ \"b/t\\tb\"\n@@ -1 +1 @@\n-1\n\\ No newline at end of file\n+2\n",
	"--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-a\n\\ No newline at end of file\n a\n+b\n",
	// Regressions found by fuzzing.
	"0",
	"--- 0\n+++ \" b/\"",
	"diff --git \nindex ...\n--- 0\n+++ 0",
	"diff --git a/0 b/0\ndeleted file mode 100644\nnew file mode 100644\n--- /dev/null\n+++ /dev/null\n@@ -0,0 +1 @@\n+\n",
}

// FuzzParsePatch checks that the parser never panics, reports every failure as a
// *PatchError, and that whatever parses survives Format and Reverse.
func FuzzParsePatch(f *testing.F) {
	for _, s := range patchSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParsePatch(data)
		if err != nil {
			var pe *PatchError
			if !errors.As(err, &pe) || pe.Line < 1 {
				t.Fatalf("error %v (%T) is not a *PatchError with a line", err, err)
			}
			return
		}
		text := p.Format()
		q, err := ParsePatch(text)
		if err != nil {
			t.Fatalf("formatted patch does not parse: %v\n%s", err, text)
		}
		if !reflect.DeepEqual(p, q) {
			t.Fatalf("parse(format(p)) != p\n%#v\n%#v\n%s", p, q, text)
		}
		r, err := ParsePatch(p.Reverse().Format())
		if err != nil {
			t.Fatalf("reversed patch does not parse: %v", err)
		}
		if !reflect.DeepEqual(r, p.Reverse()) {
			t.Fatalf("the reversed patch does not round-trip")
		}
		// Applying to arbitrary contents must not panic.
		_, _ = p.Apply(func(string) ([]byte, error) { return data, nil })
	})
}

// FuzzDiffText checks that DiffText's patch turns old into new, its reverse turns new
// into old, and its text parses back to it.
func FuzzDiffText(f *testing.F) {
	f.Add([]byte("a\nb\nc\n"), []byte("a\nB\nc\n"), uint8(3))
	f.Add([]byte("a\r\nb"), []byte("a\r\nb\n"), uint8(0))
	f.Add([]byte(""), []byte("x"), uint8(1))
	f.Add([]byte("x\nx\nx\ny\n"), []byte("x\ny\nx\n"), uint8(2))
	f.Add([]byte("\xff\n\x00\n"), []byte("\xfe\n"), uint8(5))
	f.Fuzz(func(t *testing.T, a, b []byte, ctx uint8) {
		fp := DiffText("f", "f", a, b, int(ctx%8))
		got, err := fp.ApplyBytes(a)
		if err != nil || string(got) != string(b) {
			t.Fatalf("apply: %v: got %q want %q\n%s", err, got, b, fp.Format())
		}
		rev := fp.Reverse()
		back, err := rev.ApplyBytes(b)
		if err != nil || string(back) != string(a) {
			t.Fatalf("reverse apply: %v: got %q want %q", err, back, a)
		}
		if len(fp.Hunks) == 0 {
			return
		}
		p, err := ParsePatch(fp.Format())
		if err != nil || len(p.Files) != 1 || !reflect.DeepEqual(p.Files[0], fp) {
			t.Fatalf("reparse: %v\n%s", err, fp.Format())
		}
	})
}
