package artifact

import (
	"bytes"
	"strings"
)

// A small Python lexer: enough to find import statements and to rename a top-level
// package in source text without touching comments, attribute names or unrelated strings.
// It does not interpret the grammar; names inside f-string replacement fields are not
// seen (they stay as written).

type pyTokKind byte

const (
	pyName pyTokKind = iota + 1
	pyString
	pyNumber
	pyOp
	pyNewline // end of a logical line (outside brackets, not continued)
)

type pyTok struct {
	kind       pyTokKind
	start, end int // byte offsets in the source
	// For strings: the offsets of the contents between the quotes and whether the prefix
	// allows a rename (not bytes, not an f-string).
	cStart, cEnd int
	plain        bool
}

func isNameStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func isNameByte(c byte) bool { return isNameStart(c) || c >= '0' && c <= '9' }

// pyLex splits src into tokens (whitespace and comments dropped). It never fails: an
// unterminated string runs to the end of its line (or of the source, for triple quotes).
func pyLex(src []byte) []pyTok {
	var toks []pyTok
	depth := 0
	n := len(src)
	newline := func(i int) {
		if depth == 0 && len(toks) > 0 && toks[len(toks)-1].kind != pyNewline {
			toks = append(toks, pyTok{kind: pyNewline, start: i, end: i})
		}
	}
	for i := 0; i < n; {
		c := src[i]
		switch {
		case c == '\n':
			newline(i)
			i++
		case c == ' ' || c == '\t' || c == '\r' || c == '\f':
			i++
		case c == '\\' && i+1 < n && (src[i+1] == '\n' || src[i+1] == '\r'):
			i += 2 // explicit line continuation
			if i < n && src[i-1] == '\r' && src[i] == '\n' {
				i++
			}
		case c == '#':
			for i < n && src[i] != '\n' {
				i++
			}
		case isNameStart(c):
			j := i
			for j < n && isNameByte(src[j]) {
				j++
			}
			if j < n && (src[j] == '\'' || src[j] == '"') && j-i <= 3 && isStringPrefix(string(src[i:j])) {
				t := lexString(src, i, j)
				toks = append(toks, t)
				i = t.end
				continue
			}
			toks = append(toks, pyTok{kind: pyName, start: i, end: j})
			i = j
		case c == '\'' || c == '"':
			t := lexString(src, i, i)
			toks = append(toks, t)
			i = t.end
		case c >= '0' && c <= '9' || c == '.' && i+1 < n && src[i+1] >= '0' && src[i+1] <= '9':
			j := i + 1
			for j < n && (isNameByte(src[j]) || src[j] == '.' ||
				(src[j] == '+' || src[j] == '-') && (src[j-1] == 'e' || src[j-1] == 'E')) {
				j++
			}
			toks = append(toks, pyTok{kind: pyNumber, start: i, end: j})
			i = j
		default:
			switch c {
			case '(', '[', '{':
				depth++
			case ')', ']', '}':
				if depth > 0 {
					depth--
				}
			case ';':
				toks = append(toks, pyTok{kind: pyOp, start: i, end: i + 1})
				newline(i)
				i++
				continue
			}
			toks = append(toks, pyTok{kind: pyOp, start: i, end: i + 1})
			i++
		}
	}
	newline(n)
	return toks
}

func isStringPrefix(p string) bool {
	switch strings.ToLower(p) {
	case "r", "u", "b", "f", "br", "rb", "fr", "rf":
		return true
	}
	return false
}

// lexString reads the string literal whose prefix starts at i and whose quote is at q.
func lexString(src []byte, i, q int) pyTok {
	n := len(src)
	quote := src[q]
	triple := q+2 < n && src[q+1] == quote && src[q+2] == quote
	prefix := strings.ToLower(string(src[i:q]))
	t := pyTok{kind: pyString, start: i, plain: !strings.ContainsAny(prefix, "bf")}
	j := q + 1
	if triple {
		j = q + 3
	}
	t.cStart = j
	for j < n {
		switch {
		case src[j] == '\\':
			j += 2
			continue
		case !triple && src[j] == '\n':
			t.cEnd, t.end = j, j
			return t
		case src[j] == quote && (!triple || j+2 < n && src[j+1] == quote && src[j+2] == quote):
			t.cEnd = j
			if triple {
				t.end = j + 3
			} else {
				t.end = j + 1
			}
			return t
		}
		j++
	}
	t.cEnd, t.end = n, n
	return t
}

// pyImport is one imported module of an import statement: `import a.b` gives {Module:
// "a.b"}; `from ..x import y, z` gives {Module: "x", Level: 2, Names: [y z]}.
type pyImport struct {
	Module string
	Level  int
	Names  []string
}

