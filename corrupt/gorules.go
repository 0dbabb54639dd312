package corrupt

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"sort"
	"strconv"
	"strings"
)

// goParsed is a Go file parsed once per target.
type goParsed struct {
	fset *token.FileSet
	tf   *token.File
	file *ast.File
	src  []byte
	fn   *ast.FuncDecl // the target function
	err  error
}

func (t *Target) parseGo() *goParsed {
	if t.goFile != nil {
		return t.goFile
	}
	p := &goParsed{fset: token.NewFileSet(), src: t.Src}
	p.file, p.err = parser.ParseFile(p.fset, t.Path, t.Src, parser.ParseComments|parser.SkipObjectResolution)
	if p.err == nil {
		p.tf = p.fset.File(p.file.Pos())
		for _, d := range p.file.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			if p.off(fd.Body.Lbrace) <= t.Func.Body.Start && t.Func.Body.Start < p.off(fd.Body.Rbrace)+1 {
				p.fn = fd
				break
			}
		}
		if p.fn == nil {
			p.err = fmt.Errorf("corrupt: %s: no Go function body at byte %d", t.Path, t.Func.Body.Start)
		}
	}
	t.goFile = p
	return p
}

func (p *goParsed) off(pos token.Pos) int { return p.tf.Offset(pos) }

func (p *goParsed) text(n ast.Node) string { return string(p.src[p.off(n.Pos()):p.off(n.End())]) }

func (p *goParsed) line(pos token.Pos) int { return p.tf.Line(pos) }

// stmtLineSpan widens a statement's span to whole lines when nothing but white space shares
// its lines, so removing it leaves no blank line behind.
func (p *goParsed) stmtLineSpan(n ast.Node) (int, int) {
	start, end := p.off(n.Pos()), p.off(n.End())
	s := start
	for s > 0 && (p.src[s-1] == ' ' || p.src[s-1] == '\t') {
		s--
	}
	e := end
	for e < len(p.src) && (p.src[e] == ' ' || p.src[e] == '\t' || p.src[e] == '\r') {
		e++
	}
	if (s == 0 || p.src[s-1] == '\n') && e < len(p.src) && p.src[e] == '\n' {
		return s, e + 1
	}
	return start, end
}

// goSite is one change a Go rule can make.
type goSite struct {
	pos   token.Pos
	desc  string
	edits []Edit
}

// goRule is a Go corruption operator defined by the sites it finds in a function body.
type goRule struct {
	name, doc string
	sites     func(p *goParsed, body *ast.BlockStmt) []goSite
}

func (r goRule) Name() string     { return r.name }
func (r goRule) Doc() string      { return r.doc }
func (r goRule) Language() string { return "go" }

// Mutants lists the rule's mutants of the target, in source order.
func (r goRule) Mutants(t *Target) []Mutant {
	p := t.parseGo()
	if p.err != nil {
		return nil
	}
	sites := r.sites(p, p.fn.Body)
	sort.SliceStable(sites, func(i, j int) bool { return sites[i].pos < sites[j].pos })
	var out []Mutant
	for _, s := range sites {
		if !sortEdits(s.edits) {
			continue
		}
		out = append(out, Mutant{
			Rule:     r.name,
			File:     t.Path,
			Function: t.Func.String(),
			Line:     p.line(s.pos),
			Desc:     fmt.Sprintf("%s at line %d", s.desc, p.line(s.pos)),
			Edits:    s.edits,
		})
	}
	return out
}

