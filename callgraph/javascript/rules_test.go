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

// valueCJS assigns one function to module.exports, classCJS one class.
const (
	valueCJS = `function g() {}
module.exports = g;
`
	classCJS = `class K {
  constructor() {}
  m() {}
}
module.exports = K;
`
	// staticJS has a static and an instance method of one name, as marked's Parser.
	staticJS = `export class P {
  static parse(x) { const p = new P(); return p.parse(x); }
  static make() { return new this(); }
  static helper() { return this.parse(1); }
  constructor() {}
  parse(x) { return this.helper(x); }
  helper(x) { return x; }
}
export class Q extends P {
  static run() { return super.parse(2); }
}
`
	// protoJS has a constructor function with prototype methods.
	protoJS = `export function F() { this.init(); this.own = function () {}; }
F.prototype.init = function () { this.m(); this.own(); };
F.prototype.m = function () {};
`
)

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
		{"require of a function module", "const g = require('./g.cjs');", "g();", []string{"g.cjs::g"}},
		{"require of a class module", "const K = require('./k.cjs');", "new K().m();", []string{"k.cjs::K.constructor", "k.cjs::K.m"}},
		{"extends a required class", "const K = require('./k.cjs'); class L extends K {}", "new L().m();", []string{"k.cjs::K.constructor", "k.cjs::K.m"}},
		{"new constructor function", "import { F } from './proto.js';", "new F();", []string{"proto.js::F"}},
		{"prototype method", "import { F } from './proto.js';", "const o = new F(); o.m();", []string{"proto.js::F", "proto.js::F.prototype.m"}},
		{"static method by name", "import { P } from './static.js';", "P.parse(1);", []string{"static.js::P.parse@2"}},
		{"instance method by name", "import { P } from './static.js';", "new P().parse(1);", []string{"static.js::P.constructor", "static.js::P.parse@6"}},
		{"inherited static", "import { Q } from './static.js';", "Q.helper();", []string{"static.js::P.helper@4"}},
		{"call of a required function", "", "require('./g.cjs')();", []string{"g.cjs::g"}},
		{"call of a returned function", "import { F } from './proto.js'; function get() { return F; }", "get()();", []string{"main.js::get", "proto.js::F"}},
		{"transpiled call", "var _c = require('./c.cjs');", "(0, _c.k)(); (0, _c.j)();", []string{"c.cjs::exports.k", "c.cjs::module.exports.j"}},
		{"iife folded", "import { f } from './lib.js';", "(function () { f(); })();", []string{"lib.js::f"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mainSrc := c.head + "\n\nfunction run() {\n  " + c.body + "\n}\n"
			a, err := New(Options{}).Analyze(context.Background(), []callgraph.SourceFile{
				{Path: "lib.js", Src: []byte(libJS)},
				{Path: "c.cjs", Src: []byte(libCJS)},
				{Path: "g.cjs", Src: []byte(valueCJS)},
				{Path: "k.cjs", Src: []byte(classCJS)},
				{Path: "proto.js", Src: []byte(protoJS)},
				{Path: "static.js", Src: []byte(staticJS)},
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
	// this in static code is the class: static calls stay on the class side, instance
	// calls on the instance side, super in a static method reaches the parent's statics.
	a, err = New(Options{}).Analyze(context.Background(), []callgraph.SourceFile{{Path: "static.js", Src: []byte(staticJS)}})
	require.NoError(t, err)
	assert.Equal(t, []string{
		"static.js::P.helper@4 -> static.js::P.parse@2",
		"static.js::P.make -> static.js::P.constructor",
		"static.js::P.parse@2 -> static.js::P.constructor",
		"static.js::P.parse@2 -> static.js::P.parse@6",
		"static.js::P.parse@6 -> static.js::P.helper@7",
		"static.js::Q.run -> static.js::P.parse@2",
	}, edgeSet(a))
	// A method the class body declares wins over a function assigned to this.m in
	// another method (lru-cache's isStale), whichever comes first.
	a, err = New(Options{}).Analyze(context.Background(), []callgraph.SourceFile{{Path: "m.js", Src: []byte(`class C {
  setup() { this.check = () => 1; }
  check() { return 0; }
  run() { return this.check(); }
}
`)}})
	require.NoError(t, err)
	assert.Equal(t, []string{"m.js::C.run -> m.js::C.check@3"}, edgeSet(a))
	// this in a constructor function and its prototype methods is an instance.
	a, err = New(Options{}).Analyze(context.Background(), []callgraph.SourceFile{{Path: "proto.js", Src: []byte(protoJS)}})
	require.NoError(t, err)
	assert.Equal(t, []string{
		"proto.js::F -> proto.js::F.prototype.init",
		"proto.js::F.prototype.init -> proto.js::F.prototype.m",
		"proto.js::F.prototype.init -> proto.js::F.this.own", // a function field set in F
	}, edgeSet(a))
}

// TestValueTyping checks the rules that type values where syntax alone does not: JSDoc
// @param and @returns types (also through an @typedef of an import type), the values a
// function returns, and `let x = this`.
func TestValueTyping(t *testing.T) {
	builder := `export class Builder {
  constructor() {}
  /** @returns {Builder} */
  add() { this.n = 1; return this; }
  again() { return this; }
  done() {}
  only() {}
  walk() { for (let c = this; c; c = c.parent) c.done(); }
}
const obj = { go() {} };
export function getObj() { return obj; }
export function fresh() { return new Builder(); }
export function maybe(x) { if (x) return null; return new Builder(); }
export function mixed(x) { if (x) return obj; return new Builder(); }
`
	types := `/**
 * @typedef {import('./builder.js').Builder} B
 */

/** @param {B} b */
export function viaTypedef(b) { b.done(); }

/** @param {B|null} b */
export function nullable(b) { b.again(); }

/** @param {B|string} b */
export function union(b) { b.only(); }
`
	mainSrc := `import { Builder, getObj, fresh, maybe, mixed } from './builder.js';

/**
 * @param {Builder} b the builder
 * @param {string} s
 */

export function run(b, s) {
  b.add().again().done();
  getObj().go();
  fresh().done();
  maybe(1).done();
  mixed(1).only();
  s.only();
}
`
	a, err := New(Options{}).Analyze(context.Background(), []callgraph.SourceFile{
		{Path: "builder.js", Src: []byte(builder)},
		{Path: "types.js", Src: []byte(types)},
		{Path: "main.js", Src: []byte(mainSrc)},
	})
	require.NoError(t, err)
	require.Empty(t, a.Errors)
	assert.Equal(t, []string{
		"builder.js::Builder.walk -> builder.js::Builder.done",
		"builder.js::fresh -> builder.js::Builder.constructor",
		"builder.js::maybe -> builder.js::Builder.constructor",
		"builder.js::mixed -> builder.js::Builder.constructor",
		"main.js::run -> builder.js::Builder.add",
		"main.js::run -> builder.js::Builder.again",
		"main.js::run -> builder.js::Builder.done",
		"main.js::run -> builder.js::fresh",
		"main.js::run -> builder.js::getObj",
		"main.js::run -> builder.js::maybe",
		"main.js::run -> builder.js::mixed", // mixed's returns disagree: .only() stays unresolved
		"main.js::run -> builder.js::obj.go",
		"types.js::nullable -> builder.js::Builder.again",  // null and undefined vanish from unions
		"types.js::viaTypedef -> builder.js::Builder.done", // other unions are not followed: no Builder.only
	}, edgeSet(a))
}

// TestObjectOfRequires checks an index module that exports an object of required
// modules (semver's index.js): `k: require('./m')` is m's module.exports value.
func TestObjectOfRequires(t *testing.T) {
	a, err := New(Options{}).Analyze(context.Background(), []callgraph.SourceFile{
		{Path: "index.js", Src: []byte("module.exports = {\n  g: require('./g.cjs'),\n  K: require('./k.cjs'),\n  k: require('./c.cjs').k,\n}\n")},
		{Path: "g.cjs", Src: []byte(valueCJS)},
		{Path: "k.cjs", Src: []byte(classCJS)},
		{Path: "c.cjs", Src: []byte(libCJS)},
		{Path: "bin/cli.js", Src: []byte("const lib = require('../')\nfunction main() { lib.g(); lib.k(); new lib.K(); }\n")},
	})
	require.NoError(t, err)
	require.Empty(t, a.Errors)
	assert.Equal(t, []string{
		"bin/cli.js::main -> c.cjs::exports.k",
		"bin/cli.js::main -> g.cjs::g",
		"bin/cli.js::main -> k.cjs::K.constructor",
	}, edgeSet(a))
}

// TestArrayElements checks the element typing of arrays declared by JSDoc (@type on a
// field, @returns) and TypeScript (Item[], Array<Item>, readonly Item[]): callbacks of
// array methods, for-of, subscripts, find and filter.
func TestArrayElements(t *testing.T) {
	js := `class Item {
  a() {}
  b() {}
  c() {}
  d() {}
  e() {}
  f() {}
}
class Box {
  constructor() {
    /** @type {Item[]} */
    this.items = [];
  }
  /** @returns {Array<Item>} */
  all() { return this.items; }
  run(k) {
    this.items.forEach((it) => it.a());
    this.all().filter(it => it).find(it => it).b();
    this.items.reduce((acc, it) => { it.c(); return acc; }, 0);
    for (const it of this.items) it.d();
    this.items[0].e();
    const copy = this.items.filter(it => it);
    copy.sort((x, y) => x.a() - y.f());
    this.items.custom((it) => it.zz());
    for (k in this.items) k.zz();
  }
  zz() {}
}
`
	ts := `class Item { m() {} zz() {} }
class Other { m() {} }
class Box {
  items: Item[] = [];
  more: Array<Item> = [];
  frozen: readonly Item[] = [];
  run() {
    this.items.map((it) => it.m());
    this.more.some((o: Other) => o.m());
    for (const it of this.frozen) it.zz();
  }
}
`
	a, err := New(Options{}).Analyze(context.Background(), []callgraph.SourceFile{
		{Path: "box.js", Src: []byte(js)}, {Path: "box.ts", Src: []byte(ts)}})
	require.NoError(t, err)
	require.Empty(t, a.Errors)
	assert.Equal(t, []string{
		"box.js::Box.run -> box.js::Box.all",
		"box.js::Box.run -> box.js::Item.a", // forEach callback
		"box.js::Box.run -> box.js::Item.b", // @returns {Array<Item>}, filter, find
		"box.js::Box.run -> box.js::Item.c", // reduce callback's second parameter
		"box.js::Box.run -> box.js::Item.d", // for-of
		"box.js::Box.run -> box.js::Item.e", // subscript
		"box.js::Box.run -> box.js::Item.f", // sort callback's second parameter
		// it.zz() in an unknown method's callback and k.zz() on a for-in key stay unresolved
		"box.ts::Box.run -> box.ts::Item.m",
		"box.ts::Box.run -> box.ts::Item.zz",
		"box.ts::Box.run -> box.ts::Other.m", // a declared parameter type wins
	}, edgeSet(a))
}

// TestLateAssignments checks variables declared without a value (typed by what all their
// assignments agree on) and exports assigned under a condition.
func TestLateAssignments(t *testing.T) {
	lib := `class A { m() {} }
class B { m() {} n() {} }
let shared;
function setup() { shared = new A(); }
function use() { shared.m(); }
function agree(c) {
  let x;
  if (c) x = new B(); else x = new B();
  x.n();
}
function disagree(c) {
  let y;
  if (c) y = new A(); else y = new B();
  y.m();
}
function loop(bs) {
  let w;
  w = new A();
  for (w of bs) w.m();
}
function fast() {}
function slow() {}
module.exports = { check: slow, use };
if (process.env.FAST) {
  module.exports.check = function () { return fast(); };
}
`
	a, err := New(Options{}).Analyze(context.Background(), []callgraph.SourceFile{
		{Path: "lib.js", Src: []byte(lib)},
		{Path: "main.js", Src: []byte("const lib = require('./lib.js');\nfunction run() { lib.check(); lib.use(); }\n")},
	})
	require.NoError(t, err)
	require.Empty(t, a.Errors)
	assert.Equal(t, []string{
		"lib.js::agree -> lib.js::B.n",
		"lib.js::module.exports.check -> lib.js::fast",
		"lib.js::use -> lib.js::A.m", // assigned in another function
		// disagree's y and loop's w (reassigned by for-of) stay unresolved
		"main.js::run -> lib.js::slow", // the unconditional export
		"main.js::run -> lib.js::use",
	}, edgeSet(a))
}

// TestObjectThis checks `this` in functions held by objects (object literal methods and
// functions assigned to o.m) and functions assigned to properties of a local object.
func TestObjectThis(t *testing.T) {
	src := `const o = {
  a() { return this.b(); },
  b: function () { return this.c(); },
  c: () => 1,
};
function factory() {
  const self = {};
  self.help = function () { return 1; };
  self.cache = function () { return this.help(); };
  self.show = () => self.help();
  self.show();
  return self;
}
const api = {};
api.run = function () { this.stop(); };
api.stop = function () {};
function outer() {
  function inner() {}
  inner.k = function () {};
  inner.k();
}
`
	a, err := New(Options{}).Analyze(context.Background(), []callgraph.SourceFile{{Path: "o.js", Src: []byte(src)}})
	require.NoError(t, err)
	require.Empty(t, a.Errors)
	assert.Equal(t, []string{
		"o.js::api.run -> o.js::api.stop",
		"o.js::factory -> o.js::factory.self.show",
		"o.js::factory.self.cache -> o.js::factory.self.help",
		"o.js::factory.self.show -> o.js::factory.self.help",
		"o.js::o.a -> o.js::o.b",
		"o.js::o.b -> o.js::o.c",
		"o.js::outer -> o.js::outer.inner.k", // a property of a function local to outer
	}, edgeSet(a))
}

// TestChainedAssignments checks that every target of a chain of assignments ending in a
// function denotes that function.
func TestChainedAssignments(t *testing.T) {
	lib := `const main = module.exports = (x) => main.helper(x);
main.helper = function (x) { return main(x - 1); };
function factory() {
  const self = {};
  self.resetOptions = self.reset = function () {};
  self.resetOptions();
  let alias;
  alias = self.other = function () {};
  alias();
}
exports.run = exports.start = () => {};
`
	a, err := New(Options{}).Analyze(context.Background(), []callgraph.SourceFile{
		{Path: "lib.cjs", Src: []byte(lib)},
		{Path: "main.js", Src: []byte("const lib = require('./lib.cjs');\nfunction go() { lib(); lib.run(); }\n")},
	})
	require.NoError(t, err)
	require.Empty(t, a.Errors)
	assert.Equal(t, []string{
		"lib.cjs::factory -> lib.cjs::factory.self.other",
		"lib.cjs::factory -> lib.cjs::factory.self.reset",
		"lib.cjs::main.helper -> lib.cjs::module.exports",
		"lib.cjs::module.exports -> lib.cjs::main.helper",
		"main.js::go -> lib.cjs::exports.start",
		"main.js::go -> lib.cjs::module.exports",
	}, edgeSet(a))
}
