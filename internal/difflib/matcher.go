package difflib

import (
	"slices"
	"sort"
)

// Match is a matching block: a[A:A+Size] == b[B:B+Size].
type Match struct {
	A, B, Size int
}

// OpCode is one step turning a into b: Tag is 'e' (a[I1:I2] == b[J1:J2]), 'r' (replace
// a[I1:I2] by b[J1:J2]), 'd' (delete a[I1:I2]; J1 == J2) or 'i' (insert b[J1:J2] at I1;
// I1 == I2).
type OpCode struct {
	Tag            byte
	I1, I2, J1, J2 int
}

// SequenceOptions configures a SequenceMatcher. The zero value disables both junk rules;
// Python's default (what NewMatcher and New with DefaultOptions use) has AutoJunk true.
type SequenceOptions[T comparable] struct {
	// AutoJunk enables the popularity heuristic: when b has at least 200 elements, every
	// element occurring more than len(b)/100+1 times is ignored when looking for matches.
	AutoJunk bool
	// IsJunk, when non-nil, marks elements of b that may not anchor a match (Python's isjunk).
	IsJunk func(T) bool
}

// Options configures a line Matcher.
type Options = SequenceOptions[string]

// SequenceMatcher compares two sequences of comparable elements the way Python's
// difflib.SequenceMatcher does. Results are computed lazily and cached; a SequenceMatcher
// is not safe for concurrent use.
type SequenceMatcher[T comparable] struct {
	a, b     []T
	opts     SequenceOptions[T]
	b2j      map[T][]int
	bjunk    map[T]struct{}
	bpopular map[T]struct{}

	fullbcount map[T]int
	matching   []Match
	opcodes    []OpCode

	// scratch rows for FindLongestMatch, indexed by j+1 and kept all-zero between calls
	j2len, newj2len []int
}

// Matcher is a SequenceMatcher over lines.
type Matcher = SequenceMatcher[string]

// NewMatcher returns a line matcher with Python's defaults (no isjunk, autojunk on).
func NewMatcher(a, b []string) *Matcher {
	return New(a, b, SequenceOptions[string]{AutoJunk: true})
}

// NewMatcherOptions returns a line matcher with exactly the options given.
func NewMatcherOptions(a, b []string, o Options) *Matcher {
	return New(a, b, o)
}

// New returns a matcher of a and b with the options given. The slices are not copied and
// must not be modified while the matcher is in use.
func New[T comparable](a, b []T, o SequenceOptions[T]) *SequenceMatcher[T] {
	m := &SequenceMatcher[T]{opts: o}
	m.a = a
	m.SetSeq2(b)
	return m
}

// SetSeq1 replaces a, keeping the (expensive to index) b.
func (m *SequenceMatcher[T]) SetSeq1(a []T) {
	m.a = a
	m.matching, m.opcodes = nil, nil
}

// SetSeq2 replaces b and re-indexes it.
func (m *SequenceMatcher[T]) SetSeq2(b []T) {
	m.b = b
	m.matching, m.opcodes, m.fullbcount = nil, nil, nil
	m.chainB()
}

// A returns the first sequence.
func (m *SequenceMatcher[T]) A() []T { return m.a }

// B returns the second sequence.
func (m *SequenceMatcher[T]) B() []T { return m.b }

// chainB indexes b: b2j maps each element that is neither junk nor popular to its
// ascending positions in b.
func (m *SequenceMatcher[T]) chainB() {
	b := m.b
	m.b2j = make(map[T][]int)
	for j, e := range b {
		m.b2j[e] = append(m.b2j[e], j)
	}
	m.bjunk, m.bpopular = nil, nil
	if m.opts.IsJunk != nil {
		for e := range m.b2j {
			if m.opts.IsJunk(e) {
				if m.bjunk == nil {
					m.bjunk = make(map[T]struct{})
				}
				m.bjunk[e] = struct{}{}
			}
		}
		for e := range m.bjunk {
			delete(m.b2j, e)
		}
	}
	if n := len(b); m.opts.AutoJunk && n >= 200 {
		ntest := n/100 + 1
		for e, idx := range m.b2j {
			if len(idx) > ntest {
				if m.bpopular == nil {
					m.bpopular = make(map[T]struct{})
				}
				m.bpopular[e] = struct{}{}
			}
		}
		for e := range m.bpopular {
			delete(m.b2j, e)
		}
	}
	if cap(m.j2len) < len(b)+1 {
		m.j2len = make([]int, len(b)+1)
		m.newj2len = make([]int, len(b)+1)
	} else {
		m.j2len = m.j2len[:len(b)+1]
		m.newj2len = m.newj2len[:len(b)+1]
		clear(m.j2len)
		clear(m.newj2len)
	}
}

