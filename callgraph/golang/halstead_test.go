package golang

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/faultline-dev/faultline/callgraph"
)

// TestHalsteadMeasuresMatch checks a meter's Halstead counts (its pooled sets and
// halsteadMeasures) against callgraph.Halstead, bit for bit, on random token streams
// of 0 to 3,000 tokens (the sets grow and are reset and reused in between), with empty
// strings among them.
func TestHalsteadMeasuresMatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 300 {
		var h callgraph.Halstead
		mt := newMeter(0, 0)
		n := rng.IntN(3000)
		if round%50 == 0 {
			n = 0
		}
		vocab := 1 + rng.IntN(1+n)
		for range n {
			s := strconv.Itoa(rng.IntN(vocab))
			if rng.IntN(40) == 0 {
				s = ""
			}
			if rng.IntN(3) == 0 {
				h.Operator(s)
				mt.sets.operators.add(s)
				mt.n1++
			} else {
				h.Operand(s)
				mt.sets.operands.add(s)
				mt.n2++
			}
		}
		wantV, wantD := h.Measures()
		m := mt.metrics()
		if m.HalsteadVolume != wantV || m.HalsteadDifficulty != wantD {
			t.Fatalf("round %d (%d tokens): volume %v, difficulty %v; callgraph.Halstead %v, %v",
				round, n, m.HalsteadVolume, m.HalsteadDifficulty, wantV, wantD)
		}
	}
}
