package python

// Implicit calls: the special methods and property accessors that operators, subscripts,
// conversions, truth tests and attribute accesses call. The collector records them as
// lazy sites (only those whose methods some file of the project defines, see
// projectNames); the resolver turns them into call sites.

// lazy records an implicit site of the definition being visited.
func (c *collector) lazy(s lazySite) { c.lazyOf(c.caller, s) }

// lazyOf records an implicit site of caller (nil: the definition being visited),
// starting a run of its sites (see fileInfo.lazyCallers) unless the file's last site is
// caller's too.
func (c *collector) lazyOf(caller *defInfo, s lazySite) {
	if caller == nil {
		caller = c.caller
	}
	f := c.f
	if n := len(f.lazyCallers); n == 0 || f.lazyCallers[n-1].caller != caller {
		f.lazyCallers = append(f.lazyCallers, callerRun{start: int32(len(f.lazy)), caller: caller})
	}
	f.lazy = append(f.lazy, s)
}

// attrHook records the read (op 0), store (1) or delete (2) of attribute node i as a
// call of its object's __getattribute__, __setattr__ or __delattr__, when some project
// class defines that method (zope.deprecation's DeprecationProxy reads and stores its
// own attributes through them).
// A read also records the fallback to __getattr__ (op attrFallback, x the attribute
// expression) when some project class defines it.
func (c *collector) attrHook(i int32, sc *scope, op uint8) {
	hook, fallback := c.sc.names.dunder(attrHooks[op]), op == 0 && c.sc.names.dunder("__getattr__")
	if !hook && !fallback {
		return
	}
	obj := c.t.nodes[i].first
	if obj < 0 || !c.mayBeInstance(obj) {
		return
	}
	line := int32(c.t.nodes[i].row) + 1
	if fallback {
		if e := c.conv(i, sc); e.op == eAttr {
			c.lazy(lazySite{kind: lzAttrHook, op: attrFallback, x: e, line: line})
		}
	}
	if hook {
		end := c.lazyOnly()
		c.lazy(lazySite{kind: lzAttrHook, op: op, x: c.conv(obj, sc), line: line})
		end()
	}
}

// mayBeInstance reports whether node i may evaluate to an instance of a project class:
// literals, displays, comprehensions, comparisons and negations never do.
func (c *collector) mayBeInstance(i int32) bool {
	if i < 0 {
		return false
	}
	switch c.t.nodes[i].kind {
	case kString, kConcatString, kInteger, kLiteral, kList, kTuple, kDict, kSet, kComprehension,
		kCompareOp, kNotOp, kLambda:
		return false
	}
	return true
}

// literalExpr stands for an operand that is a literal or a display: never an instance
// of a project class, so a reflected operator method of the other operand is called.
var literalExpr = &expr{op: eUnknown}

// operandExpr converts node i when it may be an instance, else returns literalExpr.
func (c *collector) operandExpr(i int32, sc *scope) *expr {
	if !c.mayBeInstance(i) {
		return literalExpr
	}
	return c.conv(i, sc)
}

// visitTarget visits an assignment target: the objects and keys it evaluates are read,
// the attribute or item it names is written (recorded by bindTarget and assignment).
func (c *collector) visitTarget(i int32, sc *scope, caller *defInfo) {
	t := c.t
	switch t.nodes[i].kind {
	case kAttribute:
		if obj := t.firstNamed(i); obj >= 0 {
			c.visit(obj, sc, caller, false)
		}
	case kSubscript:
		c.visitChildren(i, sc, caller, false)
	case kPatternList, kTuple, kList, kExprList, kParenthesized, kListSplatPattern, kListSplat:
		for _, ch := range t.namedChildren(i, nil) {
			c.visitTarget(ch, sc, caller)
		}
	default:
		c.visit(i, sc, caller, false)
	}
}

// binaryParts returns the operands and the operator token of a binary operator node.
func (c *collector) binaryParts(i int32) (l, r int32, tok string) {
	t := c.t
	l, r = -1, -1
	for ch := t.nodes[i].first; ch >= 0; ch = t.nodes[ch].next {
		n := &t.nodes[ch]
		switch {
		case n.extra:
		case !n.named && l >= 0 && r < 0:
			tok = t.symName(ch)
		case n.named && l < 0:
			l = ch
		case n.named && r < 0:
			r = ch
		}
	}
	return l, r, tok
}

// isStringFormat reports whether `l <tok> r` is printf-style formatting of a string
// literal.
func (c *collector) isStringFormat(tok string, l int32) bool {
	k := c.t.nodes[l].kind
	return tok == "%" && (k == kString || k == kConcatString)
}

