package extract

import (
	"math/rand/v2"
	"slices"
)

// Default line budget bounds (spec: uniform in [3000, 5000]).
const (
	DefaultMinBudget = 3000
	DefaultMaxBudget = 5000
)

// DrawBudget draws the line budget of one item uniformly from [lo, hi] (zero values take
// the defaults; hi < lo is treated as hi = lo).
func DrawBudget(rng *rand.Rand, lo, hi int) int {
	if lo <= 0 {
		lo = DefaultMinBudget
	}
	if hi <= 0 {
		hi = DefaultMaxBudget
	}
	if hi < lo {
		hi = lo
	}
	return lo + rng.IntN(hi-lo+1)
}

// Extraction is the result of Extract: every visited object in exactly one class.
type Extraction struct {
	Budget int `json:"budget"`
	// Extracted objects are removed by the mask; Lines counts their definition lines
	// without double counting nested definitions.
	Extracted []string `json:"extracted"`
	Lines     int      `json:"lines"`
	// Remained are visited objects that stay: seen in P2P, or extracting them was not
	// possible (over the budget, a test/conftest/__init__ object, no static definition,
	// a pseudo-name).
	Remained []string `json:"remained"`
	// Protected are visited objects executed or imported at collection time.
	Protected []string `json:"protected"`
}

// Extract runs the breadth-first extraction over g from the top objects with the given
// line budget. Top objects are extracted (whatever the budget) unless seen in P2P or
// protected. For every child of a visited object: seen in P2P or protected → kept and
// traversed; otherwise, if it has a static definition, fits the remaining budget and is
// not in a test, conftest or __init__ file → extracted and traversed; otherwise kept and
// not traversed. The LOC of an object is its definition's lines, decorators included;
// lines already counted (a class whose method was extracted, or the reverse) are not
// counted again. Output lists are sorted.
func Extract(g *DepGraph, top []string, budget int) *Extraction {
	ex := &Extraction{Budget: budget}
	var lines LineSet
	state := map[string]int{} // 1 extracted, 2 remained, 3 protected
	var queue []string
	visit := func(id string, isTop bool) {
		n, ok := g.Lookup(id)
		if !ok {
			return
		}
		switch {
		case n.Protected:
			state[id] = 3
			queue = append(queue, id)
		case n.SeenInP2P:
			state[id] = 2
			queue = append(queue, id)
		case n.Def == nil || IsTestObjectFile(n.File) || isPseudo(n.Name):
			state[id] = 2
		default:
			s, e := defLines(n.Def)
			if !isTop && lines.Total()+lines.Cost(n.File, s, e) > budget {
				state[id] = 2
				return
			}
			lines.Add(n.File, s, e)
			state[id] = 1
			queue = append(queue, id)
		}
	}
	for _, id := range slices.Sorted(slices.Values(top)) {
		if _, done := state[id]; !done {
			visit(id, true)
		}
	}
	for k := 0; k < len(queue); k++ {
		n, _ := g.Lookup(queue[k])
		for _, c := range n.Callees {
			if _, done := state[c]; !done {
				visit(c, false)
			}
		}
	}
	for id, s := range state {
		switch s {
		case 1:
			ex.Extracted = append(ex.Extracted, id)
		case 2:
			ex.Remained = append(ex.Remained, id)
		case 3:
			ex.Protected = append(ex.Protected, id)
		}
	}
	slices.Sort(ex.Extracted)
	slices.Sort(ex.Remained)
	slices.Sort(ex.Protected)
	ex.Lines = lines.Total()
	return ex
}
