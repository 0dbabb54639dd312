package python

import (
	"bytes"

	"github.com/faultline-dev/faultline/callgraph"
	"github.com/faultline-dev/faultline/internal/pylex"
)

// projectNames are facts about the whole project that the collectors need before any
// file is parsed, found by a textual scan of the sources: the special methods some file
// defines (`def __add__`) and the names that may be properties (a def under a decorator
// mentioning property, setter, deleter or getter, or `name = property(...)`). They are
// supersets: they only let the collectors skip the implicit call sites (operators,
// subscripts, attribute reads) that cannot reach project code, which keeps their cost
// away from projects that do not overload them.
//
// A nil *projectNames stands for an unknown project: every site is recorded.
//
// descrs are the names that may be class attributes holding a descriptor: the targets
// of `name = C(...)` and `obj.name = C(...)` where C is a class whose body (or a base's,
// by name) defines __get__, __set__ or __delete__ (zope.schema's `default =
// DefaultProperty('default')` in a class body, `Field.title = FieldProperty(...)` at
// module level), and, when the project has such a class, the names of definitions under
// a decorator mentioning property that is not a builtin one (@instanceproperty).
type projectNames struct {
	dunders map[string]bool
	props   map[string]bool
	descrs  map[string]uint8 // name → the descriptor methods its descriptors may have (descrGet...)
	// while scanning: the classes seen (bases by their last name, and whether the body
	// defines a descriptor method) and the calls assigned to names, by callee
	classes  map[string]*scannedClass
	assigned map[string][]string
	made     []string // defs under a decorator mentioning property that is not a builtin one
}

// builtinPropertyDecorator reports whether decorator line (from its "@") is the builtin
// property, functools' cached_property or abc's abstractproperty, or a property's
// setter, deleter or getter: decorators that make no project descriptor.
func builtinPropertyDecorator(line []byte) bool {
	d := bytes.TrimSpace(line[1:])
	if k := bytes.IndexByte(d, '#'); k >= 0 {
		d = bytes.TrimSpace(d[:k])
	}
	switch n := lastName(d); {
	case n == "property" || n == "cached_property" || n == "abstractproperty":
		return true
	case n == "setter" || n == "deleter" || n == "getter":
		return true
	}
	return false
}

// scannedClass is what the scan learnt of the classes of one name.
type scannedClass struct {
	bases []string
	descr uint8 // the descriptor methods its body defines (descrGet...), or a base's
}

// The descriptor methods, as bits of projectNames.descrs.
const (
	descrGet uint8 = 1 << iota
	descrSet
	descrDelete
)

// openClass is a class whose body encloses the line being scanned: the indentation of
// its header and of its body (-1 until the body's first line).
type openClass struct {
	c            *scannedClass
	indent, body int
}

func (p *projectNames) dunder(name string) bool { return p == nil || p.dunders[name] }
func (p *projectNames) prop(name string) bool   { return p == nil || p.props[name] }
func (p *projectNames) descr(name string, m uint8) bool {
	return p == nil || p.descrs[name]&m != 0
}

// anyDescr reports whether some name may hold a descriptor with one of the methods m.
func (p *projectNames) anyDescr(m uint8) bool {
	if p == nil {
		return true
	}
	for _, d := range p.descrs {
		if d&m != 0 {
			return true
		}
	}
	return false
}

// scanNames scans the sources of a project for projectNames.
func scanNames(files []callgraph.SourceFile) *projectNames {
	p := &projectNames{dunders: map[string]bool{}, props: map[string]bool{}, descrs: map[string]uint8{},
		classes: map[string]*scannedClass{}, assigned: map[string][]string{}}
	for _, f := range files {
		p.scan(f.Src)
	}
	p.descriptorNames()
	return p
}

// descriptorNames computes descrs from the classes and assignments the scan saw: a class
// is a descriptor class when it, or a class named as one of its bases (transitively),
// defines a descriptor method; a name holds the methods of the descriptor classes
// assigned to it, so that only the accesses that may call one are recorded (networkx's
// _adj holds a descriptor with __set__ only: its many reads call nothing).
func (p *projectNames) descriptorNames() {
	for changed := true; changed; {
		changed = false
		for _, c := range p.classes {
			for _, b := range c.bases {
				if bc := p.classes[b]; bc != nil && bc.descr|c.descr != c.descr {
					c.descr |= bc.descr
					changed = true
				}
			}
		}
	}
	for callee, names := range p.assigned {
		if c := p.classes[callee]; c != nil && c.descr != 0 {
			for _, n := range names {
				p.descrs[n] |= c.descr
			}
		}
	}
	for _, c := range p.classes {
		if c.descr != 0 {
			// a decorator mentioning property other than the builtin ones may be a
			// project function returning a descriptor (toolz's @instanceproperty returns
			// an InstanceProperty, a subclass of property with its own __get__)
			for _, n := range p.made {
				p.descrs[n] = descrGet | descrSet | descrDelete
			}
			break
		}
	}
	p.classes, p.assigned, p.made = nil, nil, nil
}

