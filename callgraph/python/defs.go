package python

import (
	"regexp"
	"slices"
	"strings"

	"github.com/faultline-dev/faultline/task"
)

// newDef creates the definition for a function_definition or class_definition node i,
// with decorated_definition dec (or -1).
func (c *collector) newDef(i, dec int32, sc *scope, k task.Kind) *defInfo {
	t := c.t
	n := &t.nodes[i]
	name := ""
	if id := t.child(i, kIdentifier); id >= 0 {
		name = c.str(id)
	}
	d := &defInfo{file: c.f, simple: name, outer: sc}
	for s := sc; s != nil; s = s.parent {
		if s.def != nil {
			d.parent = s.def
			break
		}
	}
	if d.parent != nil {
		d.qual = d.parent.qual + "." + name
	} else {
		d.qual = name
	}
	if sc.kind == scopeClass && k == task.KindFunction {
		k = task.KindMethod
		d.class = sc.def
	}
	start := n.start
	decLine := int(n.row) + 1
	if dec >= 0 {
		start = t.nodes[dec].start
		decLine = int(t.nodes[dec].row) + 1
	}
	last := t.lastReal(i)
	end := t.nodes[last].end
	if end < n.start {
		end = n.end
	}
	endLine := int(t.nodes[last].endRow) + 1
	if t.nodes[last].end > t.nodes[last].start && t.src[t.nodes[last].end-1] == '\n' {
		endLine-- // a token ending in a newline (never in valid code) ends on its last line
	}
	fn := task.Function{File: c.f.path, Name: d.qual, Kind: k, Language: "python",
		Line: int(n.row) + 1, EndLine: endLine, DecoratorLine: decLine,
		Def: task.Span{Start: int(start), End: int(end)}}
	// signature: from `def`/`async`/`class` to the header's colon
	block := t.child(i, kBlock)
	sigEnd := end
	if block >= 0 {
		for ch := t.nodes[i].first; ch >= 0 && ch != block; ch = t.nodes[ch].next {
			if !t.nodes[ch].named && t.symName(ch) == ":" && !t.nodes[ch].missing {
				sigEnd = t.nodes[ch].end
			}
		}
		if sigEnd > t.nodes[block].start && t.nodes[block].start > n.start {
			sigEnd = t.nodes[block].start
		}
		bs := t.firstNamed(block)
		if bs >= 0 {
			bl := t.lastReal(block)
			be := t.nodes[bl].end
			if be < t.nodes[bs].start {
				be = t.nodes[bs].end
			}
			fn.Body = task.Span{Start: int(t.nodes[bs].start), End: int(be)}
			if doc, ok := c.docstring(bs); ok {
				fn.Doc = doc
			}
		}
	}
	if sigEnd > end {
		sigEnd = end
	}
	fn.Signature = task.Span{Start: int(n.start), End: int(sigEnd)}
	if fn.Body.Empty() {
		fn.Body = task.Span{Start: int(sigEnd), End: int(sigEnd)}
	}
	m := c.metrics(i, fn.Line, fn.EndLine)
	m.Lines = fn.EndLine - fn.DecoratorLine + 1
	d.fn, d.metrics = packFn(&fn), packMetrics(m)
	d.order = int32(len(c.f.defs))
	c.f.defs = append(c.f.defs, d)
	return d
}

// docstring returns the span of the docstring literal if statement s is one: an
// expression statement holding only a string literal (or implicitly concatenated
// literals) that is neither an f-string nor a bytes literal, as ast.get_docstring sees it.
func (c *collector) docstring(s int32) (task.Span, bool) {
	t := c.t
	if t.nodes[s].kind != kExpressionStatement {
		return task.Span{}, false
	}
	e := t.firstNamed(s)
	if e < 0 || t.nodes[e].next >= 0 && t.firstNamedAfter(e) >= 0 {
		return task.Span{}, false
	}
	var strs []int32
	switch t.nodes[e].kind {
	case kString:
		strs = []int32{e}
	case kConcatString:
		strs = t.namedChildren(e, nil)
	default:
		return task.Span{}, false
	}
	for _, st := range strs {
		if t.nodes[st].kind != kString {
			return task.Span{}, false
		}
		sst := t.nodes[st].first
		if sst < 0 {
			return task.Span{}, false
		}
		for _, b := range t.src[t.nodes[sst].start:t.nodes[sst].end] {
			if b == 'f' || b == 'F' || b == 'b' || b == 'B' {
				return task.Span{}, false
			}
		}
	}
	return task.Span{Start: int(t.nodes[e].start), End: int(t.nodes[e].end)}, true
}

// firstNamedAfter returns the next named non-extra sibling of i, or -1.
func (t *tree) firstNamedAfter(i int32) int32 {
	for ch := t.nodes[i].next; ch >= 0; ch = t.nodes[ch].next {
		if t.nodes[ch].named && !t.nodes[ch].extra {
			return ch
		}
	}
	return -1
}

// decorators converts the decorators of a decorated definition (outermost first) and
// visits their call sites in the defining scope.
func (c *collector) decorators(dec int32, sc *scope, caller *defInfo) (exprs []*expr, names []string) {
	if dec < 0 {
		return nil, nil
	}
	t := c.t
	for ch := t.nodes[dec].first; ch >= 0; ch = t.nodes[ch].next {
		if t.nodes[ch].kind != kDecorator {
			continue
		}
		e := t.firstNamed(ch)
		if e < 0 {
			continue
		}
		exprs = append(exprs, c.conv(e, sc))
		names = append(names, c.str(e))
		c.visit(e, sc, caller, false)
	}
	return exprs, names
}

// implicitClassMethod reports whether a method of that name takes its class as first
// parameter without a decorator: __new__ (a static method the interpreter passes the
// class to) and __init_subclass__, __class_getitem__ (implicit class methods).
func implicitClassMethod(name string) bool {
	return name == "__new__" || name == "__init_subclass__" || name == "__class_getitem__"
}