// Junk returns b's junk elements (those IsJunk accepted), in no particular order.
func (m *SequenceMatcher[T]) Junk() []T { return keys(m.bjunk) }

// Popular returns b's elements discarded by the autojunk heuristic, in no particular order.
func (m *SequenceMatcher[T]) Popular() []T { return keys(m.bpopular) }

func keys[T comparable](s map[T]struct{}) []T {
	out := make([]T, 0, len(s))
	for e := range s {
		out = append(out, e)
	}
	return out
}

func (m *SequenceMatcher[T]) isBJunk(e T) bool {
	if m.bjunk == nil {
		return false
	}
	_, ok := m.bjunk[e]
	return ok
}

// FindLongestMatch returns the longest matching block in a[alo:ahi] and b[blo:bhi] under
// Python's rules: longest block free of junk and popular elements, earliest in a, then
// earliest in b; extended by equal non-junk elements on both sides, then by equal junk
// elements. With no match it returns (alo, blo, 0).
func (m *SequenceMatcher[T]) FindLongestMatch(alo, ahi, blo, bhi int) Match {
	a, b := m.a, m.b
	besti, bestj, bestsize := alo, blo, 0
	// j2len[j+1] is the length of the match of a[..i-1] and b[..j] ending at both.
	j2len, newj2len := m.j2len, m.newj2len
	var touched, newTouched []int
	for i := alo; i < ahi; i++ {
		idx := m.b2j[a[i]]
		start := sort.SearchInts(idx, blo)
		newTouched = newTouched[:0]
		for _, j := range idx[start:] {
			if j >= bhi {
				break
			}
			k := j2len[j] + 1
			newj2len[j+1] = k
			newTouched = append(newTouched, j+1)
			if k > bestsize {
				besti, bestj, bestsize = i-k+1, j-k+1, k
			}
		}
		for _, t := range touched {
			j2len[t] = 0
		}
		j2len, newj2len = newj2len, j2len
		touched, newTouched = newTouched, touched
	}
	for _, t := range touched {
		j2len[t] = 0
	}
	for besti > alo && bestj > blo && !m.isBJunk(b[bestj-1]) && a[besti-1] == b[bestj-1] {
		besti, bestj, bestsize = besti-1, bestj-1, bestsize+1
	}
	for besti+bestsize < ahi && bestj+bestsize < bhi && !m.isBJunk(b[bestj+bestsize]) &&
		a[besti+bestsize] == b[bestj+bestsize] {
		bestsize++
	}
	for besti > alo && bestj > blo && m.isBJunk(b[bestj-1]) && a[besti-1] == b[bestj-1] {
		besti, bestj, bestsize = besti-1, bestj-1, bestsize+1
	}
	for besti+bestsize < ahi && bestj+bestsize < bhi && m.isBJunk(b[bestj+bestsize]) &&
		a[besti+bestsize] == b[bestj+bestsize] {
		bestsize++
	}
	return Match{besti, bestj, bestsize}
}

// MatchingBlocks returns the matching blocks, increasing in A and B, adjacent blocks merged,
// ending with the dummy (len(a), len(b), 0). The result is cached; do not modify it.
func (m *SequenceMatcher[T]) MatchingBlocks() []Match {
	if m.matching != nil {
		return m.matching
	}
	la, lb := len(m.a), len(m.b)
	type rng struct{ alo, ahi, blo, bhi int }
	queue := []rng{{0, la, 0, lb}}
	var blocks []Match
	for len(queue) > 0 {
		q := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		x := m.FindLongestMatch(q.alo, q.ahi, q.blo, q.bhi)
		if x.Size > 0 {
			blocks = append(blocks, x)
			if q.alo < x.A && q.blo < x.B {
				queue = append(queue, rng{q.alo, x.A, q.blo, x.B})
			}
			if x.A+x.Size < q.ahi && x.B+x.Size < q.bhi {
				queue = append(queue, rng{x.A + x.Size, q.ahi, x.B + x.Size, q.bhi})
			}
		}
	}
	slices.SortFunc(blocks, func(x, y Match) int {
		if x.A != y.A {
			return x.A - y.A
		}
		if x.B != y.B {
			return x.B - y.B
		}
		return x.Size - y.Size
	})
	out := make([]Match, 0, len(blocks)+1)
	var cur Match
	for _, x := range blocks {
		if cur.A+cur.Size == x.A && cur.B+cur.Size == x.B {
			cur.Size += x.Size
			continue
		}
		if cur.Size > 0 {
			out = append(out, cur)
		}
		cur = x
	}
	if cur.Size > 0 {
		out = append(out, cur)
	}
	out = append(out, Match{la, lb, 0})
	m.matching = out
	return out
}

