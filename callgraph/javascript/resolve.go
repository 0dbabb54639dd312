package javascript

import (
	"strings"

	"github.com/faultline-dev/faultline/callgraph"
)

// maxDepth bounds the chains of aliases, re-exports and superclasses followed.
const maxDepth = 16

// resolveSym follows imports, aliases and new-expressions to what a symbol denotes.
func (a *analyzer) resolveSym(s *symbol, depth int) *symbol {
	for ; s != nil && depth < maxDepth; depth++ {
		switch s.kind {
		case sImport:
			if s.extern || s.file == nil {
				return nil
			}
			if s.name == "*" {
				return &symbol{kind: sNS, file: s.file}
			}
			return a.exportOf(s.file, s.name, depth+1)
		case sAlias:
			return a.exprSym(s.node, s.sc, s.cls, depth+1)
		case sNew:
			return a.newSym(s.node, s.sc, s.cls, depth+1)
		case sTyped:
			return a.typeSym(s.node, s.sc, depth+1)
		case sCall: // the callee's result, else an array method's or a required module
			if r := a.callResult(s.node, s.sc, s.cls, depth+1); r != nil {
				return r
			}
			return a.exprSym(s.node, s.sc, s.cls, depth+1)
		case sDoc:
			return a.docType(s.name, s.sc, depth+1)
		case sElem:
			return a.elemOf(a.exprSym(s.node, s.sc, s.cls, depth+1), depth+1)
		case sUnknown:
			return a.assigned(s, depth+1)
		default:
			return s
		}
	}
	return nil
}

// exportOf returns what module f exports under name: its ES exports, then its CommonJS
// module.exports value, then `export * from` re-exports. A default import of a module
// without a default export denotes the module itself (CommonJS interop).
func (a *analyzer) exportOf(f *file, name string, depth int) *symbol {
	if depth >= maxDepth {
		return nil
	}
	if s, ok := f.exports[name]; ok && s != nil {
		return a.resolveSym(s, depth+1)
	}
	if f.cjs != nil {
		v := a.resolveSym(f.cjs, depth+1)
		if name == "default" {
			return v
		}
		if v != nil {
			return a.member(v, name, depth+1)
		}
	}
	for _, sf := range f.stars {
		if s := a.exportOf(sf, name, depth+1); s != nil {
			return s
		}
	}
	if name == "default" {
		return &symbol{kind: sNS, file: f}
	}
	return nil
}

// exprSym returns what an expression denotes, as far as syntax tells.
func (a *analyzer) exprSym(e *node, sc *scope, cls *class, depth int) *symbol {
	e = stripParens(e)
	if e == nil || depth >= maxDepth {
		return nil
	}
	src := sc.file.src
	switch e.Type {
	case "identifier", "shorthand_property_identifier":
		return a.resolveSym(sc.lookup(e.Text(src)), depth+1)
	case "this":
		if cls != nil && cls.metaOf != nil { // in static code this is the class
			return &symbol{kind: sClass, class: cls.metaOf}
		}
		if cls != nil && cls.objOf != "" { // in an object's function this is the object
			return &symbol{kind: sObject, name: cls.objOf, obj: cls.file}
		}
		if cls != nil {
			return &symbol{kind: sInstance, class: cls}
		}
	case "new_expression":
		return a.newSym(e, sc, cls, depth+1)
	case "member_expression":
		p := e.Child("property")
		if p == nil {
			return nil
		}
		o := a.exprSym(e.Child("object"), sc, cls, depth+1)
		if o == nil {
			return nil
		}
		return a.member(o, p.Text(src), depth+1)
	case "subscript_expression":
		return a.elemOf(a.exprSym(e.Child("object"), sc, cls, depth+1), depth+1)
	case "call_expression":
		if r := a.callResult(e, sc, cls, depth+1); r != nil {
			return r
		}
		if fx := e.Child("function"); fx != nil && fx.Type == "member_expression" {
			if p := fx.Child("property"); p != nil && (arrayElem[p.Text(src)] || arraySame[p.Text(src)]) {
				if o := a.exprSym(fx.Child("object"), sc, cls, depth+1); o != nil && o.kind == sArray {
					if arraySame[p.Text(src)] {
						return o
					}
					return a.elemOf(o, depth+1)
				}
			}
		}
		fx := e.Child("function")
		if fx != nil && fx.Type == "identifier" && fx.Text(src) == "require" && sc.lookup("require") == nil {
			if args := e.Child("arguments"); args != nil {
				for _, k := range args.Kids {
					if s, ok := stringValue(k, src); ok {
						if f := a.resolveModule(sc.file, s); f != nil {
							return &symbol{kind: sNS, file: f}
						}
					}
				}
			}
		}
	}
	return nil
}

