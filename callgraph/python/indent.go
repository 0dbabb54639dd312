package python

import "bytes"

// maxIndent is CPython's limit on indentation levels (MAXINDENT in its tokenizer): a
// line that would open the 100th level is an IndentationError, "too many levels of
// indentation". tree-sitter's Python grammar has no such limit, and its indentation
// stack silently loses definitions past 255 levels; the front end reports the condition
// as a syntax error instead.
const maxIndent = 100

// tooDeep returns the 1-based line on which Python's tokenizer would report too many
// levels of indentation, or 0. It tracks what makes a physical line start a logical one
// (brackets, strings, backslash continuations, blank and comment-only lines) and the
// indentation stack (a tab advances to the next multiple of 8, a form feed resets the
// column). Files without a line indented by maxIndent or more whitespace characters are
// not scanned further: each level needs at least one more character.
func tooDeep(src []byte) int {
	if !hasDeepLine(src) {
		return 0
	}
	stack := []int{0}
	depth := 0      // open brackets
	var quote byte  // the quote character of the open string, 0 if none
	triple := false // the open string is triple-quoted
	cont := false   // the previous physical line ended with a backslash
	line := 1
	for i := 0; i < len(src); {
		// start of a physical line
		if depth == 0 && quote == 0 && !cont {
			col, j := 0, i
		indent:
			for ; j < len(src); j++ {
				switch src[j] {
				case ' ':
					col++
				case '\t':
					col = (col/8 + 1) * 8
				case '\f':
					col = 0
				default:
					break indent
				}
			}
			if j < len(src) && src[j] != '\n' && src[j] != '\r' && src[j] != '#' {
				if col > stack[len(stack)-1] {
					if len(stack) >= maxIndent {
						return line
					}
					stack = append(stack, col)
				}
				for len(stack) > 1 && col < stack[len(stack)-1] {
					stack = stack[:len(stack)-1]
				}
			}
			i = j
		}
		cont = false
		// the rest of the physical line
		for i < len(src) && src[i] != '\n' {
			c := src[i]
			switch {
			case quote != 0:
				switch {
				case c == '\\':
					i++
				case c == quote && !triple:
					quote = 0
				case c == quote && i+2 < len(src) && src[i+1] == quote && src[i+2] == quote:
					quote, triple = 0, false
					i += 2
				}
			case c == '#':
				for i < len(src) && src[i] != '\n' {
					i++
				}
				continue
			case c == '\'' || c == '"':
				quote = c
				triple = i+2 < len(src) && src[i+1] == c && src[i+2] == c
				if triple {
					i += 2
				}
			case c == '(' || c == '[' || c == '{':
				depth++
			case c == ')' || c == ']' || c == '}':
				if depth > 0 {
					depth--
				}
			case c == '\\' && (i+1 == len(src) || src[i+1] == '\n' || src[i+1] == '\r'):
				cont = true
			}
			i++
		}
		if quote != 0 && !triple {
			quote = 0 // an unterminated one-line string ends with its line
		}
		i++ // the newline
		line++
	}
	return 0
}

// hasDeepLine reports whether some line starts with maxIndent or more spaces and tabs.
func hasDeepLine(src []byte) bool {
	for len(src) > 0 {
		n := 0
		for n < len(src) && (src[n] == ' ' || src[n] == '\t' || src[n] == '\f') {
			n++
		}
		if n >= maxIndent {
			return true
		}
		k := bytes.IndexByte(src[n:], '\n')
		if k < 0 {
			return false
		}
		src = src[n+k+1:]
	}
	return false
}
