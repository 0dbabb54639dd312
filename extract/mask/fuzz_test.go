package mask

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline-dev/faultline/callgraph"
	"github.com/faultline-dev/faultline/callgraph/python"
	"github.com/faultline-dev/faultline/task"
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
		logical := scanLogical(src)
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

// FuzzMaskPython masks the first definition the front end finds in arbitrary source and
// checks that the result is the input with whole lines deleted, `pass` lines inserted and
// nothing else: every output line is an input line (in order) or an inserted pass.
func FuzzMaskPython(f *testing.F) {
	for _, s := range []string{
		"def f():\n    return 1\n",
		"class A:\n    # c\n    @d\n    def m(self):\n        pass\n",
		"if x:\n    def g(): pass\nelse:\n    y = 1\n",
		"def h(a,\n      b):\n    s = '''\ndef fake():\n'''\n    return s\n\nx = 1\n",
		"try:\n\tdef t(): return 2\nexcept E:\n\tpass\n",
		"def f(): return 1; g()\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 4096 {
			return
		}
		root := t.TempDir()
		if err := os.WriteFile(filepath.Join(root, "m.py"), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		an, err := python.New(python.Options{}).Analyze(context.Background(), []callgraph.SourceFile{{Path: "m.py", Src: []byte(s)}})
		if err != nil {
			t.Fatal(err)
		}
		var target *Target
		for _, d := range an.Definitions {
			if d.Kind != task.KindModule {
				target = &Target{File: "m.py", Name: d.Name, Line: d.Line}
				break
			}
		}
		if target == nil {
			return
		}
		res, err := Mask(context.Background(), root, []Target{*target}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		ch, ok := res.Overlay["m.py"]
		if !ok {
			if len(res.Removed) > 0 {
				t.Fatal("removed without a changed file")
			}
			return
		}
		if !deletionsAndPasses(strings.SplitAfter(s, "\n"), strings.SplitAfter(string(ch.Data), "\n")) {
			t.Fatalf("output is not the input with lines deleted and pass lines inserted\ninput:\n%s\noutput:\n%s", s, ch.Data)
		}
	})
}

// deletionsAndPasses reports whether out can be made from in by deleting lines and
// inserting lines that hold only `pass` (dynamic programming over suffixes).
func deletionsAndPasses(in, out []string) bool {
	in, out = nonEmpty(in), nonEmpty(out)
	n, m := len(in), len(out)
	// ok[i][j]: out[j:] can be made from in[i:].
	ok := make([][]bool, n+1)
	for i := range ok {
		ok[i] = make([]bool, m+1)
		ok[i][m] = true
	}
	for j := m - 1; j >= 0; j-- {
		isPass := strings.TrimSpace(out[j]) == "pass"
		for i := n; i >= 0; i-- {
			v := false
			if i < n {
				v = ok[i+1][j] || (in[i] == out[j] && ok[i+1][j+1])
			}
			if !v && isPass {
				v = ok[i][j+1]
			}
			ok[i][j] = v
		}
	}
	return ok[0][0]
}

func nonEmpty(s []string) []string {
	var out []string
	for _, x := range s {
		if x != "" {
			out = append(out, x)
		}
	}
	return out
}
