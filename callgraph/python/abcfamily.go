package python

import "strings"

// Sequences and mappings outside the project: an isinstance test against one of them
// decides about an instance of a project class whose bases outside the project are all
// among them. oslo.reports's ReportModel, an abc.MutableMapping, is walked by
// `if isinstance(obj, abc.Sequence): for item in obj: ...` then
// `elif isinstance(obj, abc.Mapping): ...`: its __iter__ is not called in the first
// branch. These classes define no __subclasshook__ (unlike Iterable, Sized or
// Container, which an isinstance test answers from the methods a class has), so
// inheritance decides, short of an explicit register().

// knownSupers maps the dotted name of each such class outside the project to the ones
// of them its instances are instances of (itself among them).
var knownSupers = map[string][]string{
	"collections.abc.Sequence":        {"Sequence"},
	"collections.abc.MutableSequence": {"MutableSequence", "Sequence"},
	"collections.abc.Mapping":         {"Mapping"},
	"collections.abc.MutableMapping":  {"MutableMapping", "Mapping"},
	"list":                            {"list", "MutableSequence", "Sequence"},
	"tuple":                           {"tuple", "Sequence"},
	"dict":                            {"dict", "MutableMapping", "Mapping"},
}

// knownClassName returns the key of knownSupers that class expression c names, or "".
// typing's aliases stand for collections.abc's classes, and so do collections's own
// names of them (Python before 3.10, the fallback of `try: from collections import
// abc` / `except ImportError: import collections as abc`); every alternative binding of
// a name must name the same class.
func (r *resolver) knownClassName(c *expr) string {
	out := ""
	for _, n := range r.outsideDotted(c) {
		if !strings.HasPrefix(n, "collections.abc.") {
			if t, ok := strings.CutPrefix(n, "typing."); ok {
				n = "collections.abc." + t
			} else if t, ok := strings.CutPrefix(n, "collections."); ok {
				n = "collections.abc." + t
			}
		}
		if _, ok := knownSupers[n]; !ok || out != "" && n != out {
			return ""
		}
		out = n
	}
	return out
}

// outsideDotted returns the dotted names of what e names outside the project, one per
// alternative binding: a builtin (list), an imported module or name (collections.abc,
// typing.Sequence), or an attribute of one; nil when one is something else.
func (r *resolver) outsideDotted(e *expr) []string {
	switch e.op {
	case eAttr:
		bs := r.outsideDotted(e.sub())
		out := make([]string, 0, len(bs))
		for _, b := range bs {
			out = append(out, b+"."+e.name())
		}
		return out
	case eModule:
		if r.absModule(e.name()) == "" {
			return []string{e.name()}
		}
	case eFrom:
		if e.idx() == 0 && r.absModule(e.sub().name()) == "" && !r.moduleExists(e.sub().name()) {
			return []string{e.sub().name() + "." + e.name()}
		}
	case eName:
		s, pos := bindingScope(e.scope(), e.name(), e.pos)
		if s == nil || len(s.bindings(e.name())) == 0 {
			if r.isBuiltin(e.scope(), e.name()) {
				return []string{e.name()}
			}
			return nil
		}
		var out []string
		for _, b := range reaching(s.bindings(e.name()), pos) {
			if b.val == nil || b.val.op != eModule && b.val.op != eFrom {
				return nil
			}
			ns := r.outsideDotted(b.val)
			if len(ns) == 0 {
				return nil
			}
			out = append(out, ns...)
		}
		return out
	}
	return nil
}

// knownIsinstance decides isinstance(v, C) for an instance v of project class c and
// classes C outside the project named by the keys of knownSupers in names: decided
// reports whether every base of c's order outside the project (object aside) is such a
// class, and is whether one of them makes c's instances instances of one of names.
func (r *resolver) knownIsinstance(c *defInfo, names []string) (is, decided bool) {
	for _, k := range r.mro(c) {
		if !k.extBase {
			continue
		}
		for _, b := range k.cfacts().bases {
			if isProjectClass(r.eval(b)) || b.op == eName && b.name() == "object" {
				continue
			}
			n := r.knownClassName(b)
			if n == "" {
				return false, false
			}
			for _, s := range knownSupers[n] {
				for _, want := range names {
					if knownSupers[want][0] == s {
						is = true
					}
				}
			}
		}
	}
	return is, true
}

// isProjectClass reports whether vs holds a project class (what mro takes as a base).
func isProjectClass(vs []value) bool {
	for _, v := range vs {
		if v.kind == vDef && v.def.fn.Kind == "class" {
			return true
		}
	}
	return false
}

// tupleClass reports whether project class c has tuple in its order: a base outside the
// project of a class in c's order is the builtin tuple, typing.NamedTuple, or a call of
// collections.namedtuple (directly, or through a name bound to one: parameterized's
// `_param = namedtuple("param", "args kwargs")` then `class param(_param)`).
func (r *resolver) tupleClass(c *defInfo) bool {
	for _, k := range r.mro(c) {
		if !k.extBase {
			continue
		}
		for _, b := range k.cfacts().bases {
			if isProjectClass(r.eval(b)) {
				continue
			}
			if r.namesTupleClass(b) {
				return true
			}
			if b.op != eName {
				continue
			}
			s, pos := bindingScope(b.scope(), b.name(), b.pos)
			if s == nil {
				continue
			}
			for _, bd := range reaching(s.bindings(b.name()), pos) {
				if bd.val != nil && r.namesTupleClass(bd.val) {
					return true
				}
			}
		}
	}
	return false
}

// namesTupleClass reports whether e is the builtin tuple, typing.NamedTuple or a call of
// collections.namedtuple (every alternative binding naming it).
func (r *resolver) namesTupleClass(e *expr) bool {
	if e.op == eCall {
		e = e.sub()
		if e == nil {
			return false
		}
		ns := r.outsideDotted(e)
		for _, n := range ns {
			if n != "collections.namedtuple" {
				return false
			}
		}
		return len(ns) > 0
	}
	ns := r.outsideDotted(e)
	for _, n := range ns {
		if n != "tuple" && n != "typing.NamedTuple" {
			return false
		}
	}
	return len(ns) > 0
}
