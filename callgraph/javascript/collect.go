package javascript

import (
	"regexp"
	"strings"

	"github.com/faultline-dev/faultline/task"
)

// ctxt is where the collector stands: the qualified-name prefix of nested definitions,
// the enclosing definition, the class `this` denotes, and the current scope.
type ctxt struct {
	prefix string
	owner  *def
	cls    *class
	sc     *scope
}

// collector is the first pass over a file: definitions, scopes, classes, imports,
// exports and call sites.
type collector struct {
	a *analyzer
	f *file
}

func isFunc(n *node) bool {
	if n == nil {
		return false
	}
	switch n.Type {
	case "arrow_function", "function_expression", "function", "generator_function":
		return true
	}
	return false
}

// stripParens removes parentheses, await, the discarded operands of a comma expression
// (transpilers call imports as `(0, _m.f)(…)`), and TypeScript's non-null assertions (x!)
// and type assertions (x as T, x satisfies T, <T>x).
func stripParens(n *node) *node {
	for n != nil {
		switch n.Type {
		case "parenthesized_expression", "await_expression", "sequence_expression":
			n = lastNamed(n)
		case "non_null_expression", "as_expression", "satisfies_expression":
			n = firstNamed(n)
		case "type_assertion":
			n = lastNamed(n)
		default:
			return n
		}
	}
	return n
}

// firstNamed returns the first named child of n that is not a comment.
func firstNamed(n *node) *node {
	for _, k := range n.Kids {
		if k.Named && k.Type != "comment" {
			return k
		}
	}
	return nil
}

// lastNamed returns the last named child of n that is not a comment.
func lastNamed(n *node) *node {
	for i := len(n.Kids) - 1; i >= 0; i-- {
		if n.Kids[i].Named && n.Kids[i].Type != "comment" {
			return n.Kids[i]
		}
	}
	return nil
}

// exportParent returns the export statement wrapping n, or n: the doc comment sits above
// the export keyword.
func exportParent(n *node) *node {
	if n.Parent != nil && n.Parent.Type == "export_statement" {
		return n.Parent
	}
	return n
}

func (c *collector) newDef(name string, kind task.Kind, defN, fnN, docN *node, x ctxt) *def {
	d := &def{name: name, kind: kind, defN: defN, fnN: fnN, docN: docN, owner: x.owner, file: c.f, sc: x.sc, cls: x.cls}
	c.f.defs = append(c.f.defs, d)
	c.f.byName[name] = append(c.f.byName[name], d)
	return d
}

var (
	jsdocParam   = regexp.MustCompile(`@param\s*\{([^{}]*)\}\s*\[?\s*([A-Za-z_$][\w$]*)`)
	jsdocReturn  = regexp.MustCompile(`@returns?\s*\{([^{}]*)\}`)
	jsdocType    = regexp.MustCompile(`@type\s*\{([^{}]*)\}`)
	jsdocTypedef = regexp.MustCompile(`@typedef\s*\{\s*import\(\s*["']([^"']+)["']\s*\)\.([A-Za-z_$][\w$]*)\s*\}\s*([A-Za-z_$][\w$]*)`)
)

// jsdocOf returns the JSDoc block (/** … */) right before n, blank lines allowed, or "".
func jsdocOf(n *node, src []byte) string {
	if n == nil || n.Parent == nil {
		return ""
	}
	kids := n.Parent.Kids
	for i, k := range kids {
		if k == n && i > 0 && kids[i-1].Type == "comment" {
			if t := kids[i-1].Text(src); strings.HasPrefix(t, "/**") {
				return t
			}
		}
	}
	return ""
}

// jsdocTypeOf returns the type of the `@type {T}` tag in the JSDoc block right before
// n, or "".
func jsdocTypeOf(n *node, src []byte) string {
	if m := jsdocType.FindStringSubmatch(jsdocOf(n, src)); m != nil {
		return m[1]
	}
	return ""
}

// typedefs records a comment's `@typedef {import('./m').T} Alias` type names.
func (c *collector) typedefs(n *node) {
	t := n.Text(c.f.src)
	if !strings.Contains(t, "@typedef") {
		return
	}
	for _, m := range jsdocTypedef.FindAllStringSubmatch(t, -1) {
		if c.f.types == nil {
			c.f.types = map[string]*symbol{}
		}
		f := c.a.resolveModule(c.f, m[1])
		c.f.types[m[3]] = &symbol{kind: sImport, file: f, name: m[2], extern: f == nil}
	}
}