// value unwraps a CommonJS module namespace (what require('./m') gives) to the value
// the module assigned to module.exports, where a call, new or extends needs a function
// or class rather than the module's exports.
func (a *analyzer) value(s *symbol, depth int) *symbol {
	if s != nil && s.kind == sNS && s.file.cjs != nil && depth < maxDepth {
		if v := a.resolveSym(s.file.cjs, depth+1); v != nil {
			return v
		}
	}
	return s
}

// assigned is what a variable declared without a value denotes: what all its
// assignments agree on, or nil.
func (a *analyzer) assigned(s *symbol, depth int) *symbol {
	if len(s.assigns) == 0 || s.mixed || s.busy || depth >= maxDepth {
		return nil
	}
	s.busy = true
	defer func() { s.busy = false }()
	var ret *symbol
	for _, v := range s.assigns {
		r := a.resolveSym(v, depth+1)
		if r == nil || (ret != nil && !sameSym(ret, r)) {
			return nil
		}
		ret = r
	}
	return ret
}

// elemOf is what the elements of an array symbol denote.
func (a *analyzer) elemOf(s *symbol, depth int) *symbol {
	if s == nil || s.kind != sArray || s.elem == nil || depth >= maxDepth {
		return nil
	}
	return a.resolveSym(s.elem, depth+1)
}

// arrayElem and arraySame are the array methods whose result is an element of the
// array, and those whose result is an array of the same elements.
var (
	arrayElem = map[string]bool{"find": true, "findLast": true, "at": true, "pop": true, "shift": true}
	arraySame = map[string]bool{"filter": true, "slice": true, "concat": true, "reverse": true, "sort": true,
		"toSorted": true, "toReversed": true}
)

// newSym is the instance a new-expression creates, when its class (or constructor
// function with prototype methods) is known.
func (a *analyzer) newSym(n *node, sc *scope, cls *class, depth int) *symbol {
	c := a.value(a.exprSym(n.Child("constructor"), sc, cls, depth+1), depth+1)
	switch {
	case c == nil:
	case c.kind == sClass:
		return &symbol{kind: sInstance, class: c.class}
	case c.kind == sDef && c.def.proto != nil:
		return &symbol{kind: sInstance, class: c.def.proto}
	}
	return nil
}

// member returns property name of what o denotes.
func (a *analyzer) member(o *symbol, name string, depth int) *symbol {
	if depth >= maxDepth {
		return nil
	}
	switch o.kind {
	case sNS:
		return a.exportOf(o.file, name, depth+1)
	case sClass: // static members, up the extends chain
		if o.class.meta == nil {
			break
		}
		if m := a.methodLookup(o.class.meta, name); m != nil {
			return &symbol{kind: sDef, def: m}
		}
		for c, i := o.class.meta, 0; c != nil && i < maxDepth; c, i = a.parentOf(c), i+1 {
			if f := c.fields[name]; f != nil {
				return a.resolveSym(f, depth+1)
			}
		}
	case sInstance:
		if m := a.methodLookup(o.class, name); m != nil {
			return &symbol{kind: sDef, def: m}
		}
		for c, i := o.class, 0; c != nil && i < maxDepth; c, i = a.parentOf(c), i+1 {
			if f := c.fields[name]; f != nil {
				return a.resolveSym(f, depth+1)
			}
		}
	case sObject:
		q := o.name + "." + name
		if ds := o.obj.byName[q]; len(ds) > 0 {
			return &symbol{kind: sDef, def: ds[0]}
		}
		for k := range o.obj.byName {
			if hasPrefix(k, q+".") {
				return &symbol{kind: sObject, name: q, obj: o.obj}
			}
		}
	}
	return nil
}

