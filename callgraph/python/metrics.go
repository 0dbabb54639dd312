package python

import (
	"github.com/faultline-dev/faultline/callgraph"
)

// metrics measures the subtree of node i (a definition without its decorators, or the
// module) spanning lines line..endLine.
func (c *collector) metrics(i int32, line, endLine int) callgraph.Metrics {
	m := callgraph.Metrics{CodeLines: c.codeLines(line, endLine), Cyclomatic: 1}
	var h callgraph.Halstead
	depth := 0
	if isCompound(c.t.nodes[i].kind) {
		depth = -1 // the measured definition itself is not a level
	}
	c.measure(i, &m, &h, depth)
	m.HalsteadVolume, m.HalsteadDifficulty = h.Measures()
	m.Lines = endLine - line + 1
	return m
}

// measure accumulates cyclomatic decision points, Halstead tokens and nesting depth over
// the subtree of i; depth is the number of compound statements enclosing i inside the
// measured definition.
func (c *collector) measure(i int32, m *callgraph.Metrics, h *callgraph.Halstead, depth int) {
	t := c.t
	n := &t.nodes[i]
	switch n.kind {
	case kIf, kElif, kFor, kWhile, kExcept, kBoolOp, kConditionalExpr, kIfClause, kCase:
		m.Cyclomatic++
	case kString:
		h.Operand(t.text(i))
		return
	case kComment, kLineContinuation:
		return
	}
	if n.first < 0 {
		if n.end == n.start || n.extra {
			return
		}
		if n.named {
			h.Operand(t.text(i))
		} else {
			h.Operator(t.symName(i))
		}
		return
	}
	childDepth := depth
	if isCompound(n.kind) {
		childDepth = depth + 1
		if childDepth > m.Nesting {
			m.Nesting = childDepth
		}
	}
	for ch := n.first; ch >= 0; ch = t.nodes[ch].next {
		c.measure(ch, m, h, childDepth)
	}
}

// isCompound reports whether statements of kind k nest a block one level deeper for the
// nesting depth (if/for/while/try/with/match and nested function or class definitions).
func isCompound(k kind) bool {
	switch k {
	case kIf, kFor, kWhile, kTry, kWith, kMatch, kFunctionDef, kClassDef:
		return true
	}
	return false
}