// objThis returns the class standing for `this` in a function called as a property of
// the object (or function) named name: its members are the definitions named name.k.
func (c *collector) objThis(name string) *class {
	return &class{name: name, file: c.f, methods: map[string]*def{}, fields: map[string]*symbol{},
		proto: true, resolved: true, objOf: name}
}

// protoClass returns the class of the instances of the function named name (qualified):
// its methods are the functions assigned to name.prototype.m, its fields those assigned
// to this.f in its body.
func (c *collector) protoClass(name string) *class {
	if c.f.protos == nil {
		c.f.protos = map[string]*class{}
	}
	cl := c.f.protos[name]
	if cl == nil {
		cl = &class{name: name, file: c.f, methods: map[string]*def{}, fields: map[string]*symbol{}, proto: true, resolved: true}
		c.f.protos[name] = cl
	}
	return cl
}

func (c *collector) walkKids(n *node, x ctxt) {
	for _, k := range n.Kids {
		c.walk(k, x)
	}
}

func (c *collector) walk(n *node, x ctxt) {
	src := c.f.src
	switch n.Type {
	case "comment":
		c.typedefs(n)
		return
	case "interface_declaration", "type_alias_declaration", "enum_declaration",
		"function_signature", "abstract_method_signature", "method_signature", "ambient_declaration",
		"type_annotation", "type_arguments", "type_parameters":
		return
	case "internal_module", "module":
		nm := n.Child("name")
		if b := n.Child("body"); nm != nil && b != nil {
			c.walk(b, ctxt{x.prefix + nm.Text(src) + ".", x.owner, x.cls, x.sc})
		}
		return
	case "function_declaration", "generator_function_declaration":
		nm := n.Child("name")
		if nm == nil {
			c.fold(n, x)
			return
		}
		name := nm.Text(src)
		d := c.newDef(x.prefix+name, task.KindFunction, n, n, exportParent(n), x)
		x.sc.declare(name, &symbol{kind: sDef, def: d})
		d.proto = c.protoClass(d.name)
		c.body(n, d, d.proto, x)
		return
	case "class_declaration", "class", "abstract_class_declaration":
		c.classDecl(n, "", x)
		return
	case "lexical_declaration", "variable_declaration":
		var vds []*node
		for _, k := range n.Kids {
			if k.Type == "variable_declarator" {
				vds = append(vds, k)
			}
		}
		for _, vd := range vds {
			defN := vd
			if len(vds) == 1 {
				defN = n
			}
			c.declarator(vd, defN, x)
		}
		return
	case "assignment_expression":
		c.assignment(n, x)
		return
	case "export_statement":
		c.export(n, x)
		return
	case "import_statement":
		c.importStmt(n, x)
		return
	case "arrow_function", "function_expression", "function", "generator_function":
		c.fold(n, x)
		return
	case "call_expression", "new_expression":
		c.f.calls = append(c.f.calls, callSite{n: n, owner: x.owner, sc: x.sc, cls: x.cls})
	case "augmented_assignment_expression":
		if l := n.Child("left"); l != nil && l.Type == "identifier" {
			if s := x.sc.lookup(l.Text(c.f.src)); s != nil {
				s.mixed = true
			}
		}
	case "for_in_statement":
		// for (const x of xs): x is an element of xs; for (k in o): a key.
		if l, r := n.Child("left"), n.Child("right"); l != nil && r != nil {
			op := n.Child("operator")
			switch {
			case n.Child("kind") == nil:
				if s := x.sc.lookup(l.Text(c.f.src)); l.Type == "identifier" && s != nil {
					s.mixed = true
				}
			case op != nil && op.Type == "of" && l.Type == "identifier":
				x.sc.declare(l.Text(c.f.src), &symbol{kind: sElem, node: r, sc: x.sc, cls: x.cls})
			default:
				c.declarePattern(l, x.sc)
			}
		}
	}
	c.walkKids(n, x)
}

// fold walks an anonymous function whose code belongs to the enclosing definition.
func (c *collector) fold(n *node, x ctxt) {
	inner := x.sc.child()
	if nm := n.Child("name"); nm != nil {
		inner.declare(nm.Text(c.f.src), nil)
	}
	for _, f := range []string{"parameters", "parameter"} {
		if p := n.Child(f); p != nil {
			c.declarePattern(p, inner)
			c.walkKids(p, ctxt{x.prefix, x.owner, x.cls, inner})
		}
	}
	c.callbackElem(n, inner, x)
	if b := n.Child("body"); b != nil {
		c.walk(b, ctxt{x.prefix, x.owner, x.cls, inner})
	}
}