// methodLookup finds a method on a class or its superclasses.
func (a *analyzer) methodLookup(c *class, name string) *def {
	for i := 0; c != nil && i < maxDepth; i++ {
		if m := c.methods[name]; m != nil {
			return m
		}
		c = a.parentOf(c)
	}
	return nil
}

// typeSym is an instance of the class a TypeScript type annotation names (C, ns.C, C<T>),
// or nil.
func (a *analyzer) typeSym(t *node, sc *scope, depth int) *symbol {
	if t == nil || depth >= maxDepth {
		return nil
	}
	if t.Type == "type_annotation" {
		t = firstNamed(t)
	}
	if t != nil && t.Type == "readonly_type" {
		t = lastNamed(t)
	}
	if t == nil {
		return nil
	}
	// Item[], Array<Item>, ReadonlyArray<Item>: an array of Items.
	if t.Type == "array_type" {
		if el := firstNamed(t); el != nil {
			return &symbol{kind: sArray, elem: &symbol{kind: sTyped, node: el, sc: sc}}
		}
		return nil
	}
	if t.Type == "generic_type" {
		if nm, args := t.Child("name"), t.Child("type_arguments"); nm != nil && args != nil {
			if n := nm.Text(sc.file.src); n == "Array" || n == "ReadonlyArray" {
				if el := firstNamed(args); el != nil && el == lastNamed(args) {
					return &symbol{kind: sArray, elem: &symbol{kind: sTyped, node: el, sc: sc}}
				}
				return nil
			}
		}
	}
	if t != nil && t.Type == "generic_type" {
		t = t.Child("name")
		if t == nil {
			return nil
		}
	}
	if t == nil {
		return nil
	}
	var s *symbol
	switch t.Type {
	case "type_identifier", "identifier":
		s = a.value(a.resolveSym(sc.lookup(t.Text(sc.file.src)), depth+1), depth+1)
	case "nested_type_identifier":
		mod, name := firstNamed(t), lastNamed(t)
		if mod != nil && name != nil && mod != name {
			if o := a.exprSym(mod, sc, nil, depth+1); o != nil {
				s = a.member(o, name.Text(sc.file.src), depth+1)
			}
		}
	}
	if s != nil && s.kind == sClass {
		return &symbol{kind: sInstance, class: s.class}
	}
	return nil
}

// callResult is what a call returns when the callee is resolved and declares a
// TypeScript return type naming a class.
func (a *analyzer) callResult(call *node, sc *scope, cls *class, depth int) *symbol {
	if depth >= maxDepth {
		return nil
	}
	d, _ := a.callee(call, sc, cls, depth+1)
	if d == nil || d.fnN == nil || d.sc == nil {
		return nil
	}
	if rt := d.fnN.Child("return_type"); rt != nil {
		return a.typeSym(rt, d.sc, depth+1)
	}
	if d.docRet != "" {
		return a.docType(d.docRet, d.sc, depth+1)
	}
	return a.returned(d, depth+1)
}

