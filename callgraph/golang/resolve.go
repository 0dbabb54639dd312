package golang

import (
	"sort"

	"github.com/faultline-dev/faultline/callgraph"
)

// binding is what a local name is known to hold.
type binding struct {
	t   *typ
	lit bool  // a function literal: its code is folded into the enclosing definition
	fns []*fn // a function value naming these module functions
	loc loc   // the variable's type-flow location (0 until needed)
}

// scope is a lexical block of local names.
type scope struct {
	parent *scope
	names  map[string]*binding
}

func newScope(parent *scope) *scope { return &scope{parent: parent} }

func (s *scope) lookup(name string) *binding {
	for ; s != nil; s = s.parent {
		if b, ok := s.names[name]; ok {
			return b
		}
	}
	return nil
}

func (s *scope) declare(name string, b *binding) {
	if name == "_" || name == "" {
		return
	}
	if s.names == nil {
		s.names = map[string]*binding{}
	}
	if b == nil {
		b = &binding{}
	}
	s.names[name] = b
}

// walker resolves the call sites of one definition.
type walker struct {
	a       *analyzer
	f       *file
	caller  int // definition index of the caller, -1 for type inference only
	tparams map[string]bool
	// out receives the calls (nil when caller is -1); rec, when not nil, the type-flow
	// facts (InterfacesTypeFlow). cur is the declared function whose code is walked (nil
	// inside function literals and module code).
	out    *fileCalls
	rec    *flowRec
	cur    *fn
	curLit *node // the innermost function literal being walked, when cur is nil
}

// fileCalls is what resolving a file adds to the Analysis, merged in file order: its
// calls in walk order and its counts of call sites.
type fileCalls struct {
	calls           []callgraph.Call
	sites, resolved int
}

// resolveFile resolves the calls of a file's module-level code and functions (bodies are
// its decoded bodies, see file.bodies); rec is nil without type flow.
func (a *analyzer) resolveFile(f *file, bodies []*node, rec *flowRec) *fileCalls {
	out := &fileCalls{}
	if f.module >= 0 {
		w := &walker{a: a, f: f, caller: f.module, out: out, rec: rec}
		for _, d := range f.root.Kids {
			if d.Type == "var_declaration" {
				specs, _ := f.valueSpecs(a.fe.grammar, d)
				for _, s := range specs {
					if v := s.Child("value"); v != nil {
						w.walk(v, newScope(nil))
					}
				}
			}
		}
	}
	for _, g := range f.fns {
		w := &walker{a: a, f: f, caller: g.def, tparams: g.tparams, out: out, rec: rec, cur: g}
		sc := newScope(nil)
		if g.recv != "" {
			w.declareParams(g.decl.Child("receiver"), sc)
		}
		w.declareParamLocs(g.decl.Child("parameters"), sc, g, false)
		w.declareParamLocs(g.decl.Child("result"), sc, g, true)
		if body := bodies[g.ord]; body != nil {
			w.walkKids(body, sc)
		}
	}
	return out
}

func (w *walker) declareParams(list *node, sc *scope) {
	w.declareParamLocs(list, sc, nil, false)
}

// declareLitParams declares the parameters (or named results) of function literal lit
// at its type-flow locations.
func (w *walker) declareLitParams(lit, list *node, sc *scope, results bool) {
	at := w.sink().litParam
	if results {
		at = w.sink().litResult
	}
	k := w.f.key(lit)
	w.declareList(list, sc, func(pos int) loc { return at(k, pos) })
}

// declareParamLocs declares a parameter or result list; with g and type flow, the
// variables are g's parameter (or result) locations.
func (w *walker) declareParamLocs(list *node, sc *scope, g *fn, results bool) {
	if g == nil || !w.flowing() {
		w.declareList(list, sc, nil)
		return
	}
	at := w.sink().param
	if results {
		at = w.sink().result
	}
	w.declareList(list, sc, func(pos int) loc { return at(g, pos) })
}

// declareList declares the names of a parameter list with their types; locAt, when not
// nil, gives the type-flow location of the parameter at each position (an unnamed
// parameter takes a position too).
func (w *walker) declareList(list *node, sc *scope, locAt func(pos int) loc) {
	if list == nil || list.Type != "parameter_list" {
		return
	}
	pos := 0
	for _, pd := range list.NamedKids() {
		var t *typ
		switch pd.Type {
		case "parameter_declaration":
			t = w.f.typeExpr(pd.Child("type"), w.tparams)
		case "variadic_parameter_declaration":
			t = &typ{kind: tSlice, elem: w.f.typeExpr(pd.Child("type"), w.tparams)}
		default:
			continue
		}
		names := pd.Children("name")
		for _, nm := range names {
			b := &binding{t: t}
			if locAt != nil {
				b.loc = locAt(pos)
			}
			sc.declare(nm.Text(w.f.src), b)
			pos++
		}
		if len(names) == 0 {
			pos++
		}
	}
}

func (w *walker) walkKids(n *node, sc *scope) {
	for _, k := range n.Kids {
		w.walk(k, sc)
	}
}