// body walks the parameters and body of definition d's function node fn.
func (c *collector) body(fn *node, d *def, cls *class, x ctxt) {
	inner := x.sc.child()
	inner.owner = d
	d.inner, d.this = inner, cls
	nx := ctxt{prefix: d.name + ".", owner: d, cls: cls, sc: inner}
	for _, f := range []string{"parameters", "parameter"} {
		if p := fn.Child(f); p != nil {
			c.declarePattern(p, inner)
			c.walkKids(p, nx)
		}
	}
	if doc := jsdocOf(d.docN, c.f.src); doc != "" {
		for _, m := range jsdocParam.FindAllStringSubmatch(doc, -1) {
			if s, ok := inner.names[m[2]]; ok && (s == nil || s.kind == sUnknown) {
				inner.declare(m[2], &symbol{kind: sDoc, name: m[1], sc: d.sc})
			}
		}
		if m := jsdocReturn.FindStringSubmatch(doc); m != nil {
			d.docRet = m[1]
		}
	}
	if b := fn.Child("body"); b != nil {
		c.walk(b, nx)
	}
}

// elemCallbacks are the array methods whose callback receives elements, by the indexes
// of the element parameters.
var elemCallbacks = map[string][]int{"forEach": {0}, "map": {0}, "filter": {0}, "find": {0}, "findIndex": {0},
	"findLast": {0}, "findLastIndex": {0}, "some": {0}, "every": {0}, "flatMap": {0}, "reduce": {1}, "reduceRight": {1},
	"sort": {0, 1}, "toSorted": {0, 1}}

// callbackElem types the element parameters of a function passed first to an array
// method (xs.forEach(x => …), xs.reduce((acc, x) => …), xs.sort((a, b) => …)) as
// elements of xs.
func (c *collector) callbackElem(fn *node, inner *scope, x ctxt) {
	args := fn.Parent
	if args == nil || args.Type != "arguments" || firstNamed(args) != fn || args.Parent == nil || args.Parent.Type != "call_expression" {
		return
	}
	callee := args.Parent.Child("function")
	if callee == nil || callee.Type != "member_expression" {
		return
	}
	prop, obj := callee.Child("property"), callee.Child("object")
	if prop == nil || obj == nil {
		return
	}
	idxs, ok := elemCallbacks[prop.Text(c.f.src)]
	if !ok {
		return
	}
	var params []*node
	if p := fn.Child("parameter"); p != nil {
		params = []*node{p}
	} else if ps := fn.Child("parameters"); ps != nil {
		for _, k := range ps.Kids {
			if k.Named && k.Type != "comment" {
				params = append(params, k)
			}
		}
	}
	for _, idx := range idxs {
		if idx >= len(params) {
			return
		}
		p := params[idx]
		if p.Type == "required_parameter" || p.Type == "optional_parameter" {
			if p.Child("type") != nil {
				continue // declared
			}
			p = p.Child("pattern")
		}
		if p != nil && p.Type == "identifier" {
			inner.declare(p.Text(c.f.src), &symbol{kind: sElem, node: obj, sc: x.sc, cls: x.cls})
		}
	}
}

// declarePattern declares the names a parameter list or binding pattern binds.
func (c *collector) declarePattern(n *node, sc *scope) {
	switch n.Type {
	case "identifier", "shorthand_property_identifier_pattern":
		sc.declare(n.Text(c.f.src), nil)
		return
	case "assignment_pattern":
		if l := n.Child("left"); l != nil {
			c.declarePattern(l, sc)
		}
		return
	case "pair_pattern":
		if v := n.Child("value"); v != nil {
			c.declarePattern(v, sc)
		}
		return
	case "object_assignment_pattern":
		if l := n.Child("left"); l != nil {
			c.declarePattern(l, sc)
		}
		return
	case "required_parameter", "optional_parameter":
		p := n.Child("pattern")
		if p == nil {
			return
		}
		if t := n.Child("type"); t != nil && p.Type == "identifier" {
			sc.declare(p.Text(c.f.src), &symbol{kind: sTyped, node: t, sc: sc})
			return
		}
		c.declarePattern(p, sc)
		return
	case "type_annotation", "type_parameters", "accessibility_modifier":
		return
	}
	for _, k := range n.Kids {
		if k.Named {
			c.declarePattern(k, sc)
		}
	}
}

