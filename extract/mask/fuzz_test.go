package mask

import (
	"strings"
	"testing"
)

// FuzzScanLogical checks the line scanner's invariants on arbitrary input: the logical
// lines partition the physical lines in order, and a header is a code line.
func FuzzScanLogical(f *testing.F) {
	for _, s := range []string{
		"", "x = 1\n", "def f(\n    a,\n):\n    pass\n", "s = '''a\n# not a comment\n'''\n",
		"if x:  # c\n    y = [1,\n  2]\n", "a = 1 + \\\n    2\n", "x = (\n", "'unterminated\ny = 2\n",
		"class A:\r\n    def f(self): return {'a': 1}\r\n", "\tif y:\n\t\tpass",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		src := []byte(s)
		lines := pyLines(src)
		logical := scanLogical(src, lines)
		next := 1
		for _, l := range logical {
			if l.first != next || l.last < l.first {
				t.Fatalf("logical line %+v does not follow line %d", l, next-1)
			}
			if l.header && !l.code {
				t.Fatalf("header without code: %+v", l)
			}
			next = l.last + 1
		}
		if next != len(lines)+1 {
			t.Fatalf("logical lines end at %d, want %d", next-1, len(lines))
		}
		// The physical lines cover the input exactly.
		var b strings.Builder
		for _, p := range lines {
			b.Write(src[p.start:p.end])
		}
		if b.String() != s {
			t.Fatal("physical lines do not cover the input")
		}
	})
}

// FuzzParseFromImport checks that a parsed from-import renders back to text that parses to
// the same statement.
func FuzzParseFromImport(f *testing.F) {
	for _, s := range []string{
		"from a import b", "from .m import (x, y as z,)", "from .. import q  # c",
		"from a.b.c import (\n    d,\n    e as f,  # g\n)", "from x import *", "from a import b; c()",
		"from a import \\\n    b, c",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fi, ok := parseFromImport(s)
		if !ok || fi.star {
			return
		}
		for _, multi := range []bool{false, true} {
			text := fi.render("", "    ", "\n", fi.entries, multi && fi.paren)
			back, ok := parseFromImport(strings.TrimSuffix(text, "\n"))
			if !ok {
				t.Fatalf("render of %q = %q does not parse", s, text)
			}
			if back.dots != fi.dots || back.module != fi.module || len(back.entries) != len(fi.entries) {
				t.Fatalf("round trip of %q via %q: %+v vs %+v", s, text, back, fi)
			}
			for i := range back.entries {
				if back.entries[i] != fi.entries[i] {
					t.Fatalf("round trip of %q: entry %d %v vs %v", s, i, back.entries[i], fi.entries[i])
				}
			}
		}
	})
}

// FuzzParseTarget checks that a parsed target prints back to an id that parses to it.
func FuzzParseTarget(f *testing.F) {
	for _, s := range []string{"a.py::f", "pkg/m.py::A.b::12", "x.go::T.M@4", "::", "a::b::0", "../x.py::f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tg, err := ParseTarget(s)
		if err != nil {
			return
		}
		back, err := ParseTarget(tg.String())
		if err != nil || back != tg {
			t.Fatalf("%q → %+v → %q → %+v, %v", s, tg, tg.String(), back, err)
		}
	})
}
