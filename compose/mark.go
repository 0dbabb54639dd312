package compose

import (
	"strings"

	"github.com/faultline-dev/faultline/internal/linemut"
	"github.com/faultline-dev/faultline/task"
)

// LineInfo says what a bug may do to one line of the correct program.
type LineInfo struct {
	Editable  bool `json:"editable"`
	Deletable bool `json:"deletable"`
}

var frozenKeywords = map[string]bool{
	"def": true, "class": true, "import": true, "from": true, "try": true, "except": true,
	"finally": true, "async": true,
}

var headerKeywords = map[string]bool{
	"if": true, "elif": true, "else": true, "for": true, "while": true, "with": true,
	"try": true, "except": true, "finally": true, "def": true, "class": true, "match": true,
	"case": true, "async": true,
}

// MarkPython marks the lines of program (split as task.Lines does) with the PDB rules for
// Python, the first frozen lines being starter code that bugs must not touch.
//
// Editable: non-blank; not a def / class / import / from-import / try / except / finally
// / async line (or a decorator); not in the frozen prefix; and — beyond the reference,
// because a bug there cannot change behaviour — not a comment-only line and not inside a
// multi-line (triple-quoted) string such as a docstring.
//
// Deletable: editable, and not a control-flow header (if, elif, else, for, while, with,
// match, case), not ending with ':' (comments ignored), not the sole statement of its block
// (the previous code line opens the block and the next code line is indented less or is
// absent), not a line that starts inside or leaves open a bracketed expression or ends with
// a backslash continuation (deleting those breaks the syntax).
func MarkPython(program string, frozen int) []LineInfo {
	lines := task.Lines(program)
	info := make([]LineInfo, len(lines))
	type codeLine struct {
		idx    int
		indent int
		colon  bool // ends with ':' outside strings and comments
	}
	var code []codeLine
	inString := ""    // the open triple quote, if a multi-line string is open
	depth := 0        // bracket depth at the start of the line
	contPrev := false // the previous line ended with a backslash
	startsInside := make([]bool, len(lines))
	leavesOpen := make([]bool, len(lines))
	for i, l := range lines {
		startsInside[i] = depth > 0 || contPrev
		closes := false
		if inString != "" {
			k := strings.Index(l, inString)
			if k < 0 {
				leavesOpen[i] = true
				continue // still inside the string: not editable
			}
			l = strings.Repeat(" ", k+3) + l[k+3:]
			inString = ""
			closes = true
		}
		toks := linemut.Scan(l)
		colon := false
		hasCode := false
		for _, t := range toks {
			switch t.Kind {
			case linemut.Space, linemut.Comment:
				continue
			case linemut.String:
				hasCode = true
				if q := openTriple(t.Text); q != "" {
					inString = q
				}
			case linemut.Op:
				hasCode = true
				switch t.Text {
				case "(", "[", "{":
					depth++
				case ")", "]", "}":
					if depth > 0 {
						depth--
					}
				}
			default:
				hasCode = true
			}
			colon = t.Kind == linemut.Op && t.Text == ":"
		}
		contPrev = strings.HasSuffix(l, "\\")
		leavesOpen[i] = depth > 0 || contPrev || inString != ""
		if !hasCode || closes {
			continue // blank, comment-only, or the closing line of a multi-line string
		}
		trim := strings.TrimSpace(l)
		first := firstWord(trim)
		editable := i >= frozen && !frozenKeywords[first] && !strings.HasPrefix(trim, "@") && !isDocString(toks)
		info[i].Editable = editable
		code = append(code, codeLine{idx: i, indent: indentOf(lines[i]), colon: colon})
	}
	for c, cl := range code {
		i := cl.idx
		if !info[i].Editable || cl.colon || headerKeywords[firstWord(strings.TrimSpace(lines[i]))] || startsInside[i] || leavesOpen[i] {
			continue
		}
		if c > 0 && code[c-1].colon {
			// First statement of a block: sole if the next code line is dedented or absent.
			if c+1 == len(code) || code[c+1].indent < cl.indent {
				continue
			}
		}
		info[i].Deletable = true
	}
	return info
}

// openTriple returns the triple quote a string token opens and does not close.
func openTriple(tok string) string {
	s := strings.TrimLeft(tok, "rRbBuUfF")
	for _, q := range []string{`"""`, `'''`} {
		if strings.HasPrefix(s, q) && (len(s) < 6 || !strings.HasSuffix(s, q)) {
			return q
		}
	}
	return ""
}

// isDocString reports whether the line's only code is one string literal.
func isDocString(toks []linemut.Token) bool {
	n := 0
	for _, t := range toks {
		switch t.Kind {
		case linemut.Space, linemut.Comment:
		case linemut.String:
			n++
		default:
			return false
		}
	}
	return n == 1
}

func firstWord(s string) string {
	end := strings.IndexFunc(s, func(r rune) bool {
		return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	})
	if end < 0 {
		return s
	}
	return s[:end]
}

func indentOf(l string) int {
	n := 0
	for _, c := range l {
		switch c {
		case ' ':
			n++
		case '\t':
			n += 8 - n%8
		default:
			return n
		}
	}
	return n
}