func (w *walker) walk(n *node, sc *scope) {
	switch n.Type {
	case "comment", "type_declaration":
		return
	case "func_literal":
		inner := newScope(sc)
		if w.flowing() {
			w.declareLitParams(n, n.Child("parameters"), inner, false)
			w.declareLitParams(n, n.Child("result"), inner, true)
		} else {
			w.declareParams(n.Child("parameters"), inner)
			w.declareParams(n.Child("result"), inner)
		}
		if body := n.Child("body"); body != nil {
			cur, lit := w.cur, w.curLit
			w.cur, w.curLit = nil, n
			w.walkKids(body, inner)
			w.cur, w.curLit = cur, lit
		}
		return
	case "block":
		w.walkKids(n, newScope(sc))
		return
	case "short_var_declaration":
		if r := n.Child("right"); r != nil {
			w.walk(r, sc)
		}
		var rhs []flow
		ls := exprList(n.Child("left"))
		if w.flowing() {
			rhs = w.rhsFlows(len(ls), n.Child("right"), sc)
		}
		w.assign(n.Child("left"), n.Child("right"), nil, sc)
		if w.flowing() {
			w.assignFlows(ls, rhs, sc)
		}
		return
	case "assignment_statement":
		w.walkKids(n, sc)
		if w.flowing() && n.FirstOfType("=") != nil {
			ls := exprList(n.Child("left"))
			w.assignFlows(ls, w.rhsFlows(len(ls), n.Child("right"), sc), sc)
			w.mapKeyFlows(ls, sc)
		}
		return
	case "send_statement":
		w.walkKids(n, sc)
		if w.flowing() {
			w.sink().flowTo(w.elemDst(n.Child("channel"), sc, false), w.flowOf(n.Child("value"), sc))
		}
		return
	case "return_statement":
		w.walkKids(n, sc)
		if w.flowing() {
			w.returnFlows(n, sc)
		}
		return
	case "composite_literal":
		w.walkKids(n, sc)
		if w.flowing() {
			w.literalFlows(n.Child("body"), w.f.typeExpr(n.Child("type"), w.tparams), sc, 0)
		}
		return
	case "var_declaration":
		for _, s := range varSpecs(n) {
			if v := s.Child("value"); v != nil {
				w.walk(v, sc)
			}
			var declared *typ
			if t := s.Child("type"); t != nil {
				declared = w.f.typeExpr(t, w.tparams)
			}
			var rhs []flow
			names := s.Children("name")
			if w.flowing() {
				rhs = w.rhsFlows(len(names), s.Child("value"), sc)
			}
			w.assignNames(names, s.Child("value"), declared, sc)
			if w.flowing() {
				w.assignFlows(names, rhs, sc)
			}
		}
		return
	case "const_declaration":
		for _, s := range n.NamedKids() {
			for _, nm := range s.Children("name") {
				sc.declare(nm.Text(w.f.src), nil)
			}
		}
		return
	case "if_statement", "for_statement", "expression_switch_statement", "select_statement":
		w.walkKids(n, newScope(sc))
		return
	case "expression_case", "default_case", "communication_case":
		w.walkKids(n, newScope(sc))
		return
	case "range_clause":
		r := n.Child("right")
		if r != nil {
			w.walk(r, sc)
		}
		ids := exprList(n.Child("left"))
		if n.FirstOfType(":=") != nil {
			k, v := rangeTypes(w.typeOf(r, sc))
			ts := []*typ{k, v}
			for i, id := range ids {
				if i < 2 {
					sc.declare(id.Text(w.f.src), &binding{t: ts[i]})
				}
			}
		}
		if w.flowing() && r != nil {
			kf, vf := w.rangeFlows(r, sc)
			w.assignFlows(ids, []flow{kf, vf}, sc)
		}
		return
	case "receive_statement":
		r := n.Child("right")
		if r != nil {
			w.walk(r, sc)
		}
		if n.FirstOfType(":=") != nil {
			for i, id := range exprList(n.Child("left")) {
				var t *typ
				if i == 0 {
					t = w.typeOf(r, sc)
				}
				sc.declare(id.Text(w.f.src), &binding{t: t})
			}
		}
		return
	case "type_switch_statement":
		w.typeSwitch(n, newScope(sc))
		return
	case "call_expression":
		w.call(n, n.Child("function"), n.Child("arguments"), sc)
		if w.flowing() {
			w.callFlows(n, sc)
		}
	case "type_conversion_expression":
		// F[int](x) parses as a conversion to a generic type; it is a call when F is a
		// function.
		if t := n.Child("type"); t != nil && t.Type == "generic_type" {
			if base := t.Child("type"); base != nil && len(w.funcsNamed(base, sc)) > 0 {
				w.call(n, base, n.FirstOfType("("), sc)
			}
		}
	}
	w.walkKids(n, sc)
}

// typeSwitch walks `switch v := x.(type)`, typing v in each single-type clause.
func (w *walker) typeSwitch(n *node, sc *scope) {
	if init := n.Child("initializer"); init != nil {
		w.walk(init, sc)
	}
	val := n.Child("value")
	if val != nil {
		w.walk(val, sc)
	}
	alias := exprList(n.Child("alias"))
	xt := w.typeOf(val, sc)
	for _, c := range n.Kids {
		if c.Type != "type_case" && c.Type != "default_case" {
			continue
		}
		cs := newScope(sc)
		var types []*node
		for _, t := range c.Children("type") {
			if t.Named {
				types = append(types, t)
			}
		}
		if len(alias) == 1 {
			t := xt
			if len(types) == 1 {
				t = w.f.typeExpr(types[0], w.tparams)
			}
			b := &binding{t: t}
			cs.declare(alias[0].Text(w.f.src), b)
			if w.flowing() {
				w.sink().flowTo([]loc{w.bindingLoc(b)}, w.flowOf(val, sc))
			}
		}
		for _, k := range c.Kids {
			if k.Field != "type" {
				w.walk(k, cs)
			}
		}
	}
}

// exprList returns the expressions of an expression_list (or the node itself).
func exprList(n *node) []*node {
	if n == nil {
		return nil
	}
	if n.Type != "expression_list" {
		return []*node{n}
	}
	var out []*node
	for _, k := range n.Kids {
		if k.Named && k.Type != "comment" {
			out = append(out, k)
		}
	}
	return out
}

// assign declares the identifiers of left with what the right expressions hold.
func (w *walker) assign(left, right *node, declared *typ, sc *scope) {
	w.assignNames(exprList(left), right, declared, sc)
}

