// Package golang is the Go front end of the call graph: it implements callgraph.Language
// for *.go files with the tree-sitter Go grammar, without type checking and without
// loading dependencies.
//
// # Nodes
//
// A node is a function declaration or a method declaration. Its ID is
// `path/file.go::Func` or `path/file.go::Type.Method`; the receivers (*T), (T), T[K] and
// *T[K] all give Type T. Several definitions with the same qualified name in one file
// (init functions, which a package may declare many times; or invalid redeclarations)
// each get the suffix `@<line>` (task.Function), `@<line>:<column>` when they also share
// the line. Function literals are not nodes: their
// code is folded into the enclosing declaration (its calls are the declaration's calls,
// its metrics part of the declaration's), and a call of a function literal is a resolved
// call site without an edge. Package-level variable initialisers that call something
// make the file's module pseudo-node `path/file.go::<module>`, whose Def and Body spans
// cover the whole file.
//
// Spans: Def runs from the `func` keyword to the closing brace (the doc comment is not
// part of Def; it is Doc, the comment lines directly above the declaration). Signature
// runs from `func` to the last token before the body; Body is the block `{…}`. A
// declaration without a body (implemented in assembly) has an empty Body and a Signature
// equal to Def.
//
// # Edges
//
// An edge f → g means f contains a call site that resolves to g. A package is the files
// of one directory with the same package clause (an external `_test` package is separate).
// Import paths map to directories through the go.mod files handed to Analyze (Match
// claims them; nested modules are honoured, the longest module path wins), else through
// Options.ModulePath for the root, else by the longest common suffix of path elements.
// Calls are resolved by:
//
//   - same-package functions, across the package's files, and dot imports;
//   - package-qualified calls pkg.F through the file's imports, aliases respected;
//   - method calls x.M() where the type of x is known from syntax: the receiver,
//     parameters and named results with declared types, `var x T`, composite literals
//     T{} and &T{}, new(T), make, conversions T(v), type assertions x.(T), type-switch
//     clauses with one type, range over slices, arrays and maps of known element type,
//     struct fields with declared types (s.f.M()), results of resolved functions and
//     methods (also through `a, b := f()`), package-level variables, and method
//     expressions T.M / (*T).M; methods are found on the type or promoted through
//     embedded fields, shallowest depth first as in Go;
//   - generic functions and methods (F[int](x) and inferred F(x)) resolve to their
//     declaration;
//   - a variable initialised with a function or method value (g := pkg.F; g()) resolves
//     to that function;
//   - with Options.CHA, a call through an interface (declared in the module, or a common
//     standard-library interface such as error, fmt.Stringer, io.Reader, sort.Interface)
//     expands to that method on every named type of the module whose syntactic method
//     set (declared plus promoted methods, names and parameter/result counts) covers the
//     interface and whose values the code creates (rapid-type-analysis style: composite
//     literals, new, make, conversions, var declarations).
//
// Every call expression counts as a call site, conversions and builtins included; calls
// to other modules, to builtins and through values of function type are unresolved.
//
// The graph is built from syntax alone: it is neither sound nor complete. Calls through
// function values stored in fields or passed as arguments, reflection, calls whose
// receiver type needs real type inference (generic type parameters, untyped results of
// external functions) and, without CHA, interface dispatch are missed; with CHA, interface
// calls over-approximate. Where the reference (golang.org/x/tools/go/callgraph VTA ∪
// static, see testdata/gtgen) differs: VTA follows type flow and prunes interface
// targets that never reach a call site, and it reports calls into function literals,
// which this package folds.
//
// # Metrics
//
// CodeLines is the Go analogue of Breakpoint's definition: the number of distinct rows,
// from the `func` line to the closing brace, on which a token other than a comment starts
// (a multi-line raw string counts on its first row; blank and comment-only lines do not
// count). Cyclomatic is 1 + if + for + non-default case clauses (switch, type switch and
// select communication cases) + && + ||. Halstead operands are identifiers and literals,
// operators every other token except closing brackets. Nesting is the deepest stack of
// if/for/switch/select statements and function literals (else-if does not nest). Lines
// counts the rows of Def.
//
// # Resources
//
// Parsers are pooled per Frontend; each parse tree is copied to Go values and closed at
// once, so no tree-sitter object outlives Analyze. A Frontend is safe for concurrent use.
package golang
