package difflib

import (
	"slices"
	"strings"
	"testing"
)

// naiveBlocks is a direct, slow restatement of Python's get_matching_blocks used as a
// differential oracle for the indexed implementation: the longest match is found by
// trying every pair of start positions (earliest i, then earliest j, wins a tie, which is
// what Python's dynamic programme yields), then extended by non-junk and junk elements.
func naiveBlocks(a, b []string, autojunk bool, isJunk func(string) bool) []Match {
	junk := func(s string) bool { return isJunk != nil && isJunk(s) }
	count := map[string]int{}
	for _, s := range b {
		count[s]++
	}
	anchor := func(s string) bool { // may start or continue a match
		if junk(s) {
			return false
		}
		return !(autojunk && len(b) >= 200 && count[s] > len(b)/100+1)
	}
	longest := func(alo, ahi, blo, bhi int) Match {
		best := Match{alo, blo, 0}
		for i := alo; i < ahi; i++ {
			for j := blo; j < bhi; j++ {
				k := 0
				for i+k < ahi && j+k < bhi && a[i+k] == b[j+k] && anchor(b[j+k]) {
					k++
				}
				if k > best.Size {
					best = Match{i, j, k}
				}
			}
		}
		i, j, k := best.A, best.B, best.Size
		for i > alo && j > blo && !junk(b[j-1]) && a[i-1] == b[j-1] {
			i, j, k = i-1, j-1, k+1
		}
		for i+k < ahi && j+k < bhi && !junk(b[j+k]) && a[i+k] == b[j+k] {
			k++
		}
		for i > alo && j > blo && junk(b[j-1]) && a[i-1] == b[j-1] {
			i, j, k = i-1, j-1, k+1
		}
		for i+k < ahi && j+k < bhi && junk(b[j+k]) && a[i+k] == b[j+k] {
			k++
		}
		return Match{i, j, k}
	}
	var blocks []Match
	var rec func(alo, ahi, blo, bhi int)
	rec = func(alo, ahi, blo, bhi int) {
		x := longest(alo, ahi, blo, bhi)
		if x.Size == 0 {
			return
		}
		blocks = append(blocks, x)
		if alo < x.A && blo < x.B {
			rec(alo, x.A, blo, x.B)
		}
		if x.A+x.Size < ahi && x.B+x.Size < bhi {
			rec(x.A+x.Size, ahi, x.B+x.Size, bhi)
		}
	}
	rec(0, len(a), 0, len(b))
	slices.SortFunc(blocks, func(x, y Match) int { return x.A - y.A })
	var out []Match
	for _, x := range blocks {
		if n := len(out); n > 0 && out[n-1].A+out[n-1].Size == x.A && out[n-1].B+out[n-1].Size == x.B {
			out[n-1].Size += x.Size
			continue
		}
		out = append(out, x)
	}
	return append(out, Match{len(a), len(b), 0})
}

// FuzzMatchingBlocksDifferential compares MatchingBlocks with naiveBlocks. Inputs are
// split into one-character "lines" so that small fuzz inputs have many repeats, and padded
// to 200+ elements half of the time so that autojunk applies.
func FuzzMatchingBlocksDifferential(f *testing.F) {
	f.Add("abcabc", "bcab", uint8(0))
	f.Add("a b a b", "ab ab", uint8(1))
	f.Add(strings.Repeat("xy", 110)+"q", strings.Repeat("yx", 105)+"q", uint8(2))
	f.Add("", "", uint8(3))
	f.Fuzz(func(t *testing.T, as, bs string, mode uint8) {
		if len(as) > 300 || len(bs) > 300 {
			return
		}
		a, b := strings.Split(as, ""), strings.Split(bs, "")
		if mode&2 != 0 {
			for len(b) < 200 {
				b = append(b, b...)
				b = append(b, "z")
			}
		}
		opts := Options{AutoJunk: mode&1 == 0}
		if mode&4 != 0 {
			opts.IsJunk = func(s string) bool { return s == " " }
		}
		got := NewMatcherOptions(a, b, opts).MatchingBlocks()
		want := naiveBlocks(a, b, opts.AutoJunk, opts.IsJunk)
		if !slices.Equal(got, want) {
			t.Fatalf("MatchingBlocks = %v\nnaive          = %v", got, want)
		}
	})
}