// OpCodes returns the steps turning a into b, starting at (0, 0) and each starting where
// the previous one ended. The result is cached; do not modify it.
func (m *SequenceMatcher[T]) OpCodes() []OpCode {
	if m.opcodes != nil {
		return m.opcodes
	}
	i, j := 0, 0
	out := []OpCode{}
	for _, x := range m.MatchingBlocks() {
		var tag byte
		switch {
		case i < x.A && j < x.B:
			tag = 'r'
		case i < x.A:
			tag = 'd'
		case j < x.B:
			tag = 'i'
		}
		if tag != 0 {
			out = append(out, OpCode{tag, i, x.A, j, x.B})
		}
		i, j = x.A+x.Size, x.B+x.Size
		if x.Size > 0 {
			out = append(out, OpCode{'e', x.A, i, x.B, j})
		}
	}
	m.opcodes = out
	return out
}

// GroupedOpCodes returns the change clusters with up to n elements of context, as Python's
// get_grouped_opcodes(n): equal runs longer than 2n split groups, the first and last equal
// runs are trimmed to n, and a lone equal group is dropped (so identical inputs give none).
func (m *SequenceMatcher[T]) GroupedOpCodes(n int) [][]OpCode {
	codes := slices.Clone(m.OpCodes())
	if len(codes) == 0 {
		codes = []OpCode{{'e', 0, 1, 0, 1}}
	}
	if c := &codes[0]; c.Tag == 'e' {
		c.I1, c.J1 = max(c.I1, c.I2-n), max(c.J1, c.J2-n)
	}
	if c := &codes[len(codes)-1]; c.Tag == 'e' {
		c.I2, c.J2 = min(c.I2, c.I1+n), min(c.J2, c.J1+n)
	}
	nn := n + n
	var groups [][]OpCode
	var group []OpCode
	for _, c := range codes {
		if c.Tag == 'e' && c.I2-c.I1 > nn {
			group = append(group, OpCode{'e', c.I1, min(c.I2, c.I1+n), c.J1, min(c.J2, c.J1+n)})
			groups = append(groups, group)
			group = nil
			c.I1, c.J1 = max(c.I1, c.I2-n), max(c.J1, c.J2-n)
		}
		group = append(group, c)
	}
	if len(group) > 0 && !(len(group) == 1 && group[0].Tag == 'e') {
		groups = append(groups, group)
	}
	return groups
}

func calculateRatio(matches, length int) float64 {
	if length > 0 {
		return 2.0 * float64(matches) / float64(length)
	}
	return 1.0
}

// Ratio returns 2*M/T, M the number of matched elements and T = len(a)+len(b); 1 when
// both are empty.
func (m *SequenceMatcher[T]) Ratio() float64 {
	matches := 0
	for _, x := range m.MatchingBlocks() {
		matches += x.Size
	}
	return calculateRatio(matches, len(m.a)+len(m.b))
}

// QuickRatio returns an upper bound on Ratio: the size of the multiset intersection of a
// and b, junk included, in Ratio's formula.
func (m *SequenceMatcher[T]) QuickRatio() float64 {
	if m.fullbcount == nil {
		m.fullbcount = make(map[T]int, len(m.b2j))
		for _, e := range m.b {
			m.fullbcount[e]++
		}
	}
	avail := make(map[T]int)
	matches := 0
	for _, e := range m.a {
		numb, ok := avail[e]
		if !ok {
			numb = m.fullbcount[e]
		}
		avail[e] = numb - 1
		if numb > 0 {
			matches++
		}
	}
	return calculateRatio(matches, len(m.a)+len(m.b))
}

// RealQuickRatio returns an upper bound on QuickRatio from the lengths alone.
func (m *SequenceMatcher[T]) RealQuickRatio() float64 {
	la, lb := len(m.a), len(m.b)
	return calculateRatio(min(la, lb), la+lb)
}
