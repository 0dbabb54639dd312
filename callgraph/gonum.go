package callgraph

import (
	"gonum.org/v1/gonum/graph"
	"gonum.org/v1/gonum/graph/iterator"
	"gonum.org/v1/gonum/graph/simple"
)

// Directed returns a read-only gonum view of the graph: node IDs are the dense indices
// (Node.Index), edges are the call edges without self-loops. Module pseudo-nodes are
// part of the view. Node iteration is in index order.
func (g *Graph) Directed() graph.Directed { return directed{g} }

type directed struct{ g *Graph }

var _ graph.Directed = directed{}

func (d directed) valid(id int64) bool { return id >= 0 && id < int64(len(d.g.nodes)) }

func (d directed) Node(id int64) graph.Node {
	if !d.valid(id) {
		return nil
	}
	return simple.Node(id)
}

func (d directed) Nodes() graph.Nodes {
	if len(d.g.nodes) == 0 {
		return graph.Empty
	}
	return iterator.NewImplicitNodes(0, len(d.g.nodes), func(id int) graph.Node { return simple.Node(id) })
}

func (d directed) nodes(ids []int, self int) graph.Nodes {
	ns := make([]graph.Node, 0, len(ids))
	for _, i := range ids {
		if i != self {
			ns = append(ns, simple.Node(i))
		}
	}
	if len(ns) == 0 {
		return graph.Empty
	}
	return iterator.NewOrderedNodes(ns)
}

func (d directed) From(id int64) graph.Nodes {
	if !d.valid(id) {
		return graph.Empty
	}
	return d.nodes(d.g.Callees(int(id)), int(id))
}

func (d directed) To(id int64) graph.Nodes {
	if !d.valid(id) {
		return graph.Empty
	}
	return d.nodes(d.g.Callers(int(id)), int(id))
}

func (d directed) HasEdgeFromTo(uid, vid int64) bool {
	if uid == vid || !d.valid(uid) || !d.valid(vid) {
		return false
	}
	_, ok := d.g.Edge(int(uid), int(vid))
	return ok
}

func (d directed) HasEdgeBetween(xid, yid int64) bool {
	return d.HasEdgeFromTo(xid, yid) || d.HasEdgeFromTo(yid, xid)
}

func (d directed) Edge(uid, vid int64) graph.Edge {
	if !d.HasEdgeFromTo(uid, vid) {
		return nil
	}
	return simple.Edge{F: simple.Node(uid), T: simple.Node(vid)}
}
