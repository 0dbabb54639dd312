// Package javascript is the JavaScript and TypeScript front end of the call graph: it
// implements callgraph.Language for *.js, *.mjs, *.cjs and *.jsx files with the
// tree-sitter JavaScript grammar and for *.ts, *.mts, *.cts (TypeScript grammar) and
// *.tsx files (TSX grammar), from syntax alone. Definitions record Language "javascript"
// or "typescript" by file; Options.NoTypeScript leaves TypeScript files unclaimed.
//
// # Nodes
//
// A node is a named function-like definition, with its qualified name joined by "."
// through enclosing classes and functions:
//
//   - function declarations (and generator and async ones): `f`, nested `outer.inner`;
//   - class methods, getters, setters, static and private methods, and class fields
//     holding a function: `Class.method`, `Class.#priv`; `this.m = function …` assigned in
//     a method also defines `Class.m`. A class is not a node of its own: it is
//     represented by its constructor (`new C()` is an edge to `C.constructor`, found up the
//     extends chain; a class without any constructor gives an unresolved call site);
//   - arrow functions and function expressions bound to a const/let/var (named by the
//     binding: `const f = () => …` is `f`), assigned to a property path (`obj.m = …`,
//     `exports.k = …`, `module.exports = function …` is `module.exports`), or held by an
//     object literal bound to a name (`const o = { m() {}, k: () => 1 }` gives `o.m`,
//     `o.k`; `module.exports = { … }` gives `module.exports.k`); an anonymous default
//     export is `default`;
//   - a file's module-level code with call sites is the pseudo-node `path::<module>`
//     (Def and Body cover the whole file).
//
// Anonymous functions elsewhere (callbacks, IIFEs, class expressions' bodies aside) are
// not nodes: their code is folded into the enclosing definition, and calling one directly
// is a resolved call site without an edge. Repeated qualified names in a file (a getter
// and a setter, redefinitions) each get the suffix `@<line>`, and `@<line>:<column>`
// when they also share the line. Parent is the ID of the
// enclosing function definition, if any.
//
// Spans: Def is the declaration (for `const f = () => …` the whole `const` statement when
// it declares one name; for methods the method; for object members the property), without
// the `export` keyword; Doc is the comment directly above it (above `export` when
// exported); Signature runs from the start of Def to the end of the parameters; Body is
// the function body (the expression of a concise arrow function).
//
// # Edges
//
// An edge f → g means f contains a call or new expression that resolves to g. Resolution:
//
//   - lexical names: function-level scopes (block scoping and hoisting order are not
//     modelled), parameters shadow outer names;
//   - ES modules: `import d, {a as b} from './x'`, `import * as ns`, `export {a as b}`,
//     `export … from`, `export * from`, default exports; CommonJS: `require('./x')` bound
//     to a name or destructured, `module.exports = …`, `exports.k = …` (one assigned under
//     a condition does not replace a k the module exports on every path). A default
//     import of a CommonJS module is its module.exports value, and so is a required
//     module where it is called, instantiated with new or extended
//     (`const K = require('./k'); new K()`), also as a member of an exported object
//     (`module.exports = { K: require('./k') }`). Specifiers are relative paths, tried as
//     written, with each claimed extension, and as a directory's index file; packages
//     (bare specifiers) are outside the analysed files and stay unresolved;
//   - `this.m()` in class code (and in arrow functions inside it) and `super.m()` /
//     `super()` through the extends chain (the enclosing class and its ancestors, not
//     subclasses: there is no virtual dispatch), `this.f.m()` where the constructor
//     assigned `this.f = new C()`; `this.m = () => …` in a method defines `Class.m`, but
//     a method of that name declared in the class body is the one `this.m()` resolves to.
//     Static members are kept apart from instance members (a class may have both a
//     static and an instance `parse`): `C.m()` and `this.m()` in static code find static
//     methods (inherited too), `x.m()` on instances the others;
//   - `this` in an object literal's method or non-arrow function, and in a function
//     assigned to `o.m`, is the object o (`this.n()` resolves to `o.n`); `o.m()` where
//     `o.m = function …` was assigned in the body that binds o (`outer.o.m`);
//   - constructor functions: `new F()` is an edge to F; functions assigned to
//     `F.prototype.m` are the methods of F's instances, and `this` in F and in them is one
//     (`this.m()`, `x = new F(); x.m()`, `this.f = new C()` fields; a function assigned
//     to `this.f` in them is the definition `F.this.f`, and `this.f()` calls it);
//   - JSDoc types (JavaScript's annotations, read by editors and the TypeScript checker):
//     `@param {C} x` types a parameter, `@returns {C}` a function's result and
//     `@type {C}` a variable or a `this.f = …` field, where C
//     names a class or constructor function in scope, a member path `ns.C`, or an alias
//     from `@typedef {import('./m').C} C`; null and undefined drop out of a union (as
//     without strict null checks), other unions and generic types are not followed.
//     The JSDoc block is the `/** … */` comment right before the definition (blank lines
//     allowed);
//   - arrays whose element type is declared (`Item[]`, `Array<Item>`, `readonly Item[]`
//     in TypeScript; `@type {Item[]}` on a variable or a `this.f = …` field, `@param` and
//     `@returns` in JSDoc): `for (const x of xs)`, `xs[i]`, `xs.find(…)`, `xs.at(…)` are
//     Items, `xs.filter(…)` and `xs.slice(…)` the same array, and the element parameter
//     of a callback passed to forEach, map, filter, find, some, every, flatMap or reduce
//     (both parameters for sort) is an Item (unless the callback declares its type);
//   - what a function returns, when it declares no type and all its `return`s with a
//     value (null and undefined aside) denote the same thing: `return this` (builder
//     chains), `return new C()`, a named object literal, a module or function;
//     `let x = this` binds the instance;
//   - every target of a chain of assignments ending in a function denotes it
//     (`const m = module.exports = () => …`, `self.alias = self.name = function …`);
//   - comma expressions are their last operand: `(0, _m.f)(…)`, the call transpilers
//     (Babel, tsc) emit for imports, calls `_m.f`;
//   - calls of a call's result when it denotes a function: `require('./m')()`, `f()()`;
//   - `x.m()` where `x = new C()` in scope, `C.m()` static calls, `ns.f()` on namespaces,
//     `o.m()` on object literals, `x = f; x()` aliases;
//   - TypeScript: parameters, variables and class fields annotated with a class type
//     (`c: Circle`, `private log: Logger`, constructor parameter properties), results of
//     resolved functions and methods with a declared return type naming a class, `x!`,
//     `x as T` and `x satisfies T` looked through, `namespace N { export function f }`
//     giving `N.f`, and './x.js' specifiers resolving to x.ts (TypeScript's ESM
//     convention). Interfaces, type aliases, enums, overload signatures and abstract
//     methods have no bodies and are not nodes.
//
// Every call and new expression is a call site; calls of builtins, of packages, and on
// values whose class syntax does not tell (untyped parameters, results of functions whose
// returns disagree) are unresolved. A variable declared with a value is typed by it
// (later reassignments are not followed); one declared without (`let x;`) by what all
// its assignments agree on (null and undefined aside; any other value, a for-in/of
// loop over it or a compound assignment leaves it unknown), wherever they are.
// The graph is neither sound nor complete: dynamic property access, prototype
// manipulation, call/apply/bind, callbacks and values flowing through functions are
// missed.
//
// Measured against the TypeScript checker's call graph of eleven Debian node packages
// (testdata/groundtruth, TestGroundTruth), edge precision is 0.995 and recall 0.990 over
// all of them (per package: precision ≥ 0.957, recall ≥ 0.844); the checker's graph is a
// lower bound of the real calls, so these are upper bounds of the recall of real calls.
//
// # Metrics
//
// CodeLines counts the distinct rows of Def on which a token other than a comment starts.
// Cyclomatic is 1 + if + for + for-in/for-of + while + do + non-default case + catch +
// && + || + ?? + conditional expressions. Halstead operands are identifiers, numbers and
// literals (a string, template or regex is one operand), operators the other tokens
// except closing brackets. Nesting is the deepest stack of control statements and nested
// functions below the definition (else-if does not nest). Lines counts the rows of Def.
//
// Parsers are pooled; each parse tree is copied to Go values and closed at once. A
// Frontend is safe for concurrent use.
package javascript
