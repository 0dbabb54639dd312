package python

import (
	"slices"
	"strings"
)

// resolveLazy resolves the lazy sites of file f (see fileInfo.lazy) over the values the
// resolution rounds found, appending a resolution for each site that reaches project
// code (the others are not call sites of the graph and cost no allocation).
func (r *resolver) resolveLazy(f *fileInfo, res []resolution) []resolution {
	var ds []*defInfo
	add := func(vs []value) {
		for _, v := range vs {
			defs, _ := r.targets(v)
			for _, d := range defs {
				if !d.abstractDecl || r.noFlow {
					ds = appendDef(ds, d) // (an abstract method runs on no instance: see dropAbstractDecl)
				}
			}
		}
	}
	buf := make([]value, 0, 16)
	addProto := func(x *expr, name string, fallbacks []string, always bool) {
		buf = r.protoValuesInto(buf, x, name, fallbacks, always)
		add(buf)
	}
	// a lazy site makes at most one resolution: the buffer grows once to the file's
	// count (grown by append, its copies came to ≈15 MB on sympy's largest files)
	res = slices.Grow(res, len(f.lazy))
	run := -1 // the run of f.lazyCallers site k belongs to
	for k := range f.lazy {
		s := &f.lazy[k]
		for run+1 < len(f.lazyCallers) && int(f.lazyCallers[run+1].start) <= k {
			run++
		}
		ds = ds[:0]
		switch s.kind {
		case lzBinary:
			op := binaryOps[s.op]
			addProto(s.x, op.method, nil, false)
			add(r.reflectedValues(s.y, op.reflected, s.x, []string{op.method}))
		case lzAug:
			op := binaryOps[s.op]
			addProto(s.x, op.inplace, []string{op.method}, true)
			add(r.reflectedValues(s.y, op.reflected, s.x, []string{op.inplace, op.method}))
		case lzCompare:
			op := compareOps[s.op]
			if op.member {
				addProto(s.y, op.method, op.fallback, false)
				break
			}
			addProto(s.x, op.method, op.fallback, false)
			add(r.reflectedValues(s.y, op.reflected, s.x, []string{op.method}))
		case lzUnary:
			addProto(s.x, unaryOps[s.op].method, nil, false)
		case lzConvert:
			cv := conversions[s.op&^cvPercentOne]
			if s.op&cvPercentOne != 0 {
				buf = r.percentOperandInto(buf, s.x, cv)
				add(buf)
				break
			}
			addProto(s.x, cv[0], cv[1:], false)
		case lzBuiltin:
			if r.isBuiltin(s.y.scope(), s.y.name()) {
				cv := conversions[s.op]
				addProto(s.x, cv[0], cv[1:], false)
			}
		case lzReady:
			add(r.eval(s.x))
		case lzIterate:
			if r.isBuiltin(s.y.scope(), s.y.name()) {
				iters := r.protoValues(s.x, "__iter__", nil, false)
				add(iters)
				if lengthHint[s.y.name()] {
					add(r.protoValues(s.x, "__len__", nil, false))
				}
				for _, m := range iters {
					for _, it := range r.callResult(m) {
						if it.kind == vInst {
							add(r.protoMethods(it.def, "__next__"))
						}
					}
				}
			}
		case lzSubscript:
			name := [...]string{"__getitem__", "__setitem__", "__delitem__"}[s.op]
			addProto(s.x, name, nil, false)
			if s.y != nil && s.y != unknownExpr && len(r.methods["__hash__"]) > 0 && r.hashesKeys(s.x, name) {
				addProto(s.y, "__hash__", nil, false)
			}
		case lzAttr:
			if r.props[s.x.name()] {
				add(r.propValues(s.x.sub(), s.x.name(), int(s.op)))
			}
		case lzAttrHook:
			if s.op == attrFallback {
				add(r.getattrFallback(s.x.sub(), s.x.name()))
				break
			}
			addProto(s.x, attrHooks[s.op], nil, false)
		case lzModuleGetattr:
			for _, v := range r.eval(s.x) {
				if v.kind == vDef && v.def.fn.Kind != "class" && v.def.simple == "__getattr__" && v.def.file != nil && !v.def.file.isInit && v.def.outer == v.def.file.scope {
					ds = appendDef(ds, v.def)
				}
			}
		case lzGetattr:
			if !r.isBuiltin(s.x.scope(), "getattr") {
				break
			}
			if keys, ok := r.constKeys(s.x.lit().elems()[0], 0); ok {
				for _, k := range keys {
					if name, isStr := strings.CutPrefix(k, "s"); isStr && r.props[name] {
						add(r.propValues(s.x.sub(), name, 0))
					}
				}
			}
		}
		if len(ds) > 0 {
			rs := resolution{caller: f.lazyCallers[run].caller, outcome: outcome{line: s.line, meta: implicitBit}}
			rs.setTargets(ds)
			res = append(res, rs)
		}
	}
	f.lazy, f.lazyCallers = nil, nil
	// the expressions only lazy sites held are done with: their memo slots go back
	f.eachTransient(func(e *expr) {
		if r.memoOf(e) > 0 {
			r.freeSlot(e, 0)
		}
	})
	f.transient, f.transientX = nil, nil
	return res
}