// function records a function or method definition.
func (c *collector) function(i, dec int32, sc *scope, caller *defInfo, cond bool) {
	t := c.t
	decs, decNames := c.decorators(dec, sc, caller)
	d := c.newDef(i, dec, sc, task.KindFunction)
	d.decorators = decs
	for k, dn := range decNames {
		if libraryRunsBody(dn) {
			d.libWrap = decs[k]
			d.libCaller = !strings.HasSuffix(strings.TrimSpace(dn), "composite")
		}
		switch dn {
		case "staticmethod":
			d.static = true
		case "classmethod":
			d.classMethod = true
		case "property", "cached_property":
			d.property = true
		default:
			switch {
			case dn == "abstractmethod" || dn == "abstractproperty" || strings.HasSuffix(dn, ".abstractmethod") || strings.HasSuffix(dn, ".abstractproperty"):
				d.abstractDecl = true
			case strings.HasSuffix(dn, ".cached_property") || strings.HasSuffix(dn, ".property"):
				d.property = true
			case strings.HasSuffix(dn, ".setter"):
				d.accessor, d.setter = true, true
			case strings.HasSuffix(dn, ".deleter"):
				d.accessor, d.deleter = true, true
			}
		}
	}
	fs := c.newScope(scopeFunction, sc, d)
	d.scope = fs
	if p := t.child(i, kParameters); p >= 0 {
		d.params = c.params(p, sc, caller)
	}
	// return annotation: evaluated in the defining scope
	for ch := t.nodes[i].first; ch >= 0; ch = t.nodes[ch].next {
		if t.nodes[ch].kind == kOther && t.nodes[ch].named && t.symName(ch) == "type" {
			c.visit(ch, sc, caller, false)
		}
	}
	for k := range d.params {
		p := &d.params[k]
		var v *expr
		switch {
		case k == 0 && d.class != nil && !d.static && (d.classMethod || implicitClassMethod(d.simple)):
			// the class itself, not an instance: reading a property through it gives the
			// property object and calls no getter (fixtures' metaclass __new__ reads
			// cls.DEFAULT, a property of the metaclass)
			v = c.newExpr(exprSpec{op: eClass, ref: inScope(d.ref())})
		case k == 0 && d.class != nil && !d.static:
			v = c.newExpr(exprSpec{op: eSelf, ref: inScope(d.ref())})
			fs.selfName = p.name
		default:
			v = c.newExpr(exprSpec{op: eParam, ref: inScope(d.ref()), pos: idxPos(int32(k))})
		}
		fs.bind(p.name, binding{pos: 0, val: v})
	}
	if b := t.child(i, kBlock); b >= 0 {
		c.visitChildren(b, fs, d, false)
		d.stub = d.class != nil && !d.abstract && !d.abstractDecl && c.stubBody(b)
	}
	val := c.newExpr(exprSpec{op: eDef, ref: inScope(d.ref())})
	c.bindName(sc, d.simple, binding{pos: t.nodes[i].end, cond: cond, val: val})
	c.applyDecorators(d, decs, caller)
}

// site records a call site of caller at line calling callee with positional args, made
// by the syntax (implicit) or by a builtin called explicitly.
func (c *collector) site(caller *defInfo, line int32, implicit bool, callee *expr, args []*expr) {
	call := c.newExpr(exprSpec{op: eCall, x: callee})
	if len(args) > 0 {
		call.setLit(litOf(args))
	}
	c.addSite(caller, newSite(line, implicit, call))
}

// addSite appends cs, a site of caller, to the file's call sites, starting a run of
// caller's sites (see fileInfo.callCallers) unless the file's last site is caller's too.
func (c *collector) addSite(caller *defInfo, cs callSite) {
	f := c.f
	if n := len(f.callCallers); n == 0 || f.callCallers[n-1].caller != caller {
		f.callCallers = append(f.callCallers, callerRun{start: int32(len(c.calls)), caller: caller})
	}
	c.calls = append(c.calls, cs)
}

// applyDecorators records the call of each decorator by the defining scope: the
// innermost decorator receives the definition, each outer one the previous result.
func (c *collector) applyDecorators(d *defInfo, decs []*expr, caller *defInfo) {
	line := int(d.fn.DecoratorLine)
	arg := c.newExpr(exprSpec{op: eDef, ref: inScope(d.ref()), pos: rawBit})
	for k := len(decs) - 1; k >= 0; k-- {
		arg = c.newExpr(exprSpec{op: eCall, x: decs[k], ref: withLit(litOf([]*expr{arg}))})
		c.addSite(caller, newSite(int32(line+k), false, arg))
		d.decCall = arg
	}
}

// class records a class definition.
func (c *collector) class(i, dec int32, sc *scope, caller *defInfo, cond bool) {
	t := c.t
	decs, decNames := c.decorators(dec, sc, caller)
	d := c.newDef(i, dec, sc, task.KindClass)
	d.decorators = decs
	for _, dn := range decNames {
		if g := codeGenerator(dn); g != synthNone {
			d.synth = g
		}
	}
	if al := t.child(i, kArgumentList); al >= 0 {
		for ch := t.nodes[al].first; ch >= 0; ch = t.nodes[ch].next {
			nd := &t.nodes[ch]
			if !nd.named || nd.extra {
				continue
			}
			if nd.kind != kKeywordArgument && nd.kind != kListSplat && nd.kind != kDictSplat {
				cf := d.cfactsFor()
				cf.bases = append(cf.bases, c.conv(ch, sc))
			}
			if nd.kind == kKeywordArgument {
				// class C(metaclass=M): the defining scope calls M(name, bases, namespace),
				// which runs M.__new__ and M.__init__
				if id := t.child(ch, kIdentifier); id >= 0 && c.str(id) == "metaclass" {
					if v := t.firstNamedAfter(id); v >= 0 {
						d.cfactsFor().meta = c.conv(v, sc)
						c.site(caller, int32(nd.row)+1, true, d.cfacts().meta, nil)
					}
				}
			}
		}
		c.visit(al, sc, caller, false)
	}
	// @six.add_metaclass(M) rebuilds the class as M(name, bases, namespace), as the
	// metaclass= keyword does (watcherclient's `@six.add_metaclass(CommandMeta) class
	// Command`)
	for k, dn := range decNames {
		if d.cfacts() == nil || d.cfacts().meta == nil {
			if (strings.HasPrefix(dn, "six.add_metaclass(") || strings.HasPrefix(dn, "add_metaclass(")) &&
				decs[k].op == eCall && decs[k].lit() != nil && len(decs[k].lit().elems()) > 0 {
				d.cfactsFor().meta = decs[k].lit().elems()[0]
				c.site(caller, int32(t.nodes[i].row)+1, true, d.cfacts().meta, nil)
			}
		}
	}
	if cf := d.cfacts(); cf != nil && cf.meta == nil && len(cf.bases) > 0 {
		// a class statement without a metaclass of its own calls the metaclass of its
		// bases (watcherclient's command classes, subclasses of Command, run
		// CommandMeta.__new__): the raw type() of the class, resolved once the bases are
		c.site(caller, int32(t.nodes[i].row)+1, true, c.newExpr(exprSpec{op: eTypeOf, x: c.newExpr(exprSpec{op: eDef, ref: inScope(d.ref()), pos: rawBit}), pos: rawBit}), nil)
	}
	cs := c.newScope(scopeClass, sc, d)
	d.scope = cs
	if b := t.child(i, kBlock); b >= 0 {
		c.visitChildren(b, cs, caller, false)
		if d.synth != synthNone && !cs.binds("__init__") {
			c.generatedInit(d, b, cs)
		}
	}
	c.bindName(sc, d.simple, binding{pos: t.nodes[i].end, cond: cond, val: c.newExpr(exprSpec{op: eDef, ref: inScope(d.ref())})})
	c.applyDecorators(d, decs, caller)
}

