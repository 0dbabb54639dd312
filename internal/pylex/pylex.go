// Package pylex is faultline's one definition of Python's lexical structure: how source
// text splits into tokens (names, numbers, string literals with their prefixes and triple
// quotes, comments, operators, brackets), which line ends close a logical line (NEWLINE)
// and which do not (NL: blank and comment-only lines, lines inside brackets, lines joined
// by a backslash), and how indentation opens and closes blocks (INDENT and DEDENT, a tab
// advancing to the next multiple of 8 and a form feed resetting the column, as CPython
// counts them). On it are built the logical lines (Lines) and the helpers on string
// literals (ParseLiteral) and docstrings (Cleandoc).
//
// The tokens follow Python 3.11's tokenize module, which testdata/tokens.py runs on real
// files to make the reference the tests compare with: an f-string is one String token,
// as before Python 3.12 (nested quotes of the same kind inside its replacement fields,
// legal from 3.12, end it early). Where tokenize gives up the lexer goes on, because its
// callers read broken and half-edited files: a byte that starts no token is an Error
// token, an unterminated single-quoted string runs to the end of its line, an
// unterminated triple-quoted one to the end of the file, an inconsistent dedent closes
// the blocks deeper than its column, and unclosed brackets end at the end of the file
// with a NEWLINE. Tokenize never fails and never panics.
package pylex