// getattrFallback returns the __getattr__ methods that reading attribute name of x
// calls: those of the instances x evaluates to whose class (or a class in its order)
// defines __getattr__ and surely lacks the attribute: no class of the order binds it,
// no code assigns it to their instances or to the class, no other project code assigns
// an attribute of that name, and no class of the order has a base outside the project
// (qrcode's drawers read `self.img.mode`, which StyledPilImage forwards to its PIL
// image). Special names (`__class__`, `__dict__`) are object's.
func (r *resolver) getattrFallback(x *expr, name string) []value {
	if len(r.methods["__getattr__"]) == 0 || strings.HasPrefix(name, "__") && strings.HasSuffix(name, "__") || r.dynNames[name] {
		return nil
	}
	var out []value
	for _, v := range r.eval(x) {
		if v.kind != vInst || r.opaqueOrder(v.def) {
			continue
		}
		ms := r.protoMethods(v.def, "__getattr__")
		if len(ms) == 0 {
			continue
		}
		missing := true
		for _, k := range r.mro(v.def) {
			if len(k.scope.bindings(name)) > 0 || k.cfacts().initAttrs[name] || len(k.dynOf().classAttrs[name]) > 0 || len(k.cfacts().instAttrs[name]) > 0 || len(k.dynOf().attrs[name]) > 0 {
				missing = false
				break
			}
		}
		if missing {
			out = union(out, ms)
		}
	}
	return out
}

// hashesKeys reports whether x[key] (get, set or delete: the special method name) may
// hash its key: unless x evaluates to a list or tuple literal, or to a project instance
// whose class handles the subscript itself, x is taken for a mapping (an instance of a
// project class with __hash__ used as a key is a dict key: zope.schema's
// `ttree[term] = ...` with term a SimpleTerm).
func (r *resolver) hashesKeys(x *expr, name string) bool {
	for _, v := range r.eval(x) {
		switch {
		case v.kind == vSeq && v.lit().op == eSeq:
			return false
		case v.kind == vInst && len(r.protoMethods(v.def, name)) > 0:
			return false
		}
	}
	return true
}

// anyMethod reports whether some class of the project defines a method with one of the
// names.
func (r *resolver) anyMethod(name string, more []string) bool {
	if len(r.methods[name]) > 0 {
		return true
	}
	for _, m := range more {
		if len(r.methods[m]) > 0 {
			return true
		}
	}
	return false
}

