package difflib

import (
	"strings"
	"unicode"
)

// DiffLine is one line of an ndiff / Differ comparison: Op is ' ' (the line is in both
// sequences), '-' (only in a) or '+' (only in b); with Differ.Hints, '?' marks a hint line
// whose Text is Python's intraline guide ('^' changed, '-' deleted, '+' inserted
// characters, whitespace kept where the characters are equal, trailing whitespace removed)
// without the "? " prefix and the "\n" Python appends.
type DiffLine struct {
	Op   byte
	Text string
}

// IsCharacterJunk reports whether r is a space or a tab (Python's IS_CHARACTER_JUNK).
func IsCharacterJunk(r rune) bool { return r == ' ' || r == '\t' }

// IsLineJunk reports whether line is blank or contains only a '#' with optional whitespace
// around it (Python's IS_LINE_JUNK, whose \s is str.isspace()). Ndiff does not use it; it
// is offered for Differ.
func IsLineJunk(line string) bool {
	s := strings.TrimLeftFunc(line, isPySpace)
	s = strings.TrimPrefix(s, "#")
	return strings.TrimLeftFunc(s, isPySpace) == ""
}

// isPySpace is Python's str.isspace() for one character: Unicode White_Space plus the
// information separators U+001C–U+001F.
func isPySpace(r rune) bool { return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f) }

// Differ compares sequences of lines as Python's difflib.Differ does. The zero value is
// Differ() with no junk; Ndiff uses CharJunk = IsCharacterJunk.
type Differ struct {
	// LineJunk, when non-nil, marks lines that may not anchor a line-level match.
	LineJunk func(string) bool
	// CharJunk, when non-nil, marks characters that may not anchor a character-level match
	// when similar lines are paired inside a replace block.
	CharJunk func(rune) bool
	// Hints adds Python's '?' guide lines after the paired '-' and '+' lines.
	Hints bool
}

// Ndiff compares a and b with Python's ndiff defaults (no line junk, space and tab as
// character junk) and returns the classified lines in ndiff's order, without '?' hints.
func Ndiff(a, b []string) []DiffLine {
	return Differ{CharJunk: IsCharacterJunk}.Compare(a, b)
}

// Compare returns the classified lines of the comparison of a and b in the order Python's
// Differ.compare emits them; its '?' hint lines only when d.Hints is set.
func (d Differ) Compare(a, b []string) []DiffLine {
	c := &comparer{d: d, a: a, b: b}
	c.out = make([]DiffLine, 0, max(len(a), len(b)))
	m := New(a, b, SequenceOptions[string]{AutoJunk: true, IsJunk: d.LineJunk})
	for _, op := range m.OpCodes() {
		switch op.Tag {
		case 'r':
			c.replace(op.I1, op.I2, op.J1, op.J2)
		case 'd':
			c.dump('-', a, op.I1, op.I2)
		case 'i':
			c.dump('+', b, op.J1, op.J2)
		case 'e':
			c.dump(' ', a, op.I1, op.I2)
		}
	}
	return c.out
}

type comparer struct {
	d    Differ
	a, b []string
	out  []DiffLine

	// The characters of the current top-level replace block, interned to dense ids, and
	// the lines of that block as id sequences (indexed from alo and blo).
	alo, blo int
	ra, rb   [][]int32
	cr       core
}

func (c *comparer) dump(op byte, x []string, lo, hi int) {
	for i := lo; i < hi; i++ {
		c.out = append(c.out, DiffLine{op, x[i]})
	}
}

func (c *comparer) plainReplace(alo, ahi, blo, bhi int) {
	if bhi-blo < ahi-alo {
		c.dump('+', c.b, blo, bhi)
		c.dump('-', c.a, alo, ahi)
		return
	}
	c.dump('-', c.a, alo, ahi)
	c.dump('+', c.b, blo, bhi)
}

// replace refines a top-level replace block after interning its characters.
func (c *comparer) replace(alo, ahi, blo, bhi int) {
	ids := make(map[rune]int32)
	var runes []rune
	intern := func(s string) []int32 {
		out := make([]int32, 0, len(s))
		for _, r := range s {
			id, ok := ids[r]
			if !ok {
				id = int32(len(runes))
				ids[r] = id
				runes = append(runes, r)
			}
			out = append(out, id)
		}
		return out
	}
	c.alo, c.blo = alo, blo
	c.ra, c.rb = c.ra[:0], c.rb[:0]
	for i := alo; i < ahi; i++ {
		c.ra = append(c.ra, intern(c.a[i]))
	}
	for j := blo; j < bhi; j++ {
		c.rb = append(c.rb, intern(c.b[j]))
	}
	var junk []bool
	if c.d.CharJunk != nil {
		junk = make([]bool, len(runes))
		for id, r := range runes {
			junk[id] = c.d.CharJunk(r)
		}
	}
	c.cr = core{autoJunk: true}
	c.cr.setAlphabet(len(runes), junk)
	c.fancyReplace(alo, ahi, blo, bhi)
}