// docType is what a JSDoc type denotes: an instance of the class it names (`C`, `ns.C`,
// `?C`, `C=`, an @typedef of `import('./m').C`, a constructor function), or an array of
// them (`C[]`, `Array<C>`); null and undefined drop out of unions, other unions and
// generic types are not followed.
func (a *analyzer) docType(t string, sc *scope, depth int) *symbol {
	if depth >= maxDepth {
		return nil
	}
	// Without strict null checks (the checker's default) null and undefined vanish from
	// a union: {C|undefined} is C.
	var kept []string
	for _, u := range strings.Split(t, "|") {
		switch u = strings.TrimSpace(u); u {
		case "null", "undefined", "void":
		default:
			kept = append(kept, u)
		}
	}
	if len(kept) != 1 {
		return nil
	}
	t = strings.TrimSuffix(strings.TrimLeft(kept[0], "?!"), "=")
	// T[] and Array<T>: an array of T.
	if el, ok := strings.CutSuffix(t, "[]"); ok {
		return &symbol{kind: sArray, elem: &symbol{kind: sDoc, name: el, sc: sc}}
	}
	if el, ok := strings.CutPrefix(t, "Array<"); ok && strings.HasSuffix(el, ">") {
		return &symbol{kind: sArray, elem: &symbol{kind: sDoc, name: strings.TrimSuffix(el, ">"), sc: sc}}
	}
	if t == "" || strings.ContainsAny(t, "|<>[]{}()*,: '\"") {
		return nil
	}
	parts := strings.Split(t, ".")
	var s *symbol
	if ts := sc.file.types[parts[0]]; ts != nil {
		s = a.resolveSym(ts, depth+1)
	} else {
		s = a.resolveSym(sc.lookup(parts[0]), depth+1)
	}
	for _, p := range parts[1:] {
		if s == nil {
			return nil
		}
		s = a.member(s, p, depth+1)
	}
	s = a.value(s, depth+1)
	switch {
	case s == nil:
	case s.kind == sClass:
		return &symbol{kind: sInstance, class: s.class}
	case s.kind == sDef && s.def.proto != nil:
		return &symbol{kind: sInstance, class: s.def.proto}
	}
	return nil
}

// returned is what a function without declared return type returns, when every return
// statement with a value (null and undefined aside) denotes the same class instance,
// object, module or function; nil otherwise.
func (a *analyzer) returned(d *def, depth int) *symbol {
	if d.retDone || d.retBusy || d.inner == nil || depth >= maxDepth {
		return d.ret
	}
	d.retBusy = true
	var exprs []*node
	if b := d.fnN.Child("body"); b != nil {
		if b.Type == "statement_block" {
			returns(b, &exprs)
		} else {
			exprs = append(exprs, b)
		}
	}
	var ret *symbol
	ok := len(exprs) > 0
	for _, e := range exprs {
		if e = stripParens(e); e == nil {
			continue
		}
		if e.Type == "null" || e.Type == "undefined" {
			continue
		}
		s := a.exprSym(e, d.inner, d.this, depth+1)
		if s == nil || (ret != nil && !sameSym(ret, s)) {
			ok = false
			break
		}
		ret = s
	}
	d.retBusy, d.retDone = false, true
	if ok {
		d.ret = ret
	}
	return d.ret
}

// returns collects the values of the return statements of a body, not of the
// functions and classes nested in it.
func returns(n *node, out *[]*node) {
	for _, k := range n.Kids {
		switch {
		case isFunc(k), k.Type == "function_declaration", k.Type == "generator_function_declaration",
			k.Type == "class", k.Type == "class_declaration", k.Type == "method_definition":
			continue
		case k.Type == "return_statement":
			if v := firstNamed(k); v != nil {
				*out = append(*out, v)
			}
			continue
		}
		returns(k, out)
	}
}

// sameSym reports whether two resolved symbols denote the same thing.
func sameSym(x, y *symbol) bool {
	return x.kind == y.kind && x.def == y.def && x.class == y.class && x.file == y.file &&
		x.name == y.name && x.obj == y.obj
}

// parentOf resolves a class's extends clause.
func (a *analyzer) parentOf(c *class) *class {
	if c.metaOf != nil { // the class side extends the parent's class side
		if p := a.parentOf(c.metaOf); p != nil {
			return p.meta
		}
		return nil
	}
	if c.resolved || c.busy {
		return c.parent
	}
	c.busy = true
	if c.heritage != nil {
		e := lastNamed(c.heritage)
		if ext := c.heritage.FirstOfType("extends_clause"); ext != nil {
			e = ext.Child("value")
			if e == nil {
				e = firstNamed(ext)
			}
		} else if e != nil && e.Type == "implements_clause" {
			e = nil
		}
		if e != nil {
			if s := a.value(a.exprSym(e, c.sc, c.outer, 0), 1); s != nil && s.kind == sClass && s.class != c {
				c.parent = s.class
			}
		}
	}
	c.resolved, c.busy = true, false
	return c.parent
}

