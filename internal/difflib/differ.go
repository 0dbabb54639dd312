package difflib

// DiffLine is one line of an ndiff / Differ comparison: Op is ' ' (the line is in both
// sequences), '-' (only in a) or '+' (only in b).
type DiffLine struct {
	Op   byte
	Text string
}

// IsCharacterJunk reports whether r is a space or a tab (Python's IS_CHARACTER_JUNK).
func IsCharacterJunk(r rune) bool { return r == ' ' || r == '\t' }

// IsLineJunk reports whether line is blank or contains only a '#' with optional whitespace
// around it (Python's IS_LINE_JUNK). Ndiff does not use it; it is offered for Differ.
func IsLineJunk(line string) bool {
	i := 0
	skipSpace := func() {
		for i < len(line) && isPySpace(line[i]) {
			i++
		}
	}
	skipSpace()
	if i < len(line) && line[i] == '#' {
		i++
		skipSpace()
	}
	return i == len(line)
}

// isPySpace is the ASCII part of Python's re \s (the Unicode spaces are not junk here).
func isPySpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// Differ compares sequences of lines as Python's difflib.Differ does. The zero value is
// Differ() with no junk; Ndiff uses CharJunk = IsCharacterJunk.
type Differ struct {
	// LineJunk, when non-nil, marks lines that may not anchor a line-level match.
	LineJunk func(string) bool
	// CharJunk, when non-nil, marks characters that may not anchor a character-level match
	// when similar lines are paired inside a replace block.
	CharJunk func(rune) bool
}

// Ndiff compares a and b with Python's ndiff defaults (no line junk, space and tab as
// character junk) and returns the classified lines in ndiff's order, without '?' hints.
func Ndiff(a, b []string) []DiffLine {
	return Differ{CharJunk: IsCharacterJunk}.Compare(a, b)
}

// Compare returns the classified lines of the comparison of a and b in the order Python's
// Differ.compare emits them, without its '?' hint lines.
func (d Differ) Compare(a, b []string) []DiffLine {
	c := &comparer{d: d, a: a, b: b}
	c.out = make([]DiffLine, 0, max(len(a), len(b)))
	m := New(a, b, SequenceOptions[string]{AutoJunk: true, IsJunk: d.LineJunk})
	for _, op := range m.OpCodes() {
		switch op.Tag {
		case 'r':
			c.fancyReplace(op.I1, op.I2, op.J1, op.J2)
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
	// runes caches the rune slices of lines, per side.
	ra, rb map[int][]rune
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

func (c *comparer) runesA(i int) []rune {
	if c.ra == nil {
		c.ra = make(map[int][]rune)
	}
	r, ok := c.ra[i]
	if !ok {
		r = []rune(c.a[i])
		c.ra[i] = r
	}
	return r
}

func (c *comparer) runesB(j int) []rune {
	if c.rb == nil {
		c.rb = make(map[int][]rune)
	}
	r, ok := c.rb[j]
	if !ok {
		r = []rune(c.b[j])
		c.rb[j] = r
	}
	return r
}

// fancyReplace refines the replace block a[alo:ahi] / b[blo:bhi]: it synchronises on the
// most similar pair of lines (ratio > 0.75, first found in b-major order when tied), or
// failing that on the first identical pair, and recurses on both sides of it.
func (c *comparer) fancyReplace(alo, ahi, blo, bhi int) {
	const cutoff = 0.75
	bestRatio := 0.74
	besti, bestj := -1, -1
	eqi, eqj := -1, -1
	var cr *SequenceMatcher[rune]
	for j := blo; j < bhi; j++ {
		bj := c.b[j]
		if cr == nil {
			cr = New(nil, c.runesB(j), SequenceOptions[rune]{AutoJunk: true, IsJunk: c.d.CharJunk})
		} else {
			cr.SetSeq2(c.runesB(j))
		}
		for i := alo; i < ahi; i++ {
			ai := c.a[i]
			if ai == bj {
				if eqi < 0 {
					eqi, eqj = i, j
				}
				continue
			}
			cr.SetSeq1(c.runesA(i))
			if cr.RealQuickRatio() > bestRatio && cr.QuickRatio() > bestRatio {
				if r := cr.Ratio(); r > bestRatio {
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
		c.out = append(c.out, DiffLine{'-', c.a[besti]}, DiffLine{'+', c.b[bestj]})
	}
	c.fancyHelper(besti+1, ahi, bestj+1, bhi)
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
