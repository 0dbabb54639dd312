package javascript

import "github.com/faultline-dev/faultline/callgraph"

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
		case sCall:
			return a.callResult(s.node, s.sc, s.cls, depth+1)
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
	switch e.typ {
	case "identifier", "shorthand_property_identifier":
		return a.resolveSym(sc.lookup(e.text(src)), depth+1)
	case "this":
		if cls != nil {
			return &symbol{kind: sInstance, class: cls}
		}
	case "new_expression":
		return a.newSym(e, sc, cls, depth+1)
	case "member_expression":
		p := e.child("property")
		if p == nil {
			return nil
		}
		o := a.exprSym(e.child("object"), sc, cls, depth+1)
		if o == nil {
			return nil
		}
		return a.member(o, p.text(src), depth+1)
	case "call_expression":
		if r := a.callResult(e, sc, cls, depth+1); r != nil {
			return r
		}
		fx := e.child("function")
		if fx != nil && fx.typ == "identifier" && fx.text(src) == "require" && sc.lookup("require") == nil {
			if args := e.child("arguments"); args != nil {
				for _, k := range args.kids {
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

// newSym is the instance a new-expression creates, when its class is known.
func (a *analyzer) newSym(n *node, sc *scope, cls *class, depth int) *symbol {
	c := a.exprSym(n.child("constructor"), sc, cls, depth+1)
	if c != nil && c.kind == sClass {
		return &symbol{kind: sInstance, class: c.class}
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
	case sClass:
		if m := a.methodLookup(o.class, name); m != nil {
			return &symbol{kind: sDef, def: m}
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
	if t.typ == "type_annotation" {
		t = firstNamed(t)
	}
	if t != nil && t.typ == "generic_type" {
		t = t.child("name")
		if t == nil {
			return nil
		}
	}
	if t == nil {
		return nil
	}
	var s *symbol
	switch t.typ {
	case "type_identifier", "identifier":
		s = a.resolveSym(sc.lookup(t.text(sc.file.src)), depth+1)
	case "nested_type_identifier":
		mod, name := firstNamed(t), lastNamed(t)
		if mod != nil && name != nil && mod != name {
			if o := a.exprSym(mod, sc, nil, depth+1); o != nil {
				s = a.member(o, name.text(sc.file.src), depth+1)
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
	return a.typeSym(d.fnN.child("return_type"), d.sc, depth+1)
}

// parentOf resolves a class's extends clause.
func (a *analyzer) parentOf(c *class) *class {
	if c.resolved || c.busy {
		return c.parent
	}
	c.busy = true
	if c.heritage != nil {
		e := lastNamed(c.heritage)
		if ext := c.heritage.firstOfType("extends_clause"); ext != nil {
			e = ext.child("value")
			if e == nil {
				e = firstNamed(ext)
			}
		} else if e != nil && e.typ == "implements_clause" {
			e = nil
		}
		if e != nil {
			if s := a.exprSym(e, c.sc, c.outer, 0); s != nil && s.kind == sClass && s.class != c {
				c.parent = s.class
			}
		}
	}
	c.resolved, c.busy = true, false
	return c.parent
}

// resolve resolves one call site and records its edges.
func (a *analyzer) resolve(f *file, cs callSite) {
	a.out.CallSites++
	target, folded := a.callee(cs.n, cs.sc, cs.cls, 0)
	if target == nil && !folded {
		return
	}
	a.out.Resolved++
	if target == nil {
		return
	}
	line := cs.n.row + 1
	if args := cs.n.child("arguments"); args != nil && cs.n.typ == "call_expression" {
		line = args.row + 1
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
	if n.typ == "new_expression" {
		if s := a.exprSym(n.child("constructor"), sc, cls, depth+1); s != nil && s.kind == sClass {
			return a.methodLookup(s.class, "constructor"), false
		}
		return nil, false
	}
	fx := stripParens(n.child("function"))
	switch {
	case fx == nil:
	case fx.typ == "super":
		if cls != nil {
			return a.methodLookup(a.parentOf(cls), "constructor"), false
		}
	case isFunc(fx):
		return nil, true
	case fx.typ == "identifier":
		if s := a.resolveSym(sc.lookup(fx.text(src)), depth+1); s != nil && s.kind == sDef {
			return s.def, false
		}
	case fx.typ == "member_expression":
		obj, prop := fx.child("object"), fx.child("property")
		if obj == nil || prop == nil {
			break
		}
		name := prop.text(src)
		if obj.typ == "super" {
			if cls != nil {
				return a.methodLookup(a.parentOf(cls), name), false
			}
			break
		}
		if o := a.exprSym(obj, sc, cls, depth+1); o != nil {
			if s := a.member(o, name, depth+1); s != nil && s.kind == sDef {
				return s.def, false
			}
		}
		// A function assigned to a property path (obj.m = function …).
		if p := memberPath(fx, src); p != "" && sc.lookup(firstElem(p)) == f.top.lookup(firstElem(p)) {
			if ds := f.byName[p]; len(ds) > 0 {
				return ds[0], false
			}
		}
	}
	return nil, false
}

func firstElem(p string) string {
	for i := 0; i < len(p); i++ {
		if p[i] == '.' {
			return p[:i]
		}
	}
	return p
}
