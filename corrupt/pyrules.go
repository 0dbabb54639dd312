package corrupt

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
	tspython "github.com/smacker/go-tree-sitter/python"
)

// pyNode is a Go copy of a tree-sitter Python node: the C tree is closed right after it is
// copied, so rules work on plain Go values.
type pyNode struct {
	typ      string
	field    string // the field name under the parent ("condition", "left", …)
	start    int
	end      int
	named    bool
	children []*pyNode
}

func (n *pyNode) child(field string) *pyNode {
	for _, c := range n.children {
		if c.field == field {
			return c
		}
	}
	return nil
}

func (n *pyNode) namedChildren() []*pyNode {
	var out []*pyNode
	for _, c := range n.children {
		if c.named && c.typ != "comment" {
			out = append(out, c)
		}
	}
	return out
}

// walk visits n and its descendants in source order; f returns false to skip children.
func (n *pyNode) walk(f func(*pyNode) bool) {
	if !f(n) {
		return
	}
	for _, c := range n.children {
		c.walk(f)
	}
}

type pyParsed struct {
	src  []byte
	body *pyNode // the function's body block
	fn   *pyNode // the function_definition
	err  error
}

// parsePython copies the target function's subtree out of a tree-sitter parse.
func (t *Target) parsePython() *pyParsed {
	if t.pyFile != nil {
		return t.pyFile
	}
	p := &pyParsed{src: t.Src}
	t.pyFile = p
	parser := sitter.NewParser()
	defer parser.Close()
	parser.SetLanguage(tspython.GetLanguage())
	tree, err := parser.ParseCtx(context.Background(), nil, t.Src)
	if err != nil {
		p.err = err
		return p
	}
	defer tree.Close()
	// Find the innermost function_definition whose block starts at the body span.
	var find func(n *sitter.Node) *sitter.Node
	find = func(n *sitter.Node) *sitter.Node {
		for i := 0; i < int(n.NamedChildCount()); i++ {
			c := n.NamedChild(i)
			if int(c.StartByte()) > t.Func.Body.Start || int(c.EndByte()) < t.Func.Body.Start {
				continue
			}
			if c.Type() == "function_definition" {
				if b := c.ChildByFieldName("body"); b != nil && int(b.StartByte()) <= t.Func.Body.Start && t.Func.Body.Start < int(b.EndByte())+1 {
					if inner := find(b); inner != nil {
						return inner
					}
					return c
				}
			}
			if r := find(c); r != nil {
				return r
			}
		}
		return nil
	}
	fd := find(tree.RootNode())
	if fd == nil {
		p.err = fmt.Errorf("corrupt: %s: no Python function body at byte %d", t.Path, t.Func.Body.Start)
		return p
	}
	p.fn = copyPy(fd, "")
	p.body = p.fn.child("body")
	if p.body == nil {
		p.err = fmt.Errorf("corrupt: %s: function without a body", t.Path)
	}
	return p
}

func copyPy(n *sitter.Node, field string) *pyNode {
	out := &pyNode{typ: n.Type(), field: field, start: int(n.StartByte()), end: int(n.EndByte()), named: n.IsNamed()}
	if n.IsError() || n.IsMissing() {
		out.typ = "ERROR"
	}
	for i := 0; i < int(n.ChildCount()); i++ {
		out.children = append(out.children, copyPy(n.Child(i), n.FieldNameForChild(i)))
	}
	return out
}

func (p *pyParsed) text(n *pyNode) string { return string(p.src[n.start:n.end]) }

// pySite is one change a Python rule can make.
type pySite struct {
	at    int
	desc  string
	edits []Edit
}

type pyRule struct {
	name, doc string
	sites     func(p *pyParsed) []pySite
}

func (r pyRule) Name() string     { return r.name }
func (r pyRule) Doc() string      { return r.doc }
func (r pyRule) Language() string { return "python" }

