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
	// Size the union exactly: labels are the bulk of the type-flow graph's memory.
	n, i, k := 0, 0, 0
	for i < len(d) || k < len(src) {
		switch {
		case k == len(src) || i < len(d) && d[i].i < src[k].i:
			i++
		case i == len(d) || src[k].i < d[i].i:
			k++
		default:
			i, k = i+1, k+1
		}
		n++
	}
	out := make(bitset, 0, n)
	i, k = 0, 0
	for i < len(d) || k < len(src) {
		switch {
		case k == len(src) || i < len(d) && d[i].i < src[k].i:
			out = append(out, d[i])
			i++
		case i == len(d) || src[k].i < d[i].i:
			out = append(out, src[k])
			k++
		default:
			out = append(out, mkWord(d[i].i, d[i].bits()|src[k].bits()))
			i, k = i+1, k+1
		}
	}
	*s = out
	return true
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