// GoRules returns the rule-based corruption operators for Go, a fresh slice the caller may
// filter or reorder. Each mutant is later re-type-checked (see GoChecker) and discarded if
// it does not compile.
func GoRules() []Rule {
	return []Rule{
		goRule{"flip-comparison", "Replace a comparison operator by its boundary or negated twin: < ↔ <=, > ↔ >=, == ↔ !=.", goFlipComparison},
		goRule{"negate-condition", "Negate the condition of an if or for statement (or drop an existing !).", goNegateCondition},
		goRule{"swap-if-else", "Exchange the then and else blocks of an if statement.", goSwapIfElse},
		goRule{"off-by-one", "Move a bound by one: an integer literal in a comparison, index or slice ±1, or a compared length/variable −1.", goOffByOne},
		goRule{"arith-operator", "Change an arithmetic or bitwise operator: + ↔ -, * ↔ /, % → /, & ↔ |, << ↔ >> (also in op-assignments).", goArithOperator},
		goRule{"boolean-operator", "Exchange && and ||.", goBooleanOperator},
		goRule{"swap-call-args", "Exchange two adjacent arguments of a call.", goSwapArgs},
		goRule{"swap-operands", "Exchange the operands of a non-commutative binary operator.", goSwapOperands},
		goRule{"change-constant", "Change an integer literal outside comparisons and indices (0 → 1, 1 → 0, n → n+1) or flip true/false.", goChangeConstant},
		goRule{"remove-statement", "Drop a call statement or increment, or turn an assignment x = e into _ = e so the update is lost.", goRemoveStatement},
		goRule{"remove-guard", "Delete an if statement without else whose block ends by leaving (return, break, continue, panic).", goRemoveGuard},
		goRule{"return-other-value", "Return a different in-scope variable instead of a returned identifier or literal.", goReturnOther},
		goRule{"remove-loop-control", "Delete a break or continue that controls a loop.", goRemoveLoopControl},
		goRule{"slice-bound", "Shift the low bound of a slice expression up by one or its high bound down by one.", goSliceBound},
		goRule{"swap-statements", "Exchange two adjacent dependent simple statements (they share a variable).", goSwapStatements},
		goRule{"flip-incdec", "Exchange ++ and --.", goFlipIncDec},
	}
}

// inspect walks the body, including function literals (folded into their enclosing
// function, as the call graph does).
func inspect(body *ast.BlockStmt, f func(ast.Node) bool) { ast.Inspect(body, f) }

var comparisonFlip = map[token.Token]token.Token{
	token.LSS: token.LEQ, token.LEQ: token.LSS,
	token.GTR: token.GEQ, token.GEQ: token.GTR,
	token.EQL: token.NEQ, token.NEQ: token.EQL,
}

func opEdit(p *goParsed, pos token.Pos, from, to token.Token) Edit {
	s := p.off(pos)
	return Edit{Start: s, End: s + len(from.String()), Text: to.String()}
}

func goFlipComparison(p *goParsed, body *ast.BlockStmt) []goSite {
	var out []goSite
	inspect(body, func(n ast.Node) bool {
		if be, ok := n.(*ast.BinaryExpr); ok {
			if to, ok := comparisonFlip[be.Op]; ok {
				out = append(out, goSite{be.OpPos, fmt.Sprintf("flip %s to %s", be.Op, to), []Edit{opEdit(p, be.OpPos, be.Op, to)}})
			}
		}
		return true
	})
	return out
}

func condSite(p *goParsed, cond ast.Expr) goSite {
	if u, ok := cond.(*ast.UnaryExpr); ok && u.Op == token.NOT {
		s := p.off(u.OpPos)
		return goSite{cond.Pos(), "drop the negation of a condition", []Edit{{Start: s, End: s + 1}}}
	}
	s, e := p.off(cond.Pos()), p.off(cond.End())
	if _, ok := cond.(*ast.ParenExpr); ok {
		return goSite{cond.Pos(), "negate a condition", []Edit{{Start: s, End: s, Text: "!"}}}
	}
	return goSite{cond.Pos(), "negate a condition", []Edit{{Start: s, End: s, Text: "!("}, {Start: e, End: e, Text: ")"}}}
}

func goNegateCondition(p *goParsed, body *ast.BlockStmt) []goSite {
	var out []goSite
	inspect(body, func(n ast.Node) bool {
		switch s := n.(type) {
		case *ast.IfStmt:
			out = append(out, condSite(p, s.Cond))
		case *ast.ForStmt:
			if s.Cond != nil {
				out = append(out, condSite(p, s.Cond))
			}
		}
		return true
	})
	return out
}

func goSwapIfElse(p *goParsed, body *ast.BlockStmt) []goSite {
	var out []goSite
	inspect(body, func(n ast.Node) bool {
		s, ok := n.(*ast.IfStmt)
		if !ok {
			return true
		}
		els, ok := s.Else.(*ast.BlockStmt)
		if !ok {
			return true
		}
		a, b := p.text(s.Body), p.text(els)
		if a == b {
			return true
		}
		out = append(out, goSite{s.If, "swap the if and else blocks", []Edit{
			{Start: p.off(s.Body.Pos()), End: p.off(s.Body.End()), Text: b},
			{Start: p.off(els.Pos()), End: p.off(els.End()), Text: a},
		}})
		return true
	})
	return out
}