// Mutants lists the rule's mutants of the target in source order. Nested functions and
// lambdas belong to the enclosing function (as in the call graph) and are mutated with it.
func (r pyRule) Mutants(t *Target) []Mutant {
	p := t.parsePython()
	if p.err != nil {
		return nil
	}
	sites := r.sites(p)
	sort.SliceStable(sites, func(i, j int) bool { return sites[i].at < sites[j].at })
	var out []Mutant
	for _, s := range sites {
		if !sortEdits(s.edits) {
			continue
		}
		line := lineOf(p.src, s.at)
		out = append(out, Mutant{Rule: r.name, File: t.Path, Function: t.Func.String(), Line: line,
			Desc: fmt.Sprintf("%s at line %d", s.desc, line), Edits: s.edits})
	}
	return out
}

// PythonRules returns the rule-based corruption operators for Python, a fresh slice.
// Mutants are checked for syntax (SyntaxChecker) before use; Python has no type check, so a
// mutant may still fail at run time, which validation then observes.
func PythonRules() []Rule {
	return []Rule{
		pyRule{"flip-comparison", "Replace a comparison operator by its boundary or negated twin: < ↔ <=, > ↔ >=, == ↔ !=, is ↔ is not, in ↔ not in.", pyFlipComparison},
		pyRule{"negate-condition", "Negate the condition of an if, elif or while (`c` → `not (c)`, `not c` → `c`).", pyNegateCondition},
		pyRule{"swap-if-else", "Exchange the blocks of an if/else statement without elif.", pySwapIfElse},
		pyRule{"off-by-one", "Move a bound by one: an integer literal in a comparison, subscript, slice or range() ±1, or a compared len()/name −1.", pyOffByOne},
		pyRule{"arith-operator", "Change an arithmetic or bitwise operator: + ↔ -, * ↔ /, // ↔ /, % → //, << ↔ >>, & ↔ |, and += ↔ -=, *= ↔ /=.", pyArithOperator},
		pyRule{"boolean-operator", "Exchange and and or.", pyBooleanOperator},
		pyRule{"swap-call-args", "Exchange two adjacent positional arguments of a call.", pySwapArgs},
		pyRule{"swap-operands", "Exchange the operands of a non-commutative binary operator or comparison.", pySwapOperands},
		pyRule{"change-constant", "Change an integer literal outside comparisons and subscripts (0 → 1, 1 → 0, n → n+1) or flip True/False.", pyChangeConstant},
		pyRule{"remove-statement", "Drop a call statement, an assignment or an augmented assignment (pass keeps a block non-empty).", pyRemoveStatement},
		pyRule{"remove-guard", "Delete an if statement without else whose block ends by leaving (return, raise, break, continue).", pyRemoveGuard},
		pyRule{"return-other-value", "Return a different parameter or earlier-assigned local, or None, instead of a returned name.", pyReturnOther},
		pyRule{"remove-loop-control", "Delete a break or continue of a loop.", pyRemoveLoopControl},
		pyRule{"slice-bound", "Shift the start of a slice up by one or its stop down by one.", pySliceBound},
		pyRule{"swap-statements", "Exchange two adjacent dependent simple statements (they share a name).", pySwapStatements},
		pyRule{"swap-ternary", "Exchange the two branches of a conditional expression.", pySwapTernary},
	}
}

func replace(n *pyNode, text string) Edit { return Edit{Start: n.start, End: n.end, Text: text} }

var pyComparisonFlip = map[string]string{"<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=", "!=": "==", "is": "is not", "is not": "is", "in": "not in", "not in": "in"}

// comparisonOps returns the operator tokens of a comparison_operator node: single tokens,
// or the two-token "not in" / "is not" as one span.
func comparisonOps(p *pyParsed, n *pyNode) []*pyNode {
	var ops []*pyNode
	cs := n.children
	for i := 0; i < len(cs); i++ {
		c := cs[i]
		if c.named {
			continue
		}
		if (c.typ == "not" || c.typ == "is") && i+1 < len(cs) && !cs[i+1].named && (cs[i+1].typ == "in" || cs[i+1].typ == "not") {
			ops = append(ops, &pyNode{typ: c.typ + " " + cs[i+1].typ, start: c.start, end: cs[i+1].end})
			i++
			continue
		}
		ops = append(ops, c)
	}
	return ops
}

