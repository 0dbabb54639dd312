package golang

import (
	"math"
	"math/bits"
	"slices"
	"sync"
	"unsafe"

	"github.com/faultline-dev/faultline/callgraph"
)

// nesting reports whether a node type is a construct that opens a nesting level.
func nesting(typ string) bool {
	switch typ {
	case "if_statement", "for_statement", "expression_switch_statement",
		"type_switch_statement", "select_statement", "func_literal":
		return true
	}
	return false
}

// literalOperand reports whether a node type is a token counted as one operand with its
// whole text.
func literalOperand(typ string) bool {
	switch typ {
	case "interpreted_string_literal", "raw_string_literal", "rune_literal":
		return true
	}
	return false
}

// measure computes the metrics of the definition n spanning rows first..last (0-based).
//
// Code lines: distinct rows on which a token other than a comment starts (the terminating
// newlines the grammar inserts are not tokens). Cyclomatic: 1 + if, for, non-default case
// clauses of expression, type and select switches, && and ||. Halstead: operands are
// identifiers and literals (a string literal is one operand), operators every other token
// (keywords, punctuation, operators) except closing brackets, which pair with their opening
// one. Nesting: the deepest stack of if/for/switch/select statements and function literals
// (an else-if continues its chain and does not nest).
func measure(n *tsNode, src []byte, first, last int) callgraph.Metrics {
	mt := newMeter(first, last)
	mt.walk(n, src, 0, nil)
	return mt.metrics()
}

// meter counts the metrics of one definition (see measure), node by node: a tree's
// (walk), or a body streamed from the go/parser front end (astBuilder.stream), which
// counts the same nodes in the same way. The counts do not depend on the order.
type meter struct {
	m    callgraph.Metrics
	rows []int // the rows of the tokens, in visit order, repeats collapsed
	// The Halstead counts (see callgraph.Halstead): the distinct operators and operands
	// in pooled sets, and the occurrences of each kind.
	sets   *halsteadSets
	n1, n2 int
}

// halsteadSets are the distinct operators and operands of a meter.
type halsteadSets struct{ operators, operands strSet }

var halsteadPool = sync.Pool{New: func() any { return new(halsteadSets) }}

func newMeter(first, last int) *meter {
	return &meter{m: callgraph.Metrics{Cyclomatic: 1, Lines: last - first + 1}, sets: halsteadPool.Get().(*halsteadSets)}
}

// walk counts the subtree of n, whose nesting depth is depth. stub, when not nil, is
// called on the childless nodes first: when it reports that it counted one (a body
// left out of the tree), the node is not counted as a token.
func (mt *meter) walk(n *tsNode, src []byte, depth int, stub func(n *tsNode) bool) {
	if n.Type == "comment" {
		return
	}
	if n.Type == "binary_expression" {
		if op := n.Child("operator"); op != nil {
			mt.operator(op.Type)
		}
	}
	depth = mt.enter(n.Type, n.Field, depth)
	lit := literalOperand(n.Type)
	if lit || len(n.Kids) == 0 {
		if stub != nil && len(n.Kids) == 0 && stub(n) {
			return
		}
		mt.token(n.Type, n.Start, n.End, n.Row, n.Named, lit, src)
		return
	}
	for _, k := range n.Kids {
		mt.walk(k, src, depth, stub)
	}
}

// enter counts what a node of type typ under field adds before its children (branches,
// nesting) and returns its children's depth.
func (mt *meter) enter(typ, field string, depth int) int {
	switch typ {
	case "if_statement", "for_statement", "expression_case", "type_case", "communication_case":
		mt.m.Cyclomatic++
	}
	if nesting(typ) && !(typ == "if_statement" && field == "alternative") {
		depth++
		if depth > mt.m.Nesting {
			mt.m.Nesting = depth
		}
	}
	return depth
}

// operator counts the operator of a binary expression.
func (mt *meter) operator(typ string) {
	if typ == "&&" || typ == "||" {
		mt.m.Cyclomatic++
	}
}

