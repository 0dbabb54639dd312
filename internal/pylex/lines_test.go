package pylex

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLines(t *testing.T) {
	src := "import os\n\n# c\nclass A(  # open\n    B):\n    x = '''a\nb'''\n    y = 1 + \\\n        2\n\tz = {1: 2}\n\n   "
	got := Lines([]byte(src))
	want := []Line{
		{First: 1, Last: 1, Code: true},
		{First: 2, Last: 2},
		{First: 3, Last: 3},
		{First: 4, Last: 5, Code: true, Header: true},
		{First: 6, Last: 7, Indent: "    ", Code: true},
		{First: 8, Last: 9, Indent: "    ", Code: true},
		{First: 10, Last: 10, Indent: "\t", Code: true},
		{First: 11, Last: 11},
		{First: 12, Last: 12, Indent: "   "},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestLinesOpenAtEOF(t *testing.T) {
	// an unclosed bracket or triple-quoted string runs to the last line
	for _, src := range []string{"x = (1,\n\n  2\n", "s = '''a\n\nb", "a = 1\nb = [\n"} {
		ls := Lines([]byte(src))
		last := ls[len(ls)-1]
		if n := strings.Count(strings.TrimSuffix(src, "\n"), "\n") + 1; last.Last != n || !last.Code {
			t.Errorf("%q: last line %+v, want it to end on line %d", src, last, n)
		}
	}
	if ls := Lines(nil); len(ls) != 0 {
		t.Errorf("empty source: %+v", ls)
	}
}

func TestIndentWidth(t *testing.T) {
	for ws, want := range map[string]int{"": 0, "    ": 4, "\t": 8, "  \t": 8, "\t  ": 10, "        \t": 16, "  \f  ": 2, "\t\f\t": 8} {
		if got := IndentWidth(ws); got != want {
			t.Errorf("IndentWidth(%q) = %d, want %d", ws, got, want)
		}
	}
}

func TestParseLiteral(t *testing.T) {
	for lit, want := range map[string]Literal{
		`"a"`:          {Quote: `"`, Body: "a", Closed: true},
		`''`:           {Quote: `'`, Closed: true},
		`rb'\''`:       {Prefix: "rb", Quote: `'`, Body: `\'`, Closed: true},
		`F"""x"y"""`:   {Prefix: "F", Quote: `"""`, Body: `x"y`, Closed: true},
		`''''''`:       {Quote: `'''`, Closed: true},
		`"""open`:      {Quote: `"""`, Body: "open"},
		`"open`:        {Quote: `"`, Body: "open"},
		`u'''a\n'''`:   {Prefix: "u", Quote: `'''`, Body: `a\n`, Closed: true},
		`noquote`:      {Prefix: "noquote"},
		`"`:            {Quote: `"`},
		`'''''`:        {Quote: `'''`, Body: "''"},
		`"""a"`:        {Quote: `"""`, Body: `a"`},
		`Rf'{x!r}'`:    {Prefix: "Rf", Quote: `'`, Body: "{x!r}", Closed: true},
		`b"\xff\x00"`:  {Prefix: "b", Quote: `"`, Body: `\xff\x00`, Closed: true},
		"'''a\r\nb'''": {Quote: `'''`, Body: "a\r\nb", Closed: true},
	} {
		got := ParseLiteral(lit)
		if got != want {
			t.Errorf("ParseLiteral(%q) = %+v, want %+v", lit, got, want)
		}
		if joined := got.Prefix + got.Quote + got.Body; joined != lit && joined+got.Quote != lit {
			t.Errorf("ParseLiteral(%q): parts do not join back", lit)
		}
	}
	l := ParseLiteral(`Rb"x"`)
	if !l.Raw() || !l.Bytes() || l.Formatted() {
		t.Errorf("Rb: raw %v bytes %v formatted %v", l.Raw(), l.Bytes(), l.Formatted())
	}
	if l := ParseLiteral(`f'x'`); !l.Formatted() || l.Raw() || l.Bytes() {
		t.Errorf("f: %+v", l)
	}
}

// TestStringEnd checks the end of literals the tokenizer reads inside one line, escapes and
// raw strings included (a backslash keeps a raw literal open too).
func TestStringEnd(t *testing.T) {
	for _, c := range []struct {
		src    string
		end    int
		closed bool
	}{
		{`'abc' x`, 5, true},
		{`'a\'b' x`, 6, true},
		{`'a\\' x`, 5, true},
		{`'''a\''''`, 9, true},
		{`"""a""" + """b"""`, 7, true},
		{`'abc`, 4, false},
		{"'abc\ndef'", 4, false},
		{"'abc\r\ndef'", 4, false},
		{"'ab\\\ncd' x", 8, true},
		{"'ab\\\r\ncd' x", 9, true},
		{`'''abc`, 6, false},
		{"'''a\n'b'\n''' x", 12, true},
	} {
		end, closed := StringEnd(c.src, 0)
		if end != c.end || closed != c.closed {
			t.Errorf("StringEnd(%q) = %d, %v, want %d, %v", c.src, end, closed, c.end, c.closed)
		}
	}
}

func TestCleandocMatchesPython(t *testing.T) {
	// Expected values computed with Python's inspect.cleandoc; see testdata/cleandoc.py.
	vectors := readCleandoc(t)
	if len(vectors) < 50 {
		t.Fatalf("%d vectors", len(vectors))
	}
	for _, v := range vectors {
		if got := Cleandoc(v.In); got != v.Out {
			t.Errorf("Cleandoc(%q) = %q, want %q", v.In, got, v.Out)
		}
	}
}

func TestExpandTabs(t *testing.T) {
	for in, want := range map[string]string{"a\tb": "a       b", "\t": "        ", "abcdefgh\tx": "abcdefgh        x", "ab\n\tc": "ab\n        c", "é\tx": "é       x"} {
		if got := ExpandTabs(in); got != want {
			t.Errorf("ExpandTabs(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzTokenize checks on any input that the lexer does not panic, that its tokens are in
// order inside src and leave out only blanks and backslash continuations, that string
// tokens split into their parts, and that the logical lines cover every physical line once.
func FuzzTokenize(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "cases", "*.py"))
	for _, p := range seeds {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("\xff\xfe'\\"))
	f.Fuzz(func(t *testing.T, src []byte) {
		toks := Tokenize(src)
		pos := 0
		for _, tok := range toks {
			if tok.Start < pos || tok.End < tok.Start || tok.End > len(src) {
				t.Fatalf("token %+v after offset %d in %d bytes", tok, pos, len(src))
			}
			if !blank(src[pos:tok.Start]) {
				t.Fatalf("bytes %q before %+v are in no token", src[pos:tok.Start], tok)
			}
			if tok.Kind == String {
				lit := string(src[tok.Start:tok.End])
				l := ParseLiteral(lit)
				if l.Quote == "" || !IsStringPrefix(l.Prefix) {
					t.Fatalf("string token %q: %+v", lit, l)
				}
			}
			pos = tok.End
		}
		if !blank(src[pos:]) {
			t.Fatalf("tail %q is in no token", src[pos:])
		}
		next := 1
		for _, l := range Lines(src) {
			if l.First != next || l.Last < l.First {
				t.Fatalf("logical line %+v, want it to start on line %d", l, next)
			}
			next = l.Last + 1
		}
		if lines := len(NewLineIndex(src)); len(src) > 0 && next != lines+1 {
			t.Fatalf("logical lines end on line %d of %d", next-1, lines)
		}
	})
}

func readCleandoc(t *testing.T) []struct{ In, Out string } {
	b, err := os.ReadFile(filepath.Join("testdata", "cleandoc.json"))
	if err != nil {
		t.Fatal(err)
	}
	var vecs []struct{ In, Out string }
	if err := json.Unmarshal(b, &vecs); err != nil {
		t.Fatal(err)
	}
	return vecs
}

// blank reports whether gap holds only blanks and backslash continuations.
func blank(gap []byte) bool {
	gap = bytes.ReplaceAll(gap, []byte("\\\r\n"), nil)
	gap = bytes.ReplaceAll(gap, []byte("\\\n"), nil)
	return len(bytes.Trim(gap, " \t\f")) == 0
}
