package python

import "testing"

// TestAddOnce checks the flow lists' deduplication across the switch from scanning to
// the exprSet index: every expression is kept once, in the order first added.
func TestAddOnce(t *testing.T) {
	es := make([]expr, 1000)
	var list []*expr
	var index *exprSet
	for round := 0; round < 3; round++ {
		for k := range es {
			// each round adds every expression again, in a scrambled order
			e := &es[(k*7+round*13)%len(es)]
			var added bool
			list, added = addOnce(list, &index, e)
			if added != (round == 0) {
				t.Fatalf("round %d, expression %d: added %v", round, k, added)
			}
		}
	}
	if len(list) != len(es) || index == nil || index.n != len(es) {
		t.Fatalf("list %d, index %v: want %d members", len(list), index != nil, len(es))
	}
	for k, e := range list {
		if want := &es[(k*7)%len(es)]; e != want {
			t.Fatalf("list[%d] is not the expression added %dth", k, k)
		}
	}
}