func intLit(e ast.Expr) (*ast.BasicLit, int64, bool) {
	bl, ok := e.(*ast.BasicLit)
	if !ok || bl.Kind != token.INT {
		return nil, 0, false
	}
	v, err := strconv.ParseInt(strings.ReplaceAll(bl.Value, "_", ""), 0, 64)
	if err != nil {
		return nil, 0, false
	}
	return bl, v, true
}

// boundPositions collects the integer literals the off-by-one rule owns (so change-constant
// leaves them alone): operands of comparisons, indices and slice bounds.
func boundLiterals(body *ast.BlockStmt) map[*ast.BasicLit]bool {
	owned := map[*ast.BasicLit]bool{}
	add := func(e ast.Expr) {
		if bl, _, ok := intLit(e); ok {
			owned[bl] = true
		}
	}
	inspect(body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.BinaryExpr:
			if _, ok := comparisonFlip[x.Op]; ok {
				add(x.X)
				add(x.Y)
			}
		case *ast.IndexExpr:
			add(x.Index)
		case *ast.SliceExpr:
			add(x.Low)
			add(x.High)
			add(x.Max)
		}
		return true
	})
	return owned
}

func literalSites(p *goParsed, bl *ast.BasicLit, v int64, desc string, values ...int64) []goSite {
	var out []goSite
	for _, nv := range values {
		if nv == v || nv < 0 && v >= 0 {
			continue
		}
		out = append(out, goSite{bl.Pos(), fmt.Sprintf("%s %s → %d", desc, bl.Value, nv), []Edit{{Start: p.off(bl.Pos()), End: p.off(bl.End()), Text: strconv.FormatInt(nv, 10)}}})
	}
	return out
}

// primary reports whether appending "-1" to e's text binds to e as a whole.
func primary(e ast.Expr) bool {
	switch e.(type) {
	case *ast.Ident, *ast.CallExpr, *ast.SelectorExpr, *ast.IndexExpr, *ast.ParenExpr:
		return true
	}
	return false
}

func goOffByOne(p *goParsed, body *ast.BlockStmt) []goSite {
	owned := boundLiterals(body)
	var out []goSite
	inspect(body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.BasicLit:
			if owned[x] {
				_, v, _ := intLit(x)
				out = append(out, literalSites(p, x, v, "off by one:", v+1, v-1)...)
			}
		case *ast.BinaryExpr:
			if x.Op == token.LSS || x.Op == token.LEQ || x.Op == token.GTR || x.Op == token.GEQ {
				if _, _, lit := intLit(x.Y); !lit && primary(x.Y) {
					e := p.off(x.Y.End())
					out = append(out, goSite{x.Y.Pos(), fmt.Sprintf("off by one: bound %s → %s-1", p.text(x.Y), p.text(x.Y)), []Edit{{Start: e, End: e, Text: "-1"}}})
				}
			}
		}
		return true
	})
	return out
}

var arithSwap = map[token.Token]token.Token{
	token.ADD: token.SUB, token.SUB: token.ADD,
	token.MUL: token.QUO, token.QUO: token.MUL, token.REM: token.QUO,
	token.AND: token.OR, token.OR: token.AND,
	token.SHL: token.SHR, token.SHR: token.SHL,
	token.ADD_ASSIGN: token.SUB_ASSIGN, token.SUB_ASSIGN: token.ADD_ASSIGN,
	token.MUL_ASSIGN: token.QUO_ASSIGN, token.QUO_ASSIGN: token.MUL_ASSIGN,
}

func goArithOperator(p *goParsed, body *ast.BlockStmt) []goSite {
	var out []goSite
	inspect(body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.BinaryExpr:
			if to, ok := arithSwap[x.Op]; ok {
				out = append(out, goSite{x.OpPos, fmt.Sprintf("change %s to %s", x.Op, to), []Edit{opEdit(p, x.OpPos, x.Op, to)}})
			}
		case *ast.AssignStmt:
			if to, ok := arithSwap[x.Tok]; ok {
				out = append(out, goSite{x.TokPos, fmt.Sprintf("change %s to %s", x.Tok, to), []Edit{opEdit(p, x.TokPos, x.Tok, to)}})
			}
		}
		return true
	})
	return out
}

func goBooleanOperator(p *goParsed, body *ast.BlockStmt) []goSite {
	var out []goSite
	inspect(body, func(n ast.Node) bool {
		if x, ok := n.(*ast.BinaryExpr); ok && (x.Op == token.LAND || x.Op == token.LOR) {
			to := token.LAND
			if x.Op == token.LAND {
				to = token.LOR
			}
			out = append(out, goSite{x.OpPos, fmt.Sprintf("change %s to %s", x.Op, to), []Edit{opEdit(p, x.OpPos, x.Op, to)}})
		}
		return true
	})
	return out
}