func pyFlipComparison(p *pyParsed) []pySite {
	var out []pySite
	p.body.walk(func(n *pyNode) bool {
		if n.typ == "comparison_operator" {
			for _, op := range comparisonOps(p, n) {
				if to, ok := pyComparisonFlip[op.typ]; ok {
					out = append(out, pySite{op.start, fmt.Sprintf("flip %s to %s", op.typ, to), []Edit{replace(op, to)}})
				}
			}
		}
		return true
	})
	return out
}

func negation(p *pyParsed, cond *pyNode) pySite {
	if cond.typ == "not_operator" {
		arg := cond.child("argument")
		if arg != nil {
			return pySite{cond.start, "drop the negation of a condition", []Edit{replace(cond, p.text(arg))}}
		}
	}
	t := p.text(cond)
	if cond.typ == "parenthesized_expression" || cond.typ == "identifier" || cond.typ == "call" || cond.typ == "attribute" {
		return pySite{cond.start, "negate a condition", []Edit{replace(cond, "not "+t)}}
	}
	return pySite{cond.start, "negate a condition", []Edit{replace(cond, "not ("+t+")")}}
}

func pyNegateCondition(p *pyParsed) []pySite {
	var out []pySite
	p.body.walk(func(n *pyNode) bool {
		switch n.typ {
		case "if_statement", "elif_clause", "while_statement":
			if c := n.child("condition"); c != nil {
				out = append(out, negation(p, c))
			}
		}
		return true
	})
	return out
}

func pySwapIfElse(p *pyParsed) []pySite {
	var out []pySite
	p.body.walk(func(n *pyNode) bool {
		if n.typ != "if_statement" {
			return true
		}
		var elseBody *pyNode
		for _, c := range n.children {
			if c.typ == "elif_clause" {
				return true
			}
			if c.typ == "else_clause" {
				elseBody = c.child("body")
			}
		}
		cons := n.child("consequence")
		if cons == nil || elseBody == nil || p.text(cons) == p.text(elseBody) {
			return true
		}
		// Both blocks must sit on their own lines at the same indentation for a textual swap.
		if indentOf(p.src, cons.start) != indentOf(p.src, elseBody.start) || lineStart(p.src, cons.start) == lineStart(p.src, n.start) {
			return true
		}
		out = append(out, pySite{n.start, "swap the if and else blocks", []Edit{replace(cons, p.text(elseBody)), replace(elseBody, p.text(cons))}})
		return true
	})
	return out
}

func pyInt(p *pyParsed, n *pyNode) (int64, bool) {
	if n == nil || n.typ != "integer" {
		return 0, false
	}
	v, err := strconv.ParseInt(strings.ReplaceAll(p.text(n), "_", ""), 0, 64)
	return v, err == nil
}

// pyBoundLiterals are the integer literals off-by-one owns: operands of comparisons,
// subscript indices, slice bounds and range() arguments.
func pyBoundLiterals(p *pyParsed) map[*pyNode]bool {
	owned := map[*pyNode]bool{}
	add := func(n *pyNode) {
		if _, ok := pyInt(p, n); ok {
			owned[n] = true
		}
	}
	p.body.walk(func(n *pyNode) bool {
		switch n.typ {
		case "comparison_operator", "slice":
			for _, c := range n.namedChildren() {
				add(c)
			}
		case "subscript":
			for _, c := range n.children {
				if c.field == "subscript" {
					add(c)
				}
			}
		case "call":
			if f := n.child("function"); f != nil && p.text(f) == "range" {
				if args := n.child("arguments"); args != nil {
					for _, a := range args.namedChildren() {
						add(a)
					}
				}
			}
		}
		return true
	})
	return owned
}

func intSites(n *pyNode, v int64, desc string, values ...int64) []pySite {
	var out []pySite
	for _, nv := range values {
		if nv == v || (nv < 0 && v >= 0) {
			continue
		}
		out = append(out, pySite{n.start, fmt.Sprintf("%s %d → %d", desc, v, nv), []Edit{replace(n, strconv.FormatInt(nv, 10))}})
	}
	return out
}

