package golang

import (
	"bytes"
	"go/token"
	"unicode"
	"unicode/utf8"
)

// lexTokens appends to toks the tokens of src, a file go/parser accepted, as the
// astBuilder lists them (see astBuilder.scan): every token go/scanner gives with
// ScanComments but the semicolons it inserts at line ends, with its byte span and type
// (the token's text for keywords, operators and punctuation, "comment", the string
// literals' grammar types, "" for identifiers and the other literals).
//
// It is a second pass over source go/parser has already scanned, so it only finds the
// tokens' ends: it builds no literal strings, reports no positions and inserts no
// semicolons, which go/scanner does for the parser. It reports false on a byte sequence
// that is not a Go token (src then goes to tree-sitter, as for a syntax error).
// TestLexTokensMatchScanner compares it with go/scanner on the standard library.
func lexTokens(src []byte, toks []stok) ([]stok, bool) {
	i := 0
	if bytes.HasPrefix(src, []byte("\uFEFF")) { // a byte order mark opens the file only
		i = 3
	}
	for i < len(src) {
		c := src[i]
		st := i
		var tok token.Token
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
			continue
		case c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c >= utf8.RuneSelf:
			j, ok := identEnd(src, i)
			if !ok {
				return toks, false
			}
			i = j
			if kw := keyword(src[st:i]); kw != token.ILLEGAL {
				toks = append(toks, stok{start: st, end: i, typ: kw.String()})
			} else {
				toks = append(toks, stok{start: st, end: i})
			}
			continue
		case '0' <= c && c <= '9' || c == '.' && i+1 < len(src) && '0' <= src[i+1] && src[i+1] <= '9':
			i = numberEnd(src, i)
			toks = append(toks, stok{start: st, end: i})
			continue
		case c == '"':
			j := quotedEnd(src, i, '"')
			if j < 0 {
				return toks, false
			}
			i = j
			toks = append(toks, stok{start: st, end: i, typ: "interpreted_string_literal"})
			continue
		case c == '\'':
			j := quotedEnd(src, i, '\'')
			if j < 0 {
				return toks, false
			}
			i = j
			toks = append(toks, stok{start: st, end: i})
			continue
		case c == '`':
			e := bytes.IndexByte(src[i+1:], '`')
			if e < 0 {
				return toks, false
			}
			i += 1 + e + 1
			toks = append(toks, stok{start: st, end: i, typ: "raw_string_literal"})
			continue
		case c == '/' && i+1 < len(src) && (src[i+1] == '/' || src[i+1] == '*'):
			if src[i+1] == '/' {
				e := bytes.IndexByte(src[i:], '\n')
				if e < 0 {
					e = len(src) - i
				}
				i += e
			} else {
				e := bytes.Index(src[i+2:], []byte("*/"))
				if e < 0 {
					return toks, false
				}
				i += 2 + e + 2
			}
			toks = append(toks, stok{start: st, end: i, typ: "comment"})
			continue
		}
		tok, i = operator(src, i)
		if tok == token.ILLEGAL {
			return toks, false
		}
		toks = append(toks, stok{start: st, end: i, typ: tok.String()})
	}
	return toks, true
}

// identEnd returns the end of the identifier starting at i (a letter or _), and false
// when a byte there is not valid UTF-8 or the first rune is not a letter.
func identEnd(src []byte, i int) (int, bool) {
	first := true
	for i < len(src) {
		c := src[i]
		if c < utf8.RuneSelf {
			if c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || !first && '0' <= c && c <= '9' {
				i++
				first = false
				continue
			}
			break
		}
		r, w := utf8.DecodeRune(src[i:])
		if r == utf8.RuneError && w == 1 || r == '\uFEFF' {
			return i, false
		}
		if !unicode.IsLetter(r) && (first || !unicode.IsDigit(r)) {
			if first {
				return i, false
			}
			break
		}
		i += w
		first = false
	}
	return i, true
}

// keyword returns the keyword token spelled by id, or token.ILLEGAL.
func keyword(id []byte) token.Token {
	if len(id) < 2 || len(id) > 11 || id[0] < 'b' || id[0] > 'v' {
		return token.ILLEGAL
	}
	if t := keywords[string(id)]; t != 0 { // no allocation: a map index by converted bytes
		return t
	}
	return token.ILLEGAL
}

var keywords = func() map[string]token.Token {
	m := map[string]token.Token{}
	for t := token.BREAK; t <= token.VAR; t++ {
		if t.IsKeyword() {
			m[t.String()] = t
		}
	}
	return m
}()

