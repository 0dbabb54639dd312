package difflib

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// benchLines returns n synthetic source-like lines and a seeded variant with about one
// line in ten changed, inserted or deleted, plus popular blank and "pass" lines.
func benchLines(n int) (a, b []string) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range n {
		switch {
		case i%9 == 0:
			a = append(a, "")
		case i%13 == 0:
			a = append(a, "        pass")
		default:
			a = append(a, fmt.Sprintf("    value_%d = compute(%d, items[%d])", r.IntN(n), i, r.IntN(50)))
		}
	}
	for _, l := range a {
		switch x := r.IntN(30); {
		case x == 0:
			continue
		case x == 1:
			b = append(b, l, "    extra = 1")
		case x <= 3:
			b = append(b, l+" + 1")
		default:
			b = append(b, l)
		}
	}
	return a, b
}

func BenchmarkOpCodes(b *testing.B) {
	x, y := benchLines(2000)
	for b.Loop() {
		NewMatcher(x, y).OpCodes()
	}
}

func BenchmarkNdiff(b *testing.B) {
	x, y := benchLines(2000)
	for b.Loop() {
		Ndiff(x, y)
	}
}