// libraryRunsBody tells whether decorator dn, when it comes from outside the project,
// replaces the function by an object of its library that calls the body on its own
// behalf: hypothesis's @composite (@st.composite, @strategies.composite) returns a
// strategy builder, and the library draws from the strategy later; wrapt's @decorator
// (@wrapt.decorator, and the decorator package's @decorator) makes the function a
// decorator factory, so calling it with a function wraps that function in a library
// proxy and runs no line of the body, which the proxy runs when the wrapped function is
// called (debtcollector's removals.remove: `@wrapt.decorator def wrapper(f, instance,
// args, kwargs)`, then `return wrapper(f)`).
func libraryRunsBody(dn string) bool {
	dn = strings.TrimSpace(dn)
	switch dn {
	case "composite", "decorator", "wrapt.decorator", "decorator.decorator", "wrapt.function_wrapper":
		return true
	}
	return strings.HasSuffix(dn, ".composite")
}

// codeGenerator tells which library writes the __init__ of a class with decorator dn:
// dataclasses (@dataclass, @dataclasses.dataclass(...)) or attrs (@attr.s, @attr.attrs,
// @attrs.define, @define, @frozen, @mutable ...). With init=False neither writes one (so
// nothing calls __post_init__ either): the class's order provides __init__, as h11's
// `@dataclass(init=False, frozen=True) class Response(_ResponseBase)` does.
func codeGenerator(dn string) uint8 {
	if k := strings.IndexByte(dn, '('); k >= 0 {
		if initFalse.MatchString(dn[k+1:]) {
			return synthNone
		}
		dn = dn[:k]
	}
	dn = strings.TrimSpace(dn)
	last := dn
	if k := strings.LastIndexByte(dn, '.'); k >= 0 {
		last = dn[k+1:]
	}
	switch {
	case last == "dataclass":
		return synthDataclass
	case dn == "attr.s" || dn == "attr.attrs" || dn == "attrs.define" || dn == "attr.define" ||
		dn == "attrs.frozen" || dn == "attr.frozen" || dn == "attrs.mutable" || dn == "attr.mutable" ||
		dn == "define" || dn == "frozen" || dn == "mutable" || dn == "attr.dataclass":
		return synthAttrs
	}
	return synthNone
}

// initFalse matches the init=False argument of a class decorator.
var initFalse = regexp.MustCompile(`\binit\s*=\s*False\b`)

// generatedInit gives class d, whose __init__ a library writes, a hidden __init__ (not a
// node of the graph: a call reaching it makes no edge) whose parameters are the class's
// fields in order, each stored as an instance attribute, so that the arguments of
// `C(...)` flow to `self.field`. Fields are the annotated names of the class body
// (dataclasses, attrs' define) and, for attrs, names bound to attr.ib(), attrib(),
// field(); attrs drops a private field's leading underscores from its parameter name.
func (c *collector) generatedInit(d *defInfo, block int32, cs *scope) {
	t := c.t
	ld := &defInfo{file: c.f, simple: "__init__", qual: d.qual + ".__init__", outer: cs, lambda: true, class: d, parent: d}
	ld.fn.Kind = task.KindMethod
	ld.params = append(ld.params, param{name: "self"})
	for st := t.nodes[block].first; st >= 0; st = t.nodes[st].next {
		if t.nodes[st].kind != kExpressionStatement {
			continue
		}
		a := t.firstNamed(st)
		if a < 0 || t.nodes[a].kind != kAssignment {
			continue
		}
		id := t.firstNamed(a)
		if id < 0 || t.nodes[id].kind != kIdentifier {
			continue
		}
		var typ, val int32 = -1, -1
		sawEq := false
		for ch := t.nodes[id].next; ch >= 0; ch = t.nodes[ch].next {
			switch {
			case !t.nodes[ch].named && t.symName(ch) == "=":
				sawEq = true
			case t.nodes[ch].named && !t.nodes[ch].extra && sawEq && val < 0:
				val = ch
			case t.nodes[ch].named && !t.nodes[ch].extra && !sawEq && typ < 0:
				typ = ch
			}
		}
		name := c.str(id)
		var dflt *expr
		isField := false
		if val >= 0 && t.nodes[val].kind == kCall {
			if fn := t.firstNamed(val); fn >= 0 {
				switch fnName := t.text(fn); fnName {
				case "attr.ib", "attr.attrib", "attrib", "attr.field", "attrs.field", "field", "dataclasses.field":
					isField = true
					ce := c.callExpr(val, cs)
					for k, kw := range ce.lit().keyList() {
						if kw == "default" {
							dflt = ce.lit().elems()[k]
						}
					}
				}
			}
		}
		if typ >= 0 && !isField {
			if strings.Contains(t.text(typ), "ClassVar") {
				continue
			}
			isField = true
			if val >= 0 {
				dflt = c.conv(val, cs)
			}
		}
		if !isField {
			continue
		}
		pname := name
		if d.synth == synthAttrs {
			pname = strings.TrimLeft(name, "_")
		}
		k := len(ld.params)
		ld.params = append(ld.params, param{name: pname, dflt: dflt})
		cf := d.cfactsFor()
		if cf.instAttrs == nil {
			cf.instAttrs = map[string][]*expr{}
		}
		cf.instAttrs[name] = append(cf.instAttrs[name], c.newExpr(exprSpec{op: eParam, ref: inScope(ld.ref()), pos: idxPos(int32(k))}))
		cf.fields = append(cf.fields, name)
	}
	d.cfactsFor().synthInit = ld
}

