package python

import (
	"math"

	"github.com/faultline-dev/faultline/callgraph"
)

// halstead counts operator and operand occurrences of one definition. Operators are
// keyed by grammar symbol and operands by their per-file interned id, and distinct ones
// are counted with stamps instead of maps; measures() applies callgraph.Halstead's
// formulas (a test checks both agree).
type halstead struct {
	eta1, eta2 int // distinct operators, operands
	n1, n2     int // occurrences
}

func (h halstead) measures() (volume, difficulty float64) {
	eta, n := h.eta1+h.eta2, h.n1+h.n2
	if eta > 1 {
		volume = float64(n) * math.Log2(float64(eta))
	}
	if h.eta2 > 0 {
		difficulty = float64(h.eta1) / 2 * float64(h.n2) / float64(h.eta2)
	}
	return volume, difficulty
}

// metrics measures the subtree of node i (a definition without its decorators, or the
// module) spanning lines line..endLine.
func (c *collector) metrics(i int32, line, endLine int) callgraph.Metrics {
	m := callgraph.Metrics{CodeLines: c.codeLines(line, endLine), Cyclomatic: 1}
	sc := c.sc
	sc.opStamp = growKeep(sc.opStamp, len(symbols())+1)
	sc.argStamp = growKeep(sc.argStamp, int(c.nOperands))
	sc.stamp++
	var h halstead
	depth := 0
	if isCompound(c.t.nodes[i].kind) {
		depth = -1 // the measured definition itself is not a level
	}
	c.measure(i, &m, &h, depth)
	m.HalsteadVolume, m.HalsteadDifficulty = h.measures()
	m.Lines = endLine - line + 1
	return m
}

// growKeep extends s to length n keeping its contents (stamps must survive across files:
// a stale stamp never equals the current one because stamps only increase).
func growKeep(s []int32, n int) []int32 {
	if len(s) >= n {
		return s
	}
	if cap(s) >= n {
		return s[:n]
	}
	out := make([]int32, n, 2*n)
	copy(out, s)
	return out
}

// measure accumulates cyclomatic decision points, Halstead tokens and nesting depth over
// the subtree of i; depth is the number of compound statements enclosing i inside the
// measured definition.
func (c *collector) measure(i int32, m *callgraph.Metrics, h *halstead, depth int) {
	t := c.t
	n := &t.nodes[i]
	switch n.kind {
	case kIf, kElif, kFor, kWhile, kExcept, kBoolOp, kConditionalExpr, kIfClause, kCase:
		m.Cyclomatic++
	case kString:
		c.operand(i, h)
		return
	case kComment, kLineContinuation:
		return
	}
	if n.first < 0 {
		if n.end == n.start || n.extra {
			return
		}
		if n.named {
			c.operand(i, h)
		} else {
			h.n1++
			s := len(c.sc.opStamp) - 1
			if syms := symbols(); int(n.sym) < len(syms) {
				s = int(syms[n.sym].canon)
			}
			if c.sc.opStamp[s] != c.sc.stamp {
				c.sc.opStamp[s] = c.sc.stamp
				h.eta1++
			}
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

func (c *collector) operand(i int32, h *halstead) {
	id := c.sc.opID[i]
	if id < 0 {
		return
	}
	h.n2++
	if c.sc.argStamp[id] != c.sc.stamp {
		c.sc.argStamp[id] = c.sc.stamp
		h.eta2++
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
