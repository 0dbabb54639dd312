package golang

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/faultline-dev/faultline/callgraph"
)

// lib is a second package the rule snippets import as example.com/m/lib.
const libSrc = `package lib

type T struct{ next *T }

func (t *T) M() *T { return t.next }
func (t T) V() int  { return 0 }

func New() (*T, error) { return &T{}, nil }
func Pair() (int, *T)   { return 0, nil }
func F()                {}
`

// TestResolutionRules checks one resolution rule per case: the snippet is the body of
// main.go's function run (package main importing lib), and want lists the edges from
// run (callee IDs relative to the module).
func TestResolutionRules(t *testing.T) {
	cases := []struct {
		name, imports, decls, body string
		want                       []string
	}{
		{"package-qualified", `"example.com/m/lib"`, "", "lib.F()", []string{"lib/lib.go::F"}},
		{"import alias", `l "example.com/m/lib"`, "", "l.F()", []string{"lib/lib.go::F"}},
		{"dot import", `. "example.com/m/lib"`, "", "F()", []string{"lib/lib.go::F"}},
		{"shadowed import is not the package", `"example.com/m/lib"`, "", "lib := struct{ F func() }{}; lib.F()", nil},
		{"composite literal", `"example.com/m/lib"`, "", "x := &lib.T{}; x.M()", []string{"lib/lib.go::T.M"}},
		{"new", `"example.com/m/lib"`, "", "new(lib.T).V()", []string{"lib/lib.go::T.V"}},
		{"var declaration", `"example.com/m/lib"`, "", "var x lib.T; x.M()", []string{"lib/lib.go::T.M"}},
		{"first of two results", `"example.com/m/lib"`, "", "x, err := lib.New(); _ = err; x.M()",
			[]string{"lib/lib.go::New", "lib/lib.go::T.M"}},
		{"second of two results", `"example.com/m/lib"`, "", "_, x := lib.Pair(); x.V()",
			[]string{"lib/lib.go::Pair", "lib/lib.go::T.V"}},
		{"chained results", `"example.com/m/lib"`, "", "(&lib.T{}).M().M().V()", []string{"lib/lib.go::T.M", "lib/lib.go::T.V"}},
		{"struct field", `"example.com/m/lib"`, "type S struct{ t lib.T }", "var s S; s.t.next.V()", []string{"lib/lib.go::T.V"}},
		{"embedded promotion", `"example.com/m/lib"`, "type S struct{ *lib.T }", "s := S{}; s.M()", []string{"lib/lib.go::T.M"}},
		{"method expression", `"example.com/m/lib"`, "", "(*lib.T).M(nil)", []string{"lib/lib.go::T.M"}},
		{"method value alias", `"example.com/m/lib"`, "", "x := &lib.T{}; m := x.M; m()", []string{"lib/lib.go::T.M"}},
		{"function value alias", `"example.com/m/lib"`, "", "g := lib.F; g()", []string{"lib/lib.go::F"}},
		{"range over slice", `"example.com/m/lib"`, "", "for _, x := range []lib.T{} { x.V() }", []string{"lib/lib.go::T.V"}},
		{"range over map", `"example.com/m/lib"`, "", "for k, v := range map[string]*lib.T{} { _ = k; v.M() }", []string{"lib/lib.go::T.M"}},
		{"receive from channel", `"example.com/m/lib"`, "", "ch := make(chan lib.T); x := <-ch; x.V()", []string{"lib/lib.go::T.V"}},
		{"type assertion", `"example.com/m/lib"`, "", "var i any; i.(*lib.T).M()", []string{"lib/lib.go::T.M"}},
		{"comma-ok assertion", `"example.com/m/lib"`, "", "var i any; x, ok := i.(*lib.T); _ = ok; x.M()", []string{"lib/lib.go::T.M"}},
		{"type switch clause", `"example.com/m/lib"`, "", "var i any; switch v := i.(type) { case lib.T: v.V(); case int: _ = v }", []string{"lib/lib.go::T.V"}},
		{"parameter", `"example.com/m/lib"`, "func use(x *lib.T) { x.M() }", "use(nil)", []string{"main.go::use"}},
		{"folded literal", `"example.com/m/lib"`, "", "f := func() { lib.F() }; f()", []string{"lib/lib.go::F"}},
		{"local shadows function", `"example.com/m/lib"`, "func helper() {}", "helper := func() {}; helper(); lib.F()", []string{"lib/lib.go::F"}},
		{"generic instantiation", "", "func G[T any](x T) T { return x }", "G[int](1); G(2)", []string{"main.go::G"}},
		{"package-level var", `"example.com/m/lib"`, "var global = &lib.T{}", "global.M()", []string{"lib/lib.go::T.M"}},
		{"builtin and conversion unresolved", "", "", "_ = len(\"x\"); _ = int64(1)", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			imports := ""
			if c.imports != "" {
				imports = "import " + c.imports + "\n"
			}
			mainSrc := "package main\n\n" + imports + "\n" + c.decls + "\n\nfunc run() {\n\t" + c.body + "\n}\n"
			a, err := New(Options{}).Analyze(context.Background(), []callgraph.SourceFile{
				{Path: "go.mod", Src: []byte("module example.com/m\n")},
				{Path: "lib/lib.go", Src: []byte(libSrc)},
				{Path: "main.go", Src: []byte(mainSrc)},
			})
			require.NoError(t, err)
			require.Empty(t, a.Errors, mainSrc)
			var got []string
			for _, e := range edgeSet(a) {
				if len(e) > len("main.go::run -> ") && e[:len("main.go::run -> ")] == "main.go::run -> " {
					got = append(got, e[len("main.go::run -> "):])
				}
			}
			assert.Equal(t, c.want, got, mainSrc)
		})
	}
}