// params reads a parameter list; default values and annotations are visited in the
// defining scope sc (unless caller is nil: the caller visits them).
func (c *collector) params(p int32, sc *scope, caller *defInfo) []param {
	t := c.t
	var out []param
	kwOnly := false
	for ch := t.nodes[p].first; ch >= 0; ch = t.nodes[ch].next {
		nd := &t.nodes[ch]
		if !nd.named || nd.extra {
			continue
		}
		switch nd.kind {
		case kIdentifier:
			out = append(out, param{name: c.str(ch), kwOnly: kwOnly})
		case kDefaultParameter, kTypedDefaultParameter, kTypedParameter:
			id := t.child(ch, kIdentifier)
			star := false
			if id < 0 {
				for _, k := range []kind{kListSplatPattern, kDictSplatPattern} {
					if s := t.child(ch, k); s >= 0 {
						id = t.child(s, kIdentifier)
						star = true
						if k == kListSplatPattern {
							kwOnly = true
						}
					}
				}
			}
			if id < 0 {
				continue
			}
			pr := param{name: c.str(id), star: star, kwOnly: kwOnly && !star, varPos: star && kwOnly && t.child(ch, kListSplatPattern) >= 0}
			// the default value follows `=`
			sawEq := false
			for v := nd.first; v >= 0; v = t.nodes[v].next {
				if !t.nodes[v].named && t.symName(v) == "=" {
					sawEq = true
					continue
				}
				if sawEq && t.nodes[v].named && !t.nodes[v].extra {
					pr.dflt = c.conv(v, sc)
					break
				}
			}
			if caller != nil {
				c.visitChildren(ch, sc, caller, false)
			}
			out = append(out, pr)
		case kListSplatPattern, kDictSplatPattern:
			if id := t.child(ch, kIdentifier); id >= 0 {
				out = append(out, param{name: c.str(id), star: true, varPos: nd.kind == kListSplatPattern})
			}
			if nd.kind == kListSplatPattern {
				kwOnly = true
			}
		case kKeywordSeparator:
			kwOnly = true
		case kTuple: // Python 2 tuple parameters
			for _, e := range t.namedChildren(ch, nil) {
				if t.nodes[e].kind == kIdentifier {
					out = append(out, param{name: c.str(e), star: true})
				}
			}
		}
	}
	if cap(out) > len(out) {
		// an exact copy: the list lives until the resolution ends, and append's
		// doubling left ≈1.9 MB of sympy's parameter arrays (64 bytes a parameter) unused
		out = slices.Clone(out)
	}
	return out
}

// call records a call site at node i.
func (c *collector) call(i int32, sc *scope, caller *defInfo) {
	ce := c.callExpr(i, sc)
	if ce.op != eCall {
		if ce.op == eSuper {
			c.site(caller, int32(c.t.nodes[i].row)+1, false, c.newExpr(exprSpec{op: eName, nm: c.intern("super"), ref: inScope(sc)}), nil)
		}
		return
	}
	c.addSite(caller, newSite(int32(c.t.nodes[i].row)+1, false, ce))
	// a copy: recording the builtin's implicit sites appends to c.calls
	cs := c.calls[len(c.calls)-1]
	c.containerCall(&cs)
	c.builtinCall(&cs, caller, ce)
	c.builtinProtocols(&cs)
}