func pyOffByOne(p *pyParsed) []pySite {
	owned := pyBoundLiterals(p)
	var out []pySite
	p.body.walk(func(n *pyNode) bool {
		if owned[n] {
			v, _ := pyInt(p, n)
			out = append(out, intSites(n, v, "off by one:", v+1, v-1)...)
		}
		if n.typ == "comparison_operator" {
			ops := comparisonOps(p, n)
			operands := n.namedChildren()
			if len(ops) == 1 && len(operands) == 2 {
				switch ops[0].typ {
				case "<", "<=", ">", ">=":
					y := operands[1]
					if _, lit := pyInt(p, y); !lit && (y.typ == "identifier" || y.typ == "call" || y.typ == "attribute" || y.typ == "subscript") {
						out = append(out, pySite{y.start, fmt.Sprintf("off by one: bound %s → %s - 1", p.text(y), p.text(y)), []Edit{{Start: y.end, End: y.end, Text: " - 1"}}})
					}
				}
			}
		}
		return true
	})
	return out
}

var pyArithSwap = map[string]string{"+": "-", "-": "+", "*": "/", "/": "*", "//": "/", "%": "//", "<<": ">>", ">>": "<<", "&": "|", "|": "&",
	"+=": "-=", "-=": "+=", "*=": "/=", "/=": "*="}

func opToken(n *pyNode) *pyNode {
	if op := n.child("operator"); op != nil {
		return op
	}
	return nil
}

func pyArithOperator(p *pyParsed) []pySite {
	var out []pySite
	p.body.walk(func(n *pyNode) bool {
		if n.typ == "binary_operator" || n.typ == "augmented_assignment" {
			if op := opToken(n); op != nil {
				if to, ok := pyArithSwap[p.text(op)]; ok {
					out = append(out, pySite{op.start, fmt.Sprintf("change %s to %s", p.text(op), to), []Edit{replace(op, to)}})
				}
			}
		}
		return true
	})
	return out
}

func pyBooleanOperator(p *pyParsed) []pySite {
	var out []pySite
	p.body.walk(func(n *pyNode) bool {
		if n.typ == "boolean_operator" {
			if op := opToken(n); op != nil {
				to := map[string]string{"and": "or", "or": "and"}[p.text(op)]
				if to != "" {
					out = append(out, pySite{op.start, fmt.Sprintf("change %s to %s", p.text(op), to), []Edit{replace(op, to)}})
				}
			}
		}
		return true
	})
	return out
}

func pySwapArgs(p *pyParsed) []pySite {
	var out []pySite
	p.body.walk(func(n *pyNode) bool {
		if n.typ != "call" {
			return true
		}
		args := n.child("arguments")
		if args == nil || args.typ != "argument_list" {
			return true
		}
		list := args.namedChildren()
		for i := 0; i+1 < len(list); i++ {
			a, b := list[i], list[i+1]
			if !positional(a) || !positional(b) || p.text(a) == p.text(b) {
				continue
			}
			fn := ""
			if f := n.child("function"); f != nil {
				fn = p.text(f)
			}
			out = append(out, pySite{a.start, fmt.Sprintf("swap arguments %d and %d of %s", i+1, i+2, firstLine(fn)), []Edit{replace(a, p.text(b)), replace(b, p.text(a))}})
		}
		return true
	})
	return out
}

func positional(n *pyNode) bool {
	switch n.typ {
	case "keyword_argument", "list_splat", "dictionary_splat", "parenthesized_list_splat", "generator_expression":
		return false
	}
	return true
}

var pyNonCommutative = map[string]bool{"-": true, "/": true, "//": true, "%": true, "**": true, "<<": true, ">>": true}

func parenthesize(p *pyParsed, n *pyNode) string {
	switch n.typ {
	case "binary_operator", "boolean_operator", "comparison_operator", "not_operator", "conditional_expression", "lambda", "unary_operator":
		return "(" + p.text(n) + ")"
	}
	return p.text(n)
}

