package callgraph

import "slices"

// Chain distances (docs/callgraph.md, Centrality): the length of the shortest call
// chain between two nodes, either along calls (directed: caller → callee) or ignoring
// direction (undirected: callers ∪ callees). Self-loops never matter. A module
// pseudo-node may be an end of a chain but never an interior node: module-level code is
// not a function a chain runs through, and going through it would make every pair of
// functions used at module level (decorators, for instance) two steps apart.

// Distance returns the chain distance from a to b and whether b is reachable from a.
// Distance(a, a, _) is (0, true).
func (g *Graph) Distance(a, b int, undirected bool) (int, bool) {
	if a == b {
		return 0, true
	}
	d := -1
	g.chainBFS(a, -1, undirected, func(v, dv int) bool {
		if v == b {
			d = dv
			return false
		}
		return true
	})
	return d, d >= 0
}

// Within returns the nodes other than a whose chain distance from a is at most d, sorted
// by index. A negative d means no bound (every node reachable from a).
func (g *Graph) Within(a, d int, undirected bool) []int {
	var r []int
	g.chainBFS(a, d, undirected, func(v, _ int) bool {
		r = append(r, v)
		return true
	})
	// BFS order is by distance; return index order.
	slices.Sort(r)
	return r
}

// chainBFS visits the nodes reachable from a (a excluded) in BFS order with their
// distance, up to maxDist (negative: unbounded), until visit returns false.
func (g *Graph) chainBFS(a, maxDist int, undirected bool, visit func(v, d int) bool) {
	dist := make([]int32, len(g.nodes))
	for i := range dist {
		dist[i] = -1
	}
	dist[a] = 0
	queue := []int{a}
	for h := 0; h < len(queue); h++ {
		v := queue[h]
		dv := int(dist[v])
		if maxDist >= 0 && dv >= maxDist {
			continue
		}
		if v != a && g.nodes[v].IsModule() {
			continue // never pass through module code
		}
		step := func(w int) bool {
			if dist[w] >= 0 {
				return true
			}
			dist[w] = int32(dv + 1)
			queue = append(queue, w)
			return visit(w, dv+1)
		}
		for _, e := range g.edges[g.outStart[v]:g.outStart[v+1]] {
			if !step(e.To) {
				return
			}
		}
		if undirected {
			for _, k := range g.in[g.inStart[v]:g.inStart[v+1]] {
				if !step(g.edges[k].From) {
					return
				}
			}
		}
	}
}
