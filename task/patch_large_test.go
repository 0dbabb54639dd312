package task

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// bigText returns about size bytes of distinct 50-byte lines.
func bigText(size int) []byte {
	var b bytes.Buffer
	b.Grow(size + 64)
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "line %08d of a large generated file, padding..\n", i)
	}
	return b.Bytes()
}

// editBig changes a few lines spread over the text, inserts one and deletes one.
func editBig(old []byte) []byte {
	lines := splitLines(old)
	var b bytes.Buffer
	b.Grow(len(old) + 1024)
	for i, l := range lines {
		switch {
		case i == 7:
			continue
		case i%250000 == 3:
			b.WriteString("changed\n")
		default:
			b.Write(l)
		}
		if i == len(lines)/2 {
			b.WriteString("inserted in the middle\n")
		}
	}
	return b.Bytes()
}

// TestLargeFile diffs and applies a 50 MB file: both must work (the alignment is linear
// for distinct lines) and applying must not write anything on a failing hunk.
func TestLargeFile(t *testing.T) {
	old := bigText(50 << 20)
	new := editBig(old)
	fp := DiffText("big.txt", "big.txt", old, new, 3)
	if n := len(fp.Hunks); n < 5 || n > 10 {
		t.Fatalf("%d hunks", n)
	}
	got, err := fp.ApplyBytes(old)
	if err != nil || !bytes.Equal(got, new) {
		t.Fatalf("apply: %v", err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "big.txt"), old, 0o644); err != nil {
		t.Fatal(err)
	}
	// Break the last hunk's context: the whole patch is refused and the file untouched.
	bad := fp
	bad.Hunks = append([]Hunk(nil), fp.Hunks...)
	last := &bad.Hunks[len(bad.Hunks)-1]
	last.Lines = append([]HunkLine{{Op: ' ', Text: "not in the file"}}, last.Lines[1:]...)
	before := hashTree(t, dir)
	if _, err := (&Patch{Files: []FilePatch{bad}}).ApplyDir(dir); err == nil {
		t.Fatal("a broken hunk applied")
	}
	sameTree(t, "after a failed apply", hashTree(t, dir), before)
	if _, err := (&Patch{Files: []FilePatch{fp}}).ApplyDir(dir); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "big.txt"))
	if err != nil || !bytes.Equal(data, new) {
		t.Fatalf("ApplyDir result differs: %v", err)
	}
}

// benchPair is a real module and a seeded edit of it (the first difflib vector of
// testdata/patch, simplejson's decoder with LF line ends).
func benchPair(b *testing.B) (old, new []byte) {
	b.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "patch", "difflib_vectors.json"))
	if err != nil {
		b.Fatal(err)
	}
	var v struct {
		Cases []struct{ Name, Old, New string }
	}
	if err := json.Unmarshal(data, &v); err != nil {
		b.Fatal(err)
	}
	for _, c := range v.Cases {
		if c.Name == "simplejson/encoder.py:lf" {
			return []byte(c.Old), []byte(c.New)
		}
	}
	b.Fatal("bench pair missing")
	return nil, nil
}

// BenchmarkDiffText measures DiffText on a real ~30 KB module (compare with
// testdata/patch/bench_difflib.py, CPython's unified_diff on the same pair).
func BenchmarkDiffText(b *testing.B) {
	old, new := benchPair(b)
	b.SetBytes(int64(len(old) + len(new)))
	for b.Loop() {
		DiffText("f", "f", old, new, 3)
	}
}

// BenchmarkParseFormat measures parsing and re-formatting the pair's patch.
func BenchmarkParseFormat(b *testing.B) {
	old, new := benchPair(b)
	text := DiffBytes("f", old, new, 3)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		p, err := ParsePatch(text)
		if err != nil {
			b.Fatal(err)
		}
		p.Format()
	}
}

// BenchmarkApplyBytes measures applying the pair's patch.
func BenchmarkApplyBytes(b *testing.B) {
	old, new := benchPair(b)
	fp := DiffText("f", "f", old, new, 3)
	b.SetBytes(int64(len(old)))
	for b.Loop() {
		if _, err := fp.ApplyBytes(old); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLargeFile measures diffing and applying a 50 MB file with a few changes.
func BenchmarkLargeFile(b *testing.B) {
	old := bigText(50 << 20)
	new := editBig(old)
	b.SetBytes(int64(len(old)))
	for b.Loop() {
		fp := DiffText("f", "f", old, new, 3)
		if _, err := fp.ApplyBytes(old); err != nil {
			b.Fatal(err)
		}
	}
}
