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
	// seen deduplicates edges of one call site.
	seen map[string]bool
}

// resolveFile resolves the calls of a file's module-level code and functions.
func (a *analyzer) resolveFile(f *file) {
	if f.module >= 0 {
		w := &walker{a: a, f: f, caller: f.module}
		for _, d := range f.root.kids {
			if d.typ == "var_declaration" {
				for _, s := range varSpecs(d) {
					if v := s.child("value"); v != nil {
						w.walk(v, newScope(nil))
					}
				}
			}
		}
	}
	for _, g := range a.fns {
		if g.file != f {
			continue
		}
		w := &walker{a: a, f: f, caller: g.def, tparams: g.tparams}
		sc := newScope(nil)
		if g.recv != "" {
			w.declareParams(g.decl.child("receiver"), sc)
		}
		w.declareParams(g.decl.child("parameters"), sc)
		w.declareParams(g.decl.child("result"), sc)
		if body := g.decl.child("body"); body != nil {
			w.walkKids(body, sc)
		}
	}
}

func (w *walker) declareParams(list *node, sc *scope) {
	if list == nil || list.typ != "parameter_list" {
		return
	}
	for _, pd := range list.namedKids() {
		var t *typ
		switch pd.typ {
		case "parameter_declaration":
			t = w.f.typeExpr(pd.child("type"), w.tparams)
		case "variadic_parameter_declaration":
			t = &typ{kind: tSlice, elem: w.f.typeExpr(pd.child("type"), w.tparams)}
		default:
			continue
		}
		for _, nm := range pd.children("name") {
			sc.declare(nm.text(w.f.src), &binding{t: t})
		}
	}
}

func (w *walker) walkKids(n *node, sc *scope) {
	for _, k := range n.kids {
		w.walk(k, sc)
	}
}