// builtinCall records what a call of a higher-order builtin does with its arguments: map
// and filter call their function argument on the elements of the iterables, and sorted,
// min and max (and a list's sort method) call their key= function on the elements. Those
// calls are implicit call sites of the caller (they apply when the builtin's name is not
// rebound). It also records, for map and for the builtins returning the elements of their
// argument (filter, sorted, reversed, list, tuple, set, frozenset, iter), the container
// their result iterates over.
func (c *collector) builtinCall(cs *callSite, caller *defInfo, ce *expr) {
	var positional []*expr
	var key *expr
	if args := cs.args(); cs.call.lit().keyList() == nil {
		// no keyword argument: the call's own arguments, clipped so that appending copies
		positional = args[:len(args):len(args)]
	} else {
		for k, a := range args {
			switch cs.kw(k) {
			case "":
				positional = append(positional, a)
			case "key":
				key = a
			}
		}
	}
	fn := cs.callee()
	if fn.op == eName && outsideHigherOrder[fn.name()] || fn.op == eAttr && fn.sub().op == eName && outsideHigherOrder[fn.name()] {
		// the positional arguments before a *args are known
		c.outsideCall(cs, caller, ce, fn.name(), positional)
		return
	}
	if cs.star() {
		return
	}
	name := ""
	switch {
	case (fn.op == eName || fn.op == eAttr && fn.sub().op == eName && fn.sub().name() == "importlib") && fn.name() == "import_module" && len(positional) == 1:
		// importlib.import_module(name, package=...) (the name bound outside the
		// project): the module it names (see importedModule)
		if m := c.importedModule(cs, positional[0]); m != nil {
			ce.lit().extra().builtin = m
			ce.lit().extra().extBuiltin = true
		}
		return
	case fn.op == eName:
		name = fn.name()
	case fn.op == eAttr && (fn.name() == "get" || fn.name() == "pop" || fn.name() == "setdefault") && len(positional) >= 1 && len(positional) <= 2 && key == nil:
		// d.get(k, default) on a container: its elements selected by k, or the default
		sub := c.newExpr(exprSpec{op: eSubscript, x: fn.sub()})
		if k := positional[0]; k.op == eConst {
			sub.setName(k.nameRef())
			sub.setFlag(keyOKBit)
		} else if k.op == eName || k.op == eAttr {
			sub.setLit(litOf([]*expr{k}))
		}
		u := c.newExpr(exprSpec{op: eUnion, ref: withLit(litOf([]*expr{sub}))})
		if len(positional) == 2 {
			u.lit().appendElems(positional[1])
		}
		ce.lit().extra().builtin = u
		return
	case (fn.op == eName || fn.op == eAttr && fn.sub().op == eName && fn.sub().name() == "collections") && fn.name() == "OrderedDict" && len(positional) == 1 && len(cs.args()) == 1:
		// collections.OrderedDict([(k, v), ...]) (the name bound outside the project): a
		// dict of those pairs, as dict(...) of the same list
		if d := c.pairsDict(positional[0]); d != nil {
			ce.lit().extra().builtin = d
			ce.lit().extra().extBuiltin = true
		}
		return
	case fn.op == eAttr && fn.sub().op == eName && fn.sub().name() == "copy" && (fn.name() == "copy" || fn.name() == "deepcopy") && len(positional) == 1 && len(cs.args()) == 1:
		// copy.copy(x) and copy.deepcopy(x) of the standard library's copy module (the
		// name copy bound outside the project) return an object of x's class
		ce.lit().extra().builtin = positional[0]
		ce.lit().extra().extBuiltin = true
		return
	case fn.op == eAttr && len(cs.args()) == 0 && (fn.name() == "values" || fn.name() == "items" || fn.name() == "copy"):
		all := c.newExpr(exprSpec{op: eSubscript, x: fn.sub()})
		switch fn.name() {
		case "values":
			ce.lit().extra().builtin = c.newExpr(exprSpec{op: eSeq, ref: withLit(litOf([]*expr{all}))})
		case "items":
			pair := c.newExpr(exprSpec{op: eSeq, ref: withLit(litOf([]*expr{unknownExpr, all}))})
			ce.lit().extra().builtin = c.newExpr(exprSpec{op: eSeq, ref: withLit(litOf([]*expr{pair}))})
		default:
			ce.lit().extra().builtin = fn.sub()
		}
		return
	case fn.op == eAttr && fn.name() == "sort" && key != nil:
		// xs.sort(key=f) on a list: the key function is called on its elements
		it := c.newExpr(exprSpec{op: eIter, x: fn.sub()})
		c.site(caller, cs.line, true, c.newExpr(exprSpec{op: eBuiltinArg, nm: c.intern("list.sort"), x: key, ref: withLit(litOf([]*expr{fn.sub()}))}),
			[]*expr{it})
		return
	default:
		return
	}
	implicit := func(f *expr, args []*expr) {
		c.site(caller, cs.line, true, c.newExpr(exprSpec{op: eBuiltinArg, nm: c.intern(name), ref: withLit(&litData{litExtra: &litExtra{sc: fn.scope()}}), x: f}), args)
	}
	iters := func(xs []*expr) []*expr {
		out := make([]*expr, len(xs))
		for k, x := range xs {
			out[k] = c.newExpr(exprSpec{op: eIter, x: x})
		}
		return out
	}
	elemsOf := func(x *expr) *expr {
		return c.newExpr(exprSpec{op: eSeq, ref: withLit(litOf([]*expr{c.newExpr(exprSpec{op: eIter, x: x})}))})
	}
	switch name {
	case "map":
		if len(positional) >= 2 && key == nil {
			args := iters(positional[1:])
			implicit(positional[0], args)
			res := c.newExpr(exprSpec{op: eCall, x: positional[0], ref: withLit(litOf(args))})
			ce.lit().extra().builtin = c.newExpr(exprSpec{op: eSeq, ref: withLit(litOf([]*expr{res}))})
		}
	case "filter":
		if len(positional) == 2 && key == nil {
			implicit(positional[0], iters(positional[1:]))
			ce.lit().extra().builtin = elemsOf(positional[1])
		}
	case "sorted", "min", "max":
		if key != nil && len(positional) == 1 {
			implicit(key, iters(positional))
		}
		if name == "sorted" && len(positional) == 1 {
			ce.lit().extra().builtin = elemsOf(positional[0])
		}
	case "reversed", "list", "tuple", "set", "frozenset", "iter":
		if len(positional) == 1 && key == nil {
			ce.lit().extra().builtin = elemsOf(positional[0])
		}
		if (name == "list" || name == "set") && len(cs.args()) == 0 {
			// an empty container, as [] is: what is stored into it later (s.add(x),
			// l.append(x)) is its elements (zake's FakeStorage._clients)
			ce.lit().extra().builtin = c.newExpr(exprSpec{op: eSeq, ref: withLit(&litData{})})
		}
	case "dict":
		switch {
		case len(cs.args()) == 0:
			ce.lit().extra().builtin = c.newExpr(exprSpec{op: eDict, ref: withLit(&litData{})})
		case len(positional) == 1 && len(cs.args()) == 1:
			ce.lit().extra().builtin = positional[0] // a copy of the mapping
			if d := c.pairsDict(positional[0]); d != nil {
				ce.lit().extra().builtin = d
			}
		case len(positional) == 0 && len(cs.args()) > 0:
			// dict(a=x, b=y): a literal with string keys
			d := c.newExpr(exprSpec{op: eDict, ref: withLit(&litData{})})
			for k, a := range cs.args() {
				d.lit().extra().keys = append(d.lit().keyList(), "s"+cs.kw(k))
				d.lit().appendElems(a)
			}
			ce.lit().extra().builtin = d
		}
	case "getattr":
		if n := len(positional); (n == 2 || n == 3) && len(cs.args()) == n {
			g := c.newExpr(exprSpec{op: eGetattr, x: positional[0], ref: withLit(litWith(positional[1:], &litExtra{sc: fn.scope()}))})
			ce.lit().extra().builtin = g
			c.lazyOf(caller, lazySite{kind: lzGetattr, x: g, line: cs.line})
		}
	case "setattr":
		// setattr(obj, NAME, v) stores v into obj.<NAME> for each string constant NAME
		// holds (pycadf's `setattr(self, EVENT_KEYNAME_ID, id)`, a module constant naming
		// a class attribute that holds a descriptor): what assigning obj.<NAME> calls
		if len(positional) == 3 && len(cs.args()) == 3 && caller != nil && c.sc.names.anyDescr(descrSet) {
			switch positional[1].op {
			case eConst, eName, eFrom, eAttr:
				callee := c.newExpr(exprSpec{op: eDescr, x: positional[0], pos: idxPos(1),
					ref: withLit(litWith(positional[1:2], &litExtra{sc: fn.scope()}))})
				args := []*expr{c.newExpr(exprSpec{op: eInstances, x: positional[0]}), positional[2]}
				c.site(caller, int32(cs.line), true, callee, args)
			}
		}
	case "type":
		if len(positional) == 1 && len(cs.args()) == 1 {
			ce.lit().extra().builtin = c.newExpr(exprSpec{op: eTypeOf, x: positional[0]})
		}
	case "staticmethod", "classmethod":
		if len(positional) == 1 && len(cs.args()) == 1 {
			ce.lit().extra().builtin = positional[0] // the function, as the class attribute's value
		}
	}
}

// pairsDict returns the dict literal that dict(x) or OrderedDict(x) builds when x is a
// list or tuple literal of (key, value) pair literals: oslo.middleware's healthcheck
// dispatches on `OrderedDict([('text/plain', self._make_text_response), ...])[accept]`.
// A key that is not a constant is unknown (""). Else nil.
func (c *collector) pairsDict(x *expr) *expr {
	if x.op != eSeq || len(x.lit().elems()) == 0 {
		return nil
	}
	d := c.newExpr(exprSpec{op: eDict, ref: withLit(&litData{})})
	for _, p := range x.lit().elems() {
		if p.op != eSeq || len(p.lit().elems()) != 2 {
			return nil
		}
		key := ""
		if k := p.lit().elems()[0]; k.op == eConst {
			key = k.name()
		}
		d.lit().extra().keys = append(d.lit().keyList(), key)
		d.lit().appendElems(p.lit().elems()[1])
	}
	return d
}

// outsideHigherOrder names the functions of the standard library (functools, itertools)
// that call a function argument, or wrap it: they apply when the name (or the module
// attribute) evaluates to something outside the project.
var outsideHigherOrder = map[string]bool{"partial": true, "reduce": true, "starmap": true}