// binary records the special-method calls of binary operator node i: l.__op__(r) and
// r.__rop__(l), or, for "literal" % values, the str/repr conversions of the values.
func (c *collector) binary(i int32, sc *scope) {
	defer c.lazyOnly()()
	l, r, tok := c.binaryParts(i)
	if l < 0 || r < 0 {
		return
	}
	line := int32(c.t.nodes[i].row) + 1
	if c.isStringFormat(tok, l) {
		if !convStr.dunders(c.sc.names) {
			return
		}
		convs := percentConversions(c.t.text(l))
		vals, one := []int32{r}, cvPercentOne
		if c.t.nodes[r].kind == kTuple || c.t.nodes[r].kind == kParenthesized && c.t.nodes[c.t.firstNamed(r)].kind == kTuple {
			if c.t.nodes[r].kind == kParenthesized {
				r = c.t.firstNamed(r)
			}
			vals, one = c.t.namedChildren(r, nil), 0
		}
		for k, v := range vals {
			if k < len(convs) && convs[k] >= 0 && c.mayBeInstance(v) {
				c.lazy(lazySite{kind: lzConvert, op: uint8(convs[k]) | one, x: c.conv(v, sc), line: line})
			}
		}
		return
	}
	k := binaryOpIndex(tok)
	if k < 0 {
		return
	}
	op := binaryOps[k]
	if !c.sc.names.dunder(op.method) && !c.sc.names.dunder(op.reflected) {
		return
	}
	x, y := c.binaryOperand(l, sc), c.binaryOperand(r, sc)
	if x.op == eUnknown && y.op == eUnknown {
		return // literals or values of other operators on both sides
	}
	c.lazy(lazySite{kind: lzBinary, op: uint8(k), x: x, y: y, line: line})
}

// binaryOperand converts an operand of a binary operator: names, attributes, subscripts
// and calls; a literal is literalExpr; another operator's result is unknown (what
// special methods return is not followed: on an operator-heavy project, sympy, that
// would convert and evaluate every arithmetic expression).
func (c *collector) binaryOperand(i int32, sc *scope) *expr {
	switch c.t.nodes[i].kind {
	case kIdentifier, kAttribute, kSubscript, kCall:
		return c.conv(i, sc)
	case kParenthesized:
		if e := c.t.firstNamed(i); e >= 0 {
			return c.binaryOperand(e, sc)
		}
	}
	if !c.mayBeInstance(i) {
		return literalExpr
	}
	return unknownExpr
}

// augmented records the special-method calls of `x <op>= y`.
func (c *collector) augmented(i int32, sc *scope, caller *defInfo) {
	defer c.lazyOnly()()
	t := c.t
	l, r, tok := c.binaryParts(i)
	k := binaryOpIndex(tok)
	if l < 0 || r < 0 || k < 0 {
		return
	}
	op := binaryOps[k]
	if !c.sc.names.dunder(op.inplace) && !c.sc.names.dunder(op.method) && !c.sc.names.dunder(op.reflected) {
		return
	}
	x, y := c.operandExpr(l, sc), c.operandExpr(r, sc)
	if x == literalExpr && y == literalExpr {
		return
	}
	c.lazy(lazySite{kind: lzAug, op: uint8(k), x: x, y: y, line: int32(t.nodes[i].row) + 1})
}

// compare records the special-method calls of comparison node i (a < b < c compares
// each adjacent pair).
func (c *collector) compare(i int32, sc *scope) {
	defer c.lazyOnly()()
	t := c.t
	var operands []int32
	var toks []string
	pending := ""
	for ch := t.nodes[i].first; ch >= 0; ch = t.nodes[ch].next {
		n := &t.nodes[ch]
		switch {
		case n.extra:
		case !n.named:
			if pending != "" {
				pending += " "
			}
			pending += t.symName(ch)
		default:
			if len(operands) > 0 {
				toks = append(toks, pending)
			}
			pending = ""
			operands = append(operands, ch)
		}
	}
	line := int32(t.nodes[i].row) + 1
	for k, tok := range toks {
		if k+1 >= len(operands) {
			break
		}
		for j, op := range compareOps {
			if op.tok != tok {
				continue
			}
			if !c.sc.names.dunder(op.method) && !c.sc.names.dunder(op.reflected) && !conversion(op.fallback).dunders(c.sc.names) {
				break
			}
			x, y := c.compareOperand(operands[k], sc), c.compareOperand(operands[k+1], sc)
			if x != literalExpr || y != literalExpr {
				c.lazy(lazySite{kind: lzCompare, op: uint8(j), x: x, y: y, line: line})
			}
			break
		}
	}
}