func (w *walker) walk(n *node, sc *scope) {
	switch n.typ {
	case "comment", "type_declaration":
		return
	case "func_literal":
		inner := newScope(sc)
		w.declareParams(n.child("parameters"), inner)
		w.declareParams(n.child("result"), inner)
		if body := n.child("body"); body != nil {
			w.walkKids(body, inner)
		}
		return
	case "block":
		w.walkKids(n, newScope(sc))
		return
	case "short_var_declaration":
		if r := n.child("right"); r != nil {
			w.walk(r, sc)
		}
		w.assign(n.child("left"), n.child("right"), nil, sc)
		return
	case "var_declaration":
		for _, s := range varSpecs(n) {
			if v := s.child("value"); v != nil {
				w.walk(v, sc)
			}
			var declared *typ
			if t := s.child("type"); t != nil {
				declared = w.f.typeExpr(t, w.tparams)
			}
			w.assignNames(s.children("name"), s.child("value"), declared, sc)
		}
		return
	case "const_declaration":
		for _, s := range n.namedKids() {
			for _, nm := range s.children("name") {
				sc.declare(nm.text(w.f.src), nil)
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
		r := n.child("right")
		if r != nil {
			w.walk(r, sc)
		}
		if n.firstOfType(":=") != nil {
			k, v := rangeTypes(w.typeOf(r, sc))
			ids := exprList(n.child("left"))
			ts := []*typ{k, v}
			for i, id := range ids {
				if i < 2 {
					sc.declare(id.text(w.f.src), &binding{t: ts[i]})
				}
			}
		}
		return
	case "receive_statement":
		r := n.child("right")
		if r != nil {
			w.walk(r, sc)
		}
		if n.firstOfType(":=") != nil {
			for i, id := range exprList(n.child("left")) {
				var t *typ
				if i == 0 {
					t = w.typeOf(r, sc)
				}
				sc.declare(id.text(w.f.src), &binding{t: t})
			}
		}
		return
	case "type_switch_statement":
		w.typeSwitch(n, newScope(sc))
		return
	case "call_expression":
		w.call(n, n.child("function"), n.child("arguments"), sc)
	case "type_conversion_expression":
		// F[int](x) parses as a conversion to a generic type; it is a call when F is a
		// function.
		if t := n.child("type"); t != nil && t.typ == "generic_type" {
			if base := t.child("type"); base != nil && len(w.funcsNamed(base, sc)) > 0 {
				w.call(n, base, n.firstOfType("("), sc)
			}
		}
	}
	w.walkKids(n, sc)
}

// typeSwitch walks `switch v := x.(type)`, typing v in each single-type clause.
func (w *walker) typeSwitch(n *node, sc *scope) {
	if init := n.child("initializer"); init != nil {
		w.walk(init, sc)
	}
	val := n.child("value")
	if val != nil {
		w.walk(val, sc)
	}
	alias := exprList(n.child("alias"))
	xt := w.typeOf(val, sc)
	for _, c := range n.kids {
		if c.typ != "type_case" && c.typ != "default_case" {
			continue
		}
		cs := newScope(sc)
		var types []*node
		for _, t := range c.children("type") {
			if t.named {
				types = append(types, t)
			}
		}
		if len(alias) == 1 {
			t := xt
			if len(types) == 1 {
				t = w.f.typeExpr(types[0], w.tparams)
			}
			cs.declare(alias[0].text(w.f.src), &binding{t: t})
		}
		for _, k := range c.kids {
			if k.field != "type" {
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
	if n.typ != "expression_list" {
		return []*node{n}
	}
	var out []*node
	for _, k := range n.kids {
		if k.named && k.typ != "comment" {
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
		if id.typ != "identifier" {
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
			if r.typ == "call_expression" {
				if res := w.callResults(r, sc); i < len(res) {
					b = &binding{t: res[i]}
				}
			} else if i == 0 {
				b = &binding{t: w.typeOf(r, sc)}
			}
		}
		sc.declare(id.text(w.f.src), b)
	}
}

// bindingFor describes what a variable initialised with e holds.
func (w *walker) bindingFor(e *node, sc *scope) *binding {
	e = stripParens(e)
	switch e.typ {
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
	if e.typ == "identifier" {
		b := sc.lookup(e.text(w.f.src))
		return b == nil || len(b.fns) > 0
	}
	return true
}

func stripParens(n *node) *node {
	for n != nil && n.typ == "parenthesized_expression" {
		n = lastNamed(n)
	}
	return n
}

// call records one call site: fx is the called expression, at the node giving its line.
func (w *walker) call(site, fx, at *node, sc *scope) {
	if w.caller < 0 {
		return
	}
	out := w.a.out
	out.CallSites++
	fns, folded := w.callee(fx, sc)
	if !folded && len(fns) == 0 {
		return
	}
	out.Resolved++
	line := lineOf(site)
	if at != nil {
		line = lineOf(at)
	}
	caller := out.Definitions[w.caller].ID
	seen := map[string]bool{}
	for _, g := range fns {
		if seen[g.id] {
			continue
		}
		seen[g.id] = true
		out.Calls = append(out.Calls, callgraph.Call{Caller: caller, Callee: g.id, Line: line})
	}
}

// callee resolves a called expression. folded reports a call of a function literal, whose
// code belongs to the enclosing definition.
func (w *walker) callee(fx *node, sc *scope) (fns []*fn, folded bool) {
	fx = stripParens(fx)
	if fx == nil {
		return nil, false
	}
	switch fx.typ {
	case "identifier", "type_identifier":
		if b := sc.lookup(fx.text(w.f.src)); b != nil {
			return b.fns, b.lit
		}
		return w.pkgFuncs(fx.text(w.f.src)), false
	case "func_literal":
		return nil, true
	case "index_expression": // F[int] or pkg.F[T]
		return w.funcsNamed(fx.child("operand"), sc), false
	case "generic_type":
		return w.funcsNamed(fx.child("type"), sc), false
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
	switch n.typ {
	case "identifier", "type_identifier":
		if b := sc.lookup(n.text(w.f.src)); b != nil {
			return b.fns
		}
		return w.pkgFuncs(n.text(w.f.src))
	case "selector_expression", "qualified_type":
		opField, nameField := "operand", "field"
		if n.typ == "qualified_type" {
			opField, nameField = "package", "name"
		}
		op := n.child(opField)
		if op == nil || (op.typ != "identifier" && op.typ != "package_identifier") || sc.lookup(op.text(w.f.src)) != nil {
			return nil
		}
		if im := w.f.imports[op.text(w.f.src)]; im != nil && im.pkg != nil {
			return im.pkg.funcs[n.child(nameField).text(w.f.src)]
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
	if n == nil || n.typ != "identifier" {
		return nil
	}
	name := n.text(w.f.src)
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
	switch n.typ {
	case "identifier", "type_identifier":
		name := n.text(w.f.src)
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
		if im := w.importOf(n.child("operand"), sc); im != nil {
			return w.f.importedType(im, n.child("field").text(w.f.src))
		}
	case "unary_expression":
		if op := n.child("operator"); op != nil && op.typ == "*" {
			return ptrTo(w.typeNamed(n.child("operand"), sc))
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
	op := stripParens(sel.child("operand"))
	name := sel.child("field").text(w.f.src)
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
				return w.a.implementers(append([]string{name}, ms...), name, ar)
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
	level := []*typ{t}
	seen := map[*typeDecl]bool{}
	for depth := 0; depth < 8 && len(level) > 0; depth++ {
		var found []*fn
		var iface *typ
		var next []*typ
		blocked := false
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
				if ms := lt.decl.methods[name]; len(ms) > 0 {
					found = append(found, ms...)
					continue
				}
				u := lt.decl.underlying()
				if u == nil {
					continue
				}
				if u.kind == tIface {
					if ifaceMayHave(u, name, 0) {
						iface = lt
					}
					continue
				}
				if u.kind == tStruct {
					fields = u.fields
				}
			case lt.kind == tNamed:
				if ms, ok := knownIfaces[lt.ext]; ok && contains(ms, name) {
					iface = lt
				}
				continue
			case lt.kind == tStruct:
				fields = lt.fields
			case lt.kind == tIface:
				if ifaceMayHave(lt, name, 0) {
					iface = lt
				}
				continue
			}
			for _, fd := range fields {
				if fd.embedded {
					next = append(next, fd.t)
				} else if fd.name == name {
					blocked = true
				}
			}
		}
		if len(found) > 0 {
			return found, nil
		}
		if iface != nil {
			return nil, iface
		}
		if blocked {
			return nil, nil
		}
		level = next
	}
	return nil, nil
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

// ifaceTargets expands a call of method name through interface type t (Options.CHA).
func (a *analyzer) ifaceTargets(t *typ, name string) []*fn {
	if !a.fe.opts.CHA {
		return nil
	}
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
	if !a.fe.opts.CHA {
		return nil
	}
	var out []*fn
	seen := map[*fn]bool{}
	live := a.liveTypes()
	for _, td := range a.named {
		if !live[td] || td.isIface() {
			continue
		}
		ms := td.methodSet()
		ok := true
		for _, m := range req {
			fns, has := ms[m]
			if !has {
				ok = false
				break
			}
			if want, known := ar[m]; known && len(fns) > 0 && fns[0].arity() != want {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		for _, g := range ms[name] {
			if !seen[g] {
				seen[g] = true
				out = append(out, g)
			}
		}
	}
	return out
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

func funcType(g *fn) *typ { return &typ{kind: tFunc, results: g.resultTypes()} }

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
	e = stripParens(e)
	if e == nil {
		return nil
	}
	switch e.typ {
	case "identifier":
		name := e.text(w.f.src)
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
		return w.f.typeExpr(e.child("type"), w.tparams)
	case "unary_expression":
		op := e.child("operator")
		if op == nil {
			return nil
		}
		x := e.child("operand")
		switch op.typ {
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
		t := e.child("type")
		if t != nil && t.typ == "generic_type" {
			if fns := w.funcsNamed(t.child("type"), sc); len(fns) > 0 {
				if res := fns[0].resultTypes(); len(res) > 0 {
					return res[0]
				}
				return nil
			}
		}
		return w.f.typeExpr(t, w.tparams)
	case "selector_expression":
		name := e.child("field").text(w.f.src)
		op := e.child("operand")
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
		t := under(deref(w.typeOf(e.child("operand"), sc)))
		if t == nil {
			if fns := w.funcsNamed(e.child("operand"), sc); len(fns) > 0 {
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
		return w.typeOf(e.child("operand"), sc)
	case "type_assertion_expression":
		return w.f.typeExpr(e.child("type"), w.tparams)
	case "func_literal":
		return &typ{kind: tFunc, results: w.f.resultTypes(e.child("result"), w.tparams)}
	}
	return nil
}

// memberType returns the type of field or method value name of a value of type t.
func memberType(t *typ, name string) *typ {
	level := []*typ{t}
	seen := map[*typeDecl]bool{}
	for depth := 0; depth < 8 && len(level) > 0; depth++ {
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
				if ms := lt.decl.methods[name]; len(ms) > 0 {
					return funcType(ms[0])
				}
				if u := lt.decl.underlying(); u != nil && u.kind == tStruct {
					fields = u.fields
				}
			case lt.kind == tStruct:
				fields = lt.fields
			}
			for _, fd := range fields {
				if !fd.embedded && fd.name == name {
					return fd.t
				}
			}
			for _, fd := range fields {
				if fd.embedded {
					if fd.name == name {
						return fd.t
					}
					next = append(next, fd.t)
				}
			}
		}
		level = next
	}
	return nil
}

// callResults returns the result types of a call expression: of the resolved function,
// of a conversion, of new/make/append, or of a call through a value of function type.
func (w *walker) callResults(call *node, sc *scope) []*typ {
	fx := stripParens(call.child("function"))
	if fx == nil {
		return nil
	}
	args := exprList(firstArgList(call))
	if fx.typ == "identifier" && sc.lookup(fx.text(w.f.src)) == nil && w.f.pkg.funcs[fx.text(w.f.src)] == nil {
		switch fx.text(w.f.src) {
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
	a := call.child("arguments")
	if a == nil {
		return nil
	}
	list := &node{typ: "expression_list"}
	for _, k := range a.kids {
		if k.named && k.typ != "comment" {
			list.kids = append(list.kids, k)
		}
	}
	return list
}

// varType infers a package-level variable's type.
func (a *analyzer) varType(v *varDecl) *typ {
	if v.done || v.busy {
		return v.t
	}
	v.busy = true
	w := &walker{a: a, f: v.file, caller: -1}
	if t := v.spec.child("type"); t != nil {
		v.t = v.file.typeExpr(t, nil)
	} else {
		names := v.spec.children("name")
		vals := exprList(v.spec.child("value"))
		switch {
		case len(vals) == len(names):
			if b := w.bindingFor(vals[v.index], newScope(nil)); b != nil {
				v.t = b.t
			}
		case len(vals) == 1:
			r := stripParens(vals[0])
			if r.typ == "call_expression" {
				if res := w.callResults(r, newScope(nil)); v.index < len(res) {
					v.t = res[v.index]
				}
			} else if v.index == 0 {
				v.t = w.typeOf(r, newScope(nil))
			}
		}
	}
	v.done, v.busy = true, false
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
		var visit func(n *node)
		visit = func(n *node) {
			switch n.typ {
			case "composite_literal":
				markPtr(f.typeExpr(n.child("type"), nil))
			case "var_spec":
				mark(f.typeExpr(n.child("type"), nil), 0)
			case "call_expression":
				fx := stripParens(n.child("function"))
				args := exprList(firstArgList(n))
				if fx != nil && fx.typ == "identifier" && (fx.text(f.src) == "new" || fx.text(f.src) == "make") && len(args) > 0 {
					markPtr(w.typeNamedOrExpr(args[0], nil))
				} else if t := w.typeNamed(fx, nil); t != nil {
					markPtr(t)
				}
			}
			for _, k := range n.kids {
				visit(k)
			}
		}
		visit(f.root)
	}
	a.live = live
	return live
}