// requireOf returns the module a require('…') call names: ok reports a require call; f
// is nil for modules outside the analysed files.
func (c *collector) requireOf(n *node, x ctxt) (*file, bool) {
	n = stripParens(n)
	if n == nil || n.Type != "call_expression" {
		return nil, false
	}
	fx := n.Child("function")
	if fx == nil || fx.Type != "identifier" || fx.Text(c.f.src) != "require" || x.sc.lookup("require") != nil {
		return nil, false
	}
	args := n.Child("arguments")
	if args == nil {
		return nil, false
	}
	for _, k := range args.Kids {
		if s, ok := stringValue(k, c.f.src); ok {
			return c.a.resolveModule(c.f, s), true
		}
	}
	return nil, false
}

func (c *collector) declarator(vd, defN *node, x ctxt) {
	src := c.f.src
	nameN, val := vd.Child("name"), vd.Child("value")
	v := stripParens(val)
	if nameN == nil {
		return
	}
	if nameN.Type != "identifier" {
		if f, ok := c.requireOf(v, x); ok && nameN.Type == "object_pattern" {
			for _, k := range nameN.Kids {
				switch k.Type {
				case "shorthand_property_identifier_pattern":
					x.sc.declare(k.Text(src), &symbol{kind: sImport, file: f, name: k.Text(src), extern: f == nil})
				case "pair_pattern":
					if key, value := k.Child("key"), k.Child("value"); key != nil && value != nil && value.Type == "identifier" {
						x.sc.declare(value.Text(src), &symbol{kind: sImport, file: f, name: key.Text(src), extern: f == nil})
					}
				}
			}
		} else {
			c.declarePattern(nameN, x.sc)
		}
		if val != nil {
			c.walk(val, x)
		}
		return
	}
	name := nameN.Text(src)
	if t := vd.Child("type"); t != nil && !isFunc(v) && (v == nil || (v.Type != "class" && v.Type != "object")) {
		x.sc.declare(name, &symbol{kind: sTyped, node: t, sc: x.sc})
		if val != nil {
			c.walk(val, x)
		}
		return
	}
	if t := jsdocTypeOf(exportParent(defN), src); t != "" && !isFunc(v) && (v == nil || (v.Type != "class" && v.Type != "object")) {
		x.sc.declare(name, &symbol{kind: sDoc, name: t, sc: x.sc})
		if val != nil {
			c.walk(val, x)
		}
		return
	}
	switch {
	case v == nil:
		x.sc.declare(name, &symbol{noInit: true})
		return
	case isFunc(v):
		d := c.newDef(x.prefix+name, task.KindFunction, defN, v, exportParent(defN), x)
		x.sc.declare(name, &symbol{kind: sDef, def: d})
		cls := x.cls
		if v.Type != "arrow_function" {
			d.proto = c.protoClass(d.name)
			cls = d.proto
		}
		c.body(v, d, cls, x)
		return
	case v.Type == "class":
		c.classDecl(v, name, x)
		return
	case v.Type == "object":
		c.objectLit(v, x.prefix+name, x)
		x.sc.declare(name, &symbol{kind: sObject, name: x.prefix + name, obj: c.f})
		return
	case v.Type == "new_expression":
		x.sc.declare(name, &symbol{kind: sNew, node: v, sc: x.sc, cls: x.cls})
	case v.Type == "call_expression":
		if f, ok := c.requireOf(v, x); ok {
			x.sc.declare(name, &symbol{kind: sImport, file: f, name: "*", extern: f == nil})
		} else {
			x.sc.declare(name, &symbol{kind: sCall, node: v, sc: x.sc, cls: x.cls})
		}
	case v.Type == "identifier" || v.Type == "member_expression" || v.Type == "this":
		if v.Type == "member_expression" {
			if f, ok := c.requireOf(v.Child("object"), x); ok {
				x.sc.declare(name, &symbol{kind: sImport, file: f, name: v.Child("property").Text(src), extern: f == nil})
				break
			}
		}
		x.sc.declare(name, &symbol{kind: sAlias, node: v, sc: x.sc, cls: x.cls})
	case v.Type == "assignment_expression":
		// const a = b = function …: a is the function defined (as b) by the assignment.
		x.sc.declare(name, nil)
		c.walk(val, x)
		if d := c.chainedDef(v); d != nil {
			x.sc.declare(name, &symbol{kind: sDef, def: d})
		}
		return
	default:
		if f, ok := c.requireOf(v, x); ok {
			x.sc.declare(name, &symbol{kind: sImport, file: f, name: "*", extern: f == nil})
		} else {
			x.sc.declare(name, nil)
		}
	}
	c.walk(val, x)
}