func pySwapOperands(p *pyParsed) []pySite {
	var out []pySite
	p.body.walk(func(n *pyNode) bool {
		var l, r *pyNode
		desc := ""
		switch n.typ {
		case "binary_operator":
			if op := opToken(n); op != nil && pyNonCommutative[p.text(op)] {
				l, r, desc = n.child("left"), n.child("right"), p.text(op)
			}
		case "comparison_operator":
			ops := comparisonOps(p, n)
			operands := n.namedChildren()
			if len(ops) == 1 && len(operands) == 2 && (ops[0].typ == "<" || ops[0].typ == "<=" || ops[0].typ == ">" || ops[0].typ == ">=") {
				l, r, desc = operands[0], operands[1], ops[0].typ
			}
		}
		if l == nil || r == nil || p.text(l) == p.text(r) {
			return true
		}
		out = append(out, pySite{n.start, "swap the operands of " + desc, []Edit{replace(l, parenthesize(p, r)), replace(r, parenthesize(p, l))}})
		return true
	})
	return out
}

func pyChangeConstant(p *pyParsed) []pySite {
	owned := pyBoundLiterals(p)
	var out []pySite
	p.body.walk(func(n *pyNode) bool {
		switch n.typ {
		case "integer":
			if owned[n] {
				return true
			}
			if v, ok := pyInt(p, n); ok {
				nv := v + 1
				switch v {
				case 0:
					nv = 1
				case 1:
					nv = 0
				}
				out = append(out, intSites(n, v, "change constant", nv)...)
			}
		case "true", "false":
			to := map[string]string{"true": "False", "false": "True"}[n.typ]
			out = append(out, pySite{n.start, fmt.Sprintf("change constant %s → %s", p.text(n), to), []Edit{replace(n, to)}})
		}
		return true
	})
	return out
}

// statements returns the statements of a block (comments excluded).
func statements(b *pyNode) []*pyNode { return b.namedChildren() }

// dropStatement removes a statement: its whole lines when alone on them, replaced by pass
// when it is the only statement of its block.
func dropStatement(p *pyParsed, block, s *pyNode, desc string) pySite {
	if len(statements(block)) == 1 {
		return pySite{s.start, desc, []Edit{replace(s, "pass")}}
	}
	a, b := s.start, s.end
	ls := lineStart(p.src, a)
	if strings.TrimSpace(string(p.src[ls:a])) == "" {
		e := b
		for e < len(p.src) && (p.src[e] == ' ' || p.src[e] == '\t' || p.src[e] == '\r') {
			e++
		}
		if e < len(p.src) && p.src[e] == '\n' {
			if ls >= p.body.start {
				return pySite{s.start, desc, []Edit{{Start: ls, End: e + 1}}}
			}
			// The body's first line: its indentation lies before the body span, so keep it
			// and pull the next line up to it instead.
			n := e + 1
			for n < len(p.src) && (p.src[n] == ' ' || p.src[n] == '\t') {
				n++
			}
			return pySite{s.start, desc, []Edit{{Start: s.start, End: n}}}
		}
	}
	return pySite{s.start, desc, []Edit{replace(s, "pass")}}
}

// blocksOf calls f for every block in the function body, the body included.
func (p *pyParsed) blocksOf(f func(block *pyNode)) {
	p.body.walk(func(n *pyNode) bool {
		if n.typ == "block" {
			f(n)
		}
		return true
	})
}

func isDocstring(p *pyParsed, block, s *pyNode) bool {
	if block != p.body || len(block.children) == 0 || statements(block)[0] != s || s.typ != "expression_statement" {
		return false
	}
	cs := s.namedChildren()
	return len(cs) == 1 && (cs[0].typ == "string" || cs[0].typ == "concatenated_string")
}

