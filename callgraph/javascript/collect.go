package javascript

import "github.com/faultline-dev/faultline/task"

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
	switch n.typ {
	case "arrow_function", "function_expression", "function", "generator_function":
		return true
	}
	return false
}

// stripParens removes parentheses, await, and TypeScript's non-null assertions (x!) and
// type assertions (x as T, x satisfies T, <T>x).
func stripParens(n *node) *node {
	for n != nil {
		switch n.typ {
		case "parenthesized_expression", "await_expression":
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
	for _, k := range n.kids {
		if k.named && k.typ != "comment" {
			return k
		}
	}
	return nil
}

// lastNamed returns the last named child of n that is not a comment.
func lastNamed(n *node) *node {
	for i := len(n.kids) - 1; i >= 0; i-- {
		if n.kids[i].named && n.kids[i].typ != "comment" {
			return n.kids[i]
		}
	}
	return nil
}

// exportParent returns the export statement wrapping n, or n: the doc comment sits above
// the export keyword.
func exportParent(n *node) *node {
	if n.parent != nil && n.parent.typ == "export_statement" {
		return n.parent
	}
	return n
}

func (c *collector) newDef(name string, kind task.Kind, defN, fnN, docN *node, x ctxt) *def {
	d := &def{name: name, kind: kind, defN: defN, fnN: fnN, docN: docN, owner: x.owner, file: c.f, sc: x.sc, cls: x.cls}
	c.f.defs = append(c.f.defs, d)
	c.f.byName[name] = append(c.f.byName[name], d)
	return d
}

func (c *collector) walkKids(n *node, x ctxt) {
	for _, k := range n.kids {
		c.walk(k, x)
	}
}

func (c *collector) walk(n *node, x ctxt) {
	src := c.f.src
	switch n.typ {
	case "comment", "interface_declaration", "type_alias_declaration", "enum_declaration",
		"function_signature", "abstract_method_signature", "method_signature", "ambient_declaration",
		"type_annotation", "type_arguments", "type_parameters":
		return
	case "internal_module", "module":
		nm := n.child("name")
		if b := n.child("body"); nm != nil && b != nil {
			c.walk(b, ctxt{x.prefix + nm.text(src) + ".", x.owner, x.cls, x.sc})
		}
		return
	case "function_declaration", "generator_function_declaration":
		nm := n.child("name")
		if nm == nil {
			c.fold(n, x)
			return
		}
		name := nm.text(src)
		d := c.newDef(x.prefix+name, task.KindFunction, n, n, exportParent(n), x)
		x.sc.declare(name, &symbol{kind: sDef, def: d})
		c.body(n, d, nil, x)
		return
	case "class_declaration", "class", "abstract_class_declaration":
		c.classDecl(n, "", x)
		return
	case "lexical_declaration", "variable_declaration":
		var vds []*node
		for _, k := range n.kids {
			if k.typ == "variable_declarator" {
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
	}
	c.walkKids(n, x)
}

// fold walks an anonymous function whose code belongs to the enclosing definition.
func (c *collector) fold(n *node, x ctxt) {
	inner := x.sc.child()
	if nm := n.child("name"); nm != nil {
		inner.declare(nm.text(c.f.src), nil)
	}
	for _, f := range []string{"parameters", "parameter"} {
		if p := n.child(f); p != nil {
			c.declarePattern(p, inner)
			c.walkKids(p, ctxt{x.prefix, x.owner, x.cls, inner})
		}
	}
	if b := n.child("body"); b != nil {
		c.walk(b, ctxt{x.prefix, x.owner, x.cls, inner})
	}
}

// body walks the parameters and body of definition d's function node fn.
func (c *collector) body(fn *node, d *def, cls *class, x ctxt) {
	inner := x.sc.child()
	nx := ctxt{prefix: d.name + ".", owner: d, cls: cls, sc: inner}
	for _, f := range []string{"parameters", "parameter"} {
		if p := fn.child(f); p != nil {
			c.declarePattern(p, inner)
			c.walkKids(p, nx)
		}
	}
	if b := fn.child("body"); b != nil {
		c.walk(b, nx)
	}
}

// declarePattern declares the names a parameter list or binding pattern binds.
func (c *collector) declarePattern(n *node, sc *scope) {
	switch n.typ {
	case "identifier", "shorthand_property_identifier_pattern":
		sc.declare(n.text(c.f.src), nil)
		return
	case "assignment_pattern":
		if l := n.child("left"); l != nil {
			c.declarePattern(l, sc)
		}
		return
	case "pair_pattern":
		if v := n.child("value"); v != nil {
			c.declarePattern(v, sc)
		}
		return
	case "object_assignment_pattern":
		if l := n.child("left"); l != nil {
			c.declarePattern(l, sc)
		}
		return
	case "required_parameter", "optional_parameter":
		p := n.child("pattern")
		if p == nil {
			return
		}
		if t := n.child("type"); t != nil && p.typ == "identifier" {
			sc.declare(p.text(c.f.src), &symbol{kind: sTyped, node: t, sc: sc})
			return
		}
		c.declarePattern(p, sc)
		return
	case "type_annotation", "type_parameters", "accessibility_modifier":
		return
	}
	for _, k := range n.kids {
		if k.named {
			c.declarePattern(k, sc)
		}
	}
}

// requireOf returns the module a require('…') call names: ok reports a require call; f
// is nil for modules outside the analysed files.
func (c *collector) requireOf(n *node, x ctxt) (*file, bool) {
	n = stripParens(n)
	if n == nil || n.typ != "call_expression" {
		return nil, false
	}
	fx := n.child("function")
	if fx == nil || fx.typ != "identifier" || fx.text(c.f.src) != "require" || x.sc.lookup("require") != nil {
		return nil, false
	}
	args := n.child("arguments")
	if args == nil {
		return nil, false
	}
	for _, k := range args.kids {
		if s, ok := stringValue(k, c.f.src); ok {
			return c.a.resolveModule(c.f, s), true
		}
	}
	return nil, false
}

func (c *collector) declarator(vd, defN *node, x ctxt) {
	src := c.f.src
	nameN, val := vd.child("name"), vd.child("value")
	v := stripParens(val)
	if nameN == nil {
		return
	}
	if nameN.typ != "identifier" {
		if f, ok := c.requireOf(v, x); ok && nameN.typ == "object_pattern" {
			for _, k := range nameN.kids {
				switch k.typ {
				case "shorthand_property_identifier_pattern":
					x.sc.declare(k.text(src), &symbol{kind: sImport, file: f, name: k.text(src), extern: f == nil})
				case "pair_pattern":
					if key, value := k.child("key"), k.child("value"); key != nil && value != nil && value.typ == "identifier" {
						x.sc.declare(value.text(src), &symbol{kind: sImport, file: f, name: key.text(src), extern: f == nil})
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
	name := nameN.text(src)
	if t := vd.child("type"); t != nil && !isFunc(v) && (v == nil || (v.typ != "class" && v.typ != "object")) {
		x.sc.declare(name, &symbol{kind: sTyped, node: t, sc: x.sc})
		if val != nil {
			c.walk(val, x)
		}
		return
	}
	switch {
	case v == nil:
		x.sc.declare(name, nil)
		return
	case isFunc(v):
		d := c.newDef(x.prefix+name, task.KindFunction, defN, v, exportParent(defN), x)
		x.sc.declare(name, &symbol{kind: sDef, def: d})
		cls := x.cls
		if v.typ != "arrow_function" {
			cls = nil
		}
		c.body(v, d, cls, x)
		return
	case v.typ == "class":
		c.classDecl(v, name, x)
		return
	case v.typ == "object":
		c.objectLit(v, x.prefix+name, x)
		x.sc.declare(name, &symbol{kind: sObject, name: x.prefix + name, obj: c.f})
		return
	case v.typ == "new_expression":
		x.sc.declare(name, &symbol{kind: sNew, node: v, sc: x.sc, cls: x.cls})
	case v.typ == "call_expression":
		if f, ok := c.requireOf(v, x); ok {
			x.sc.declare(name, &symbol{kind: sImport, file: f, name: "*", extern: f == nil})
		} else {
			x.sc.declare(name, &symbol{kind: sCall, node: v, sc: x.sc, cls: x.cls})
		}
	case v.typ == "identifier" || v.typ == "member_expression":
		if v.typ == "member_expression" {
			if f, ok := c.requireOf(v.child("object"), x); ok {
				x.sc.declare(name, &symbol{kind: sImport, file: f, name: v.child("property").text(src), extern: f == nil})
				break
			}
		}
		x.sc.declare(name, &symbol{kind: sAlias, node: v, sc: x.sc, cls: x.cls})
	default:
		if f, ok := c.requireOf(v, x); ok {
			x.sc.declare(name, &symbol{kind: sImport, file: f, name: "*", extern: f == nil})
		} else {
			x.sc.declare(name, nil)
		}
	}
	c.walk(val, x)
}

// objectLit records the function-valued members of an object literal as definitions
// named prefix.key, and returns the symbols of its keys.
func (c *collector) objectLit(obj *node, prefix string, x ctxt) map[string]*symbol {
	src := c.f.src
	keys := map[string]*symbol{}
	for _, k := range obj.kids {
		switch k.typ {
		case "method_definition":
			nm := k.child("name")
			if nm == nil {
				continue
			}
			key := propName(nm, src)
			d := c.newDef(prefix+"."+key, task.KindMethod, k, k, k, x)
			keys[key] = &symbol{kind: sDef, def: d}
			c.body(k, d, x.cls, x)
		case "pair":
			key := propName(k.child("key"), src)
			v := stripParens(k.child("value"))
			switch {
			case v == nil:
			case isFunc(v) && key != "":
				d := c.newDef(prefix+"."+key, task.KindMethod, k, v, k, x)
				keys[key] = &symbol{kind: sDef, def: d}
				cls := x.cls
				if v.typ != "arrow_function" {
					cls = nil
				}
				c.body(v, d, cls, x)
			case v.typ == "object" && key != "":
				c.objectLit(v, prefix+"."+key, x)
				keys[key] = &symbol{kind: sObject, name: prefix + "." + key, obj: c.f}
			default:
				if v.typ == "identifier" || v.typ == "member_expression" {
					keys[key] = &symbol{kind: sAlias, node: v, sc: x.sc, cls: x.cls}
				}
				c.walk(k.child("value"), x)
			}
		case "shorthand_property_identifier":
			keys[k.text(src)] = &symbol{kind: sAlias, node: k, sc: x.sc, cls: x.cls}
		default:
			if k.named {
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
	switch n.typ {
	case "property_identifier", "private_property_identifier", "identifier", "number":
		return n.text(src)
	}
	return ""
}

// memberPath returns the dotted text of a member chain of identifiers (a.b.c), or "".
func memberPath(n *node, src []byte) string {
	switch n.typ {
	case "identifier", "this":
		return n.text(src)
	case "member_expression":
		o, p := n.child("object"), n.child("property")
		if o == nil || p == nil || p.typ != "property_identifier" {
			return ""
		}
		if base := memberPath(o, src); base != "" {
			return base + "." + p.text(src)
		}
	}
	return ""
}

func (c *collector) assignment(n *node, x ctxt) {
	src := c.f.src
	left, right := n.child("left"), n.child("right")
	r := stripParens(right)
	if left == nil || r == nil {
		c.walkKids(n, x)
		return
	}
	lt := memberPath(left, src)
	defN := n
	if n.parent != nil && n.parent.typ == "expression_statement" {
		defN = n.parent
	}
	switch {
	case lt == "module.exports":
		switch {
		case r.typ == "object":
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
		case r.typ == "class":
			cl := c.classDecl(r, "module.exports", x)
			c.f.cjs = &symbol{kind: sClass, class: cl}
			return
		}
		if f, ok := c.requireOf(r, x); ok {
			c.f.cjs = &symbol{kind: sImport, file: f, name: "*", extern: f == nil}
		} else if r.typ == "identifier" || r.typ == "member_expression" || r.typ == "new_expression" {
			c.f.cjs = &symbol{kind: sAlias, node: r, sc: x.sc, cls: x.cls}
		}
	case len(lt) > 0 && (hasPrefix(lt, "exports.") || hasPrefix(lt, "module.exports.")) && x.owner == nil:
		key := lt[lastDot(lt)+1:]
		switch {
		case isFunc(r):
			d := c.newDef(lt, task.KindFunction, defN, r, defN, x)
			c.f.exports[key] = &symbol{kind: sDef, def: d}
			c.body(r, d, nil, x)
			return
		case r.typ == "class":
			cl := c.classDecl(r, key, x)
			c.f.exports[key] = &symbol{kind: sClass, class: cl}
			return
		case r.typ == "identifier" || r.typ == "member_expression":
			c.f.exports[key] = &symbol{kind: sAlias, node: r, sc: x.sc, cls: x.cls}
		}
	case hasPrefix(lt, "this.") && x.cls != nil && len(lt) > 5 && lastDot(lt) == 4:
		key := lt[5:]
		switch {
		case isFunc(r):
			d := c.newDef(x.cls.name+"."+key, task.KindMethod, defN, r, defN, x)
			if x.cls.methods[key] == nil {
				x.cls.methods[key] = d
			}
			cls := x.cls
			if r.typ != "arrow_function" {
				cls = nil
			}
			c.body(r, d, cls, x)
			return
		case r.typ == "new_expression":
			x.cls.fields[key] = &symbol{kind: sNew, node: r, sc: x.sc, cls: x.cls}
		case r.typ == "identifier" || r.typ == "member_expression":
			x.cls.fields[key] = &symbol{kind: sAlias, node: r, sc: x.sc, cls: x.cls}
		}
	case lt != "" && isFunc(r):
		d := c.newDef(x.prefix+lt, task.KindFunction, defN, r, defN, x)
		if left.typ == "identifier" {
			if s := x.sc.lookup(lt); s != nil && s.kind == sUnknown {
				*s = symbol{kind: sDef, def: d}
			}
		}
		c.body(r, d, nil, x)
		return
	}
	c.walk(left, x)
	c.walk(right, x)
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
	for _, p := range params.kids {
		if p.typ != "required_parameter" && p.typ != "optional_parameter" {
			continue
		}
		if p.firstOfType("accessibility_modifier") == nil && p.firstOfType("readonly") == nil {
			continue
		}
		if pat, t := p.child("pattern"), p.child("type"); pat != nil && t != nil && pat.typ == "identifier" {
			cl.fields[pat.text(c.f.src)] = &symbol{kind: sTyped, node: t, sc: sc}
		}
	}
}

// classDecl records a class and its members; name overrides the class's own name (a
// class expression bound to a variable is named by the binding).
func (c *collector) classDecl(n *node, bind string, x ctxt) *class {
	src := c.f.src
	name := bind
	if name == "" {
		if nm := n.child("name"); nm != nil {
			name = nm.text(src)
		}
	}
	if name == "" {
		name = "<class>"
	}
	cl := &class{name: x.prefix + name, file: c.f, methods: map[string]*def{}, fields: map[string]*symbol{},
		heritage: n.firstOfType("class_heritage"), sc: x.sc, outer: x.cls}
	if n.typ == "class_declaration" || n.typ == "abstract_class_declaration" || bind != "" {
		x.sc.declare(name, &symbol{kind: sClass, class: cl})
	}
	if cl.heritage != nil {
		c.walkKids(cl.heritage, x)
	}
	body := n.child("body")
	if body == nil {
		return cl
	}
	for _, m := range body.kids {
		switch m.typ {
		case "method_definition":
			nm := m.child("name")
			if nm == nil {
				continue
			}
			mname := propName(nm, src)
			d := c.newDef(cl.name+"."+mname, task.KindMethod, m, m, m, ctxt{x.prefix, x.owner, cl, x.sc})
			if cl.methods[mname] == nil {
				cl.methods[mname] = d
			}
			if mname == "constructor" {
				c.parameterProperties(m.child("parameters"), cl, x.sc)
			}
			c.body(m, d, cl, x)
		case "field_definition", "public_field_definition":
			pn := m.child("property")
			if pn == nil {
				pn = m.child("name")
			}
			prop := propName(pn, src)
			if t := m.child("type"); t != nil && prop != "" {
				cl.fields[prop] = &symbol{kind: sTyped, node: t, sc: x.sc}
			}
			v := stripParens(m.child("value"))
			switch {
			case v != nil && isFunc(v) && prop != "":
				d := c.newDef(cl.name+"."+prop, task.KindMethod, m, v, m, ctxt{x.prefix, x.owner, cl, x.sc})
				if cl.methods[prop] == nil {
					cl.methods[prop] = d
				}
				cls := cl
				if v.typ != "arrow_function" {
					cls = nil
				}
				c.body(v, d, cls, x)
			case v != nil:
				if v.typ == "new_expression" && prop != "" {
					cl.fields[prop] = &symbol{kind: sNew, node: v, sc: x.sc, cls: cl}
				}
				c.walk(m.child("value"), ctxt{x.prefix, x.owner, cl, x.sc})
			}
		case "class_static_block":
			c.walkKids(m, ctxt{x.prefix, x.owner, cl, x.sc})
		}
	}
	return cl
}

func (c *collector) export(n *node, x ctxt) {
	src := c.f.src
	var from *file
	source := n.child("source")
	spec, hasSource := stringValue(source, src)
	if hasSource {
		from = c.a.resolveModule(c.f, spec)
	}
	isDefault := n.firstOfType("default") != nil
	if decl := n.child("declaration"); decl != nil {
		c.walk(decl, x)
		var names []string
		switch decl.typ {
		case "function_declaration", "generator_function_declaration", "class_declaration", "abstract_class_declaration":
			if nm := decl.child("name"); nm != nil {
				names = append(names, nm.text(src))
			}
		case "lexical_declaration", "variable_declaration":
			for _, vd := range decl.kids {
				if vd.typ == "variable_declarator" {
					if nm := vd.child("name"); nm != nil && nm.typ == "identifier" {
						names = append(names, nm.text(src))
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
	if v := stripParens(n.child("value")); v != nil && isDefault {
		switch {
		case isFunc(v):
			d := c.newDef(x.prefix+"default", task.KindFunction, n, v, n, x)
			c.f.exports["default"] = &symbol{kind: sDef, def: d}
			c.body(v, d, nil, x)
		case v.typ == "class":
			name := ""
			if v.child("name") == nil {
				name = "default"
			}
			cl := c.classDecl(v, name, x)
			c.f.exports["default"] = &symbol{kind: sClass, class: cl}
		case v.typ == "object":
			keys := c.objectLit(v, "default", x)
			_ = keys
			c.f.exports["default"] = &symbol{kind: sObject, name: "default", obj: c.f}
		case v.typ == "identifier" || v.typ == "member_expression" || v.typ == "new_expression":
			c.f.exports["default"] = &symbol{kind: sAlias, node: v, sc: x.sc, cls: x.cls}
			c.walk(v, x)
		default:
			c.walk(v, x)
		}
		return
	}
	for _, k := range n.kids {
		switch k.typ {
		case "export_clause":
			for _, s := range k.kids {
				if s.typ != "export_specifier" {
					continue
				}
				name := s.child("name")
				if name == nil {
					continue
				}
				exported := name.text(src)
				if al := s.child("alias"); al != nil {
					exported = al.text(src)
				}
				if hasSource {
					c.f.exports[exported] = &symbol{kind: sImport, file: from, name: name.text(src), extern: from == nil}
				} else {
					c.f.exports[exported] = &symbol{kind: sAlias, node: name, sc: c.f.top}
				}
			}
		case "namespace_export":
			if id := lastNamed(k); id != nil {
				c.f.exports[id.text(src)] = &symbol{kind: sImport, file: from, name: "*", extern: from == nil}
			}
		case "*":
			if from != nil && n.firstOfType("namespace_export") == nil {
				c.f.stars = append(c.f.stars, from)
			}
		}
	}
}

func (c *collector) importStmt(n *node, x ctxt) {
	src := c.f.src
	spec, ok := stringValue(n.child("source"), src)
	if !ok {
		return
	}
	from := c.a.resolveModule(c.f, spec)
	clause := n.firstOfType("import_clause")
	if clause == nil {
		return
	}
	for _, k := range clause.kids {
		switch k.typ {
		case "identifier":
			x.sc.declare(k.text(src), &symbol{kind: sImport, file: from, name: "default", extern: from == nil})
		case "namespace_import":
			if id := lastNamed(k); id != nil {
				x.sc.declare(id.text(src), &symbol{kind: sImport, file: from, name: "*", extern: from == nil})
			}
		case "named_imports":
			for _, s := range k.kids {
				if s.typ != "import_specifier" {
					continue
				}
				name := s.child("name")
				if name == nil {
					continue
				}
				local := name.text(src)
				if al := s.child("alias"); al != nil {
					local = al.text(src)
				}
				x.sc.declare(local, &symbol{kind: sImport, file: from, name: propName(name, src), extern: from == nil})
			}
		}
	}
}