// chainedDef returns the definition the innermost value of a chain of assignments
// (a = b = function …) became, or nil.
func (c *collector) chainedDef(n *node) *def {
	for n != nil && n.Type == "assignment_expression" {
		n = stripParens(n.Child("right"))
	}
	if !isFunc(n) {
		return nil
	}
	for i := len(c.f.defs) - 1; i >= 0; i-- {
		if c.f.defs[i].fnN == n {
			return c.f.defs[i]
		}
	}
	return nil
}

// objectLit records the function-valued members of an object literal as definitions
// named prefix.key, and returns the symbols of its keys.
func (c *collector) objectLit(obj *node, prefix string, x ctxt) map[string]*symbol {
	src := c.f.src
	keys := map[string]*symbol{}
	for _, k := range obj.Kids {
		switch k.Type {
		case "method_definition":
			nm := k.Child("name")
			if nm == nil {
				continue
			}
			key := propName(nm, src)
			d := c.newDef(prefix+"."+key, task.KindMethod, k, k, k, x)
			keys[key] = &symbol{kind: sDef, def: d}
			c.body(k, d, c.objThis(prefix), x)
		case "pair":
			key := propName(k.Child("key"), src)
			v := stripParens(k.Child("value"))
			switch {
			case v == nil:
			case isFunc(v) && key != "":
				d := c.newDef(prefix+"."+key, task.KindMethod, k, v, k, x)
				keys[key] = &symbol{kind: sDef, def: d}
				cls := x.cls
				if v.Type != "arrow_function" {
					cls = c.objThis(prefix)
				}
				c.body(v, d, cls, x)
			case v.Type == "object" && key != "":
				c.objectLit(v, prefix+"."+key, x)
				keys[key] = &symbol{kind: sObject, name: prefix + "." + key, obj: c.f}
			default:
				switch v.Type {
				case "identifier", "member_expression", "call_expression", "new_expression", "this":
					// k: f, k: require('./m'), k: new C(): resolved when used
					keys[key] = &symbol{kind: sAlias, node: v, sc: x.sc, cls: x.cls}
				}
				c.walk(k.Child("value"), x)
			}
		case "shorthand_property_identifier":
			keys[k.Text(src)] = &symbol{kind: sAlias, node: k, sc: x.sc, cls: x.cls}
		default:
			if k.Named {
				c.walk(k, x)
			}
		}
	}
	return keys
}

// propName is a property key's name: identifiers as written, string keys unquoted.
func propName(n *node, src []byte) string {
	if n == nil {
		return ""
	}
	if s, ok := stringValue(n, src); ok {
		return s
	}
	switch n.Type {
	case "property_identifier", "private_property_identifier", "identifier", "number":
		return n.Text(src)
	}
	return ""
}

// memberPath returns the dotted text of a member chain of identifiers (a.b.c), or "".
func memberPath(n *node, src []byte) string {
	switch n.Type {
	case "identifier", "this":
		return n.Text(src)
	case "member_expression":
		o, p := n.Child("object"), n.Child("property")
		if o == nil || p == nil || p.Type != "property_identifier" {
			return ""
		}
		if base := memberPath(o, src); base != "" {
			return base + "." + p.Text(src)
		}
	}
	return ""
}