// protoChain returns the first of the special methods name, then fallbacks, that
// instances of class c have. A fallback stands for object's default delegating to it, so
// it is only tried when no class in c's order lies outside the project (which may define
// the method itself), unless always is set (a missing in-place operator falls back to
// the plain one whatever the bases).
func (r *resolver) protoChain(c *defInfo, name string, fallbacks []string, always bool) []value {
	if ms := r.protoMethods(c, name); len(ms) > 0 || len(fallbacks) == 0 {
		return ms
	}
	if !always && r.outsideBase(c) {
		return nil
	}
	for _, fb := range fallbacks {
		if ms := r.protoMethods(c, fb); len(ms) > 0 {
			return ms
		}
	}
	return nil
}

// outsideBase reports whether a class in c's order has a base outside the project.
func (r *resolver) outsideBase(c *defInfo) bool {
	for _, k := range r.mro(c) {
		if k.extBase {
			return true
		}
	}
	return false
}

// evalProto evaluates eProto: the special methods of the instances e.sub() evaluates to.
func (r *resolver) evalProto(e *expr) []value {
	var fallbacks []string
	if e.lit() != nil {
		fallbacks = e.lit().keyList()
	}
	return r.protoValues(e.sub(), e.name(), fallbacks, e.keyOK())
}

// protoValues returns special method name (or the first fallback, see protoChain) of
// the instances x evaluates to.
func (r *resolver) protoValues(x *expr, name string, fallbacks []string, always bool) []value {
	return r.protoValuesInto(nil, x, name, fallbacks, always)
}

// protoValuesInto is protoValues building its result in buf (overwritten) when buf is
// not nil: the implicit sites consume each result at once, and building one set per
// site was the analysis's largest source of garbage (≈360 MB on sympy).
func (r *resolver) protoValuesInto(buf []value, x *expr, name string, fallbacks []string, always bool) []value {
	if !r.anyMethod(name, fallbacks) {
		return buf[:0] // no class of the project defines the method
	}
	out := buf[:0]
	for _, v := range r.eval(x) {
		if vs := r.protoOf(v, name, fallbacks, always); len(vs) > 0 {
			switch {
			case buf == nil:
				out = union(out, vs)
			case len(out) == 0:
				out = append(out, vs...) // what union returns, copied into buf
			default:
				out = addValues(out, vs...)
			}
		}
	}
	return out
}

// protoOf returns special method name (or the first fallback, see protoChain) of value
// v: an instance's from its class, a class object's from its metaclass.
func (r *resolver) protoOf(v value, name string, fallbacks []string, always bool) []value {
	switch {
	case v.kind == vInst:
		return r.protoChain(v.def, name, fallbacks, always)
	case v.kind == vDef && v.def.fn.Kind == "class":
		// a class object: the special methods of its metaclass (h11's states are
		// classes whose metaclass Sentinel defines __repr__); type, the base of every
		// metaclass, defines no __str__ or __format__ of its own, so object's
		// defaults delegate down the chain
		if m := r.metaclass(v.def); m != nil {
			return r.protoChain(m, name, fallbacks, true)
		}
	}
	return nil
}

// percentOperandInto returns, in buf (overwritten), the special methods conversion cv
// calls on x, the single right operand of `"..." % x`: those of x's values other than
// instances of tuple subclasses, whose items are formatted instead (items are not
// followed: what a namedtuple instance holds is not known here).
func (r *resolver) percentOperandInto(buf []value, x *expr, cv conversion) []value {
	out := buf[:0]
	if !r.anyMethod(cv[0], cv[1:]) {
		return out
	}
	for _, v := range r.eval(x) {
		if v.kind == vInst && r.tupleClass(v.def) {
			continue
		}
		out = addValues(out, r.protoOf(v, cv[0], cv[1:], false)...)
	}
	return out
}