// outsideCall records what a call of functools.partial, functools.reduce or
// itertools.starmap does with its function argument f: partial(f, ...) evaluates to f
// with its arguments' positions unknown (calling it calls f, no arguments flow), reduce
// calls f on the elements of its iterable, starmap calls f on unpacked elements (no
// arguments flow). These calls are implicit call sites of the caller.
func (c *collector) outsideCall(cs *callSite, caller *defInfo, ce *expr, name string, positional []*expr) {
	if len(positional) == 0 {
		return
	}
	f := positional[0]
	switch name {
	case "partial":
		ce.lit().extra().builtin = c.newExpr(exprSpec{op: ePartial, x: f})
		ce.lit().extra().extBuiltin = true
	case "reduce", "starmap":
		if len(positional) < 2 {
			return
		}
		var args []*expr
		if name == "reduce" {
			it := c.newExpr(exprSpec{op: eIter, x: positional[1]})
			args = []*expr{it, it}
		}
		c.site(caller, cs.line, true, c.newExpr(exprSpec{op: eBuiltinArg, nm: c.intern(name), x: f, ref: withLit(litOf([]*expr{cs.callee()}))}), args)
	}
}

// callee converts the function node fn of a call in scope sc. self.__class__(...) in a
// method constructs the class of the instance self is (statsd's PipelineBase.pipeline
// returns self.__class__(self)); see eTypeOf of eSelf.
func (c *collector) callee(fn int32, sc *scope) *expr {
	t := c.t
	if t.nodes[fn].kind == kAttribute && sc.kind == scopeFunction && sc.selfName != "" && sc.def != nil && sc.def.class != nil {
		if obj := t.firstNamed(fn); obj >= 0 && t.nodes[obj].kind == kIdentifier && lastIdent(t, fn) == "__class__" && c.str(obj) == sc.selfName {
			return c.newExpr(exprSpec{op: eTypeOf, x: c.newExpr(exprSpec{op: eSelf, ref: inScope(sc.def.ref())})})
		}
	}
	return c.conv(fn, sc)
}

// callExpr converts call node i to an eCall expression holding its arguments (elems,
// with their keywords in keys, "" for positional; slice set when the call has *args or
// **kwargs, after which positional arguments are not tracked). It is memoised per node:
// a call is both a call site and, often, part of an enclosing expression.
func (c *collector) callExpr(i int32, sc *scope) *expr {
	if e := c.sc.callMemo[i]; e != nil {
		return e
	}
	defer c.persistent()()
	t := c.t
	fn := t.firstNamed(i)
	if fn < 0 {
		c.sc.callMemo[i] = unknownExpr
		return unknownExpr
	}
	if t.nodes[fn].kind == kIdentifier && t.textEq(fn, "super") {
		for s := sc; s != nil; s = s.parent {
			if s.kind == scopeFunction && s.def != nil && s.def.class != nil {
				e := c.newExpr(exprSpec{op: eSuper, ref: inScope(s.def.ref())})
				c.sc.callMemo[i] = e
				return e
			}
		}
	}
	// the argument count first: elems sized once (calls are many, and appending one by
	// one leaves slack), from the collector's slabs; keys only once a keyword argument
	// comes (most calls have none: keyAt)
	n := 0
	al := t.nodes[fn].next
	if al >= 0 && t.nodes[al].kind == kArgumentList {
		for ch := t.nodes[al].first; ch >= 0; ch = t.nodes[ch].next {
			if nd := &t.nodes[ch]; nd.named && !nd.extra {
				n++
			}
		}
	}
	e := c.newExpr(exprSpec{op: eCall, x: c.callee(fn, sc), ref: withLit(c.newCallLit(n))})
	if al >= 0 {
		switch t.nodes[al].kind {
		case kArgumentList:
			for ch := t.nodes[al].first; ch >= 0; ch = t.nodes[ch].next {
				nd := &t.nodes[ch]
				if !nd.named || nd.extra {
					continue
				}
				switch nd.kind {
				case kKeywordArgument:
					id := t.child(ch, kIdentifier)
					var v int32 = -1
					if id >= 0 {
						v = t.firstNamedAfter(id)
					}
					if id >= 0 && v >= 0 {
						if e.lit().keyList() == nil {
							e.lit().extra().keys = make([]string, len(e.lit().elems()), n)
						}
						e.lit().appendElems(c.conv(v, sc))
						e.lit().extra().keys = append(e.lit().keyList(), c.str(id))
					}
				case kListSplat, kDictSplat:
					e.setFlag(sliceBit)
				default:
					if !e.slice() {
						e.lit().appendElems(c.conv(ch, sc))
						if e.lit().keyList() != nil {
							e.lit().extra().keys = append(e.lit().keyList(), "")
						}
					}
				}
			}
		case kComprehension:
			e.lit().appendElems(unknownExpr)
		}
	}
	c.sc.callMemo[i] = e
	return e
}

// containerCall records the values a call of a list, set or dict method stores into its
// receiver: append/add(v), insert(i, v), extend(iterable), update(mapping) and
// setdefault(k, v).
func (c *collector) containerCall(cs *callSite) {
	if cs.callee().op != eAttr || cs.star() {
		return
	}
	recv := cs.callee().sub()
	pos := func(k int) *expr {
		n := 0
		for j, a := range cs.args() {
			if cs.kw(j) == "" {
				if n == k {
					return a
				}
				n++
			}
		}
		return nil
	}
	switch cs.callee().name() {
	case "append", "add":
		if v := pos(0); v != nil {
			c.f.stores = append(c.f.stores, store{x: recv, val: v})
		}
	case "insert":
		if v := pos(1); v != nil {
			c.f.stores = append(c.f.stores, store{x: recv, val: v})
		}
	case "extend", "update":
		if v := pos(0); v != nil {
			c.f.stores = append(c.f.stores, store{x: recv, val: v, spread: true})
		}
	case "setdefault":
		if k, v := pos(0), pos(1); k != nil && v != nil {
			st := store{x: recv, val: v}
			if k.op == eConst {
				st.key, st.keyOK = k.name(), true
			}
			c.f.stores = append(c.f.stores, st)
		}
	}
}

