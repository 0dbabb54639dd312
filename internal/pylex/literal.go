package pylex

import "strings"

// Literal is a string literal token split into its parts: Prefix + Quote + Body + Quote
// (or Prefix + Quote + Body for an unterminated literal). Escapes are not interpreted.
type Literal struct {
	Prefix string // as written: "", "r", "Rb", "f", ...
	Quote  string // `'`, `"`, `'''` or `"""`
	Body   string
	Closed bool // the literal ends with its closing quote
}

// ParseLiteral splits the text of a String token. Text without a quote is all Prefix.
func ParseLiteral(lit string) Literal {
	i := strings.IndexAny(lit, `'"`)
	if i < 0 {
		return Literal{Prefix: lit}
	}
	l := Literal{Prefix: lit[:i], Quote: lit[i : i+1]}
	rest := lit[i:]
	if t := strings.Repeat(l.Quote, 3); strings.HasPrefix(rest, t) {
		l.Quote = t
	}
	if len(rest) >= 2*len(l.Quote) && strings.HasSuffix(rest, l.Quote) {
		l.Body, l.Closed = rest[len(l.Quote):len(rest)-len(l.Quote)], true
	} else {
		l.Body = rest[len(l.Quote):]
	}
	return l
}

// Bytes reports whether the literal is a bytes literal (a b in its prefix).
func (l Literal) Bytes() bool { return strings.ContainsAny(l.Prefix, "bB") }

// Formatted reports whether the literal is an f-string.
func (l Literal) Formatted() bool { return strings.ContainsAny(l.Prefix, "fF") }

// Raw reports whether the literal is raw (an r in its prefix).
func (l Literal) Raw() bool { return strings.ContainsAny(l.Prefix, "rR") }

// Cleandoc is Python's inspect.cleandoc: tabs expanded to 8 columns, leading whitespace of
// the first line removed, the smallest indentation of the other non-blank lines removed
// from them, and leading and trailing empty lines dropped (a line of spaces shorter than
// the margin becomes empty; one longer stays).
func Cleandoc(doc string) string {
	lines := strings.Split(ExpandTabs(doc), "\n")
	margin := -1
	for _, l := range lines[1:] {
		content := strings.TrimLeft(l, " ")
		if content == "" {
			continue
		}
		if ind := len(l) - len(content); margin < 0 || ind < margin {
			margin = ind
		}
	}
	lines[0] = strings.TrimLeft(lines[0], " ")
	if margin >= 0 {
		for i := 1; i < len(lines); i++ {
			lines[i] = lines[i][min(margin, len(lines[i])):]
		}
	}
	for len(lines) > 0 && lines[0] == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n")
}

// ExpandTabs is Python's str.expandtabs(): each tab becomes the spaces up to the next
// multiple of TabSize columns, counted in characters from the last "\n" or "\r".
func ExpandTabs(s string) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	var b strings.Builder
	col := 0
	for _, r := range s {
		switch r {
		case '\t':
			n := TabSize - col%TabSize
			b.WriteString(strings.Repeat(" ", n))
			col += n
		case '\n', '\r':
			b.WriteRune(r)
			col = 0
		default:
			b.WriteRune(r)
			col++
		}
	}
	return b.String()
}