// reflectedValues returns reflected method name of the instances x evaluates to, when
// left (the other operand) lets Python call it; forward are the left operand's methods
// that would be called instead.
func (r *resolver) reflectedValues(x *expr, name string, left *expr, forward []string) []value {
	if len(r.methods[name]) == 0 {
		return nil
	}
	if l := left; l != literalExpr {
		left := r.eval(l)
		if len(left) == 0 {
			return nil
		}
		for _, v := range left {
			if v.kind != vInst {
				continue
			}
			for _, m := range forward {
				if len(r.protoMethods(v.def, m)) > 0 {
					return nil
				}
			}
		}
	}
	var acc accum
	for _, v := range r.eval(x) {
		if v.kind == vInst {
			r.add(&acc, r.protoMethods(v.def, name))
		}
	}
	return r.result(&acc)
}

// propValues returns accessor k of property name of the instances x evaluates to.
func (r *resolver) propValues(x *expr, name string, k int) []value {
	var out []value
	for _, v := range r.eval(x) {
		skip := 0
		switch v.kind {
		case vInst:
		case vSuper:
			skip = r.after(v.def, v.recv())
		default:
			continue
		}
		for _, a := range r.accessors(v.def, name, skip, k) {
			out = addValues(out, value{kind: vDef, def: a, bound: true, ref: recvRef(v.def)})
		}
	}
	return out
}

// accessors returns the accessor of kind k (0 getter, 1 setter, 2 deleter) of property
// name on instances of class c: from the first class in c's order (after skip) whose body
// binds the name, if that binding is a property. An instance attribute that __init__
// always sets hides nothing here: a property is a data descriptor and wins.
func (r *resolver) accessors(c *defInfo, name string, skip, k int) []*defInfo {
	mro := r.mro(c)
	if skip > len(mro) {
		return nil
	}
	for _, cl := range mro[skip:] {
		bs := cl.scope.bindings(name)
		if len(bs) == 0 {
			continue
		}
		var out []*defInfo
		for _, b := range bs {
			if b.val.op == eCall && b.val.sub().op == eName && b.val.sub().name() == "property" && b.val.lit() != nil {
				// name = property(fget, fset, fdel)
				out = append(out, r.propertyCallAccessor(b.val, k)...)
				continue
			}
			if calls := propertyFactoryCalls(b.val); len(calls) > 0 {
				// name = factory(...), factory returning property(fget, ...)
				for _, call := range calls {
					out = append(out, r.propertyCallAccessor(call, k)...)
				}
				continue
			}
			if b.val.op != eDef || b.val.def().class != cl {
				continue
			}
			d := b.val.def()
			switch {
			case k == 0 && d.property, k == 1 && d.setter, k == 2 && d.deleter:
				out = append(out, d)
			}
		}
		return out
	}
	return nil
}

// propertyCallAccessor returns the functions passed as accessor k of a property(...)
// call (positionally or as fget, fset, fdel).
func (r *resolver) propertyCallAccessor(call *expr, k int) []*defInfo {
	kw := [...]string{"fget", "fset", "fdel"}[k]
	pos := 0
	var arg *expr
	for j, a := range call.lit().elems() {
		if ck := keyAt(call.lit().keyList(), j); ck == kw || ck == "" && pos == k {
			arg = a
		}
		if keyAt(call.lit().keyList(), j) == "" {
			pos++
		}
	}
	if arg == nil || !r.isBuiltin(call.sub().scope(), "property") {
		return nil
	}
	var out []*defInfo
	for _, v := range r.eval(arg) {
		if v.kind == vDef && v.def.fn.Kind != "class" {
			out = append(out, v.def)
		}
	}
	return out
}

// propertyFactoryCalls returns the property(...) calls that the function called by v
// returns, when v is a call of a name bound to a project function (not a class):
// oslo.context's class body binds `user = _moved_property('user_id', 'user', ...)`, and
// _moved_property returns `property(getter, setter, deleter)` of its nested functions.
// Else nil.
func propertyFactoryCalls(v *expr) []*expr {
	if v.op != eCall || v.sub().op != eName {
		return nil
	}
	s, pos := bindingScope(v.sub().scope(), v.sub().name(), v.sub().pos)
	if s == nil {
		return nil
	}
	var out []*expr
	for _, b := range reaching(s.bindings(v.sub().name()), pos) {
		if b.val.op != eDef || b.val.def().fn.Kind == "class" {
			continue
		}
		for _, ret := range b.val.def().returns {
			if ret.op == eCall && ret.sub().op == eName && ret.sub().name() == "property" && ret.lit() != nil {
				out = append(out, ret)
			}
		}
	}
	return out
}