// conv converts expression node i, evaluated in scope sc, to a symbolic expression.
func (c *collector) conv(i int32, sc *scope) *expr {
	t := c.t
	n := &t.nodes[i]
	switch n.kind {
	case kIdentifier:
		return c.newExpr(exprSpec{op: eName, nm: c.intern(c.str(i)), ref: inScope(sc), pos: n.start})
	case kAttribute:
		if e := c.sc.callMemo[i]; e != nil {
			return e
		}
		obj := t.firstNamed(i)
		attr := lastIdent(t, i)
		if obj < 0 || attr == "" {
			return unknownExpr
		}
		end := c.persistent()
		e := c.newExpr(exprSpec{op: eAttr, x: c.conv(obj, sc), nm: c.intern(attr)})
		end()
		c.sc.callMemo[i] = e
		return e
	case kCall:
		return c.callExpr(i, sc)
	case kLambda:
		return c.lambda(i, sc)
	case kParenthesized:
		if e := t.firstNamed(i); e >= 0 {
			return c.conv(e, sc)
		}
	case kList, kTuple, kSet, kExprList:
		e := c.newExpr(exprSpec{op: eSeq, ref: withLit(&litData{})})
		for _, ch := range t.namedChildren(i, nil) {
			e.lit().appendElems(c.conv(ch, sc))
		}
		return e
	case kDict:
		e := c.newExpr(exprSpec{op: eDict, ref: withLit(&litData{})})
		for _, p := range t.namedChildren(i, nil) {
			if t.nodes[p].kind != kPair {
				continue
			}
			k := t.firstNamed(p)
			if k < 0 {
				continue
			}
			v := t.firstNamedAfter(k)
			if v < 0 {
				continue
			}
			key, _ := constKey(t, k)
			e.lit().extra().keys = append(e.lit().keyList(), key)
			e.lit().appendElems(c.conv(v, sc))
		}
		return e
	case kSubscript:
		v := t.firstNamed(i)
		if v < 0 {
			return unknownExpr
		}
		e := c.newExpr(exprSpec{op: eSubscript, x: c.conv(v, sc)})
		if k := t.firstNamedAfter(v); k >= 0 && t.firstNamedAfter(k) < 0 {
			key, ok := constKey(t, k)
			if ok {
				e.setFlag(keyOKBit)
			}
			e.setName(c.intern(key))
			if t.symName(k) == "slice" {
				e.setFlag(sliceBit)
				e.setIdx(int32(sliceStart(t, k)))
			} else if kk := t.nodes[k].kind; !ok && (kk == kIdentifier || kk == kAttribute || kk == kBinaryOp) {
				// a key held by a name: constants bound to it select elements too
				e.setLit(litOf([]*expr{c.conv(k, sc)}))
			}
		}
		return e
	case kBoolOp, kConditionalExpr:
		e := c.newExpr(exprSpec{op: eUnion, ref: withLit(&litData{})})
		kids := t.namedChildren(i, nil)
		if n.kind == kConditionalExpr && len(kids) == 3 {
			kids = []int32{kids[0], kids[2]}
		}
		for _, ch := range kids {
			e.lit().appendElems(c.conv(ch, sc))
		}
		return e
	case kNamedExpr:
		if l := t.firstNamed(i); l >= 0 {
			if r := t.firstNamedAfter(l); r >= 0 {
				return c.conv(r, sc)
			}
		}
	case kComprehension:
		return c.compElems(i, sc)
	case kBinaryOp:
		if pre, suf, ok := c.affix(i, 0); ok {
			if c.bytesOperand(i, 0) {
				// bytes: no attribute or module name until decoded (bytesAffix)
				pre = bytesAffix + pre
			}
			return c.newExpr(exprSpec{op: eAffix, nm: c.intern(pre + "\x00" + suf)})
		}
	case kInteger, kString:
		if k, ok := constKey(t, i); ok {
			return c.newExpr(exprSpec{op: eConst, nm: c.intern(k)})
		}
	case kLiteral:
		// True, False and None: constants whose truth is known (class-level flags)
		switch {
		case t.textEq(i, "True"):
			return c.newExpr(exprSpec{op: eConst, nm: c.intern("bTrue")})
		case t.textEq(i, "False"):
			return c.newExpr(exprSpec{op: eConst, nm: c.intern("bFalse")})
		case t.textEq(i, "None"):
			return c.newExpr(exprSpec{op: eConst, nm: c.intern("n")})
		}
	}
	return unknownExpr
}

// compElems converts a list or set comprehension or a generator expression whose
// element is a call, `[Parameter(resource, tag) for tag in tags]`, to a sequence of the
// instances that call constructs of the classes its callee names (wadllib's
// HasParametersMixin.params, whose callers read the Parameter properties on each
// element). Any other element stays unknown (dict comprehensions: compLiteralDict): a
// comprehension of a function's results, `[self._compile(s) for s in schema]`, would
// merge what the function returns at every call site (round 4 tried that and lost
// precision on voluptuous and hyperlink).
func (c *collector) compElems(i int32, sc *scope) *expr {
	t := c.t
	el := t.firstNamed(i)
	if el >= 0 && t.nodes[el].kind == kPair {
		return c.compLiteralDict(i, el, sc)
	}
	if el < 0 || t.nodes[el].kind != kCall || t.symName(i) == "dictionary_comprehension" {
		return unknownExpr
	}
	call := c.conv(el, c.compScope(i, sc))
	if call.op != eCall {
		return unknownExpr
	}
	inst := c.newExpr(exprSpec{op: eInstances, x: call})
	inst.setFlag(rawBit)
	return c.newExpr(exprSpec{op: eSeq, ref: withLit(litOf([]*expr{inst}))})
}

// compLiteralDict converts dict comprehension i, whose key: value pair is node pair, to
// a dict whose values are the elements of a list, tuple or set literal when the value is
// the plain name a for clause of i binds to each element of that literal:
// `{cls.managed_type(): cls for cls in [OpaqueData, Passphrase, ...]}` holds exactly
// those classes (castellan's registry of managed-object classes, from_dict's lookup).
// Its keys are unknown. Any other dict comprehension stays unknown.
func (c *collector) compLiteralDict(i, pair int32, sc *scope) *expr {
	t := c.t
	k := t.firstNamed(pair)
	if k < 0 {
		return unknownExpr
	}
	v := t.firstNamedAfter(k)
	if v < 0 || t.nodes[v].kind != kIdentifier || t.firstNamedAfter(v) >= 0 {
		return unknownExpr
	}
	for ch := t.nodes[i].first; ch >= 0; ch = t.nodes[ch].next {
		if t.nodes[ch].kind != kForInClause {
			continue
		}
		target := t.firstNamed(ch)
		if target < 0 || t.nodes[target].kind != kIdentifier || t.text(target) != t.text(v) {
			continue
		}
		r := t.firstNamedAfter(target)
		if r < 0 || t.firstNamedAfter(r) >= 0 {
			return unknownExpr
		}
		switch t.nodes[r].kind {
		case kList, kTuple, kSet:
		default:
			return unknownExpr
		}
		d := c.newExpr(exprSpec{op: eDict, ref: withLit(&litData{})})
		for _, el := range t.namedChildren(r, nil) {
			d.lit().extra().keys = append(d.lit().keyList(), "")
			d.lit().appendElems(c.conv(el, sc))
		}
		return d
	}
	return unknownExpr
}