// cheapOperand reports whether the special methods of what e evaluates to are worth a
// lazy site: names, attributes and subscripts. The values a call returns are rarely
// instances whose special methods a builtin calls, and evaluating them costs more than
// the rare edge found.
func cheapOperand(e *expr) bool {
	switch e.op {
	case eName, eAttr, eSubscript, eParam:
		return true
	}
	return false
}

// compareOperand converts an operand of a comparison: names, attributes and subscripts
// (calls are left unknown: what they return is rarely compared by a project's __eq__ and
// costly to evaluate), literals as literalExpr.
func (c *collector) compareOperand(i int32, sc *scope) *expr {
	switch c.t.nodes[i].kind {
	case kIdentifier, kAttribute, kSubscript:
		return c.conv(i, sc)
	}
	if !c.mayBeInstance(i) {
		return literalExpr
	}
	return unknownExpr
}

// unary records -x, +x and ~x.
func (c *collector) unary(i int32, sc *scope) {
	defer c.lazyOnly()()
	t := c.t
	x := t.firstNamed(i)
	if x < 0 || !c.mayBeInstance(x) {
		return
	}
	tok := ""
	for ch := t.nodes[i].first; ch >= 0; ch = t.nodes[ch].next {
		if !t.nodes[ch].named {
			tok = t.symName(ch)
			break
		}
	}
	for k, op := range unaryOps {
		if op.tok == tok && c.sc.names.dunder(op.method) {
			c.lazy(lazySite{kind: lzUnary, op: uint8(k), x: c.conv(x, sc), line: int32(t.nodes[i].row) + 1})
		}
	}
}

// truth records the truth test of node i (an if or while condition, an operand of and,
// or, not, an assert): __bool__, or __len__ without it. Only names and attributes are
// considered: a call or a subscript tested for truth almost always gives a bool, and
// evaluating what it returns costs more than the rare edge it would find.
func (c *collector) truth(i int32, sc *scope) {
	defer c.lazyOnly()()
	if i < 0 || !convTruth.dunders(c.sc.names) {
		return
	}
	switch c.t.nodes[i].kind {
	case kIdentifier, kAttribute:
		c.lazy(lazySite{kind: lzConvert, op: cvTruth, x: c.conv(i, sc), line: int32(c.t.nodes[i].row) + 1})
	}
}

// interpolation records the conversion of an f-string replacement field {x}: format(x),
// or repr for !r and !a, str for !s.
func (c *collector) interpolation(i int32, sc *scope) {
	defer c.lazyOnly()()
	t := c.t
	x := t.firstNamed(i)
	if x < 0 || !c.mayBeInstance(x) {
		return
	}
	cv := cvFormat
	if tc := t.child(i, kTypeConversion); tc >= 0 {
		switch txt := t.text(tc); {
		case txt == "!s":
			cv = cvStr
		case txt == "!r" || txt == "!a":
			cv = cvRepr
		}
	}
	if conversions[cv].dunders(c.sc.names) {
		c.lazy(lazySite{kind: lzConvert, op: cv, x: c.conv(x, sc), line: int32(t.nodes[i].row) + 1})
	}
}

// subscript records x[k] (op 0), x[k] = v (op 1) and del x[k] (op 2).
func (c *collector) subscript(i int32, sc *scope, op uint8, _ *expr) {
	defer c.lazyOnly()()
	t := c.t
	name := [...]string{"__getitem__", "__setitem__", "__delitem__"}[op]
	if !c.sc.names.dunder(name) && !c.sc.names.dunder("__hash__") {
		return
	}
	v := t.firstNamed(i)
	if v < 0 {
		return
	}
	switch t.nodes[v].kind {
	case kIdentifier, kAttribute, kSubscript:
	default:
		return // a call's or a display's item: see cheapOperand
	}
	key := unknownExpr
	if k := t.firstNamedAfter(v); k >= 0 && t.symName(k) != "slice" && c.mayBeInstance(k) {
		key = c.conv(k, sc)
	}
	c.lazy(lazySite{kind: lzSubscript, op: op, x: c.conv(v, sc), y: key, line: int32(t.nodes[i].row) + 1})
}

