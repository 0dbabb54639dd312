package golang

import (
	"slices"

	"github.com/faultline-dev/faultline/callgraph"
)

// nestingTypes are the constructs that open a nesting level.
var nestingTypes = map[string]bool{
	"if_statement": true, "for_statement": true, "expression_switch_statement": true,
	"type_switch_statement": true, "select_statement": true, "func_literal": true,
}

// literalOperands are tokens counted as one operand each with their whole text.
var literalOperands = map[string]bool{
	"interpreted_string_literal": true, "raw_string_literal": true, "rune_literal": true,
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
		if nestingTypes[n.Type] && !(n.Type == "if_statement" && n.Field == "alternative") {
			depth++
			if depth > m.Nesting {
				m.Nesting = depth
			}
		}
		if literalOperands[n.Type] || len(n.Kids) == 0 {
			if n.End == n.Start || n.Type == "\n" || n.Bad && n.End == n.Start {
				return
			}
			if len(rows) == 0 || rows[len(rows)-1] != n.Row {
				rows = append(rows, n.Row)
			}
			switch {
			case literalOperands[n.Type] || n.Named:
				h.Operand(n.Text(src))
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