import (
	"bytes"
	"iter"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Kind is the kind of a token.
type Kind uint8

// The token kinds, named as Python's tokenize module names them.
const (
	Name    Kind = iota + 1 // identifier or keyword
	Number                  // numeric literal
	String                  // string literal with its prefix and quotes (f-strings too)
	Op                      // operator, delimiter or bracket
	Comment                 // '#' up to the line end, without it
	Newline                 // the end of a logical line ("\n", "\r\n", or empty at the end of the file)
	NL                      // a line end that does not end a logical line
	Indent                  // the leading whitespace of a line that opens a block
	Dedent                  // (empty) a block closes before the line's first token
	Error                   // a character no token starts with, or a lone backslash
)

var kindNames = [...]string{Name: "NAME", Number: "NUMBER", String: "STRING", Op: "OP", Comment: "COMMENT",
	Newline: "NEWLINE", NL: "NL", Indent: "INDENT", Dedent: "DEDENT", Error: "ERRORTOKEN"}

// String returns the kind's name in Python's tokenize module.
func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Token is one token: src[Start:End].
type Token struct {
	Kind       Kind
	Start, End int
}

// TabSize is the tab stop of Python's indentation: a tab advances the column to the next
// multiple of it.
const TabSize = 8

// IndentWidth is the column of the first character after the leading whitespace ws, as
// CPython's tokenizer counts it: a space adds one, a tab advances to the next multiple of
// TabSize, a form feed resets the column to 0. Other characters count as one column.
func IndentWidth(ws string) int {
	w := 0
	for i := 0; i < len(ws); i++ {
		switch ws[i] {
		case '\t':
			w = (w/TabSize + 1) * TabSize
		case '\f':
			w = 0
		default:
			w++
		}
	}
	return w
}

// LeadingSpace returns the leading blanks of line (spaces, tabs and form feeds: the
// characters of Python's indentation).
func LeadingSpace[S ~string | ~[]byte](line S) S {
	i := 0
	for i < len(line) && (line[i] == ' ' || line[i] == '\t' || line[i] == '\f') {
		i++
	}
	return line[:i]
}

// IsStringPrefix reports whether p is a string prefix Python 3 accepts before a quote: one
// of r, u, b, f, br, rb, fr, rf in any case, or "".
func IsStringPrefix(p string) bool {
	if len(p) > 2 {
		return false
	}
	switch strings.ToLower(p) {
	case "", "r", "u", "b", "f", "br", "rb", "fr", "rf":
		return true
	}
	return false
}

// StringEnd returns the end of the string literal whose prefix starts at start and whose
// opening quote is at q (src[start:q] a string prefix), and whether its closing quote was
// found. A backslash escapes the character after it in every literal, raw ones too (there
// it stays in the value, but the quote after it still does not close the literal); a
// single-quoted literal continues on the next line after a backslash at the line end. An
// unterminated single-quoted literal ends before its line end, a triple-quoted one at the
// end of src.
func StringEnd[S ~string | ~[]byte](src S, q int) (end int, closed bool) {
	n := len(src)
	quote := src[q]
	triple := q+2 < n && src[q+1] == quote && src[q+2] == quote
	j := q + 1
	if triple {
		j = q + 3
	}
	for j < n {
		switch c := src[j]; {
		case c == '\\':
			j += 2
			if j < n && src[j-1] == '\r' && src[j] == '\n' {
				j++
			}
			continue
		case !triple && (c == '\n' || c == '\r' && j+1 < n && src[j+1] == '\n'):
			return j, false
		case c == quote && !triple:
			return j + 1, true
		case c == quote && j+2 < n && src[j+1] == quote && src[j+2] == quote:
			return j + 3, true
		}
		j++
	}
	return n, false
}

// digitsEnd returns the end of [0-9](_?[0-9])* from i (i if there is no digit there);
// isDigit says which bytes are digits.
func digitsEnd[S ~string | ~[]byte](src S, i int, isDigit func(byte) bool) int {
	if i >= len(src) || !isDigit(src[i]) {
		return i
	}
	i++
	for i < len(src) {
		if isDigit(src[i]) {
			i++
		} else if src[i] == '_' && i+1 < len(src) && isDigit(src[i+1]) {
			i += 2
		} else {
			break
		}
	}
	return i
}

func isDec(c byte) bool { return c >= '0' && c <= '9' }
func isHex(c byte) bool { return isDec(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }
func isOct(c byte) bool { return c >= '0' && c <= '7' }
func isBin(c byte) bool { return c == '0' || c == '1' }

// NumberEnd returns the end of the numeric literal starting at i (a digit, or a '.'
// before a digit), as tokenize reads it: hexadecimal, octal and binary integers with
// underscores between digits, decimal integers, point and exponent floats, and imaginary
// numbers. It returns i if no number starts there.
func NumberEnd[S ~string | ~[]byte](src S, i int) int {
	n := len(src)
	if i >= n {
		return i
	}
	if src[i] == '0' && i+1 < n {
		var digit func(byte) bool
		switch src[i+1] {
		case 'x', 'X':
			digit = isHex
		case 'o', 'O':
			digit = isOct
		case 'b', 'B':
			digit = isBin
		}
		if digit != nil {
			j := i + 2
			for j < n && (digit(src[j]) || src[j] == '_' && j+1 < n && digit(src[j+1])) {
				j++
			}
			if j > i+2 && digit(src[j-1]) {
				return j
			}
		}
	}
	intEnd := digitsEnd(src, i, isDec)
	end, float := intEnd, false
	if end < n && src[end] == '.' && (intEnd > i || end+1 < n && isDec(src[end+1])) {
		end = digitsEnd(src, end+1, isDec)
		float = true
	}
	if end == i {
		return i
	}
	if end < n && (src[end] == 'e' || src[end] == 'E') {
		k := end + 1
		if k < n && (src[k] == '+' || src[k] == '-') {
			k++
		}
		if e := digitsEnd(src, k, isDec); e > k {
			end, float = e, true
		}
	}
	if end < n && (src[end] == 'j' || src[end] == 'J') {
		return end + 1
	}
	if float {
		return end
	}
	if src[i] == '0' {
		// A decimal integer other than zero does not start with 0: "0777" is 0 then 777.
		j := i + 1
		for j < n && (src[j] == '0' || src[j] == '_' && j+1 < n && src[j+1] == '0') {
			j++
		}
		return j
	}
	return intEnd
}

// NameEnd returns the end of the identifier starting at i, or i if none starts there. An
// identifier is a letter or underscore followed by letters, digits and underscores, in
// any script (Python's \w); a byte of invalid UTF-8 starts none.
func NameEnd[S ~string | ~[]byte](src S, i int) int {
	j := i
	for j < len(src) {
		c := src[j]
		if c < utf8.RuneSelf {
			if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || j > i && isDec(c) {
				j++
				continue
			}
			break
		}
		r, size := utf8.DecodeRuneInString(string(src[j:min(j+utf8.UTFMax, len(src))]))
		if r == utf8.RuneError || !(unicode.IsLetter(r) || unicode.IsNumber(r)) {
			break
		}
		j += size
	}
	return j
}

// OpEnd returns the end of the operator or delimiter starting at i (the longest one:
// "**=" before "**" before "*"), or i if none does. '!' alone and '$', '?', '`' are none.
func OpEnd[S ~string | ~[]byte](src S, i int) int {
	at := func(k int) byte {
		if i+k < len(src) {
			return src[i+k]
		}
		return 0
	}
	switch c := src[i]; c {
	case '(', ')', '[', ']', '{', '}', ',', ';', '~':
		return i + 1
	case '.':
		if at(1) == '.' && at(2) == '.' {
			return i + 3
		}
		return i + 1
	case '!':
		if at(1) == '=' {
			return i + 2
		}
	case '-':
		if at(1) == '=' || at(1) == '>' {
			return i + 2
		}
		return i + 1
	case ':', '%', '&', '+', '=', '@', '^', '|':
		if at(1) == '=' {
			return i + 2
		}
		return i + 1
	case '*', '/', '<', '>': // also doubled: ** // << >>, and either with =
		if at(1) == c {
			if at(2) == '=' {
				return i + 3
			}
			return i + 2
		}
		if at(1) == '=' {
			return i + 2
		}
		return i + 1
	}
	return i
}

// Tokenize splits src into tokens. Blanks and backslash continuations are left out; every
// other byte of src is in exactly one token, in order. The end of the file closes the
// last logical line (a NEWLINE, empty if src does not end with a line end) and the open
// blocks (DEDENTs at len(src)). It has no ENDMARKER.
func Tokenize(src []byte) []Token {
	toks := make([]Token, 0, len(src)/4+1)
	for t := range Tokens(src) {
		toks = append(toks, t)
	}
	return toks
}

// Tokens yields the tokens of Tokenize one by one, so that a caller that needs only the
// first ones (a file's header) stops the lexer early.
func Tokens(src []byte) iter.Seq[Token] {
	return func(yield func(Token) bool) { lex(string(src), yield) }
}

func lex(s string, yield func(Token) bool) {
	n := len(s)
	stopped := false
	emit := func(k Kind, start, end int) {
		if !stopped && !yield(Token{k, start, end}) {
			stopped = true
		}
	}
	indents := []int{0}
	depth := 0           // open brackets
	atStart := true      // at the start of a physical line that starts a logical line
	lineHasCode := false // the logical line in progress has a token
	i := 0
	for i < n && !stopped {
		if atStart {
			atStart = false
			col, j := 0, i
		indent:
			for ; j < n; j++ {
				switch s[j] {
				case ' ':
					col++
				case '\t':
					col = (col/TabSize + 1) * TabSize
				case '\f':
					col = 0
				default:
					break indent
				}
			}
			if j == n {
				i = j // blanks at the end of the file: nothing
				break
			}
			if c := s[j]; c == '#' || c == '\n' || c == '\r' && j+1 < n && s[j+1] == '\n' {
				// a blank or comment-only line
				if c == '#' {
					k := lineEnd(s, j)
					emit(Comment, j, k)
					j = k
				}
				k := j
				if k < n {
					k += newlineLen(s, k)
				}
				emit(NL, j, k)
				i = k
				atStart = true
				continue
			}
			if col > indents[len(indents)-1] {
				indents = append(indents, col)
				emit(Indent, i, j)
			}
			for len(indents) > 1 && col < indents[len(indents)-1] {
				indents = indents[:len(indents)-1]
				emit(Dedent, j, j)
			}
			i = j
		}
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\f':
			i++
		case c == '\n' || c == '\r' && i+1 < n && s[i+1] == '\n':
			k := i + newlineLen(s, i)
			if depth > 0 || !lineHasCode {
				emit(NL, i, k)
			} else {
				emit(Newline, i, k)
				lineHasCode = false
			}
			i = k
			atStart = depth == 0
		case c == '#':
			k := lineEnd(s, i)
			emit(Comment, i, k)
			i = k
		case c == '\\' && i+1 < n && (s[i+1] == '\n' || s[i+1] == '\r' && i+2 < n && s[i+2] == '\n'):
			i += 1 + newlineLen(s, i+1)
		case c == '\'' || c == '"':
			end, _ := StringEnd(s, i)
			emit(String, i, end)
			i = end
			lineHasCode = true
		case isDec(c) || c == '.' && i+1 < n && isDec(s[i+1]):
			end := NumberEnd(s, i)
			emit(Number, i, end)
			i = end
			lineHasCode = true
		default:
			lineHasCode = true
			if end := NameEnd(s, i); end > i {
				if end-i <= 2 && end < n && (s[end] == '\'' || s[end] == '"') && IsStringPrefix(s[i:end]) {
					end, _ = StringEnd(s, end)
					emit(String, i, end)
				} else {
					emit(Name, i, end)
				}
				i = end
				continue
			}
			if end := OpEnd(s, i); end > i {
				switch c {
				case '(', '[', '{':
					depth++
				case ')', ']', '}':
					if depth > 0 {
						depth--
					}
				}
				emit(Op, i, end)
				i = end
				continue
			}
			_, size := utf8.DecodeRuneInString(s[i:])
			emit(Error, i, i+size)
			i += size
		}
	}
	if lineHasCode {
		emit(Newline, n, n)
	}
	for range indents[1:] {
		emit(Dedent, n, n)
	}
}

// lineEnd returns the offset of the line end ("\n" or "\r\n") at or after i, or len(s).
func lineEnd(s string, i int) int {
	k := strings.IndexByte(s[i:], '\n')
	if k < 0 {
		return len(s)
	}
	k += i
	if k > i && s[k-1] == '\r' {
		k--
	}
	return k
}

// newlineLen is the length of the line end at i: 2 for "\r\n", else 1.
func newlineLen(s string, i int) int {
	if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
		return 2
	}
	return 1
}

// LineIndex maps byte offsets of a source to 1-based line numbers.
type LineIndex []int // the offsets at which lines start

// NewLineIndex indexes the lines of src (a line ends after "\n").
func NewLineIndex(src []byte) LineIndex {
	idx := LineIndex{0}
	for i := 0; ; {
		k := bytes.IndexByte(src[i:], '\n')
		if k < 0 || i+k+1 == len(src) {
			return idx
		}
		i += k + 1
		idx = append(idx, i)
	}
}

// Line returns the 1-based line holding offset off (the last line for offsets past it).
func (x LineIndex) Line(off int) int {
	return sort.Search(len(x), func(k int) bool { return x[k] > off })
}