func (p *projectNames) scan(src []byte) {
	pendingProp, pendingMade := false, false
	var cls []openClass // the classes whose bodies enclose the line, innermost last
	for len(src) > 0 {
		line := src
		if k := bytes.IndexByte(src, '\n'); k >= 0 {
			line, src = src[:k], src[k+1:]
		} else {
			src = nil
		}
		indent := len(pylex.LeadingSpace(line))
		line = line[indent:]
		if len(line) > 0 && line[0] != '#' {
			for len(cls) > 0 && cls[len(cls)-1].indent >= indent {
				cls = cls[:len(cls)-1]
			}
			if len(cls) > 0 && cls[len(cls)-1].body < 0 {
				cls[len(cls)-1].body = indent
			}
		}
		switch {
		case len(line) == 0 || line[0] == '#':
		case line[0] == '@':
			if bytes.Contains(line, []byte("property")) || bytes.Contains(line, []byte(".setter")) ||
				bytes.Contains(line, []byte(".deleter")) || bytes.Contains(line, []byte(".getter")) {
				pendingProp = true
			}
			if bytes.Contains(line, []byte("property")) && !builtinPropertyDecorator(line) {
				pendingMade = true
			}
		case bytes.HasPrefix(line, []byte("def ")) || asyncDef(line):
			if line[0] == 'a' {
				line = line[len("async"):]
				line = line[len(pylex.LeadingSpace(line)):]
			}
			name := identPrefix(bytes.TrimLeft(line[len("def"):], " \t"))
			if len(name) > 4 && bytes.HasPrefix(name, []byte("__")) && bytes.HasSuffix(name, []byte("__")) {
				p.dunders[string(name)] = true
			}
			if pendingProp && len(name) > 0 {
				p.props[string(name)] = true
			}
			if pendingMade && len(name) > 0 {
				p.made = append(p.made, string(name))
			}
			if len(cls) > 0 && cls[len(cls)-1].body == indent {
				switch string(name) {
				case "__get__":
					cls[len(cls)-1].c.descr |= descrGet
				case "__set__":
					cls[len(cls)-1].c.descr |= descrSet
				case "__delete__":
					cls[len(cls)-1].c.descr |= descrDelete
				}
			}
			pendingProp, pendingMade = false, false
		case bytes.HasPrefix(line, []byte("class ")):
			pendingProp, pendingMade = false, false
			if c := p.scanClass(line[len("class "):]); c != nil {
				cls = append(cls, openClass{c: c, indent: indent, body: -1})
			}
		default:
			p.scanAssigned(line)
			if k := bytes.Index(line, []byte("property(")); k > 0 {
				if eq := bytes.IndexByte(line[:k], '='); eq > 0 {
					if name := identPrefix(bytes.TrimRight(line[:eq], " \t")); len(name) == eq-countTrailingBlanks(line[:eq]) {
						p.props[string(name)] = true
					}
				}
			}
		}
	}
}

// scanClass records the class header rest (after "class "): its name and the last names
// of its positional bases. It returns the record of that name (classes of one name in
// several files share it: the scan cannot tell them apart).
func (p *projectNames) scanClass(rest []byte) *scannedClass {
	rest = bytes.TrimLeft(rest, " \t")
	name := identPrefix(rest)
	if len(name) == 0 {
		return nil
	}
	c := p.classes[string(name)]
	if c == nil {
		c = &scannedClass{}
		p.classes[string(name)] = c
	}
	rest = bytes.TrimLeft(rest[len(name):], " \t")
	if len(rest) == 0 || rest[0] != '(' {
		return c
	}
	rest = rest[1:]
	if k := bytes.IndexByte(rest, ')'); k >= 0 {
		rest = rest[:k]
	}
	for b := range bytes.SplitSeq(rest, []byte(",")) {
		if bytes.IndexByte(b, '=') >= 0 {
			continue // metaclass=..., a keyword
		}
		if n := lastName(bytes.TrimSpace(b)); n != "" {
			c.bases = append(c.bases, n)
		}
	}
	return c
}

// scanAssigned records `target = Callee(` (target a name or a dotted attribute): the
// last name of the target under the last name of the callee.
func (p *projectNames) scanAssigned(line []byte) {
	eq := bytes.IndexByte(line, '=')
	if eq <= 0 || eq+1 < len(line) && line[eq+1] == '=' {
		return
	}
	target := bytes.TrimRight(line[:eq], " \t")
	if !dottedName(target) {
		return
	}
	rhs := bytes.TrimLeft(line[eq+1:], " \t")
	open := bytes.IndexByte(rhs, '(')
	if open <= 0 || !dottedName(rhs[:open]) {
		return
	}
	callee := lastName(rhs[:open])
	p.assigned[callee] = append(p.assigned[callee], lastName(target))
}

// dottedName reports whether b is a name or names joined by dots.
func dottedName(b []byte) bool {
	for part := range bytes.SplitSeq(b, []byte(".")) {
		if len(part) == 0 || len(identPrefix(part)) != len(part) || part[0] >= '0' && part[0] <= '9' {
			return false
		}
	}
	return true
}

// lastName returns the last of the dotted names b, "" if b is not a dotted name.
func lastName(b []byte) string {
	if !dottedName(b) {
		return ""
	}
	if k := bytes.LastIndexByte(b, '.'); k >= 0 {
		return string(b[k+1:])
	}
	return string(b)
}

// asyncDef reports whether line starts with "async", blanks and "def ".
func asyncDef(line []byte) bool {
	rest, ok := bytes.CutPrefix(line, []byte("async"))
	if !ok || len(rest) == 0 || rest[0] != ' ' && rest[0] != '\t' {
		return false
	}
	return bytes.HasPrefix(rest[len(pylex.LeadingSpace(rest)):], []byte("def "))
}

func countTrailingBlanks(b []byte) int {
	return len(b) - len(bytes.TrimRight(b, " \t"))
}

// identPrefix returns the leading identifier of b (pylex.NameEnd: letters, digits and
// underscores of any script).
func identPrefix(b []byte) []byte {
	return b[:pylex.NameEnd(b, 0)]
}