func swapEdits(p *goParsed, a, b ast.Node, wrap bool) []Edit {
	ta, tb := p.text(a), p.text(b)
	if wrap {
		if _, ok := a.(*ast.BinaryExpr); ok {
			ta = "(" + ta + ")"
		}
		if _, ok := b.(*ast.BinaryExpr); ok {
			tb = "(" + tb + ")"
		}
	}
	return []Edit{
		{Start: p.off(a.Pos()), End: p.off(a.End()), Text: tb},
		{Start: p.off(b.Pos()), End: p.off(b.End()), Text: ta},
	}
}

func goSwapArgs(p *goParsed, body *ast.BlockStmt) []goSite {
	var out []goSite
	inspect(body, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		last := len(c.Args) - 1
		if c.Ellipsis.IsValid() {
			last-- // never move the spread argument
		}
		for i := 0; i < last; i++ {
			if p.text(c.Args[i]) == p.text(c.Args[i+1]) {
				continue
			}
			out = append(out, goSite{c.Args[i].Pos(), fmt.Sprintf("swap arguments %d and %d of %s", i+1, i+2, p.text(c.Fun)), swapEdits(p, c.Args[i], c.Args[i+1], false)})
		}
		return true
	})
	return out
}

var nonCommutative = map[token.Token]bool{
	token.SUB: true, token.QUO: true, token.REM: true, token.SHL: true, token.SHR: true,
	token.LSS: true, token.LEQ: true, token.GTR: true, token.GEQ: true, token.AND_NOT: true,
}

func goSwapOperands(p *goParsed, body *ast.BlockStmt) []goSite {
	var out []goSite
	inspect(body, func(n ast.Node) bool {
		x, ok := n.(*ast.BinaryExpr)
		if !ok || !nonCommutative[x.Op] || p.text(x.X) == p.text(x.Y) {
			return true
		}
		out = append(out, goSite{x.OpPos, fmt.Sprintf("swap the operands of %s", x.Op), swapEdits(p, x.X, x.Y, true)})
		return true
	})
	return out
}

func goChangeConstant(p *goParsed, body *ast.BlockStmt) []goSite {
	owned := boundLiterals(body)
	var out []goSite
	inspect(body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.BasicLit:
			if owned[x] {
				return true
			}
			if _, v, ok := intLit(x); ok {
				nv := v + 1
				switch v {
				case 0:
					nv = 1
				case 1:
					nv = 0
				}
				out = append(out, literalSites(p, x, v, "change constant", nv)...)
			}
		case *ast.Ident:
			if x.Name == "true" || x.Name == "false" {
				to := "false"
				if x.Name == "false" {
					to = "true"
				}
				out = append(out, goSite{x.Pos(), fmt.Sprintf("change constant %s → %s", x.Name, to), []Edit{{Start: p.off(x.Pos()), End: p.off(x.End()), Text: to}}})
			}
		}
		return true
	})
	return out
}

// blocks calls f for every statement list in the body (blocks, case and comm clauses).
func blocks(body *ast.BlockStmt, f func(list []ast.Stmt)) {
	inspect(body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.BlockStmt:
			f(x.List)
		case *ast.CaseClause:
			f(x.Body)
		case *ast.CommClause:
			f(x.Body)
		}
		return true
	})
}

func removal(p *goParsed, s ast.Node, desc string) goSite {
	a, b := p.stmtLineSpan(s)
	return goSite{s.Pos(), desc, []Edit{{Start: a, End: b}}}
}