// resolve resolves one call site and records its edges.
func (a *analyzer) resolve(f *file, cs callSite) {
	a.out.AddSite(f.path)
	target, folded := a.callee(cs.n, cs.sc, cs.cls, 0)
	if target == nil && !folded {
		return
	}
	a.out.AddResolved(f.path)
	if target == nil {
		return
	}
	line := cs.n.Row + 1
	if args := cs.n.Child("arguments"); args != nil && cs.n.Type == "call_expression" {
		line = args.Row + 1
	}
	caller := f.module
	if cs.owner != nil {
		caller = cs.owner
	}
	a.out.Calls = append(a.out.Calls, callgraph.Call{Caller: caller.id, Callee: target.id, Line: line})
}

// callee resolves a call or new expression to a definition; folded reports a direct
// call of an anonymous function.
func (a *analyzer) callee(n *node, sc *scope, cls *class, depth int) (target *def, folded bool) {
	if depth >= maxDepth {
		return nil, false
	}
	f := sc.file
	src := f.src
	if n.Type == "new_expression" {
		s := a.value(a.exprSym(n.Child("constructor"), sc, cls, depth+1), depth+1)
		switch {
		case s == nil:
		case s.kind == sClass:
			return a.methodLookup(s.class, "constructor"), false
		case s.kind == sDef: // a constructor function
			return s.def, false
		}
		return nil, false
	}
	fx := stripParens(n.Child("function"))
	switch {
	case fx == nil:
	case fx.Type == "super":
		if cls != nil {
			return a.methodLookup(a.parentOf(cls), "constructor"), false
		}
	case isFunc(fx):
		return nil, true
	case fx.Type == "call_expression": // require('./m')(…), f()(…)
		if s := a.value(a.exprSym(fx, sc, cls, depth+1), depth+1); s != nil && s.kind == sDef {
			return s.def, false
		}
	case fx.Type == "identifier":
		if s := a.value(a.resolveSym(sc.lookup(fx.Text(src)), depth+1), depth+1); s != nil && s.kind == sDef {
			return s.def, false
		}
	case fx.Type == "member_expression":
		obj, prop := fx.Child("object"), fx.Child("property")
		if obj == nil || prop == nil {
			break
		}
		name := prop.Text(src)
		if obj.Type == "super" {
			if cls != nil {
				return a.methodLookup(a.parentOf(cls), name), false
			}
			break
		}
		if o := a.exprSym(obj, sc, cls, depth+1); o != nil {
			if s := a.value(a.member(o, name, depth+1), depth+1); s != nil && s.kind == sDef {
				return s.def, false
			}
		}
		// A function assigned to a property path (obj.m = function …), named with the
		// prefix of the definition whose body binds obj.
		if p := memberPath(fx, src); p != "" {
			if ds := f.byName[propertyPrefix(sc, firstElem(p))+p]; len(ds) > 0 {
				return ds[0], false
			}
		}
	}
	return nil, false
}

// propertyPrefix is the qualified-name prefix of the functions assigned to properties of
// the variable name as seen from sc: "" when it is bound at module level (or nowhere),
// "outer." when in the body of outer.
func propertyPrefix(sc *scope, name string) string {
	for s := sc; s != nil; s = s.parent {
		if _, ok := s.names[name]; !ok {
			continue
		}
		for t := s; t != nil; t = t.parent {
			if t.owner != nil {
				return t.owner.name + "."
			}
		}
		return ""
	}
	return ""
}

func firstElem(p string) string {
	for i := 0; i < len(p); i++ {
		if p[i] == '.' {
			return p[:i]
		}
	}
	return p
}