func (w *walker) assignNames(ids []*node, right *node, declared *typ, sc *scope) {
	rs := exprList(right)
	for i, id := range ids {
		if id.Type != "identifier" {
			continue
		}
		var b *binding
		switch {
		case declared != nil:
			b = &binding{t: declared}
		case len(rs) == len(ids):
			b = w.bindingFor(rs[i], sc)
		case len(rs) == 1:
			r := stripParens(rs[0])
			if r.Type == "call_expression" {
				if res := w.callResults(r, sc); i < len(res) {
					b = &binding{t: res[i]}
				}
			} else if i == 0 {
				b = &binding{t: w.typeOf(r, sc)}
			}
		}
		sc.declare(id.Text(w.f.src), b)
	}
}

// bindingFor describes what a variable initialised with e holds.
func (w *walker) bindingFor(e *node, sc *scope) *binding {
	e = stripParens(e)
	switch e.Type {
	case "func_literal":
		return &binding{lit: true, t: w.typeOf(e, sc)}
	case "identifier", "selector_expression":
		if fns, folded := w.callee(e, sc); folded {
			return &binding{lit: true}
		} else if len(fns) > 0 && w.isFuncRef(e, sc) {
			return &binding{fns: fns, t: funcType(fns[0])}
		}
	}
	return &binding{t: w.typeOf(e, sc)}
}

// isFuncRef reports whether e names a function or method value rather than a variable.
func (w *walker) isFuncRef(e *node, sc *scope) bool {
	if e.Type == "identifier" {
		b := sc.lookup(e.Text(w.f.src))
		return b == nil || len(b.fns) > 0
	}
	return true
}

// indexForm returns the index expression the grammar misparses as a generic type
// instantiation: in expression position a[x][y] (a a variable, x and y identifiers) comes
// out as type_instantiation_expression(generic_type(a, [x]), y). Other nodes are returned
// as they are. The rewritten nodes keep the byte spans of the originals.
func (w *walker) indexForm(e *node, sc *scope) *node {
	if e == nil || e.Type != "type_instantiation_expression" {
		return e
	}
	k := w.f.key(e)
	isIndex, ok := w.f.reindexed[k]
	ix := reindex(e)
	if !ok {
		isIndex = ix != nil && w.isValueName(innermost(ix), sc)
		if w.f.reindexed == nil {
			w.f.reindexed = map[nodeKey]bool{}
		}
		w.f.reindexed[k] = isIndex
	}
	if !isIndex {
		return e
	}
	return ix
}

// reindex converts a misparsed a[x][y] to index_expression nodes, or returns nil.
func reindex(n *node) *node {
	switch n.Type {
	case "type_instantiation_expression", "generic_type":
		var base *node
		var args []*node
		for _, k := range n.Kids {
			switch {
			case !k.Named || k.Type == "comment":
			case k.Field == "type" && base == nil:
				base = k
			case k.Type == "type_arguments":
				args = append(args, k.NamedKids()...)
			default:
				args = append(args, k)
			}
		}
		if base == nil || len(args) != 1 && n.Type == "generic_type" {
			return nil
		}
		op := reindex(base)
		for _, a := range args {
			x := reindex(a)
			if op == nil || x == nil {
				return nil
			}
			op = &node{Type: "index_expression", Start: n.Start, End: a.End, Row: n.Row, Col: n.Col,
				Named: true, Kids: []*node{withField(op, "operand"), withField(x, "index")}}
		}
		return op
	case "qualified_type":
		pk, nm := n.Child("package"), n.Child("name")
		if pk == nil || nm == nil {
			return nil
		}
		return &node{Type: "selector_expression", Start: n.Start, End: n.End, Row: n.Row, Col: n.Col,
			Named: true, Kids: []*node{withField(retype(pk, "identifier"), "operand"), withField(retype(nm, "field_identifier"), "field")}}
	case "type_identifier":
		return retype(n, "identifier")
	case "type_elem":
		if k := lastNamed(n); k != nil {
			return reindex(k)
		}
	}
	return nil
}

func retype(n *node, t string) *node {
	c := *n
	c.Type, c.Kids = t, nil
	return &c
}

func withField(n *node, f string) *node {
	c := *n
	c.Field = f
	return &c
}

// innermost returns the operand at the bottom of nested index and selector expressions.
func innermost(n *node) *node {
	for n != nil && (n.Type == "index_expression" || n.Type == "selector_expression") {
		n = n.Child("operand")
	}
	return n
}

// isValueName reports whether identifier n names a variable (local or package-level)
// rather than a type or a function.
func (w *walker) isValueName(n *node, sc *scope) bool {
	if n == nil || n.Type != "identifier" {
		return false
	}
	name := n.Text(w.f.src)
	if b := sc.lookup(name); b != nil {
		return len(b.fns) == 0
	}
	return len(w.f.pkg.vars[name]) > 0
}

func stripParens(n *node) *node {
	for n != nil && n.Type == "parenthesized_expression" {
		n = lastNamed(n)
	}
	return n
}

