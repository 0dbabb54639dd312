package golang

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestBitsetMatchesMap checks the sparse set against a map on random operations: adds,
// unions (with the changed report), membership and ordered iteration over ranges.
func TestBitsetMatchesMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		var a, b bitset
		ma, mb := map[int]bool{}, map[int]bool{}
		span := 1 + rng.IntN(3000)
		for range rng.IntN(60) {
			x := rng.IntN(span)
			if got, want := a.add(x), !ma[x]; got != want {
				t.Fatalf("round %d: add(%d) changed = %v, want %v", round, x, got, want)
			}
			ma[x] = true
		}
		for range rng.IntN(60) {
			x := rng.IntN(span)
			b.add(x)
			mb[x] = true
		}
		changed := false
		for x := range mb {
			if !ma[x] {
				changed = true
			}
			ma[x] = true
		}
		if got := a.or(b); got != changed {
			t.Fatalf("round %d: or changed = %v, want %v", round, got, changed)
		}
		if a.or(b) {
			t.Fatalf("round %d: a second or reports a change", round)
		}
		for x := range span + 64 {
			if a.has(x) != ma[x] {
				t.Fatalf("round %d: has(%d) = %v", round, x, a.has(x))
			}
		}
		lo, hi := rng.IntN(span), rng.IntN(span+64)
		var got, want []int
		a.each(lo, hi, func(x int) { got = append(got, x) })
		for x := range ma {
			if x >= lo && x < hi {
				want = append(want, x)
			}
		}
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("round %d: each(%d, %d) = %v, want %v", round, lo, hi, got, want)
		}
		if !slices.IsSortedFunc(a, func(x, y word) int { return int(x.i) - int(y.i) }) {
			t.Fatalf("round %d: words out of order", round)
		}
	}
}