// numberEnd returns the end of the number literal (integer, floating-point or
// imaginary) starting at i, as go/scanner delimits a valid one.
func numberEnd(src []byte, i int) int {
	digit := func(c byte, base int) bool {
		switch base {
		case 16:
			return '0' <= c && c <= '9' || 'a' <= c|0x20 && c|0x20 <= 'f'
		case 8:
			return '0' <= c && c <= '7'
		case 2:
			return c == '0' || c == '1'
		}
		return '0' <= c && c <= '9'
	}
	digits := func(base int) {
		for i < len(src) && (digit(src[i], base) || src[i] == '_') {
			i++
		}
	}
	base := 10
	if src[i] == '0' && i+1 < len(src) {
		switch src[i+1] | 0x20 {
		case 'x':
			base = 16
		case 'b':
			base = 2
		case 'o':
			base = 8
		}
		if base != 10 {
			i += 2
		}
	}
	digits(base) // a legacy octal literal (0777) reads as decimal digits, as go/scanner reads it
	if (base == 10 || base == 16) && i < len(src) && src[i] == '.' {
		i++
		digits(base)
	}
	if i < len(src) {
		if e := src[i] | 0x20; base == 10 && e == 'e' || base == 16 && e == 'p' {
			i++
			if i < len(src) && (src[i] == '+' || src[i] == '-') {
				i++
			}
			digits(10)
		}
	}
	if i < len(src) && src[i] == 'i' {
		i++
	}
	return i
}

// quotedEnd returns the end of the string or rune literal opened by quote q at i, or -1
// when it does not close on its line.
func quotedEnd(src []byte, i int, q byte) int {
	for i++; i < len(src); i++ {
		switch src[i] {
		case '\\':
			i++ // the escaped byte is not a quote; multi-byte escapes hold no quote
		case q:
			return i + 1
		case '\n':
			return -1
		}
	}
	return -1
}

// operator returns the operator or punctuation token at i (the longest match, as
// go/scanner reads it) and its end; token.ILLEGAL when there is none.
func operator(src []byte, i int) (token.Token, int) {
	at := func(k int, c byte) bool { return i+k < len(src) && src[i+k] == c }
	switch c := src[i]; c {
	case '(':
		return token.LPAREN, i + 1
	case ')':
		return token.RPAREN, i + 1
	case '[':
		return token.LBRACK, i + 1
	case ']':
		return token.RBRACK, i + 1
	case '{':
		return token.LBRACE, i + 1
	case '}':
		return token.RBRACE, i + 1
	case ',':
		return token.COMMA, i + 1
	case ';':
		return token.SEMICOLON, i + 1
	case '~':
		return token.TILDE, i + 1
	case '.':
		if at(1, '.') && at(2, '.') {
			return token.ELLIPSIS, i + 3
		}
		return token.PERIOD, i + 1
	case ':':
		if at(1, '=') {
			return token.DEFINE, i + 2
		}
		return token.COLON, i + 1
	case '+':
		return pick3(src, i, token.ADD, token.ADD_ASSIGN, '+', token.INC)
	case '-':
		return pick3(src, i, token.SUB, token.SUB_ASSIGN, '-', token.DEC)
	case '*':
		return pick2(src, i, token.MUL, token.MUL_ASSIGN)
	case '/':
		return pick2(src, i, token.QUO, token.QUO_ASSIGN)
	case '%':
		return pick2(src, i, token.REM, token.REM_ASSIGN)
	case '^':
		return pick2(src, i, token.XOR, token.XOR_ASSIGN)
	case '=':
		return pick2(src, i, token.ASSIGN, token.EQL)
	case '!':
		return pick2(src, i, token.NOT, token.NEQ)
	case '<':
		if at(1, '-') {
			return token.ARROW, i + 2
		}
		if at(1, '<') {
			if at(2, '=') {
				return token.SHL_ASSIGN, i + 3
			}
			return token.SHL, i + 2
		}
		return pick2(src, i, token.LSS, token.LEQ)
	case '>':
		if at(1, '>') {
			if at(2, '=') {
				return token.SHR_ASSIGN, i + 3
			}
			return token.SHR, i + 2
		}
		return pick2(src, i, token.GTR, token.GEQ)
	case '&':
		if at(1, '^') {
			if at(2, '=') {
				return token.AND_NOT_ASSIGN, i + 3
			}
			return token.AND_NOT, i + 2
		}
		return pick3(src, i, token.AND, token.AND_ASSIGN, '&', token.LAND)
	case '|':
		return pick3(src, i, token.OR, token.OR_ASSIGN, '|', token.LOR)
	}
	return token.ILLEGAL, i
}

// pick2 is t1 at i, or t2 when '=' follows.
func pick2(src []byte, i int, t1, t2 token.Token) (token.Token, int) {
	if i+1 < len(src) && src[i+1] == '=' {
		return t2, i + 2
	}
	return t1, i + 1
}

// pick3 is pick2, or t3 when the byte d follows.
func pick3(src []byte, i int, t1, t2 token.Token, d byte, t3 token.Token) (token.Token, int) {
	if i+1 < len(src) && src[i+1] == d {
		return t3, i + 2
	}
	return pick2(src, i, t1, t2)
}