// call records one call site: fx is the called expression, at the node giving its line.
func (w *walker) call(site, fx, at *node, sc *scope) {
	if w.caller < 0 {
		return
	}
	out, def := w.out, &w.a.out.Definitions[w.caller]
	out.sites++
	fns, folded := w.callee(fx, sc)
	if folded && w.flowing() && site.Type == "call_expression" {
		// A call of a variable holding a function literal: no edge, but its arguments
		// flow into the literal's parameters.
		if d := w.dynamicCall(site, sc); d != nil {
			w.rec.pending = append(w.rec.pending, pendingCall{pos: len(out.calls), dyn: d, counted: true})
		}
	}
	if !folded && len(fns) == 0 {
		if w.flowing() {
			line := lineOf(site)
			if at != nil {
				line = lineOf(at)
			}
			p := pendingCall{pos: len(out.calls), caller: def.ID, file: def.File, line: line}
			if p.site = w.ifaceCall(fx, sc, true); p.site == nil && site.Type == "call_expression" {
				p.dyn = w.dynamicCall(site, sc)
			}
			if p.site != nil || p.dyn != nil {
				w.rec.pending = append(w.rec.pending, p)
			}
		}
		return
	}
	out.resolved++
	line := lineOf(site)
	if at != nil {
		line = lineOf(at)
	}
	caller := def.ID
	seen := map[string]bool{}
	for _, g := range fns {
		if seen[g.id] {
			continue
		}
		seen[g.id] = true
		out.calls = append(out.calls, callgraph.Call{Caller: caller, Callee: g.id, Line: line})
	}
}

// callee resolves a called expression. folded reports a call of a function literal, whose
// code belongs to the enclosing definition.
func (w *walker) callee(fx *node, sc *scope) (fns []*fn, folded bool) {
	fx = stripParens(fx)
	if fx == nil {
		return nil, false
	}
	switch fx.Type {
	case "identifier", "type_identifier":
		if b := sc.lookup(fx.Text(w.f.src)); b != nil {
			return b.fns, b.lit
		}
		return w.pkgFuncs(fx.Text(w.f.src)), false
	case "func_literal":
		return nil, true
	case "index_expression": // F[int] or pkg.F[T]
		return w.funcsNamed(fx.Child("operand"), sc), false
	case "generic_type":
		return w.funcsNamed(fx.Child("type"), sc), false
	case "selector_expression":
		return w.selectorCallee(fx, sc), false
	}
	return nil, false
}

// funcsNamed resolves a name of a function (identifier, pkg.F or a type identifier the
// grammar mistook for one) without method lookups.
func (w *walker) funcsNamed(n *node, sc *scope) []*fn {
	n = stripParens(n)
	if n == nil {
		return nil
	}
	switch n.Type {
	case "identifier", "type_identifier":
		if b := sc.lookup(n.Text(w.f.src)); b != nil {
			return b.fns
		}
		return w.pkgFuncs(n.Text(w.f.src))
	case "selector_expression", "qualified_type":
		opField, nameField := "operand", "field"
		if n.Type == "qualified_type" {
			opField, nameField = "package", "name"
		}
		op := n.Child(opField)
		if op == nil || (op.Type != "identifier" && op.Type != "package_identifier") || sc.lookup(op.Text(w.f.src)) != nil {
			return nil
		}
		if im := w.f.imports[op.Text(w.f.src)]; im != nil && im.pkg != nil {
			return im.pkg.funcs[n.Child(nameField).Text(w.f.src)]
		}
	}
	return nil
}

// pkgFuncs returns the package-level functions of the file's package (or of a dot import)
// with the given name.
func (w *walker) pkgFuncs(name string) []*fn {
	if fns := w.f.pkg.funcs[name]; len(fns) > 0 {
		return fns
	}
	for _, im := range w.f.dots {
		if im.pkg != nil {
			if fns := im.pkg.funcs[name]; len(fns) > 0 {
				return fns
			}
		}
	}
	return nil
}

// importOf returns the import an identifier names, unless a local or package-level name
// shadows it.
func (w *walker) importOf(n *node, sc *scope) *imp {
	if n == nil || n.Type != "identifier" {
		return nil
	}
	name := n.Text(w.f.src)
	if sc.lookup(name) != nil {
		return nil
	}
	return w.f.imports[name]
}

// typeNamed returns the type an expression names (T, pkg.T, *T), or nil when it is not a
// type name.
func (w *walker) typeNamed(n *node, sc *scope) *typ {
	n = stripParens(n)
	if n == nil {
		return nil
	}
	switch n.Type {
	case "identifier", "type_identifier":
		name := n.Text(w.f.src)
		if sc.lookup(name) != nil || len(w.f.pkg.vars[name]) > 0 || len(w.f.pkg.funcs[name]) > 0 {
			return nil
		}
		if d := w.f.pkg.types[name]; d != nil {
			return named(d)
		}
		for _, im := range w.f.dots {
			if im.pkg != nil && im.pkg.types[name] != nil {
				return named(im.pkg.types[name])
			}
		}
		if builtinTypes[name] {
			return &typ{kind: tNamed, ext: name}
		}
	case "selector_expression":
		if im := w.importOf(n.Child("operand"), sc); im != nil {
			return w.f.importedType(im, n.Child("field").Text(w.f.src))
		}
	case "unary_expression":
		if op := n.Child("operator"); op != nil && op.Type == "*" {
			return ptrTo(w.typeNamed(n.Child("operand"), sc))
		}
	case "pointer_type", "qualified_type", "generic_type", "slice_type", "array_type", "map_type",
		"channel_type", "function_type", "struct_type", "interface_type":
		return w.f.typeExpr(n, w.tparams)
	}
	return nil
}

// selectorCallee resolves x.M(...): a package function, a method expression T.M, or a
// method on the syntactic type of x.
func (w *walker) selectorCallee(sel *node, sc *scope) []*fn {
	op := stripParens(sel.Child("operand"))
	name := sel.Child("field").Text(w.f.src)
	if im := w.importOf(op, sc); im != nil {
		if im.pkg != nil {
			return im.pkg.funcs[name]
		}
		return nil
	}
	if t := w.typeNamed(op, sc); t != nil {
		return w.methodTargets(t, name)
	}
	return w.methodTargets(w.typeOf(op, sc), name)
}

