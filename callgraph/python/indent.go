package python

import (
	"bytes"

	"github.com/faultline-dev/faultline/internal/pylex"
)

// maxIndent is CPython's limit on indentation levels (MAXINDENT in its tokenizer): a
// line that would open the 100th level is an IndentationError, "too many levels of
// indentation". tree-sitter's Python grammar has no such limit, and its indentation
// stack silently loses definitions past 255 levels; the front end reports the condition
// as a syntax error instead.
const maxIndent = 100

// tooDeep returns the 1-based line on which Python's tokenizer would report too many
// levels of indentation, or 0: the line of the INDENT token (pylex.Tokenize, which knows
// what makes a physical line start a logical one and counts a tab to the next multiple of
// 8 and a form feed as a reset) that would open level maxIndent. Files without a line
// indented by maxIndent or more whitespace characters are not tokenized: each level needs
// at least one more character.
func tooDeep(src []byte) int {
	if !hasDeepLine(src) {
		return 0
	}
	level := 0 // open blocks
	for t := range pylex.Tokens(src) {
		switch t.Kind {
		case pylex.Indent:
			if level+1 >= maxIndent {
				return bytes.Count(src[:t.Start], []byte("\n")) + 1
			}
			level++
		case pylex.Dedent:
			level--
		}
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