func (c *collector) assignment(n *node, x ctxt) {
	src := c.f.src
	left, right := n.Child("left"), n.Child("right")
	r := stripParens(right)
	if left == nil || r == nil {
		c.walkKids(n, x)
		return
	}
	lt := memberPath(left, src)
	defN := n
	if n.Parent != nil && n.Parent.Type == "expression_statement" {
		defN = n.Parent
	}
	if left.Type == "identifier" {
		if s := x.sc.lookup(lt); s != nil && s.kind == sUnknown && s.noInit {
			switch r.Type {
			case "null", "undefined":
			case "new_expression", "identifier", "member_expression", "call_expression", "this", "subscript_expression":
				s.assigns = append(s.assigns, &symbol{kind: sAlias, node: r, sc: x.sc, cls: x.cls})
			default:
				if !isFunc(r) {
					s.mixed = true
				}
			}
		}
	}
	switch {
	case lt == "module.exports":
		switch {
		case r.Type == "object":
			for k, s := range c.objectLit(r, "module.exports", x) {
				c.f.exports[k] = s
			}
			c.f.cjs = &symbol{kind: sObject, name: "module.exports", obj: c.f}
			return
		case isFunc(r):
			d := c.newDef("module.exports", task.KindFunction, defN, r, defN, x)
			c.f.cjs = &symbol{kind: sDef, def: d}
			c.body(r, d, nil, x)
			return
		case r.Type == "class":
			cl := c.classDecl(r, "module.exports", x)
			c.f.cjs = &symbol{kind: sClass, class: cl}
			return
		}
		if f, ok := c.requireOf(r, x); ok {
			c.f.cjs = &symbol{kind: sImport, file: f, name: "*", extern: f == nil}
		} else if r.Type == "identifier" || r.Type == "member_expression" || r.Type == "new_expression" {
			c.f.cjs = &symbol{kind: sAlias, node: r, sc: x.sc, cls: x.cls}
		}
	case len(lt) > 0 && (hasPrefix(lt, "exports.") || hasPrefix(lt, "module.exports.")) && x.owner == nil:
		key := lt[lastDot(lt)+1:]
		// An export assigned under a condition (if, try) does not replace one the module
		// made on every path (module.exports = { k: f } … if (fast) exports.k = …).
		conditional := defN.Parent != nil && defN.Parent.Type != "program" && c.f.exports[key] != nil
		switch {
		case isFunc(r):
			d := c.newDef(lt, task.KindFunction, defN, r, defN, x)
			if !conditional {
				c.f.exports[key] = &symbol{kind: sDef, def: d}
			}
			c.body(r, d, nil, x)
			return
		case r.Type == "class":
			cl := c.classDecl(r, key, x)
			c.f.exports[key] = &symbol{kind: sClass, class: cl}
			return
		case r.Type == "identifier" || r.Type == "member_expression":
			c.f.exports[key] = &symbol{kind: sAlias, node: r, sc: x.sc, cls: x.cls}
		}
	case hasPrefix(lt, "this.") && x.cls != nil && x.cls.proto && len(lt) > 5 && lastDot(lt) == 4:
		// this.f = … in a constructor function or a prototype method: a field (a
		// function assigned here is a definition named by its path, F.this.f).
		key := lt[5:]
		switch {
		case isFunc(r):
			d := c.newDef(x.prefix+lt, task.KindFunction, defN, r, defN, x)
			if x.cls.fields[key] == nil {
				x.cls.fields[key] = &symbol{kind: sDef, def: d}
			}
			c.body(r, d, nil, x)
			return
		case r.Type == "new_expression":
			x.cls.fields[key] = &symbol{kind: sNew, node: r, sc: x.sc, cls: x.cls}
		case r.Type == "identifier" || r.Type == "member_expression":
			x.cls.fields[key] = &symbol{kind: sAlias, node: r, sc: x.sc, cls: x.cls}
		}
	case hasPrefix(lt, "this.") && x.cls != nil && len(lt) > 5 && lastDot(lt) == 4:
		key := lt[5:]
		switch {
		case isFunc(r):
			d := c.newDef(x.cls.name+"."+key, task.KindMethod, defN, r, defN, x)
			if x.cls.methods[key] == nil {
				d.viaThis = true // a method the class body declares takes its place
				x.cls.methods[key] = d
			}
			cls := x.cls
			if r.Type != "arrow_function" {
				cls = nil
			}
			c.body(r, d, cls, x)
			return
		case jsdocTypeOf(defN, src) != "":
			x.cls.fields[key] = &symbol{kind: sDoc, name: jsdocTypeOf(defN, src), sc: x.sc}
		case r.Type == "new_expression":
			x.cls.fields[key] = &symbol{kind: sNew, node: r, sc: x.sc, cls: x.cls}
		case r.Type == "identifier" || r.Type == "member_expression":
			x.cls.fields[key] = &symbol{kind: sAlias, node: r, sc: x.sc, cls: x.cls}
		}
	case lt != "" && isFunc(r):
		d := c.newDef(x.prefix+lt, task.KindFunction, defN, r, defN, x)
		if left.Type == "identifier" {
			if s := x.sc.lookup(lt); s != nil && s.kind == sUnknown {
				*s = symbol{kind: sDef, def: d}
			}
		}
		var cls *class
		if base, key, ok := strings.Cut(lt, ".prototype."); ok && !strings.Contains(key, ".") && r.Type != "arrow_function" {
			// F.prototype.m = function …: a method of F's instances, where this is one.
			cls = c.protoClass(x.prefix + base)
			if cls.methods[key] == nil {
				cls.methods[key] = d
			}
		} else if i := lastDot(lt); i > 0 && r.Type != "arrow_function" && !hasPrefix(lt, "this.") {
			// o.m = function …: this is o when called as o.m().
			cls = c.objThis(x.prefix + lt[:i])
		}
		c.body(r, d, cls, x)
		return
	}
	c.walk(left, x)
	c.walk(right, x)
	if r.Type != "assignment_expression" {
		return
	}
	// a.k = b = function …: a.k is the function too.
	d := c.chainedDef(r)
	if d == nil {
		return
	}
	switch {
	case lt == "module.exports":
		c.f.cjs = &symbol{kind: sDef, def: d}
	case (hasPrefix(lt, "exports.") || hasPrefix(lt, "module.exports.")) && x.owner == nil:
		if key := lt[lastDot(lt)+1:]; c.f.exports[key] == nil {
			c.f.exports[key] = &symbol{kind: sDef, def: d}
		}
	case left.Type == "identifier":
		if s := x.sc.lookup(lt); s != nil && s.kind == sUnknown {
			*s = symbol{kind: sDef, def: d}
		}
	case lt != "" && !hasPrefix(lt, "this."):
		c.f.byName[x.prefix+lt] = append(c.f.byName[x.prefix+lt], d)
	}
}