func goRemoveStatement(p *goParsed, body *ast.BlockStmt) []goSite {
	var out []goSite
	blocks(body, func(list []ast.Stmt) {
		for _, s := range list {
			switch x := s.(type) {
			case *ast.ExprStmt:
				if _, ok := x.X.(*ast.CallExpr); ok {
					out = append(out, removal(p, x, "remove the call "+firstLine(p.text(x))))
				}
			case *ast.IncDecStmt:
				out = append(out, removal(p, x, "remove "+p.text(x)))
			case *ast.AssignStmt:
				if x.Tok == token.DEFINE || len(x.Lhs) != 1 || len(x.Rhs) != 1 {
					continue
				}
				if id, ok := x.Lhs[0].(*ast.Ident); ok && id.Name == "_" {
					continue
				}
				if x.Tok != token.ASSIGN {
					if _, ok := arithSwap[x.Tok]; !ok && x.Tok != token.AND_ASSIGN && x.Tok != token.OR_ASSIGN &&
						x.Tok != token.XOR_ASSIGN && x.Tok != token.SHL_ASSIGN && x.Tok != token.SHR_ASSIGN &&
						x.Tok != token.REM_ASSIGN && x.Tok != token.AND_NOT_ASSIGN {
						continue
					}
				}
				out = append(out, goSite{x.Pos(), "drop the update " + firstLine(p.text(x)), []Edit{{Start: p.off(x.Pos()), End: p.off(x.Rhs[0].Pos()), Text: "_ = "}}})
			}
		}
	})
	return out
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// leaves reports whether a statement ends the enclosing flow: return, break, continue,
// goto, or a panic call.
func leaves(s ast.Stmt) bool {
	switch x := s.(type) {
	case *ast.ReturnStmt, *ast.BranchStmt:
		return true
	case *ast.ExprStmt:
		if c, ok := x.X.(*ast.CallExpr); ok {
			if id, ok := c.Fun.(*ast.Ident); ok && id.Name == "panic" {
				return true
			}
		}
	}
	return false
}

func goRemoveGuard(p *goParsed, body *ast.BlockStmt) []goSite {
	var out []goSite
	blocks(body, func(list []ast.Stmt) {
		for _, s := range list {
			x, ok := s.(*ast.IfStmt)
			if !ok || x.Else != nil || len(x.Body.List) == 0 || !leaves(x.Body.List[len(x.Body.List)-1]) {
				continue
			}
			out = append(out, removal(p, x, "remove the guard if "+p.text(x.Cond)))
		}
	})
	return out
}

// scopeNames returns the names of parameters, named results and local variables declared in
// the function, each with the position where it becomes visible, in declaration order.
func scopeNames(fn *ast.FuncDecl) []struct {
	name string
	pos  token.Pos
} {
	var out []struct {
		name string
		pos  token.Pos
	}
	seen := map[string]bool{}
	add := func(id *ast.Ident) {
		if id == nil || id.Name == "_" || seen[id.Name] {
			return
		}
		seen[id.Name] = true
		out = append(out, struct {
			name string
			pos  token.Pos
		}{id.Name, id.End()})
	}
	fields := func(fl *ast.FieldList) {
		if fl == nil {
			return
		}
		for _, f := range fl.List {
			for _, n := range f.Names {
				add(n)
			}
		}
	}
	fields(fn.Recv)
	fields(fn.Type.Params)
	fields(fn.Type.Results)
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.AssignStmt:
			if x.Tok == token.DEFINE {
				for _, l := range x.Lhs {
					if id, ok := l.(*ast.Ident); ok {
						add(id)
					}
				}
			}
		case *ast.ValueSpec:
			for _, n := range x.Names {
				add(n)
			}
		case *ast.RangeStmt:
			if id, ok := x.Key.(*ast.Ident); ok && x.Tok == token.DEFINE {
				add(id)
			}
			if id, ok := x.Value.(*ast.Ident); ok && x.Tok == token.DEFINE {
				add(id)
			}
		case *ast.FuncLit:
			return false // a closure's locals are not visible outside it
		}
		return true
	})
	return out
}

func goReturnOther(p *goParsed, body *ast.BlockStmt) []goSite {
	names := scopeNames(p.fn)
	var out []goSite
	inspect(body, func(n ast.Node) bool {
		if _, ok := n.(*ast.FuncLit); ok {
			return false // closures return their own values
		}
		r, ok := n.(*ast.ReturnStmt)
		if !ok {
			return true
		}
		for _, res := range r.Results {
			switch res.(type) {
			case *ast.Ident, *ast.BasicLit:
			default:
				continue
			}
			cur := p.text(res)
			if cur == "nil" {
				continue // a nil error or pointer swapped for a value rarely type-checks
			}
			used := 0
			for _, nm := range names {
				if nm.name == cur || nm.pos > r.Pos() || used == 3 {
					continue
				}
				used++
				out = append(out, goSite{res.Pos(), fmt.Sprintf("return %s instead of %s", nm.name, cur),
					[]Edit{{Start: p.off(res.Pos()), End: p.off(res.End()), Text: nm.name}}})
			}
		}
		return true
	})
	return out
}

