package task

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// A collection error as the local runner reports it (pytest's longrepr, paths relative).
const collectionCause = `collection_error: tests/test_a.py: ImportError while importing test module 'tests/test_a.py'.
Hint: make sure your test modules/packages have valid Python names.
Traceback:
/usr/lib/python3.11/importlib/__init__.py:126: in import_module
    return _bootstrap._gcd_import(name[level:], package, level)
tests/test_a.py:4: in <module>
    from pkg import missing_name
E   ImportError: cannot import name 'missing_name' from 'pkg' (pkg/__init__.py)`

func TestAbbreviateKeepsTheException(t *testing.T) {
	got := Abbreviate(collectionCause, 300)
	if len(got) > 300 {
		t.Fatalf("%d bytes, want at most 300:\n%s", len(got), got)
	}
	for _, want := range []string{
		"collection_error: tests/test_a.py: ImportError while importing test module",
		"tests/test_a.py:4: in <module>\n    from pkg import missing_name\nE   ImportError: cannot import name 'missing_name' from 'pkg' (pkg/__init__.py)",
		"[…]",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	if strings.Contains(got, "importlib") {
		t.Errorf("kept importlib's frame instead of dropping it:\n%s", got)
	}
	if Abbreviate(collectionCause, 0) != collectionCause || Abbreviate("short", 300) != "short" {
		t.Error("a text within the limit (or no limit) must stay as it is")
	}
}

func TestAbbreviateKeepsTheLastLines(t *testing.T) {
	var b strings.Builder
	b.WriteString("build_failed: # example.com/m\n")
	for i := range 40 {
		b.WriteString("./m.go:" + strings.Repeat("1", i%3+1) + ": some compiler complaint about the code\n")
	}
	b.WriteString("./m.go:99: too many errors")
	got := Abbreviate(b.String(), 200)
	if len(got) > 200 || !strings.HasPrefix(got, "build_failed: # example.com/m\n[…]\n") || !strings.HasSuffix(got, "\n./m.go:99: too many errors") {
		t.Errorf("got %d bytes:\n%s", len(got), got)
	}
}

func TestAbbreviateBounds(t *testing.T) {
	texts := []string{
		collectionCause,
		strings.Repeat("é", 400),
		"first line\n" + strings.Repeat("ü", 500),
		strings.Repeat("x\n", 300),
		"a\nE   " + strings.Repeat("ß", 300),
	}
	for _, s := range texts {
		for n := 1; n < len(s)+5; n += 7 {
			got := Abbreviate(s, n)
			if len(got) > n || !utf8.ValidString(got) {
				t.Fatalf("Abbreviate(%.20q…, %d) = %d bytes (valid UTF-8: %v)", s, n, len(got), utf8.ValidString(got))
			}
		}
	}
}
