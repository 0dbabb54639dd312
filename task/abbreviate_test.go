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

// pytest's listing of a project whose one test file fails to import, as its last lines come:
// collected ids, then the error block whose header names the file (nose2's own tests under
// pytest, Debian's python3-nose2).
func listingCollectionError() string {
	var b strings.Builder
	b.WriteString("sandbox: pytest --collect-only exited 2: ")
	for i := range 25 {
		b.WriteString("nose2/tests/unit/test_testid_plugin.py::UnitTestTestId::test_case_" + strings.Repeat("x", i%7) + "\n")
	}
	b.WriteString(`
==================================== ERRORS ====================================
__________ ERROR collecting nose2/tests/unit/test_testclass_loader.py __________
nose2/events.py:44: in __call__
    instance.register()
nose2/plugins/loader/testclasses.py:100: in register
    self.addMethods("loadTestsFromTestClass", "getTestMethodNames")
nose2/events.py:126: in addMethods
    self.session.hooks.addMethod(method)
E   AttributeError: 'NoneType' object has no attribute 'hooks'`)
	return b.String()
}

func TestAbbreviateKeepsTheFileThatFailedToCollect(t *testing.T) {
	text := listingCollectionError()
	for _, n := range []int{2000, 300} {
		if len(text) <= n {
			t.Fatalf("the text (%d bytes) must be longer than %d for this test", len(text), n)
		}
		got := Abbreviate(text, n)
		if len(got) > n {
			t.Errorf("n=%d: %d bytes", n, len(got))
		}
		for _, want := range []string{"ERROR collecting nose2/tests/unit/test_testclass_loader.py", "E   AttributeError: 'NoneType' object has no attribute 'hooks'"} {
			if !strings.Contains(got, want) {
				t.Errorf("n=%d: missing %q in:\n%s", n, want, got)
			}
		}
	}
}