// pyImports returns the import statements of src in source order (wherever they are:
// module level, functions, try blocks).
func pyImports(src []byte) []pyImport {
	toks := pyLex(src)
	var out []pyImport
	text := func(t pyTok) string { return string(src[t.start:t.end]) }
	isOp := func(k int, op string) bool { return k < len(toks) && toks[k].kind == pyOp && text(toks[k]) == op }
	// dotted reads a.b.c from k and returns it and the next index.
	dotted := func(k int) (string, int) {
		var parts []string
		for k < len(toks) && toks[k].kind == pyName && text(toks[k]) != "import" {
			parts = append(parts, text(toks[k]))
			k++
			if !isOp(k, ".") {
				break
			}
			k++
		}
		return strings.Join(parts, "."), k
	}
	start := 0
	for k := 0; k <= len(toks); k++ {
		if k < len(toks) && toks[k].kind != pyNewline && !isOp(k, ";") {
			continue
		}
		stmt := start
		start = k + 1
		if stmt >= k || toks[stmt].kind != pyName {
			continue
		}
		switch text(toks[stmt]) {
		case "import":
			for j := stmt + 1; j < k; {
				mod, nj := dotted(j)
				if mod == "" {
					break
				}
				out = append(out, pyImport{Module: mod})
				j = nj
				if j < k && toks[j].kind == pyName && text(toks[j]) == "as" {
					j += 2
				}
				if !isOp(j, ",") {
					break
				}
				j++
			}
		case "from":
			j, level := stmt+1, 0
			for j < k && toks[j].kind == pyOp && (text(toks[j]) == ".") {
				level++
				j++
			}
			mod, nj := dotted(j)
			j = nj
			if j >= k || toks[j].kind != pyName || text(toks[j]) != "import" {
				continue
			}
			imp := pyImport{Module: mod, Level: level}
			for j++; j < k; j++ {
				if toks[j].kind != pyName {
					continue
				}
				if text(toks[j]) == "as" {
					j++
					continue
				}
				imp.Names = append(imp.Names, text(toks[j]))
			}
			out = append(out, imp)
		}
	}
	return out
}

// isDottedName reports whether s is a dotted Python name (a.b.c).
func isDottedName(s string) bool {
	if s == "" {
		return false
	}
	for _, p := range strings.Split(s, ".") {
		if !isIdentifier(p) {
			return false
		}
	}
	return true
}

// isIdentifier reports whether s is an ASCII Python identifier that is not a keyword.
func isIdentifier(s string) bool {
	if s == "" || pyKeywords[s] {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

var pyKeywords = map[string]bool{
	"False": true, "None": true, "True": true, "and": true, "as": true, "assert": true, "async": true,
	"await": true, "break": true, "class": true, "continue": true, "def": true, "del": true, "elif": true,
	"else": true, "except": true, "finally": true, "for": true, "from": true, "global": true, "if": true,
	"import": true, "in": true, "is": true, "lambda": true, "nonlocal": true, "not": true, "or": true,
	"pass": true, "raise": true, "return": true, "try": true, "while": true, "with": true, "yield": true,
}

// pyRename renames the top-level package from to to in src: every name token equal to
// from that does not follow a "." and is not a call's keyword argument (so `import
// from.x`, `from from.x import y`, `from.attr`, but not `obj.from` nor `f(from=1)`), and
// every plain string literal whose whole content is a dotted name starting with from
// (`mock.patch("from.mod.f")`, `importlib.import_module("from.x")`). Comments, bytes and
// f-strings are left alone. A class attribute or a def parameter named like the package
// is renamed while `obj.from` is not: the gold verification rejects what that breaks.
func pyRename(src []byte, from, to string) []byte {
	if from == to {
		return src
	}
	toks := pyLex(src)
	text := func(k int) string {
		if k < 0 || k >= len(toks) || toks[k].kind != pyOp {
			return ""
		}
		return string(src[toks[k].start:toks[k].end])
	}
	var b bytes.Buffer
	last := 0
	// brackets holds, for each open bracket, whether it is a call's argument list (not a
	// def's parameters): a name followed by a single "=" there is a keyword argument.
	var brackets []bool
	for k, t := range toks {
		switch t.kind {
		case pyOp:
			switch src[t.start] {
			case '(':
				def := k >= 2 && toks[k-1].kind == pyName && toks[k-2].kind == pyName && string(src[toks[k-2].start:toks[k-2].end]) == "def"
				brackets = append(brackets, !def)
			case '[', '{':
				brackets = append(brackets, false)
			case ')', ']', '}':
				if len(brackets) > 0 {
					brackets = brackets[:len(brackets)-1]
				}
			}
		case pyName:
			if string(src[t.start:t.end]) != from {
				continue
			}
			if text(k-1) == "." {
				continue
			}
			if text(k+1) == "=" && text(k+2) != "=" && len(brackets) > 0 && brackets[len(brackets)-1] {
				continue // a keyword argument of a call
			}
			b.Write(src[last:t.start])
			b.WriteString(to)
			last = t.end
		case pyString:
			if !t.plain {
				continue
			}
			s := string(src[t.cStart:t.cEnd])
			if !isDottedName(s) || (s != from && !strings.HasPrefix(s, from+".")) {
				continue
			}
			b.Write(src[last:t.cStart])
			b.WriteString(to + s[len(from):])
			last = t.cEnd
		}
	}
	b.Write(src[last:])
	return b.Bytes()
}
