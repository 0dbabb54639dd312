package golang

import (
	"fmt"
	"maps"
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

// TestBitsetKey checks that key tells sets apart exactly: two sets built by different
// sequences of adds and unions have the same key if and only if they hold the same bits
// (small spans, so that many pairs are equal).
func TestBitsetKey(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	equal := 0
	for round := range 2000 {
		span := 1 + rng.IntN(200)
		build := func() (bitset, map[int]bool) {
			var s bitset
			m := map[int]bool{}
			for range rng.IntN(4) {
				x := rng.IntN(span)
				if rng.IntN(2) == 0 {
					s.add(x)
				} else {
					s.or(bitset{mkWord(uint32(x/64), 1<<(uint(x)%64))})
				}
				m[x] = true
			}
			return s, m
		}
		a, ma := build()
		b, mb := build()
		same := len(ma) == len(mb)
		for x := range ma {
			same = same && mb[x]
		}
		if same {
			equal++
		}
		if got := a.key() == b.key(); got != same {
			t.Fatalf("round %d: %v and %v: keys equal = %v, sets equal = %v", round, a, b, got, same)
		}
	}
	if equal < 100 {
		t.Fatalf("only %d of the pairs were equal sets: the test does not exercise equal keys", equal)
	}
}

// TestLabelSetsMatchMaps builds sets by unions of interned labels and of single bits, as
// the type flow's propagation does, and checks each against a map: a label holds the
// union of its operands, equal sets get one number, and interned sets are never changed
// by later unions.
func TestLabelSetsMatchMaps(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	ls := newLabelSets()
	type held struct {
		l label
		m map[int]bool
	}
	pool := []held{{0, map[int]bool{}}}
	byContent := map[string]label{}
	content := func(m map[int]bool) string {
		var xs []int
		for x := range m {
			xs = append(xs, x)
		}
		slices.Sort(xs)
		return fmt.Sprint(xs)
	}
	for round := range 5000 {
		a := pool[rng.IntN(len(pool))]
		var h held
		if rng.IntN(3) == 0 {
			x := 37 * rng.IntN(10) // ten bits over six words: at most 1024 sets
			h = held{ls.union(a.l, ls.bit(x)), maps.Clone(a.m)}
			h.m[x] = true
		} else {
			b := pool[rng.IntN(len(pool))]
			h = held{ls.union(a.l, b.l), maps.Clone(a.m)}
			maps.Copy(h.m, b.m)
		}
		if c := content(h.m); byContent[c] == 0 && c != "[]" {
			byContent[c] = h.l
		} else if byContent[c] != h.l {
			t.Fatalf("round %d: set %s has numbers %d and %d", round, c, byContent[c], h.l)
		}
		pool = append(pool, h)
	}
	for i, h := range pool {
		var got []int
		ls.sets[h.l].each(0, 1<<20, func(x int) { got = append(got, x) })
		if fmt.Sprint(got) != content(h.m) {
			t.Fatalf("set %d (label %d) = %v, want %s", i, h.l, got, content(h.m))
		}
	}
	if len(ls.sets) < 50 || len(ls.sets) > 1024 {
		t.Fatalf("%d sets interned for %d unions: the test does not exercise sharing", len(ls.sets), len(pool))
	}
}
