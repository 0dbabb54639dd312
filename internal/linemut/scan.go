package linemut

import (
	"strings"
	"unicode/utf8"

	"github.com/faultline-dev/faultline/internal/pylex"
)

// Kind classifies a token of one source line.
type Kind int

// The token kinds the scanner distinguishes.
const (
	Space   Kind = iota // a run of blanks
	Ident               // identifier or keyword
	Number              // numeric literal
	String              // string literal (with prefix and quotes); may run to end of line
	Comment             // '#' to end of line (Python) or '//' to end of line
	Op                  // operator or punctuation
)

// Token is a lexeme of a line: Text is line[Start:End].
type Token struct {
	Kind  Kind
	Text  string
	Start int
	End   int
}

// threeCharOps and twoCharOps are matched longest first.
var threeCharOps = []string{"**=", "//=", ">>=", "<<=", "...", "!==", "==="}
var twoCharOps = []string{"==", "!=", "<=", ">=", "//", "**", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "->", "<<", ">>", "&&", "||", ":="}

// Scan splits one source line into tokens. It reads names and string literals as
// internal/pylex does (Python's string prefixes r, b, f, u and their combinations, single
// and triple quotes, backslash escapes), '#' comments, and C-style '//' comments
// when the line does not look like Python floor division (a '//' followed by a space at the
// start of the code or after a statement end). An unterminated string runs to the end of
// the line. The concatenated token texts always equal the line.
func Scan(line string) []Token {
	var toks []Token
	i := 0
	emit := func(k Kind, j int) {
		toks = append(toks, Token{Kind: k, Text: line[i:j], Start: i, End: j})
		i = j
	}
	for i < len(line) {
		c := line[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			j := i
			for j < len(line) && (line[j] == ' ' || line[j] == '\t' || line[j] == '\r' || line[j] == '\f' || line[j] == '\v') {
				j++
			}
			emit(Space, j)
		case c == '#':
			emit(Comment, len(line))
		case c == '\'' || c == '"':
			end, _ := pylex.StringEnd(line, i)
			emit(String, end)
		case isDigit(c) || (c == '.' && i+1 < len(line) && isDigit(line[i+1])):
			emit(Number, scanNumber(line, i))
		case pylex.NameEnd(line, i) > i:
			j := pylex.NameEnd(line, i)
			// A string prefix directly followed by a quote starts a string literal.
			if j < len(line) && (line[j] == '\'' || line[j] == '"') && pylex.IsStringPrefix(line[i:j]) {
				end, _ := pylex.StringEnd(line, j)
				emit(String, end)
				continue
			}
			emit(Ident, j)
		default:
			if strings.HasPrefix(line[i:], "//") && cStyleComment(toks) {
				emit(Comment, len(line))
				continue
			}
			n := 1
			for _, op := range threeCharOps {
				if strings.HasPrefix(line[i:], op) {
					n = 3
					break
				}
			}
			if n == 1 {
				for _, op := range twoCharOps {
					if strings.HasPrefix(line[i:], op) {
						n = 2
						break
					}
				}
			}
			if n == 1 {
				_, n = utf8.DecodeRuneInString(line[i:])
			}
			emit(Op, i+n)
		}
	}
	return toks
}

// cStyleComment reports whether a '//' after toks starts a comment: only when nothing but
// blanks precede it (Python never starts a statement with '//').
func cStyleComment(toks []Token) bool {
	for _, t := range toks {
		if t.Kind != Space {
			return false
		}
	}
	return true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func scanNumber(line string, i int) int {
	j := i
	if strings.HasPrefix(line[i:], "0x") || strings.HasPrefix(line[i:], "0X") ||
		strings.HasPrefix(line[i:], "0b") || strings.HasPrefix(line[i:], "0B") ||
		strings.HasPrefix(line[i:], "0o") || strings.HasPrefix(line[i:], "0O") {
		j += 2
		for j < len(line) && (isHex(line[j]) || line[j] == '_') {
			j++
		}
		return j
	}
	for j < len(line) {
		c := line[j]
		switch {
		case isDigit(c) || c == '_' || c == '.':
			j++
		case (c == 'e' || c == 'E') && j+1 < len(line) && (isDigit(line[j+1]) || ((line[j+1] == '+' || line[j+1] == '-') && j+2 < len(line) && isDigit(line[j+2]))):
			j += 2
		case c == 'j' || c == 'J' || c == 'L' || c == 'l':
			return j + 1
		default:
			return j
		}
	}
	return j
}

func isHex(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// code returns the tokens that are code (not blanks, strings or comments).
func code(toks []Token) []int {
	var idx []int
	for i, t := range toks {
		if t.Kind != Space && t.Kind != Comment {
			idx = append(idx, i)
		}
	}
	return idx
}