// sliceStart returns the constant start of a slice without step (0 when omitted), or -1.
func sliceStart(t *tree, k int32) int {
	start, colons := -1, 0
	sawStart := false
	for ch := t.nodes[k].first; ch >= 0; ch = t.nodes[ch].next {
		n := &t.nodes[ch]
		if !n.named && t.symName(ch) == ":" {
			colons++
			continue
		}
		if n.extra || !n.named {
			continue
		}
		if colons > 1 {
			return -1 // a step
		}
		if colons == 0 {
			sawStart = true
			if n.kind != kInteger {
				return -1
			}
			v := 0
			for _, b := range t.src[n.start:n.end] {
				if b < '0' || b > '9' || v > 1<<20 {
					return -1
				}
				v = v*10 + int(b-'0')
			}
			start = v
		}
	}
	if !sawStart {
		return 0
	}
	return start
}

// constKey returns the constant key of a subscript or dict key: an integer or a plain
// string literal, prefixed by its type.
func constKey(t *tree, i int32) (string, bool) {
	switch t.nodes[i].kind {
	case kInteger:
		return "i" + t.text(i), true
	case kString:
		if s, ok := stringLit(t, i); ok {
			return "s" + s, true
		}
	}
	return "", false
}

// affix returns the constant prefix and suffix of a string built by binary operator node
// i around unknown parts: `"%sCommand" % name` (printf-style formatting of a string
// literal) or `"on_" + name + "_done"`. ok is false when neither is known or when the
// whole string is constant.
func (c *collector) affix(i int32, depth int) (pre, suf string, ok bool) {
	t := c.t
	l, r, tok := c.binaryParts(i)
	if l < 0 || r < 0 || depth > 8 {
		return "", "", false
	}
	switch tok {
	case "%":
		s, isLit := stringLit(t, l)
		if !isLit {
			return "", "", false
		}
		first, last := strings.IndexByte(s, '%'), strings.LastIndexByte(s, '%')
		if first < 0 {
			return "", "", false
		}
		pre = s[:first]
		// the suffix follows the last conversion's flags, width, precision and type
		k := last + 1
		if k < len(s) && s[k] == '(' {
			j := strings.IndexByte(s[k:], ')')
			if j < 0 {
				return "", "", false
			}
			k += j + 1
		}
		for k < len(s) && strings.IndexByte("#0- +.0123456789", s[k]) >= 0 {
			k++
		}
		if k < len(s) {
			suf = s[k+1:]
		}
		if strings.Contains(pre, "%") || strings.Contains(suf, "%") || pre == "" && suf == "" {
			return "", "", false
		}
		return pre, suf, true
	case "+":
		// each side: a literal (exact), another affix, or unknown
		part := func(j int32) (p, s string, exact bool) {
			if lit, isLit := stringLit(t, j); isLit {
				return lit, lit, true
			}
			if lit, isLit := bytesLit(t, j); isLit {
				// bytes concatenate as strings do (decode() gives the same affix)
				return lit, lit, true
			}
			if t.nodes[j].kind == kBinaryOp {
				p, s, _ = c.affix(j, depth+1)
			}
			return p, s, false
		}
		lp, ls, lExact := part(l)
		rp, rs, rExact := part(r)
		if lExact && rExact {
			return "", "", false
		}
		pre, suf = lp, rs
		if lExact {
			pre = lp + rp
		}
		if rExact {
			suf = ls + rs
		}
		if pre == "" && suf == "" {
			return "", "", false
		}
		return pre, suf, true
	}
	return "", "", false
}

// bytesAffix starts the name of an eAffix built from bytes (`x + b"_handler"`): getattr
// and import_module take no bytes, so only its decode() or encode() result stands for
// the affix (resolver.keyPatterns).
const bytesAffix = "\x01"

// bytesOperand reports whether binary expression i concatenates a bytes literal (in
// it or in a nested binary operand).
func (c *collector) bytesOperand(i int32, depth int) bool {
	l, r, _ := c.binaryParts(i)
	if l < 0 || r < 0 || depth > 8 {
		return false
	}
	for _, j := range [2]int32{l, r} {
		if _, ok := bytesLit(c.t, j); ok {
			return true
		}
		if c.t.nodes[j].kind == kBinaryOp && c.bytesOperand(j, depth+1) {
			return true
		}
	}
	return false
}

// bytesLit returns the text of a plain bytes literal (b'...' with no escape or
// interpolation); ok is false for anything else.
func bytesLit(t *tree, i int32) (string, bool) {
	return plainLit(t, i, true)
}

// importedModule returns the module `import_module(name, package=...)` imports, as an
// eModule of its absolute dotted name, or nil. name is a string constant or a string
// with a constant prefix and suffix around an unknown part (eAffix): wsgi-intercept's
// Interceptor imports `'.%s' % self.MODULE_NAME` from package 'wsgi_intercept', a module
// each subclass names. The affix stays in the name, `prefix NUL suffix`, and stands for
// every module of the project with that prefix and suffix and no dot between them
// (resolver.affixModules). A relative name needs a constant package.
func (c *collector) importedModule(cs *callSite, name *expr) *expr {
	var pkg string
	for k, a := range cs.args() {
		if cs.kw(k) == "package" {
			p, ok := strings.CutPrefix(a.name(), "s")
			if a.op != eConst || !ok || p == "" {
				return nil
			}
			pkg = p
		}
	}
	var abs string
	switch name.op {
	case eConst:
		n, ok := strings.CutPrefix(name.name(), "s")
		if !ok || n == "" {
			return nil
		}
		abs = n
	case eAffix:
		abs = name.name()
		if strings.HasPrefix(abs, bytesAffix) {
			return nil
		}
	default:
		return nil
	}
	if strings.HasPrefix(abs, ".") {
		level := len(abs) - len(strings.TrimLeft(abs, "."))
		if pkg == "" {
			return nil
		}
		parts := strings.Split(pkg, ".")
		if level > len(parts) {
			return nil
		}
		base := strings.Join(parts[:len(parts)-level+1], ".")
		abs = base + "." + abs[level:]
	}
	if pre, _, isAffix := strings.Cut(abs, "\x00"); isAffix && (pre == "" || !strings.HasSuffix(pre, ".")) {
		return nil // the unknown part must be a whole last component of a known package
	}
	return c.newExpr(exprSpec{op: eModule, nm: c.intern(abs)})
}