// fancyReplace refines the replace block a[alo:ahi] / b[blo:bhi] as Python's
// _fancy_replace: it synchronises on the most similar pair of lines (character ratio above
// 0.74 and at least 0.75 overall, the first found scanning b then a when tied), or failing
// that on the first identical pair, and recurses on both sides of it.
func (c *comparer) fancyReplace(alo, ahi, blo, bhi int) {
	const cutoff = 0.75
	bestRatio := 0.74
	besti, bestj := -1, -1
	eqi, eqj := -1, -1
	cr := &c.cr
	for j := blo; j < bhi; j++ {
		bj := c.b[j]
		cr.setB(c.rb[j-c.blo])
		for i := alo; i < ahi; i++ {
			if c.a[i] == bj {
				if eqi < 0 {
					eqi, eqj = i, j
				}
				continue
			}
			cr.setA(c.ra[i-c.alo])
			if cr.realQuickRatio() > bestRatio && cr.quickRatio() > bestRatio {
				if r := cr.ratio(); r > bestRatio {
					bestRatio, besti, bestj = r, i, j
				}
			}
		}
	}
	equalSync := false
	if bestRatio < cutoff {
		if eqi < 0 {
			c.plainReplace(alo, ahi, blo, bhi)
			return
		}
		besti, bestj, equalSync = eqi, eqj, true
	}
	c.fancyHelper(alo, besti, blo, bestj)
	if equalSync {
		c.out = append(c.out, DiffLine{' ', c.a[besti]})
	} else {
		c.pair(besti, bestj)
	}
	c.fancyHelper(besti+1, ahi, bestj+1, bhi)
}

// pair emits a similar pair of lines, with Python's _qformat hints when asked for.
func (c *comparer) pair(i, j int) {
	if !c.d.Hints {
		c.out = append(c.out, DiffLine{'-', c.a[i]}, DiffLine{'+', c.b[j]})
		return
	}
	aline, bline := []rune(c.a[i]), []rune(c.b[j])
	atags := make([]rune, 0, len(aline))
	btags := make([]rune, 0, len(bline))
	fill := func(tags []rune, r rune, n int) []rune {
		for range n {
			tags = append(tags, r)
		}
		return tags
	}
	cr := &c.cr
	cr.setB(c.rb[j-c.blo])
	cr.setA(c.ra[i-c.alo])
	for _, op := range cr.opCodes() {
		la, lb := op.I2-op.I1, op.J2-op.J1
		switch op.Tag {
		case 'r':
			atags, btags = fill(atags, '^', la), fill(btags, '^', lb)
		case 'd':
			atags = fill(atags, '-', la)
		case 'i':
			btags = fill(btags, '+', lb)
		case 'e':
			atags, btags = fill(atags, ' ', la), fill(btags, ' ', lb)
		}
	}
	c.out = append(c.out, DiffLine{'-', c.a[i]})
	if t := keepOriginalWS(aline, atags); t != "" {
		c.out = append(c.out, DiffLine{'?', t})
	}
	c.out = append(c.out, DiffLine{'+', c.b[j]})
	if t := keepOriginalWS(bline, btags); t != "" {
		c.out = append(c.out, DiffLine{'?', t})
	}
}

// keepOriginalWS is Python's _keep_original_ws followed by rstrip(): where a tag is ' '
// and the line's character is whitespace, the character itself is kept (so tabs line up).
func keepOriginalWS(line, tags []rune) string {
	out := make([]rune, 0, len(tags))
	for k := range min(len(line), len(tags)) {
		if tags[k] == ' ' && isPySpace(line[k]) {
			out = append(out, line[k])
		} else {
			out = append(out, tags[k])
		}
	}
	return strings.TrimRightFunc(string(out), isPySpace)
}

func (c *comparer) fancyHelper(alo, ahi, blo, bhi int) {
	switch {
	case alo < ahi && blo < bhi:
		c.fancyReplace(alo, ahi, blo, bhi)
	case alo < ahi:
		c.dump('-', c.a, alo, ahi)
	case blo < bhi:
		c.dump('+', c.b, blo, bhi)
	}
}

// Restore returns one of the two sequences a comparison was made from: which = 1 gives a
// (the ' ' and '-' lines), which = 2 gives b (the ' ' and '+' lines), as Python's restore.
// It panics on any other which.
func Restore(d []DiffLine, which int) []string {
	var keep byte
	switch which {
	case 1:
		keep = '-'
	case 2:
		keep = '+'
	default:
		panic("difflib: Restore: which must be 1 or 2")
	}
	out := []string{}
	for _, l := range d {
		if l.Op == ' ' || l.Op == keep {
			out = append(out, l.Text)
		}
	}
	return out
}
