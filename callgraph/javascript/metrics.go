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
		switch k.Type {
		case "comment":
			return
		case "if_statement", "for_statement", "for_in_statement", "while_statement", "do_statement",
			"switch_case", "catch_clause", "ternary_expression":
			m.Cyclomatic++
		case "binary_expression":
			if op := k.Child("operator"); op != nil && (op.Type == "&&" || op.Type == "||" || op.Type == "??") {
				m.Cyclomatic++
			}
		}
		if k != n && k != self && k.Named && nestingTypes[k.Type] && !(k.Type == "if_statement" && k.Parent != nil && k.Parent.Type == "else_clause") {
			depth++
			m.Nesting = max(m.Nesting, depth)
		}
		if literalOperands[k.Type] || len(k.Kids) == 0 {
			if k.End == k.Start {
				return
			}
			rows[k.Row] = true
			switch {
			case literalOperands[k.Type] || k.Named:
				h.Operand(k.Text(src))
			case k.Type == ")" || k.Type == "]" || k.Type == "}":
			default:
				h.Operator(k.Type)
			}
			return
		}
		for _, c := range k.Kids {
			walk(c, depth)
		}
	}
	walk(n, 0)
	m.CodeLines = len(rows)
	m.HalsteadVolume, m.HalsteadDifficulty = h.Measures()
	return m
}
