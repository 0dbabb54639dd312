package javascript

import "github.com/faultline-dev/faultline/callgraph"

var nestingTypes = map[string]bool{
	"if_statement": true, "for_statement": true, "for_in_statement": true, "while_statement": true,
	"do_statement": true, "switch_statement": true, "try_statement": true,
	"arrow_function": true, "function_expression": true, "function": true, "generator_function": true,
	"function_declaration": true, "generator_function_declaration": true, "method_definition": true,
}

var literalOperands = map[string]bool{
	"string": true, "template_string": true, "regex": true,
}

// measure computes the metrics of the definition n spanning rows first..last (0-based);
// self is its function node (which opens no nesting level of its own).
//
// Code lines: distinct rows on which a token other than a comment starts (a multi-line
// string or template counts on its first row). Cyclomatic: 1 + if, for, for-in/of, while,
// do, non-default case, catch, &&, ||, ?? and the conditional operator. Halstead: operands
// are identifiers, numbers and literals (a string, template or regex is one operand);
// operators are the other tokens except closing brackets. Nesting: the deepest stack of
// control statements and nested functions below the definition (else-if does not nest).
func measure(n, self *node, src []byte, first, last int) callgraph.Metrics {
	m := callgraph.Metrics{Cyclomatic: 1, Lines: last - first + 1}
	rows := map[int]bool{}
	var h callgraph.Halstead
	var walk func(k *node, depth int)
	walk = func(k *node, depth int) {
		switch k.typ {
		case "comment":
			return
		case "if_statement", "for_statement", "for_in_statement", "while_statement", "do_statement",
			"switch_case", "catch_clause", "ternary_expression":
			m.Cyclomatic++
		case "binary_expression":
			if op := k.child("operator"); op != nil && (op.typ == "&&" || op.typ == "||" || op.typ == "??") {
				m.Cyclomatic++
			}
		}
		if k != n && k != self && k.named && nestingTypes[k.typ] && !(k.typ == "if_statement" && k.parent != nil && k.parent.typ == "else_clause") {
			depth++
			m.Nesting = max(m.Nesting, depth)
		}
		if literalOperands[k.typ] || len(k.kids) == 0 {
			if k.end == k.start {
				return
			}
			rows[k.row] = true
			switch {
			case literalOperands[k.typ] || k.named:
				h.Operand(k.text(src))
			case k.typ == ")" || k.typ == "]" || k.typ == "}":
			default:
				h.Operator(k.typ)
			}
			return
		}
		for _, c := range k.kids {
			walk(c, depth)
		}
	}
	walk(n, 0)
	m.CodeLines = len(rows)
	m.HalsteadVolume, m.HalsteadDifficulty = h.Measures()
	return m
}