func pyRemoveStatement(p *pyParsed) []pySite {
	var out []pySite
	p.blocksOf(func(block *pyNode) {
		for _, s := range statements(block) {
			if s.typ != "expression_statement" || isDocstring(p, block, s) {
				continue
			}
			inner := s.namedChildren()
			if len(inner) != 1 {
				continue
			}
			switch inner[0].typ {
			case "call", "await":
				out = append(out, dropStatement(p, block, s, "remove the call "+firstLine(p.text(s))))
			case "augmented_assignment", "assignment":
				if inner[0].typ == "assignment" && inner[0].child("right") == nil {
					continue // a bare annotation
				}
				out = append(out, dropStatement(p, block, s, "drop the update "+firstLine(p.text(s))))
			}
		}
	})
	return out
}

func leavesPy(s *pyNode) bool {
	switch s.typ {
	case "return_statement", "raise_statement", "break_statement", "continue_statement":
		return true
	}
	return false
}

func pyRemoveGuard(p *pyParsed) []pySite {
	var out []pySite
	p.blocksOf(func(block *pyNode) {
		for _, s := range statements(block) {
			if s.typ != "if_statement" || s.child("alternative") != nil {
				continue
			}
			hasElse := false
			for _, c := range s.children {
				if c.typ == "elif_clause" || c.typ == "else_clause" {
					hasElse = true
				}
			}
			cons := s.child("consequence")
			if hasElse || cons == nil {
				continue
			}
			st := statements(cons)
			if len(st) == 0 || !leavesPy(st[len(st)-1]) {
				continue
			}
			cond := ""
			if c := s.child("condition"); c != nil {
				cond = firstLine(p.text(c))
			}
			out = append(out, dropStatement(p, block, s, "remove the guard if "+cond))
		}
	})
	return out
}

// pyNames returns parameters and names assigned in the function, with the offset where
// each is first bound, in that order.
func pyNames(p *pyParsed) []struct {
	name string
	at   int
} {
	var out []struct {
		name string
		at   int
	}
	seen := map[string]bool{}
	add := func(n *pyNode) {
		if n == nil || n.typ != "identifier" {
			return
		}
		name := p.text(n)
		if seen[name] || name == "self" || name == "cls" || name == "_" {
			return
		}
		seen[name] = true
		out = append(out, struct {
			name string
			at   int
		}{name, n.end})
	}
	if params := p.fn.child("parameters"); params != nil {
		for _, c := range params.namedChildren() {
			switch c.typ {
			case "identifier":
				add(c)
			case "default_parameter", "typed_parameter", "typed_default_parameter":
				if nm := c.child("name"); nm != nil {
					add(nm)
				} else if cs := c.namedChildren(); len(cs) > 0 {
					add(cs[0])
				}
			}
		}
	}
	p.body.walk(func(n *pyNode) bool {
		switch n.typ {
		case "function_definition", "lambda", "class_definition":
			return false // their names are not locals of this scope's values
		case "assignment", "augmented_assignment":
			add(n.child("left"))
		case "for_statement":
			add(n.child("left"))
		}
		return true
	})
	return out
}

func pyReturnOther(p *pyParsed) []pySite {
	names := pyNames(p)
	var out []pySite
	p.body.walk(func(n *pyNode) bool {
		switch n.typ {
		case "function_definition", "lambda", "class_definition":
			return false
		case "return_statement":
			vals := n.namedChildren()
			if len(vals) != 1 || vals[0].typ != "identifier" {
				return true
			}
			cur := p.text(vals[0])
			used := 0
			for _, nm := range names {
				if nm.name == cur || nm.at > n.start || used == 3 {
					continue
				}
				used++
				out = append(out, pySite{vals[0].start, fmt.Sprintf("return %s instead of %s", nm.name, cur), []Edit{replace(vals[0], nm.name)}})
			}
			out = append(out, pySite{vals[0].start, fmt.Sprintf("return None instead of %s", cur), []Edit{replace(vals[0], "None")}})
		}
		return true
	})
	return out
}

