package golang

import (
	"encoding/binary"
	"math/bits"
)

// bitset is a sparse set of label bits (see flowGraph): the non-zero 64-bit words of a
// bit vector, sorted by word index. Labels are unions of a few dozen declared types and
// functions out of tens of thousands, clustered by declaration order, so a dense vector
// per location would be mostly zeros. The zero value is the empty set.
type bitset []word

// word is the bits [64·i, 64·i+64) of a bitset, stored as two halves so that a word
// takes 12 bytes rather than 16.
type word struct {
	i      uint32
	lo, hi uint32
}

func mkWord(i uint32, bits uint64) word { return word{i, uint32(bits), uint32(bits >> 32)} }

func (w word) bits() uint64 { return uint64(w.lo) | uint64(w.hi)<<32 }

// has reports whether bit b is set.
func (s bitset) has(b int) bool {
	wi := uint32(b / 64)
	lo, hi := 0, len(s)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if s[m].i < wi {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo < len(s) && s[lo].i == wi && s[lo].bits()&(1<<(uint(b)%64)) != 0
}

// add sets bit b and reports whether the set changed.
func (s *bitset) add(b int) bool {
	return s.or(bitset{mkWord(uint32(b/64), 1<<(uint(b)%64))})
}

// or adds src to *s and reports whether *s changed.
func (s *bitset) or(src bitset) bool {
	if len(src) == 0 {
		return false
	}
	d := *s
	// Fast path: every word of src already has its index in d (the common case once
	// propagation is under way): or in place.
	j, inPlace := 0, true
	for _, w := range src {
		for j < len(d) && d[j].i < w.i {
			j++
		}
		if j == len(d) || d[j].i != w.i {
			inPlace = false
			break
		}
	}
	if inPlace {
		changed := false
		j = 0
		for _, w := range src {
			for d[j].i < w.i {
				j++
			}
			if old := d[j].bits(); old|w.bits() != old {
				d[j], changed = mkWord(w.i, old|w.bits()), true
			}
		}
		return changed
	}
	*s = union(d, src)
	return true
}

// union returns a new set holding the bits of a and b, sized exactly.
func union(a, b bitset) bitset {
	n, i, k := 0, 0, 0
	for i < len(a) || k < len(b) {
		switch {
		case k == len(b) || i < len(a) && a[i].i < b[k].i:
			i++
		case i == len(a) || b[k].i < a[i].i:
			k++
		default:
			i, k = i+1, k+1
		}
		n++
	}
	out := make(bitset, 0, n)
	i, k = 0, 0
	for i < len(a) || k < len(b) {
		switch {
		case k == len(b) || i < len(a) && a[i].i < b[k].i:
			out = append(out, a[i])
			i++
		case i == len(a) || b[k].i < a[i].i:
			out = append(out, b[k])
			k++
		default:
			out = append(out, mkWord(a[i].i, a[i].bits()|b[k].bits()))
			i, k = i+1, k+1
		}
	}
	return out
}

// each calls f with every set bit in [lo, hi), in increasing order.
func (s bitset) each(lo, hi int, f func(b int)) {
	for _, w := range s {
		base := int(w.i) * 64
		if base >= hi {
			return
		}
		for x := w.bits(); x != 0; x &= x - 1 {
			b := base + bits.TrailingZeros64(x)
			if b >= hi {
				return
			}
			if b >= lo {
				f(b)
			}
		}
	}
}

// key is the set's words as a string, for use in a map key: equal sets give equal keys.
func (s bitset) key() string {
	b := make([]byte, 0, 12*len(s))
	for _, w := range s {
		b = binary.LittleEndian.AppendUint32(b, w.i)
		b = binary.LittleEndian.AppendUint32(b, w.lo)
		b = binary.LittleEndian.AppendUint32(b, w.hi)
	}
	return string(b)
}

// labelSets interns the label sets of the type-flow graph: a location's label is the
// number of its set. Locations far outnumber the distinct sets (on GOROOT/src about
// 200,000 labelled locations hold some 10,000 sets, most of them large), so each set is
// kept once and unions are remembered by the numbers of their operands.
type labelSets struct {
	sets   []bitset // by number; 0 is the empty set. The sets are never modified.
	byKey  map[string]label
	unions map[[2]label]label
	bits   []label // the set {b} by b, 0 when not made yet
}

// label is the number of an interned set.
type label int32

func newLabelSets() *labelSets {
	return &labelSets{sets: []bitset{nil}, byKey: map[string]label{"": 0}, unions: map[[2]label]label{}}
}

// intern returns the number of set s, which it keeps: s must not be modified after.
func (ls *labelSets) intern(s bitset) label {
	k := s.key()
	if l, ok := ls.byKey[k]; ok {
		return l
	}
	l := label(len(ls.sets))
	ls.sets = append(ls.sets, s)
	ls.byKey[k] = l
	return l
}

// union returns the number of the union of sets a and b.
func (ls *labelSets) union(a, b label) label {
	if a == b || b == 0 {
		return a
	}
	if a == 0 {
		return b
	}
	k := [2]label{min(a, b), max(a, b)}
	if u, ok := ls.unions[k]; ok {
		return u
	}
	u := ls.intern(union(ls.sets[a], ls.sets[b]))
	ls.unions[k] = u
	return u
}

// bit returns the number of the set {b}.
func (ls *labelSets) bit(b int) label {
	if b >= len(ls.bits) {
		ls.bits = append(ls.bits, make([]label, b+1-len(ls.bits))...)
	}
	if ls.bits[b] == 0 {
		var s bitset
		s.add(b)
		ls.bits[b] = ls.intern(s)
	}
	return ls.bits[b]
}
