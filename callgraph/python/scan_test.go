package python

import (
	"maps"
	"slices"
	"testing"

	"github.com/faultline-dev/faultline/callgraph"
)

func TestScanNames(t *testing.T) {
	src := "class V:\n    def __add__(self, o): pass\n    async  def __aenter__(self): pass\n" +
		"    @property\n    def größe(self): return 1\n    @größe.setter\n    def größe(self, v): pass\n" +
		"\f    def __x(self): pass\n    total = property(lambda s: 1)\n    a.b = property(f)\n" +
		"    def ____(self): pass\n# def __sub__(self): pass\n"
	p := scanNames([]callgraph.SourceFile{{Path: "v.py", Src: []byte(src)}})
	dunders := slices.Sorted(maps.Keys(p.dunders))
	props := slices.Sorted(maps.Keys(p.props))
	if !slices.Equal(dunders, []string{"__add__", "__aenter__"}) {
		t.Errorf("dunders %v", dunders)
	}
	if !slices.Equal(props, []string{"größe", "total"}) {
		t.Errorf("props %v", props)
	}
	// descriptor classes by their own __get__/__set__/__delete__ or a base's, and the
	// names assigned an instance of one (in a class body or on a class from outside)
	src = "class Base(object):\n    def __set__(self, inst, v):\n        pass\n" +
		"class Sub(mod.Base, metaclass=M):\n    pass\n" +
		"class Plain:\n    def run(self):\n        def __get__(): pass\n" +
		"class Field:\n    default = Sub('default')\n    other = Plain()\n    x == Sub(1)\n" +
		"Field.title = mod.Base(f)\nField.n = 2\n"
	p = scanNames([]callgraph.SourceFile{{Path: "d.py", Src: []byte(src)}})
	if descrs := slices.Sorted(maps.Keys(p.descrs)); !slices.Equal(descrs, []string{"default", "title"}) {
		t.Errorf("descrs %v", descrs)
	}
	// Base and Sub define __set__ only: assignments may call it, reads call nothing
	if !p.descr("default", descrSet) || p.descr("default", descrGet) || p.descr("title", descrDelete) {
		t.Errorf("descriptor methods of default %b, title %b", p.descrs["default"], p.descrs["title"])
	}
	// with a descriptor class in the project, a def under a decorator mentioning property
	// that is not a builtin one may be a descriptor too
	src += "class C:\n    @instanceproperty\n    def func(self): pass\n    @instanceproperty(classval=1)\n    def doc(self): pass\n" +
		"    @property\n    def p(self): pass\n    @p.setter\n    def p(self, v): pass\n    @functools.cached_property\n    def q(self): pass\n"
	p = scanNames([]callgraph.SourceFile{{Path: "d.py", Src: []byte(src)}})
	if descrs := slices.Sorted(maps.Keys(p.descrs)); !slices.Equal(descrs, []string{"default", "doc", "func", "title"}) {
		t.Errorf("descrs with decorators %v", descrs)
	}
	var unknown *projectNames
	if !unknown.dunder("__eq__") || !unknown.prop("x") || !unknown.descr("x", descrGet) {
		t.Error("an unknown project must record every site")
	}
}