func hasPrefix(s, p string) bool { return len(s) >= len(p) && s[:len(p)] == p }

func lastDot(s string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '.' {
			return i
		}
	}
	return -1
}

// parameterProperties records TypeScript constructor parameters with an accessibility
// modifier or readonly (constructor(private dep: Dep)) as typed fields.
func (c *collector) parameterProperties(params *node, cl *class, sc *scope) {
	if params == nil {
		return
	}
	for _, p := range params.Kids {
		if p.Type != "required_parameter" && p.Type != "optional_parameter" {
			continue
		}
		if p.FirstOfType("accessibility_modifier") == nil && p.FirstOfType("readonly") == nil {
			continue
		}
		if pat, t := p.Child("pattern"), p.Child("type"); pat != nil && t != nil && pat.Type == "identifier" {
			cl.fields[pat.Text(c.f.src)] = &symbol{kind: sTyped, node: t, sc: sc}
		}
	}
}

// classDecl records a class and its members; name overrides the class's own name (a
// class expression bound to a variable is named by the binding).
func (c *collector) classDecl(n *node, bind string, x ctxt) *class {
	src := c.f.src
	name := bind
	if name == "" {
		if nm := n.Child("name"); nm != nil {
			name = nm.Text(src)
		}
	}
	if name == "" {
		name = "<class>"
	}
	cl := &class{name: x.prefix + name, file: c.f, methods: map[string]*def{}, fields: map[string]*symbol{},
		heritage: n.FirstOfType("class_heritage"), sc: x.sc, outer: x.cls}
	cl.meta = &class{name: cl.name, file: c.f, methods: map[string]*def{}, fields: map[string]*symbol{}, metaOf: cl}
	if n.Type == "class_declaration" || n.Type == "abstract_class_declaration" || bind != "" {
		x.sc.declare(name, &symbol{kind: sClass, class: cl})
	}
	if cl.heritage != nil {
		c.walkKids(cl.heritage, x)
	}
	body := n.Child("body")
	if body == nil {
		return cl
	}
	for _, m := range body.Kids {
		switch m.Type {
		case "method_definition":
			nm := m.Child("name")
			if nm == nil {
				continue
			}
			mname := propName(nm, src)
			side := cl
			if m.FirstOfType("static") != nil {
				side = cl.meta
			}
			d := c.newDef(cl.name+"."+mname, task.KindMethod, m, m, m, ctxt{x.prefix, x.owner, side, x.sc})
			if prev := side.methods[mname]; prev == nil || prev.viaThis {
				side.methods[mname] = d
			}
			if mname == "constructor" && side == cl {
				c.parameterProperties(m.Child("parameters"), cl, x.sc)
			}
			c.body(m, d, side, x)
		case "field_definition", "public_field_definition":
			pn := m.Child("property")
			if pn == nil {
				pn = m.Child("name")
			}
			prop := propName(pn, src)
			side := cl
			if m.FirstOfType("static") != nil {
				side = cl.meta
			}
			if t := m.Child("type"); t != nil && prop != "" {
				side.fields[prop] = &symbol{kind: sTyped, node: t, sc: x.sc}
			}
			v := stripParens(m.Child("value"))
			switch {
			case v != nil && isFunc(v) && prop != "":
				d := c.newDef(cl.name+"."+prop, task.KindMethod, m, v, m, ctxt{x.prefix, x.owner, side, x.sc})
				if prev := side.methods[prop]; prev == nil || prev.viaThis {
					side.methods[prop] = d
				}
				cls := side
				if v.Type != "arrow_function" {
					cls = nil
				}
				c.body(v, d, cls, x)
			case v != nil:
				if v.Type == "new_expression" && prop != "" {
					side.fields[prop] = &symbol{kind: sNew, node: v, sc: x.sc, cls: side}
				}
				c.walk(m.Child("value"), ctxt{x.prefix, x.owner, side, x.sc})
			}
		case "class_static_block":
			c.walkKids(m, ctxt{x.prefix, x.owner, cl.meta, x.sc})
		}
	}
	return cl
}

