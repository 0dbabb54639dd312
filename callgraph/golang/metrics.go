package golang

import (
	"slices"
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
	h    callgraph.Halstead
}

func newMeter(first, last int) *meter {
	return &meter{m: callgraph.Metrics{Cyclomatic: 1, Lines: last - first + 1}}
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
		mt.h.Operand(text)
	case typ == ")" || typ == "]" || typ == "}":
	default:
		mt.h.Operator(typ)
	}
}

func (mt *meter) metrics() callgraph.Metrics {
	slices.Sort(mt.rows)
	mt.m.CodeLines = len(slices.Compact(mt.rows))
	mt.m.HalsteadVolume, mt.m.HalsteadDifficulty = mt.h.Measures()
	return mt.m
}