// methodTargets returns the methods a call of method name on a value of type t reaches.
func (w *walker) methodTargets(t *typ, name string) []*fn {
	t = deref(t)
	if t == nil {
		return nil
	}
	switch t.kind {
	case tNamed:
		if t.decl == nil {
			if ms, ok := knownIfaces[t.ext]; ok {
				ar := map[string]arity{}
				for _, m := range ms {
					if k, ok := knownArity[m]; ok && m != "Value" {
						ar[m] = k
					}
				}
				return w.a.memo(&w.a.chaMemo, chaKey{ext: t.ext, name: name}, func() []*fn {
					return w.a.implementers(append([]string{name}, ms...), name, ar)
				})
			}
			return nil
		}
		if u := t.decl.underlying(); u != nil && u.kind == tIface {
			return w.a.ifaceTargets(u, name)
		}
	case tIface:
		return w.a.ifaceTargets(t, name)
	case tStruct:
	default:
		return nil
	}
	fns, iface := findMethod(t, name)
	if len(fns) > 0 {
		return fns
	}
	if iface != nil {
		return w.methodTargets(iface, name)
	}
	return nil
}

// findMethod looks up method name on t and its embedded fields, breadth first (Go's
// promotion rule: the shallowest depth wins). It returns the methods found, or the
// embedded interface type that provides the method.
func findMethod(t *typ, name string) ([]*fn, *typ) {
	fns, iface, _, _ := findMethodVia(t, name)
	return fns, iface
}

