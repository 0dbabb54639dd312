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

// text is the source text of a token without a copy, for counting it while src lives.
func text(n *tsNode, src []byte) string {
	if n.End <= n.Start {
		return ""
	}
	return unsafe.String(&src[n.Start], n.End-n.Start)
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
	m := callgraph.Metrics{Cyclomatic: 1, Lines: last - first + 1}
	var rows []int // the rows of the tokens, in visit (source) order, repeats collapsed
	var h callgraph.Halstead
	var walk func(n *tsNode, depth int)
	walk = func(n *tsNode, depth int) {
		switch n.Type {
		case "comment":
			return
		case "if_statement", "for_statement", "expression_case", "type_case", "communication_case":
			m.Cyclomatic++
		case "binary_expression":
			if op := n.Child("operator"); op != nil && (op.Type == "&&" || op.Type == "||") {
				m.Cyclomatic++
			}
		}
		if nesting(n.Type) && !(n.Type == "if_statement" && n.Field == "alternative") {
			depth++
			if depth > m.Nesting {
				m.Nesting = depth
			}
		}
		lit := literalOperand(n.Type)
		if lit || len(n.Kids) == 0 {
			if n.End == n.Start || n.Type == "\n" || n.Bad && n.End == n.Start {
				return
			}
			if len(rows) == 0 || rows[len(rows)-1] != n.Row {
				rows = append(rows, n.Row)
			}
			switch {
			case lit || n.Named:
				// The counts live no longer than src: its text needs no copy.
				h.Operand(text(n, src))
			case n.Type == ")" || n.Type == "]" || n.Type == "}":
			default:
				h.Operator(n.Type)
			}
			return
		}
		for _, k := range n.Kids {
			walk(k, depth)
		}
	}
	walk(n, 0)
	slices.Sort(rows)
	m.CodeLines = len(slices.Compact(rows))
	m.HalsteadVolume, m.HalsteadDifficulty = h.Measures()
	return m
}