func (c *collector) export(n *node, x ctxt) {
	src := c.f.src
	var from *file
	source := n.Child("source")
	spec, hasSource := stringValue(source, src)
	if hasSource {
		from = c.a.resolveModule(c.f, spec)
	}
	isDefault := n.FirstOfType("default") != nil
	if decl := n.Child("declaration"); decl != nil {
		c.walk(decl, x)
		var names []string
		switch decl.Type {
		case "function_declaration", "generator_function_declaration", "class_declaration", "abstract_class_declaration":
			if nm := decl.Child("name"); nm != nil {
				names = append(names, nm.Text(src))
			}
		case "lexical_declaration", "variable_declaration":
			for _, vd := range decl.Kids {
				if vd.Type == "variable_declarator" {
					if nm := vd.Child("name"); nm != nil && nm.Type == "identifier" {
						names = append(names, nm.Text(src))
					}
				}
			}
		}
		for _, nm := range names {
			key := nm
			if isDefault {
				key = "default"
			}
			c.f.exports[key] = x.sc.names[nm]
		}
		return
	}
	if v := stripParens(n.Child("value")); v != nil && isDefault {
		switch {
		case isFunc(v):
			d := c.newDef(x.prefix+"default", task.KindFunction, n, v, n, x)
			c.f.exports["default"] = &symbol{kind: sDef, def: d}
			c.body(v, d, nil, x)
		case v.Type == "class":
			name := ""
			if v.Child("name") == nil {
				name = "default"
			}
			cl := c.classDecl(v, name, x)
			c.f.exports["default"] = &symbol{kind: sClass, class: cl}
		case v.Type == "object":
			keys := c.objectLit(v, "default", x)
			_ = keys
			c.f.exports["default"] = &symbol{kind: sObject, name: "default", obj: c.f}
		case v.Type == "identifier" || v.Type == "member_expression" || v.Type == "new_expression":
			c.f.exports["default"] = &symbol{kind: sAlias, node: v, sc: x.sc, cls: x.cls}
			c.walk(v, x)
		default:
			c.walk(v, x)
		}
		return
	}
	for _, k := range n.Kids {
		switch k.Type {
		case "export_clause":
			for _, s := range k.Kids {
				if s.Type != "export_specifier" {
					continue
				}
				name := s.Child("name")
				if name == nil {
					continue
				}
				exported := name.Text(src)
				if al := s.Child("alias"); al != nil {
					exported = al.Text(src)
				}
				if hasSource {
					c.f.exports[exported] = &symbol{kind: sImport, file: from, name: name.Text(src), extern: from == nil}
				} else {
					c.f.exports[exported] = &symbol{kind: sAlias, node: name, sc: c.f.top}
				}
			}
		case "namespace_export":
			if id := lastNamed(k); id != nil {
				c.f.exports[id.Text(src)] = &symbol{kind: sImport, file: from, name: "*", extern: from == nil}
			}
		case "*":
			if from != nil && n.FirstOfType("namespace_export") == nil {
				c.f.stars = append(c.f.stars, from)
			}
		}
	}
}

func (c *collector) importStmt(n *node, x ctxt) {
	src := c.f.src
	spec, ok := stringValue(n.Child("source"), src)
	if !ok {
		return
	}
	from := c.a.resolveModule(c.f, spec)
	clause := n.FirstOfType("import_clause")
	if clause == nil {
		return
	}
	for _, k := range clause.Kids {
		switch k.Type {
		case "identifier":
			x.sc.declare(k.Text(src), &symbol{kind: sImport, file: from, name: "default", extern: from == nil})
		case "namespace_import":
			if id := lastNamed(k); id != nil {
				x.sc.declare(id.Text(src), &symbol{kind: sImport, file: from, name: "*", extern: from == nil})
			}
		case "named_imports":
			for _, s := range k.Kids {
				if s.Type != "import_specifier" {
					continue
				}
				name := s.Child("name")
				if name == nil {
					continue
				}
				local := name.Text(src)
				if al := s.Child("alias"); al != nil {
					local = al.Text(src)
				}
				x.sc.declare(local, &symbol{kind: sImport, file: from, name: propName(name, src), extern: from == nil})
			}
		}
	}
}