func goRemoveLoopControl(p *goParsed, body *ast.BlockStmt) []goSite {
	var out []goSite
	// walk keeps the stack of enclosing breakable statements.
	var walk func(n ast.Node, inLoop, inSwitch bool)
	walk = func(n ast.Node, inLoop, inSwitch bool) {
		ast.Inspect(n, func(c ast.Node) bool {
			if c == n {
				return true
			}
			switch x := c.(type) {
			case *ast.ForStmt:
				walk(x.Body, true, false)
				return false
			case *ast.RangeStmt:
				walk(x.Body, true, false)
				return false
			case *ast.SwitchStmt:
				walk(x.Body, inLoop, true)
				return false
			case *ast.TypeSwitchStmt:
				walk(x.Body, inLoop, true)
				return false
			case *ast.SelectStmt:
				walk(x.Body, inLoop, true)
				return false
			case *ast.FuncLit:
				walk(x.Body, false, false)
				return false
			case *ast.BranchStmt:
				if x.Label != nil || !inLoop {
					return false
				}
				if x.Tok == token.CONTINUE || (x.Tok == token.BREAK && !inSwitch) {
					out = append(out, removal(p, x, "remove "+x.Tok.String()))
				}
			}
			return true
		})
	}
	walk(body, false, false)
	return out
}

func wrapArith(p *goParsed, e ast.Expr, op string) string {
	if _, v, ok := intLit(e); ok {
		d, _ := strconv.ParseInt(op, 10, 64) // "+1" or "-1"
		return strconv.FormatInt(v+d, 10)
	}
	t := p.text(e)
	if !primary(e) {
		if _, ok := e.(*ast.BasicLit); !ok {
			t = "(" + t + ")"
		}
	}
	return t + op
}

func goSliceBound(p *goParsed, body *ast.BlockStmt) []goSite {
	var out []goSite
	inspect(body, func(n ast.Node) bool {
		x, ok := n.(*ast.SliceExpr)
		if !ok {
			return true
		}
		if x.Low != nil {
			out = append(out, goSite{x.Low.Pos(), "raise the low slice bound by one", []Edit{{Start: p.off(x.Low.Pos()), End: p.off(x.Low.End()), Text: wrapArith(p, x.Low, "+1")}}})
		} else {
			s := p.off(x.Lbrack) + 1
			out = append(out, goSite{x.Lbrack, "start the slice at 1", []Edit{{Start: s, End: s, Text: "1"}}})
		}
		if x.High != nil {
			out = append(out, goSite{x.High.Pos(), "lower the high slice bound by one", []Edit{{Start: p.off(x.High.Pos()), End: p.off(x.High.End()), Text: wrapArith(p, x.High, "-1")}}})
		}
		return true
	})
	return out
}

func simpleStmt(s ast.Stmt) bool {
	switch x := s.(type) {
	case *ast.AssignStmt:
		return x.Tok != token.DEFINE
	case *ast.IncDecStmt, *ast.ExprStmt:
		return true
	}
	return false
}

func idents(n ast.Node) map[string]bool {
	out := map[string]bool{}
	ast.Inspect(n, func(c ast.Node) bool {
		if id, ok := c.(*ast.Ident); ok && id.Name != "_" {
			out[id.Name] = true
		}
		return true
	})
	return out
}

func goSwapStatements(p *goParsed, body *ast.BlockStmt) []goSite {
	var out []goSite
	blocks(body, func(list []ast.Stmt) {
		for i := 0; i+1 < len(list); i++ {
			a, b := list[i], list[i+1]
			if !simpleStmt(a) || !simpleStmt(b) || p.text(a) == p.text(b) {
				continue
			}
			ia, ib := idents(a), idents(b)
			shared := false
			for k := range ia {
				if ib[k] {
					shared = true
					break
				}
			}
			if !shared {
				continue // independent statements: swapping them changes nothing
			}
			out = append(out, goSite{a.Pos(), "swap two dependent statements", swapEdits(p, a, b, false)})
		}
	})
	return out
}

func goFlipIncDec(p *goParsed, body *ast.BlockStmt) []goSite {
	var out []goSite
	inspect(body, func(n ast.Node) bool {
		if x, ok := n.(*ast.IncDecStmt); ok {
			to := token.DEC
			if x.Tok == token.DEC {
				to = token.INC
			}
			out = append(out, goSite{x.TokPos, fmt.Sprintf("change %s to %s", x.Tok, to), []Edit{opEdit(p, x.TokPos, x.Tok, to)}})
		}
		return true
	})
	return out
}
