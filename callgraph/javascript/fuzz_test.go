package javascript

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/faultline-dev/faultline/callgraph"
)

// FuzzAnalyze checks that arbitrary bytes never panic the front end, that spans stay
// inside the file and that syntax errors carry their position.
//
// Under go test -fuzz almost every mutation reaches new parser paths and is minimized for
// up to -fuzzminimizetime (60s by default), so progress looks stalled; run it as
//
//	go test -run XXX -fuzz FuzzAnalyze -fuzzminimizetime 1s ./callgraph/javascript
func FuzzAnalyze(f *testing.F) {
	for _, p := range []string{"lib/shapes.js", "lib/counter.js", "lib/legacy.cjs", "main.mjs"} {
		src, err := os.ReadFile(filepath.Join("testdata", "app", filepath.FromSlash(p)))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
		f.Add(src[:len(src)/3])
	}
	f.Add([]byte("class A extends A { constructor() { super(); this.x = new A(); this.x.m(); } }"))
	f.Add([]byte("const a = b; const b = a; a(); module.exports = module.exports; export * from './x.js';"))
	f.Add([]byte("/** @typedef {import('./x.js').F} T */\n/** @param {T|null} t\n * @returns {T} */\nfunction g(t) { t.m(); return g(t).m(); }\n" +
		"function F() { this.m(); }\nF.prototype.m = function () { return new F(); };\nrequire('./x.js')();\n" +
		"class S { static s() { return new this(); } static t() { return this.s().u(); } u() { this.v = () => 1; } v() {} }\n" +
		"module.exports = { a: require('./x.js'), b: new S(), c: S.t() };\n"))
	f.Add([]byte("function (\n"))
	f.Add([]byte{0xff, 0, '`', '$', '{'})
	for _, p := range []string{"src/models.ts", "src/main.ts", "src/view.tsx"} {
		src, err := os.ReadFile(filepath.Join("testdata", "tsapp", filepath.FromSlash(p)))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	fe := New(Options{})
	f.Fuzz(func(t *testing.T, src []byte) {
		a, err := fe.Analyze(context.Background(), []callgraph.SourceFile{
			{Path: "x/a.js", Src: src},
			{Path: "x/b.ts", Src: src},
			{Path: "x/c.tsx", Src: src},
			{Path: "x/x.js", Src: []byte("export * from './a.js';\nexport default function f() {}\n")},
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range a.Definitions {
			if d.File == "x/x.js" {
				continue
			}
			if err := d.Validate(len(src)); err != nil {
				t.Fatal(err)
			}
		}
		if a.CallSites != a.Resolved+a.Unresolved || a.Unresolved < 0 {
			t.Fatalf("counts: %d sites, %d resolved, %d unresolved", a.CallSites, a.Resolved, a.Unresolved)
		}
		for _, e := range a.Errors {
			var se *callgraph.SyntaxError
			if !errors.As(e, &se) || se.Line < 1 || se.Column < 1 {
				t.Fatalf("bad error %v", e)
			}
		}
	})
}