// findMethodVia is findMethod that also names the embedded field through which an
// interface provides the method: the type declaring the field and the field's name
// (owner is nil when t itself is the interface).
func findMethodVia(t *typ, name string) (fns []*fn, iface *typ, owner *typeDecl, fieldName string) {
	type item struct {
		t     *typ
		owner *typeDecl
		field string
	}
	level := []item{{t: t}}
	seen := map[*typeDecl]bool{}
	for depth := 0; depth < 8 && len(level) > 0; depth++ {
		var found []*fn
		var via *item
		var next []item
		blocked := false
		for i := range level {
			it := &level[i]
			lt := deref(it.t)
			if lt == nil {
				continue
			}
			var fields []field
			var decl *typeDecl
			switch {
			case lt.kind == tNamed && lt.decl != nil:
				if seen[lt.decl] {
					continue
				}
				seen[lt.decl] = true
				if ms := lt.decl.methods[name]; len(ms) > 0 {
					found = append(found, ms...)
					continue
				}
				u := lt.decl.underlying()
				if u == nil {
					continue
				}
				if u.kind == tIface {
					if ifaceMayHave(u, name, 0) && via == nil {
						via = it
					}
					continue
				}
				if u.kind == tStruct {
					fields, decl = u.fields, lt.decl
				}
			case lt.kind == tNamed:
				if ms, ok := knownIfaces[lt.ext]; ok && contains(ms, name) && via == nil {
					via = it
				}
				continue
			case lt.kind == tStruct:
				fields = lt.fields
			case lt.kind == tIface:
				if ifaceMayHave(lt, name, 0) && via == nil {
					via = it
				}
				continue
			}
			for _, fd := range fields {
				if fd.embedded {
					next = append(next, item{t: fd.t, owner: decl, field: fd.name})
				} else if fd.name == name {
					blocked = true
				}
			}
		}
		if len(found) > 0 {
			return found, nil, nil, ""
		}
		if via != nil {
			return nil, via.t, via.owner, via.field
		}
		if blocked {
			return nil, nil, nil, ""
		}
		level = next
	}
	return nil, nil, nil, ""
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// ifaceMayHave reports whether interface type t has method name, as far as its known
// method set tells (an embedded interface of unknown method set may have it).
func ifaceMayHave(t *typ, name string, depth int) bool {
	if depth > 8 {
		return false
	}
	if contains(t.methods, name) {
		return true
	}
	for _, e := range t.embeds {
		switch {
		case e.kind == tNamed && e.decl != nil:
			if u := e.decl.underlying(); u != nil && u.kind == tIface && ifaceMayHave(u, name, depth+1) {
				return true
			}
		case e.kind == tNamed:
			if ms, ok := knownIfaces[e.ext]; !ok || contains(ms, name) {
				return true
			}
		}
	}
	return false
}

// ifaceMethods lists the known method names of an interface type, and the arity of
// those declared in the module when ar is not nil.
func ifaceMethods(t *typ, into map[string]bool, depth int, ar ...map[string]arity) {
	if depth > 8 {
		return
	}
	for _, m := range t.methods {
		into[m] = true
		if len(ar) > 0 && ar[0] != nil {
			if a, ok := t.arity[m]; ok {
				ar[0][m] = a
			}
		}
	}
	for _, e := range t.embeds {
		switch {
		case e.kind == tNamed && e.decl != nil:
			if u := e.decl.underlying(); u != nil && u.kind == tIface {
				ifaceMethods(u, into, depth+1, ar...)
			}
		case e.kind == tNamed:
			for _, m := range knownIfaces[e.ext] {
				into[m] = true
			}
		}
	}
}

// ifaceTargets expands a call of method name through interface type t (InterfacesCHA).
func (a *analyzer) ifaceTargets(t *typ, name string) []*fn {
	if a.fe.opts.mode() != InterfacesCHA {
		return nil
	}
	return a.memo(&a.chaMemo, chaKey{it: t, name: name}, func() []*fn { return a.ifaceTargetsUncached(t, name) })
}

// memo returns (*m)[k], computing and remembering it on first use: the expansions of
// interface methods compare signatures, which is too slow to repeat at every call site.
// Files are resolved in parallel, so the memos are shared under a lock; compute runs
// outside it. The expansions are functions of their keys once the declarations are
// settled (see settle), so two walks computing one key agree; the first one stored stays.
func (a *analyzer) memo(m *map[chaKey][]*fn, k chaKey, compute func() []*fn) []*fn {
	a.memoMu.Lock()
	fns, ok := (*m)[k]
	a.memoMu.Unlock()
	if ok {
		return fns
	}
	fns = compute()
	a.memoMu.Lock()
	defer a.memoMu.Unlock()
	if old, ok := (*m)[k]; ok {
		return old
	}
	if *m == nil {
		*m = map[chaKey][]*fn{}
	}
	(*m)[k] = fns
	return fns
}

func (a *analyzer) ifaceTargetsUncached(t *typ, name string) []*fn {
	set := map[string]bool{name: true}
	ar := map[string]arity{}
	ifaceMethods(t, set, 0, ar)
	req := make([]string, 0, len(set))
	for m := range set {
		req = append(req, m)
	}
	sort.Strings(req)
	return a.implementers(req, name, ar)
}

// implementers returns method name of every non-interface named type of the module whose
// method set contains all of req (empty unless Options.CHA), with the parameter and result
// counts given in ar for the methods it lists.
func (a *analyzer) implementers(req []string, name string, ar map[string]arity) []*fn {
	if a.fe.opts.mode() != InterfacesCHA {
		return nil
	}
	return a.chaTargets(req, name, ar, true)
}

// chaTargets is implementers regardless of the interface mode; onlyLive false also
// admits types whose values the code never creates.
func (a *analyzer) chaTargets(req []string, name string, ar map[string]arity, onlyLive bool) []*fn {
	var out []*fn
	seen := map[*fn]bool{}
	var live map[*typeDecl]bool
	cands := a.named
	if onlyLive {
		live = a.liveTypes()
	} else if len(req) > 0 {
		cands = a.typesWithMethod(req[0])
	}
	for _, td := range cands {
		if (onlyLive && !live[td]) || td.isIface() {
			continue
		}
		if !td.covers(req, ar) {
			continue
		}
		for _, g := range td.methodSet()[name] {
			if !seen[g] {
				seen[g] = true
				out = append(out, g)
			}
		}
	}
	return out
}

// typesWithMethod returns the non-interface named types whose method set has the method
// name, in the order of a.named: the only ones that can cover a requirement listing it.
func (a *analyzer) typesWithMethod(name string) []*typeDecl {
	if a.byMethod == nil {
		a.byMethod = map[string][]*typeDecl{}
		for _, td := range a.named {
			if td.isIface() {
				continue
			}
			for m := range td.methodSet() {
				a.byMethod[m] = append(a.byMethod[m], td)
			}
		}
	}
	return a.byMethod[name]
}

// covers reports whether d's method set has every method of req, with the parameter and
// result counts given in ar for those it lists.
func (d *typeDecl) covers(req []string, ar map[string]arity) bool {
	ms := d.methodSet()
	for _, m := range req {
		fns, has := ms[m]
		if !has {
			return false
		}
		if want, known := ar[m]; known && len(fns) > 0 && !fns[0].fits(want) {
			return false
		}
	}
	return true
}

// methodSet returns the names of d's methods, declared or promoted through embedding,
// with the methods that implement them (none for methods promoted from an interface).
func (d *typeDecl) methodSet() map[string][]*fn {
	if d.msetDone {
		return d.mset
	}
	d.msetDone = true
	ms := map[string][]*fn{}
	level := []*typ{named(d)}
	seen := map[*typeDecl]bool{}
	for depth := 0; depth < 8 && len(level) > 0; depth++ {
		add := map[string][]*fn{}
		var next []*typ
		for _, lt := range level {
			lt = deref(lt)
			if lt == nil {
				continue
			}
			var fields []field
			switch {
			case lt.kind == tNamed && lt.decl != nil:
				if seen[lt.decl] {
					continue
				}
				seen[lt.decl] = true
				for m, fns := range lt.decl.methods {
					add[m] = append(add[m], fns...)
				}
				u := lt.decl.underlying()
				if u != nil && u.kind == tIface {
					names := map[string]bool{}
					ifaceMethods(u, names, 0)
					for m := range names {
						if _, ok := add[m]; !ok {
							add[m] = nil
						}
					}
				} else if u != nil && u.kind == tStruct {
					fields = u.fields
				}
			case lt.kind == tNamed:
				for _, m := range knownIfaces[lt.ext] {
					if _, ok := add[m]; !ok {
						add[m] = nil
					}
				}
			case lt.kind == tStruct:
				fields = lt.fields
			}
			for _, fd := range fields {
				if fd.embedded {
					next = append(next, fd.t)
				}
			}
		}
		for m, fns := range add {
			if _, ok := ms[m]; !ok {
				ms[m] = fns
			}
		}
		level = next
	}
	d.mset = ms
	return ms
}

func funcType(g *fn) *typ {
	params, _ := g.paramInfo()
	return &typ{kind: tFunc, results: g.resultTypes(), params: params}
}

// rangeTypes returns the key and value types of ranging over a value of type t.
func rangeTypes(t *typ) (*typ, *typ) {
	t = under(deref(t))
	if t == nil {
		return nil, nil
	}
	if t.kind == tPtr { // pointer to array
		t = under(t.elem)
	}
	if t == nil {
		return nil, nil
	}
	switch t.kind {
	case tSlice:
		return nil, t.elem
	case tMap:
		return t.key, t.elem
	case tChan:
		return t.elem, nil
	}
	return nil, nil
}

// under returns the underlying type of a module named type, else t.
func under(t *typ) *typ {
	if t != nil && t.kind == tNamed && t.decl != nil {
		if u := t.decl.underlying(); u != nil {
			return u
		}
	}
	return t
}

// typeOf infers the syntactic type of an expression, or nil.
func (w *walker) typeOf(e *node, sc *scope) *typ {
	e = w.indexForm(stripParens(e), sc)
	if e == nil {
		return nil
	}
	switch e.Type {
	case "identifier":
		name := e.Text(w.f.src)
		if b := sc.lookup(name); b != nil {
			return b.t
		}
		if vs := w.f.pkg.vars[name]; len(vs) > 0 {
			return w.a.varType(vs[0])
		}
		if fns := w.f.pkg.funcs[name]; len(fns) > 0 {
			return funcType(fns[0])
		}
		for _, im := range w.f.dots {
			if im.pkg != nil && len(im.pkg.vars[name]) > 0 {
				return w.a.varType(im.pkg.vars[name][0])
			}
		}
	case "composite_literal":
		return w.f.typeExpr(e.Child("type"), w.tparams)
	case "unary_expression":
		op := e.Child("operator")
		if op == nil {
			return nil
		}
		x := e.Child("operand")
		switch op.Type {
		case "&":
			return ptrTo(w.typeOf(x, sc))
		case "*":
			return deref(w.typeOf(x, sc))
		case "<-":
			if t := under(w.typeOf(x, sc)); t != nil && t.kind == tChan {
				return t.elem
			}
		}
	case "call_expression":
		if res := w.callResults(e, sc); len(res) > 0 {
			return res[0]
		}
	case "type_conversion_expression":
		t := e.Child("type")
		if t != nil && t.Type == "generic_type" {
			if fns := w.funcsNamed(t.Child("type"), sc); len(fns) > 0 {
				if res := fns[0].resultTypes(); len(res) > 0 {
					return res[0]
				}
				return nil
			}
		}
		return w.f.typeExpr(t, w.tparams)
	case "selector_expression":
		name := e.Child("field").Text(w.f.src)
		op := e.Child("operand")
		if im := w.importOf(stripParens(op), sc); im != nil {
			if im.pkg == nil {
				return nil
			}
			if vs := im.pkg.vars[name]; len(vs) > 0 {
				return w.a.varType(vs[0])
			}
			if fns := im.pkg.funcs[name]; len(fns) > 0 {
				return funcType(fns[0])
			}
			return nil
		}
		return memberType(w.typeOf(op, sc), name)
	case "index_expression":
		t := under(deref(w.typeOf(e.Child("operand"), sc)))
		if t == nil {
			if fns := w.funcsNamed(e.Child("operand"), sc); len(fns) > 0 {
				return funcType(fns[0])
			}
			return nil
		}
		if t.kind == tPtr {
			t = under(t.elem)
		}
		if t != nil && (t.kind == tSlice || t.kind == tMap) {
			return t.elem
		}
	case "slice_expression":
		return w.typeOf(e.Child("operand"), sc)
	case "type_assertion_expression":
		return w.f.typeExpr(e.Child("type"), w.tparams)
	case "func_literal":
		return &typ{kind: tFunc, results: w.f.resultTypes(e.Child("result"), w.tparams),
			params: w.f.paramTypes(e.Child("parameters"), w.tparams)}
	}
	return nil
}

// ifaceResults returns the declared result types of method name of interface type t,
// looking through embedded interfaces declared in the module.
func ifaceResults(t *typ, name string, depth int) ([]*typ, bool) {
	if depth > 8 {
		return nil, false
	}
	if a, ok := t.arity[name]; ok {
		return a.types.results, true
	}
	for _, e := range t.embeds {
		if e.kind == tNamed && e.decl != nil {
			if u := e.decl.underlying(); u != nil && u.kind == tIface {
				if res, ok := ifaceResults(u, name, depth+1); ok {
					return res, true
				}
			}
		}
	}
	return nil, false
}

// walkEmbedded calls visit on t and then on the types embedded in its struct fields,
// breadth first (shallowest first, as Go promotes members), for up to 8 levels, each
// module-declared type once; pointers are dereferenced. visit returns the fields whose
// embedded members make up the next level, and stop to end the walk.
func walkEmbedded(t *typ, visit func(lt *typ) (fields []field, stop bool)) {
	level := []*typ{t}
	seen := map[*typeDecl]bool{}
	for depth := 0; depth < 8 && len(level) > 0; depth++ {
		var next []*typ
		for _, lt := range level {
			lt = deref(lt)
			if lt == nil {
				continue
			}
			if lt.kind == tNamed && lt.decl != nil {
				if seen[lt.decl] {
					continue
				}
				seen[lt.decl] = true
			}
			fields, stop := visit(lt)
			if stop {
				return
			}
			for _, fd := range fields {
				if fd.embedded {
					next = append(next, fd.t)
				}
			}
		}
		level = next
	}
}

// memberType returns the type of field or method value name of a value of type t.
func memberType(t *typ, name string) *typ {
	var mt *typ
	walkEmbedded(t, func(lt *typ) ([]field, bool) {
		var fields []field
		switch {
		case lt.kind == tNamed && lt.decl != nil:
			if ms := lt.decl.methods[name]; len(ms) > 0 {
				mt = funcType(ms[0])
				return nil, true
			}
			if u := lt.decl.underlying(); u != nil && u.kind == tStruct {
				fields = u.fields
			} else if u != nil && u.kind == tIface {
				if res, ok := ifaceResults(u, name, 0); ok {
					mt = &typ{kind: tFunc, results: res}
					return nil, true
				}
			}
		case lt.kind == tStruct:
			fields = lt.fields
		case lt.kind == tIface:
			if res, ok := ifaceResults(lt, name, 0); ok {
				mt = &typ{kind: tFunc, results: res}
				return nil, true
			}
		}
		for _, fd := range fields {
			if !fd.embedded && fd.name == name {
				mt = fd.t
				return nil, true
			}
		}
		for _, fd := range fields {
			if fd.embedded && fd.name == name {
				mt = fd.t
				return nil, true
			}
		}
		return fields, false
	})
	return mt
}

// callResults returns the result types of a call expression: of the resolved function,
// of a conversion, of new/make/append, or of a call through a value of function type.
func (w *walker) callResults(call *node, sc *scope) []*typ {
	fx := stripParens(call.Child("function"))
	if fx == nil {
		return nil
	}
	args := exprList(firstArgList(call))
	if fx.Type == "identifier" && sc.lookup(fx.Text(w.f.src)) == nil && w.f.pkg.funcs[fx.Text(w.f.src)] == nil {
		switch fx.Text(w.f.src) {
		case "new":
			if len(args) > 0 {
				return []*typ{ptrTo(w.typeNamedOrExpr(args[0], sc))}
			}
			return nil
		case "make":
			if len(args) > 0 {
				return []*typ{w.typeNamedOrExpr(args[0], sc)}
			}
			return nil
		case "append":
			if len(args) > 0 {
				return []*typ{w.typeOf(args[0], sc)}
			}
			return nil
		}
	}
	if t := w.typeNamed(fx, sc); t != nil {
		return []*typ{t}
	}
	if fns, _ := w.callee(fx, sc); len(fns) > 0 {
		return fns[0].resultTypes()
	}
	if t := under(w.typeOf(fx, sc)); t != nil && t.kind == tFunc {
		return t.results
	}
	return nil
}

func (w *walker) typeNamedOrExpr(n *node, sc *scope) *typ {
	if t := w.typeNamed(n, sc); t != nil {
		return t
	}
	return w.f.typeExpr(n, w.tparams)
}

func firstArgList(call *node) *node {
	a := call.Child("arguments")
	if a == nil {
		return nil
	}
	list := &node{Type: "expression_list"}
	for _, k := range a.Kids {
		if k.Named && k.Type != "comment" {
			list.Kids = append(list.Kids, k)
		}
	}
	return list
}

// varType infers a package-level variable's type.
func (a *analyzer) varType(v *varDecl) *typ {
	if v.done {
		return v.t
	}
	if v.busy { // its inference needs itself (see settle)
		a.inf.cut(v.depth)
		return v.t
	}
	return a.inferVar(v, v.file.spec(a.fe.grammar, v.spec))
}

// inferVar is varType for a variable neither done nor busy, given its decoded spec.
func (a *analyzer) inferVar(v *varDecl, spec *node) *typ {
	v.busy = true
	v.depth = a.inf.enter()
	w := &walker{a: a, f: v.file, caller: -1}
	if t := spec.Child("type"); t != nil {
		v.t = v.file.typeExpr(t, nil)
	} else {
		names := spec.Children("name")
		vals := exprList(spec.Child("value"))
		switch {
		case len(vals) == len(names):
			if b := w.bindingFor(vals[v.index], newScope(nil)); b != nil {
				v.t = b.t
			}
		case len(vals) == 1:
			r := stripParens(vals[0])
			if r.Type == "call_expression" {
				if res := w.callResults(r, newScope(nil)); v.index < len(res) {
					v.t = res[v.index]
				}
			} else if v.index == 0 {
				v.t = w.typeOf(r, newScope(nil))
			}
		}
	}
	v.done, v.busy = true, false
	a.inf.leave()
	return v.t
}

// liveTypes returns the module's named types of which the analysed code creates values:
// composite literals (and their element types), new(T), make(T, …), conversions T(x),
// variables declared with type T, and, transitively, the value fields of live struct
// types. CHA expansion only targets live types (as rapid type analysis does): a type whose
// values are never created cannot be the dynamic type of an interface.
func (a *analyzer) liveTypes() map[*typeDecl]bool {
	if a.live != nil {
		return a.live
	}
	live := map[*typeDecl]bool{}
	var mark func(t *typ, depth int)
	mark = func(t *typ, depth int) {
		if t == nil || depth > 8 {
			return
		}
		switch t.kind {
		case tNamed:
			if t.decl == nil || live[t.decl] {
				return
			}
			live[t.decl] = true
			if u := t.decl.underlying(); u != nil && u.kind != tNamed {
				mark(u, depth+1)
			}
		case tSlice, tMap:
			mark(t.elem, depth+1)
			mark(t.key, depth+1)
		case tStruct:
			for _, fd := range t.fields {
				mark(fd.t, depth+1)
			}
		case tPtr:
			// A pointer's target is created by whoever creates it.
		}
	}
	markPtr := func(t *typ) { mark(deref(t), 0) }
	for _, f := range a.files {
		w := &walker{a: a, f: f, caller: -1}
		bodies := f.bodies(a.fe.grammar)
		ord := -1
		var visit func(n *node)
		visit = func(n *node) {
			switch n.Type {
			case "composite_literal":
				markPtr(f.typeExpr(n.Child("type"), nil))
			case "var_spec":
				mark(f.typeExpr(n.Child("type"), nil), 0)
			case "call_expression":
				fx := stripParens(n.Child("function"))
				args := exprList(firstArgList(n))
				if fx != nil && fx.Type == "identifier" && (fx.Text(f.src) == "new" || fx.Text(f.src) == "make") && len(args) > 0 {
					markPtr(w.typeNamedOrExpr(args[0], nil))
				} else if t := w.typeNamed(fx, nil); t != nil {
					markPtr(t)
				}
			}
			for _, k := range n.Kids {
				visit(k)
			}
		}
		// The source order: a declaration's body (its last child) right after the rest.
		for _, d := range f.root.Kids {
			visit(d)
			if isValueDecl(d.Type) {
				specs, _ := f.valueSpecs(a.fe.grammar, d)
				for _, s := range specs {
					visit(s)
				}
			}
			if d.Type == "function_declaration" || d.Type == "method_declaration" {
				if ord++; bodies[ord] != nil {
					visit(bodies[ord])
				}
			}
		}
	}
	a.live = live
	return live
}