// token counts a childless node (or a literal) spanning start..end on row.
func (mt *meter) token(typ string, start, end, row int, named, lit bool, src []byte) {
	if end == start || typ == "\n" {
		return
	}
	if len(mt.rows) == 0 || mt.rows[len(mt.rows)-1] != row {
		mt.rows = append(mt.rows, row)
	}
	switch {
	case lit || named:
		// The counts live no longer than src: its text needs no copy.
		text := ""
		if end > start {
			text = unsafe.String(&src[start], end-start)
		}
		mt.sets.operands.add(text)
		mt.n2++
	case typ == ")" || typ == "]" || typ == "}":
	default:
		mt.sets.operators.add(typ)
		mt.n1++
	}
}

func (mt *meter) metrics() callgraph.Metrics {
	slices.Sort(mt.rows)
	mt.m.CodeLines = len(slices.Compact(mt.rows))
	mt.m.HalsteadVolume, mt.m.HalsteadDifficulty = halsteadMeasures(mt.sets.operators.n, mt.sets.operands.n, mt.n1, mt.n2)
	mt.sets.operators.reset()
	mt.sets.operands.reset()
	halsteadPool.Put(mt.sets)
	mt.sets = nil
	return mt.m
}

// halsteadMeasures is callgraph.Halstead.Measures for eta1 distinct operators and eta2
// distinct operands occurring n1 and n2 times: the same expressions, so the same bits
// (TestHalsteadMeasuresMatch).
func halsteadMeasures(eta1, eta2, n1, n2 int) (volume, difficulty float64) {
	eta, n := eta1+eta2, n1+n2
	if eta > 1 {
		volume = float64(n) * math.Log2(float64(eta))
	}
	if eta2 > 0 {
		difficulty = float64(eta1) / 2 * float64(n2) / float64(eta2)
	}
	return volume, difficulty
}

// strSet is a set of strings that counts its distinct members, an open-addressing
// table that is reset in time proportional to its members and then reused: the
// Halstead counts of every definition filled a new map, grown from empty, which took
// more time than the rest of the metrics.
type strSet struct {
	slots []string
	full  []int32 // the filled slots, to reset
	empty bool    // "" is a member
	n     int     // distinct members
	shift uint    // 64 - log2(len(slots))
}

// add adds s to the set.
func (t *strSet) add(s string) {
	if s == "" {
		if !t.empty {
			t.empty = true
			t.n++
		}
		return
	}
	if 4*(len(t.full)+1) > 3*len(t.slots) {
		t.grow()
	}
	mask := len(t.slots) - 1
	for i := int(strHash(s) >> t.shift); ; i = (i + 1) & mask {
		switch t.slots[i] {
		case "":
			t.slots[i] = s
			t.full = append(t.full, int32(i))
			t.n++
			return
		case s:
			return
		}
	}
}

// grow doubles the table (64 slots at first) and re-adds its members.
func (t *strSet) grow() {
	old := t.slots
	size := max(64, 2*len(old))
	t.slots = make([]string, size)
	t.shift = uint(64 - bits.TrailingZeros(uint(size)))
	t.full = t.full[:0]
	mask := size - 1
	for _, s := range old {
		if s == "" {
			continue
		}
		i := int(strHash(s) >> t.shift)
		for t.slots[i] != "" {
			i = (i + 1) & mask
		}
		t.slots[i] = s
		t.full = append(t.full, int32(i))
	}
}

// reset empties the set, keeping its storage unless it grew large (a big file's module
// pseudo-definition): a small definition's set must not clear a big table.
func (t *strSet) reset() {
	if len(t.slots) > 1<<12 {
		*t = strSet{}
		return
	}
	for _, i := range t.full {
		t.slots[i] = ""
	}
	t.full = t.full[:0]
	t.empty, t.n = false, 0
}

// strHash is FNV-1a of s, multiplied so that its top bits, which pick the slot, mix
// all of its bits.
func strHash(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h * 0x9E3779B97F4A7C15
}
