package pylex

import "iter"

// Line is one logical line of Python source: a statement's physical lines, joined by open
// brackets, triple-quoted strings and backslash continuations, or one blank or
// comment-only physical line.
type Line struct {
	First, Last int    // 1-based physical lines, inclusive
	Indent      string // the leading blanks of the first physical line
	// Code reports whether the line holds a token other than a comment.
	Code bool
	// Header reports whether the line is a compound statement's header: its last token
	// other than a comment is a ':' outside brackets.
	Header bool
}

// Lines splits src into its logical lines, in order; every physical line belongs to
// exactly one. A statement left open at the end of the file (a bracket or a triple-quoted
// string) runs to its last line.
func Lines(src []byte) []Line {
	idx := NewLineIndex(src)
	return LinesOf(src, Tokens(src), idx)
}

// LinesOf is Lines for the tokens toks of src (from Tokens) and its line index.
func LinesOf(src []byte, toks iter.Seq[Token], idx LineIndex) []Line {
	out := make([]Line, 0, len(idx))
	indents := map[string]string{} // one string per distinct indentation
	cur := 0                       // lines starting at or before the last offset looked up
	lineAt := func(off int) int {  // idx.Line for offsets that do not decrease
		for cur < len(idx) && idx[cur] <= off {
			cur++
		}
		return max(cur, 1)
	}
	first := 1     // first physical line of the logical line in progress
	var last Token // last token of the line in progress other than comments and blanks
	code := false  // the line in progress has code
	depth := 0     // open brackets
	add := func(endLine int) {
		for first <= endLine {
			l := Line{First: first, Last: endLine, Code: code}
			if !code {
				l.Last = first // a blank or comment line is one physical line
			}
			start := idx[first-1]
			ws := LeadingSpace(src[start:min(start+lineLen(src, start), len(src))])
			if l.Indent = indents[string(ws)]; l.Indent == "" && len(ws) > 0 {
				l.Indent = string(ws)
				indents[l.Indent] = l.Indent
			}
			l.Header = code && last.Kind == Op && last.End-last.Start == 1 && src[last.Start] == ':' && depth == 0
			out = append(out, l)
			first = l.Last + 1
			code = false
		}
	}
	for t := range toks {
		switch t.Kind {
		case Comment, Indent, Dedent:
		case NL:
			if !code {
				add(lineAt(t.Start))
			}
		case Newline:
			add(lineAt(max(t.Start, t.End-1)))
			depth = 0
		default:
			if t.Kind == Op {
				switch src[t.Start] {
				case '(', '[', '{':
					depth++
				case ')', ']', '}':
					if depth > 0 {
						depth--
					}
				}
			}
			if !code {
				// blank physical lines before the statement (inside no token) are lines of their own
				for l := lineAt(t.Start); first < l; {
					add(first)
				}
			}
			code = true
			last = t
		}
	}
	if code {
		add(len(idx))
	}
	for first <= len(idx) && (len(src) > 0) {
		add(first)
	}
	return out
}

// lineLen is the length of the physical line starting at start, with its terminator.
func lineLen(src []byte, start int) int {
	for i := start; i < len(src); i++ {
		if src[i] == '\n' {
			return i + 1 - start
		}
	}
	return len(src) - start
}