func pyRemoveLoopControl(p *pyParsed) []pySite {
	var out []pySite
	var walk func(n *pyNode, inLoop bool)
	walk = func(n *pyNode, inLoop bool) {
		for _, c := range n.children {
			switch c.typ {
			case "for_statement", "while_statement":
				// The else clause of a loop is outside the loop for break/continue.
				for _, cc := range c.children {
					walk(cc, cc.field == "body")
				}
				continue
			case "function_definition", "class_definition", "lambda":
				walk(c, false)
				continue
			case "block":
				if inLoop {
					for _, s := range statements(c) {
						if s.typ == "break_statement" || s.typ == "continue_statement" {
							out = append(out, dropStatement(p, c, s, "remove "+strings.TrimSuffix(s.typ, "_statement")))
						}
					}
				}
			}
			walk(c, inLoop)
		}
	}
	walk(p.body, false)
	return out
}

func pySliceBound(p *pyParsed) []pySite {
	var out []pySite
	p.body.walk(func(n *pyNode) bool {
		if n.typ != "slice" {
			return true
		}
		// A slice's children: [start] ':' [stop] [':' [step]].
		var start, stop *pyNode
		colons := 0
		firstColon := -1
		for _, c := range n.children {
			if !c.named && c.typ == ":" {
				if colons == 0 {
					firstColon = c.start
				}
				colons++
				continue
			}
			if c.named && c.typ != "comment" {
				switch colons {
				case 0:
					start = c
				case 1:
					stop = c
				}
			}
		}
		if start != nil {
			if v, ok := pyInt(p, start); ok {
				out = append(out, pySite{start.start, "raise the slice start by one", []Edit{replace(start, strconv.FormatInt(v+1, 10))}})
			} else {
				out = append(out, pySite{start.start, "raise the slice start by one", []Edit{replace(start, parenthesize(p, start)+" + 1")}})
			}
		} else if firstColon >= 0 {
			out = append(out, pySite{firstColon, "start the slice at 1", []Edit{{Start: firstColon, End: firstColon, Text: "1"}}})
		}
		if stop != nil {
			if v, ok := pyInt(p, stop); ok {
				out = append(out, pySite{stop.start, "lower the slice stop by one", []Edit{replace(stop, strconv.FormatInt(v-1, 10))}})
			} else {
				out = append(out, pySite{stop.start, "lower the slice stop by one", []Edit{replace(stop, parenthesize(p, stop)+" - 1")}})
			}
		}
		return true
	})
	return out
}

func pyIdents(p *pyParsed, n *pyNode) map[string]bool {
	out := map[string]bool{}
	n.walk(func(c *pyNode) bool {
		if c.typ == "identifier" {
			out[p.text(c)] = true
		}
		return true
	})
	return out
}

func pySimple(s *pyNode) bool {
	if s.typ != "expression_statement" {
		return false
	}
	in := s.namedChildren()
	return len(in) == 1 && (in[0].typ == "assignment" || in[0].typ == "augmented_assignment" || in[0].typ == "call")
}

func pySwapStatements(p *pyParsed) []pySite {
	var out []pySite
	p.blocksOf(func(block *pyNode) {
		st := statements(block)
		for i := 0; i+1 < len(st); i++ {
			a, b := st[i], st[i+1]
			if !pySimple(a) || !pySimple(b) || p.text(a) == p.text(b) || lineOf(p.src, a.end) == lineOf(p.src, b.start) {
				continue
			}
			ia, ib := pyIdents(p, a), pyIdents(p, b)
			shared := false
			for k := range ia {
				if ib[k] {
					shared = true
					break
				}
			}
			if shared {
				out = append(out, pySite{a.start, "swap two dependent statements", []Edit{replace(a, p.text(b)), replace(b, p.text(a))}})
			}
		}
	})
	return out
}

func pySwapTernary(p *pyParsed) []pySite {
	var out []pySite
	p.body.walk(func(n *pyNode) bool {
		if n.typ != "conditional_expression" {
			return true
		}
		cs := n.namedChildren()
		if len(cs) != 3 || p.text(cs[0]) == p.text(cs[2]) {
			return true
		}
		out = append(out, pySite{n.start, "swap the branches of a conditional expression", []Edit{replace(cs[0], parenthesize(p, cs[2])), replace(cs[2], parenthesize(p, cs[0]))}})
		return true
	})
	return out
}
