package javascript

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/faultline-dev/faultline/callgraph"
)

// libJS is the module the rule snippets import as './lib.js'.
const libJS = `export function f() {}
function g() {}
export { g as renamed };
export class A {
  constructor() {}
  m() {}
  n() {}
  static s() {}
}
export class B extends A {
  m() { super.m(); }
}
export default function def() {}
`

const libCJS = `exports.k = function () {};
module.exports.j = () => {};
`

// TestResolutionRules checks one rule per case: body is the body of main.js's function
// run, want the callees of run.
func TestResolutionRules(t *testing.T) {
	cases := []struct {
		name, head, body string
		want             []string
	}{
		{"named import", "import { f } from './lib.js';", "f();", []string{"lib.js::f"}},
		{"import without extension", "import { f } from './lib';", "f();", []string{"lib.js::f"}},
		{"alias on import", "import { f as h } from './lib.js';", "h();", []string{"lib.js::f"}},
		{"renamed export", "import { renamed } from './lib.js';", "renamed();", []string{"lib.js::g"}},
		{"default import", "import d from './lib.js';", "d();", []string{"lib.js::def"}},
		{"namespace import", "import * as L from './lib.js';", "L.f();", []string{"lib.js::f"}},
		{"static method", "import { A } from './lib.js';", "A.s();", []string{"lib.js::A.s"}},
		{"inherited constructor", "import { B } from './lib.js';", "new B();", []string{"lib.js::A.constructor"}},
		{"instance method", "import { B } from './lib.js';", "const b = new B(); b.m();", []string{"lib.js::A.constructor", "lib.js::B.m"}},
		{"inherited method", "import { B } from './lib.js';", "const b = new B(); b.n();", []string{"lib.js::A.constructor", "lib.js::A.n"}},
		{"alias variable", "import { f } from './lib.js';", "const x = f; x();", []string{"lib.js::f"}},
		{"require namespace", "const c = require('./c.cjs');", "c.k(); c.j();", []string{"c.cjs::exports.k", "c.cjs::module.exports.j"}},
		{"require member", "const k = require('./c.cjs').k;", "k();", []string{"c.cjs::exports.k"}},
		{"require destructured", "const { j: jj } = require('./c.cjs');", "jj();", []string{"c.cjs::module.exports.j"}},
		{"parameter shadows import", "import { f } from './lib.js';", "((f) => f())(1);", nil},
		{"package is external", "import x from 'lodash';", "x();", nil},
		{"iife folded", "import { f } from './lib.js';", "(function () { f(); })();", []string{"lib.js::f"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mainSrc := c.head + "\n\nfunction run() {\n  " + c.body + "\n}\n"
			a, err := New(Options{}).Analyze(context.Background(), []callgraph.SourceFile{
				{Path: "lib.js", Src: []byte(libJS)},
				{Path: "c.cjs", Src: []byte(libCJS)},
				{Path: "main.js", Src: []byte(mainSrc)},
			})
			require.NoError(t, err)
			require.Empty(t, a.Errors, mainSrc)
			var got []string
			for _, e := range edgeSet(a) {
				if rest, ok := strings.CutPrefix(e, "main.js::run -> "); ok {
					got = append(got, rest)
				}
			}
			assert.Equal(t, c.want, got, mainSrc)
		})
	}
	// super.m() inside B.m resolves to A.m.
	a, err := New(Options{}).Analyze(context.Background(), []callgraph.SourceFile{{Path: "lib.js", Src: []byte(libJS)}})
	require.NoError(t, err)
	assert.Contains(t, edgeSet(a), "lib.js::B.m -> lib.js::A.m")
}
