package mask

import "bytes"

// physLine is one physical line of a file: its bytes including the terminator.
type physLine struct {
	start, end int // byte offsets [start, end) including the "\n"
}

// logLine is one logical line of Python source (a statement line after bracket and
// backslash joining, or a comment-only / blank line).
type logLine struct {
	first, last int    // 1-based physical lines, inclusive
	indent      string // leading whitespace of the first physical line
	code        bool   // holds a token other than a comment
	header      bool   // a compound-statement header: ends with ':' outside brackets
}

// pyLines splits src into physical lines (each keeping its terminator; a last line without
// one is kept as it is).
func pyLines(src []byte) []physLine {
	var out []physLine
	for i := 0; i < len(src); {
		j := bytes.IndexByte(src[i:], '\n')
		if j < 0 {
			out = append(out, physLine{i, len(src)})
			break
		}
		out = append(out, physLine{i, i + j + 1})
		i += j + 1
	}
	return out
}

// scanLogical groups the physical lines of src into logical lines with a small tokenizer:
// it knows string literals (single and triple quoted, any prefix; a backslash always skips
// the next character, which is right for raw strings too), comments, brackets and
// backslash continuations. It never fails: unbalanced input simply extends the last
// logical line to the end of the file. Nested quotes inside f-string replacement fields
// (legal from Python 3.12) are not understood.
func scanLogical(src []byte, lines []physLine) []logLine {
	var out []logLine
	depth := 0
	var quote byte // current string's quote character, 0 outside strings
	triple := false
	cur := logLine{first: 0}
	var lastSig byte // last significant character at depth 0, outside strings and comments
	open := false    // a logical line is in progress
	for ln, pl := range lines {
		line := src[pl.start:pl.end]
		if !open {
			cur = logLine{first: ln + 1, indent: string(leadingSpace(line))}
			lastSig = 0
			open = true
		}
		cont := false
		for i := 0; i < len(line); i++ {
			c := line[i]
			if quote != 0 {
				switch {
				case c == '\\':
					i++
				case c == quote && !triple:
					quote = 0
				case c == quote && triple && i+2 < len(line) && line[i+1] == quote && line[i+2] == quote:
					quote, triple = 0, false
					i += 2
				case c == '\n' && !triple:
					// An unterminated single-quoted string ends at the line's end.
					quote = 0
				}
				continue
			}
			switch c {
			case '#':
				i = len(line)
				continue
			case '"', '\'':
				cur.code = true
				lastSig = c
				if i+2 < len(line) && line[i+1] == c && line[i+2] == c {
					quote, triple = c, true
					i += 2
				} else {
					quote = c
				}
				continue
			case '\\':
				if i+1 < len(line) && (line[i+1] == '\n' || (line[i+1] == '\r' && i+2 < len(line) && line[i+2] == '\n')) {
					cont = true
					i = len(line)
					continue
				}
			case '(', '[', '{':
				depth++
			case ')', ']', '}':
				if depth > 0 {
					depth--
				}
			}
			if c != ' ' && c != '\t' && c != '\r' && c != '\n' && c != '\f' {
				cur.code = true
				lastSig = c
			}
		}
		if quote != 0 || depth > 0 || cont {
			if ln+1 < len(lines) {
				continue
			}
		}
		cur.last = ln + 1
		cur.header = cur.code && lastSig == ':' && quote == 0 && depth == 0
		out = append(out, cur)
		open = false
	}
	return out
}

func leadingSpace(line []byte) []byte {
	i := 0
	for i < len(line) && (line[i] == ' ' || line[i] == '\t' || line[i] == '\f') {
		i++
	}
	return line[:i]
}

// indentWidth is the column of the first token after the leading whitespace s, with tabs
// to the next multiple of 8 as CPython's tokenizer counts them.
func indentWidth(s string) int {
	w := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\t':
			w = (w/8 + 1) * 8
		case '\f':
			w = 0
		default:
			w++
		}
	}
	return w
}