// deleteStmt records the deleters and __delitem__ calls of a del statement and visits
// the objects and keys it evaluates.
func (c *collector) deleteStmt(i int32, sc *scope, caller *defInfo) {
	t := c.t
	var targets []int32
	for _, ch := range t.namedChildren(i, nil) {
		if t.nodes[ch].kind == kExprList || t.nodes[ch].kind == kTuple {
			targets = t.namedChildren(ch, targets)
		} else {
			targets = append(targets, ch)
		}
	}
	for _, tg := range targets {
		switch t.nodes[tg].kind {
		case kAttribute:
			if attr := lastIdent(t, tg); attr != "" && c.sc.names.prop(attr) {
				if obj := t.firstNamed(tg); obj >= 0 {
					end := c.lazyOnly()
					c.lazy(lazySite{kind: lzAttr, op: 2, x: c.newExpr(exprSpec{op: eAttr, x: c.conv(obj, sc), nm: c.intern(attr)}), line: int32(t.nodes[tg].row) + 1})
					end()
				}
			}
			if c.caller != nil {
				c.attrHook(tg, sc, 2)
			}
			if attr := lastIdent(t, tg); attr != "" && c.sc.names.descr(attr, descrDelete) && c.caller != nil {
				if obj := t.firstNamed(tg); obj >= 0 {
					c.descrSite(c.conv(obj, sc), attr, 2, nil, int32(t.nodes[tg].row)+1)
				}
			}
			c.visitTarget(tg, sc, caller)
		case kSubscript:
			c.subscript(tg, sc, 2, nil)
			c.visitTarget(tg, sc, caller)
		default:
			c.visitTarget(tg, sc, caller)
		}
	}
}

// descrSite records the descriptor protocol of reading (op 0), assigning val to (1) or
// deleting (2) obj.attr, where attr may name a class attribute holding a descriptor
// (projectNames.descrs): a call site of the resolution rounds whose callee is the
// descriptor's __get__, __set__ or __delete__, so that the instance flows into the
// method's inst parameter, and the class (owner) or the assigned value into the next
// (zope.schema's ValidatedProperty.__set__(self, inst, value) calls inst.validate(value)).
// Reading the attribute on a class passes None as inst: eInstances keeps the instances.
func (c *collector) descrSite(obj *expr, attr string, op int32, val *expr, line int32) {
	callee := c.newExpr(exprSpec{op: eDescr, x: obj, nm: c.intern(attr), pos: idxPos(op)})
	args := []*expr{c.newExpr(exprSpec{op: eInstances, x: obj})}
	switch op {
	case 0:
		owner := c.newExpr(exprSpec{op: eUnion, ref: withLit(litOf([]*expr{
			c.newExpr(exprSpec{op: eTypeOf, x: obj}), c.newExpr(exprSpec{op: eClassOf, x: obj})}))})
		args = append(args, owner)
	case 1:
		if val == nil {
			val = unknownExpr
		}
		args = append(args, val)
	}
	c.site(c.caller, line, true, callee, args)
}

// builtinProtocols records the special-method calls of a call of a builtin: the
// conversions (len, str, repr, format, bool, hash, next, int, float, abs, reversed, print)
// and the iteration of the iterables list, tuple, sorted, enumerate, zip, map... take;
// and of "literal".format(...), which formats its arguments.
func (c *collector) builtinProtocols(cs *callSite) {
	if cs.star() {
		return
	}
	fn := cs.callee()
	if fn.op == eAttr && fn.name() == "format" && fn.sub().op == eConst && len(fn.sub().name()) > 0 && fn.sub().name()[0] == 's' {
		if convFormat.dunders(c.sc.names) {
			for _, a := range cs.args() {
				if cheapOperand(a) {
					c.lazy(lazySite{kind: lzConvert, op: cvFormat, x: a, line: int32(cs.line)})
				}
			}
		}
		return
	}
	if fn.op != eName {
		return
	}
	if cv, ok := builtinConversion[fn.name()]; ok && conversions[cv].dunders(c.sc.names) {
		for k, a := range cs.args() {
			if cs.kw(k) != "" || !cheapOperand(a) {
				continue
			}
			c.lazy(lazySite{kind: lzBuiltin, op: cv, x: a, y: fn, line: int32(cs.line)})
			if fn.name() != "print" {
				break
			}
		}
	}
	if from, ok := iterBuiltins[fn.name()]; ok && (c.sc.names.dunder("__iter__") || lengthHint[fn.name()] && c.sc.names.dunder("__len__")) {
		var positional []*expr
		for k, a := range cs.args() {
			if cs.kw(k) == "" {
				positional = append(positional, a)
			}
		}
		for k := from; k < len(positional); k++ {
			a := positional[k]
			if cheapOperand(a) || a.op == eCall {
				c.lazy(lazySite{kind: lzIterate, x: a, y: fn, line: int32(cs.line)})
			}
			if fn.name() != "zip" && fn.name() != "map" {
				break
			}
		}
	}
}