// constructors returns what calling class c runs on the new instance: its __new__ and
// __init__ as found through its order, a generated __init__ (dataclasses, attrs; a hidden
// definition) when no class in the order defines __init__ in the project, and the hook
// that generated __init__ calls (__post_init__, __attrs_post_init__).
func (r *resolver) constructors(c *defInfo) []*defInfo {
	var out []*defInfo
	for _, name := range [...]string{"__new__", "__init__"} {
		for _, m := range r.classAttr(c, name, true, 0) {
			if m.kind == vDef && m.def.fn.Kind != "class" {
				out = appendDef(out, m.def)
			}
		}
	}
	var gen *defInfo
	for _, k := range r.mro(c) {
		if len(k.scope.bindings("__init__")) > 0 {
			break
		}
		if k.cfacts().synthInit != nil {
			gen = k
			break
		}
	}
	if gen == nil {
		return out
	}
	out = appendDef(out, gen.cfacts().synthInit)
	hook := "__post_init__"
	if gen.synth == synthAttrs {
		hook = "__attrs_post_init__"
	}
	for _, m := range r.classAttr(c, hook, true, 0) {
		if m.kind == vDef && m.def.fn.Kind == "method" {
			out = appendDef(out, m.def)
		}
	}
	return out
}

// classicProperties adds to props the names bound in class bodies to property(...) or
// to a call of a project function returning property(...).
func (r *resolver) classicProperties(props map[string]bool) map[string]bool {
	for _, f := range r.files {
		for _, d := range f.defs {
			if d.fn.Kind != "class" || d.scope == nil {
				continue
			}
			if t := d.scope.names; t != nil {
				for k, name := range t.keys {
					for _, b := range t.binds[t.offs[k]:t.offs[k+1]] {
						if b.val.op == eCall && b.val.sub().op == eName && b.val.sub().name() == "property" || len(propertyFactoryCalls(b.val)) > 0 {
							props[name] = true
						}
					}
				}
			}
		}
	}
	return props
}

// metaclass returns the project metaclass of class c: the one its class statement or
// the first class of its order that has one names, nil when that is none or lies
// outside the project.
func (r *resolver) metaclass(c *defInfo) *defInfo {
	for _, k := range r.mro(c) {
		if k.cfacts().meta == nil {
			if m := r.withMetaclass(k); m != nil {
				return m
			}
			continue
		}
		for _, v := range r.eval(k.cfacts().meta) {
			if v.kind == vDef && v.def.fn.Kind == "class" {
				return v.def
			}
		}
		return nil
	}
	return nil
}

// withMetaclass returns the project metaclass that a base of class c made by six's
// with_metaclass(M, *bases) (or future.utils's) names: multipledispatch's
// `class Variadic(six.with_metaclass(VariadicSignatureMeta))`, whose subscript
// Variadic[int] runs the metaclass's __getitem__.
func (r *resolver) withMetaclass(c *defInfo) *defInfo {
	for _, b := range c.cfacts().bases {
		if b.op != eCall || b.lit() == nil || len(b.lit().elems()) == 0 || b.slice() {
			continue
		}
		ns := r.outsideDotted(b.sub())
		if len(ns) == 0 {
			continue
		}
		for _, n := range ns {
			if n != "six.with_metaclass" && n != "future.utils.with_metaclass" {
				return nil
			}
		}
		for _, v := range r.eval(b.lit().elems()[0]) {
			if v.kind == vDef && v.def.fn.Kind == "class" {
				return v.def
			}
		}
	}
	return nil
}
