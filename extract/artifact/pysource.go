package artifact

import (
	"bytes"
	"strings"

	"github.com/faultline-dev/faultline/internal/pylex"
)

// pyTokens returns the tokens of src that the import and rename scans read (pylex.Tokenize
// without comments, NLs and indentation): names, numbers, strings, operators, the odd
// character no token starts with, and the NEWLINEs that end statements. Names inside
// f-string replacement fields are not seen (they stay as written).
func pyTokens(src []byte) []pylex.Token {
	all := pylex.Tokenize(src)
	out := all[:0]
	for _, t := range all {
		switch t.Kind {
		case pylex.Comment, pylex.NL, pylex.Indent, pylex.Dedent:
			continue
		}
		out = append(out, t)
	}
	return out
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
	toks := pyTokens(src)
	var out []pyImport
	text := func(t pylex.Token) string { return string(src[t.Start:t.End]) }
	isOp := func(k int, op string) bool { return k < len(toks) && toks[k].Kind == pylex.Op && text(toks[k]) == op }
	// dotted reads a.b.c from k and returns it and the next index.
	dotted := func(k int) (string, int) {
		var parts []string
		for k < len(toks) && toks[k].Kind == pylex.Name && text(toks[k]) != "import" {
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
		if k < len(toks) && toks[k].Kind != pylex.Newline && !isOp(k, ";") {
			continue
		}
		stmt := start
		start = k + 1
		if stmt >= k || toks[stmt].Kind != pylex.Name {
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
				if j < k && toks[j].Kind == pylex.Name && text(toks[j]) == "as" {
					j += 2
				}
				if !isOp(j, ",") {
					break
				}
				j++
			}
		case "from":
			j, level := stmt+1, 0
			for j < k && toks[j].Kind == pylex.Op && (text(toks[j]) == ".") {
				level++
				j++
			}
			mod, nj := dotted(j)
			j = nj
			if j >= k || toks[j].Kind != pylex.Name || text(toks[j]) != "import" {
				continue
			}
			imp := pyImport{Module: mod, Level: level}
			for j++; j < k; j++ {
				if toks[j].Kind != pylex.Name {
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
	toks := pyTokens(src)
	text := func(k int) string {
		if k < 0 || k >= len(toks) || toks[k].Kind != pylex.Op {
			return ""
		}
		return string(src[toks[k].Start:toks[k].End])
	}
	var b bytes.Buffer
	last := 0
	// brackets holds, for each open bracket, whether it is a call's argument list (not a
	// def's parameters): a name followed by a single "=" there is a keyword argument.
	var brackets []bool
	for k, t := range toks {
		switch t.Kind {
		case pylex.Op:
			switch src[t.Start] {
			case '(':
				def := k >= 2 && toks[k-1].Kind == pylex.Name && toks[k-2].Kind == pylex.Name && string(src[toks[k-2].Start:toks[k-2].End]) == "def"
				brackets = append(brackets, !def)
			case '[', '{':
				brackets = append(brackets, false)
			case ')', ']', '}':
				if len(brackets) > 0 {
					brackets = brackets[:len(brackets)-1]
				}
			}
		case pylex.Name:
			if string(src[t.Start:t.End]) != from {
				continue
			}
			if text(k-1) == "." {
				continue
			}
			if text(k+1) == "=" && text(k+2) != "=" && len(brackets) > 0 && brackets[len(brackets)-1] {
				continue // a keyword argument of a call
			}
			b.Write(src[last:t.Start])
			b.WriteString(to)
			last = t.End
		case pylex.String:
			lit := pylex.ParseLiteral(string(src[t.Start:t.End]))
			if lit.Bytes() || lit.Formatted() {
				continue
			}
			cStart := t.Start + len(lit.Prefix) + len(lit.Quote)
			cEnd := cStart + len(lit.Body)
			s := lit.Body
			if !isDottedName(s) || (s != from && !strings.HasPrefix(s, from+".")) {
				continue
			}
			b.Write(src[last:cStart])
			b.WriteString(to + s[len(from):])
			last = cEnd
		}
	}
	b.Write(src[last:])
	return b.Bytes()
}
