package difflib

import (
	"fmt"
	"slices"
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
// Python's default (what NewMatcher uses) has AutoJunk true.
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
	a, b  []T
	opts  SequenceOptions[T]
	ids   map[T]int32 // b's distinct elements; every element absent from b maps to len(elems)
	elems []T
	c     core
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
	m.c.autoJunk = o.AutoJunk
	m.SetSeq2(b)
	m.SetSeq1(a)
	return m
}

// SetSeq1 replaces a, keeping the (expensive to index) b.
func (m *SequenceMatcher[T]) SetSeq1(a []T) {
	m.a = a
	absent := int32(len(m.elems))
	ids := make([]int32, len(a))
	for i, e := range a {
		id, ok := m.ids[e]
		if !ok {
			id = absent
		}
		ids[i] = id
	}
	m.c.setA(ids)
}

// SetSeq2 replaces b and re-indexes it; a is kept.
func (m *SequenceMatcher[T]) SetSeq2(b []T) {
	m.b = b
	m.ids = make(map[T]int32)
	m.elems = m.elems[:0]
	bids := make([]int32, len(b))
	for j, e := range b {
		id, ok := m.ids[e]
		if !ok {
			id = int32(len(m.elems))
			m.ids[e] = id
			m.elems = append(m.elems, e)
		}
		bids[j] = id
	}
	k := len(m.elems) + 1 // the last id stands for every element absent from b
	var junk []bool
	if m.opts.IsJunk != nil {
		junk = make([]bool, k)
		for id, e := range m.elems {
			junk[id] = m.opts.IsJunk(e)
		}
	}
	m.c.setAlphabet(k, junk)
	m.c.setB(bids)
	if m.a != nil {
		m.SetSeq1(m.a)
	}
}

// A returns the first sequence.
func (m *SequenceMatcher[T]) A() []T { return m.a }

// B returns the second sequence.
func (m *SequenceMatcher[T]) B() []T { return m.b }

// Junk returns b's distinct junk elements (those IsJunk accepted), in order of first
// occurrence in b.
func (m *SequenceMatcher[T]) Junk() []T {
	var out []T
	for id, e := range m.elems {
		if m.c.isJunk(int32(id)) {
			out = append(out, e)
		}
	}
	return out
}

// Popular returns b's distinct elements discarded by the autojunk heuristic, in order of
// first occurrence in b.
func (m *SequenceMatcher[T]) Popular() []T {
	var out []T
	for _, id := range m.c.popular {
		out = append(out, m.elems[id])
	}
	return out
}

// FindLongestMatch returns the longest matching block in a[alo:ahi] and b[blo:bhi] under
// Python's rules: longest block free of junk and popular elements, earliest in a, then
// earliest in b; extended by equal non-junk elements on both sides, then by equal junk
// elements. With no match it returns (alo, blo, 0).
func (m *SequenceMatcher[T]) FindLongestMatch(alo, ahi, blo, bhi int) Match {
	return m.c.findLongestMatch(alo, ahi, blo, bhi)
}

// MatchingBlocks returns the matching blocks, increasing in A and B, adjacent blocks merged,
// ending with the dummy (len(a), len(b), 0). The result is cached; do not modify it.
func (m *SequenceMatcher[T]) MatchingBlocks() []Match { return m.c.matchingBlocks() }

// OpCodes returns the steps turning a into b, starting at (0, 0) and each starting where
// the previous one ended. The result is cached; do not modify it.
func (m *SequenceMatcher[T]) OpCodes() []OpCode { return m.c.opCodes() }

// GroupedOpCodes returns the change clusters with up to n elements of context, as Python's
// get_grouped_opcodes(n): equal runs longer than 2n split groups, the first and last equal
// runs are trimmed to n, and a lone equal group is dropped (so identical inputs give none).
// Unlike Python, it does not modify the cached opcodes.
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

// Ratio returns 2*M/T, M the number of matched elements and T = len(a)+len(b); 1 when
// both are empty.
func (m *SequenceMatcher[T]) Ratio() float64 { return m.c.ratio() }

// QuickRatio returns an upper bound on Ratio: the size of the multiset intersection of a
// and b, junk included, in Ratio's formula.
func (m *SequenceMatcher[T]) QuickRatio() float64 { return m.c.quickRatio() }

// RealQuickRatio returns an upper bound on QuickRatio from the lengths alone.
func (m *SequenceMatcher[T]) RealQuickRatio() float64 { return m.c.realQuickRatio() }

// TagName returns Python's name of the tag: "equal", "replace", "delete" or "insert".
func (o OpCode) TagName() string {
	switch o.Tag {
	case 'e':
		return "equal"
	case 'r':
		return "replace"
	case 'd':
		return "delete"
	case 'i':
		return "insert"
	}
	return "tag(" + string(rune(o.Tag)) + ")"
}

// String formats o as "replace a[3:4] b[2:3]".
func (o OpCode) String() string {
	return fmt.Sprintf("%s a[%d:%d] b[%d:%d]", o.TagName(), o.I1, o.I2, o.J1, o.J2)
}
