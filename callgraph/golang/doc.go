// Package golang is the Go front end of the call graph: it implements callgraph.Language
// for *.go files over the syntax trees of the tree-sitter Go grammar, without type
// checking and without loading dependencies. A file the standard library's go/parser
// accepts is parsed by go/parser and its tree rewritten as the tree-sitter grammar's
// (astfront.go; faster than tree-sitter's parse and its copy out of C, and checked node
// for node against it on real trees); a file with a syntax error, or with one of the few
// constructs the rewrite does not map, is parsed by tree-sitter, whose error recovery
// the analysis keeps.
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
// of one directory with the same package clause (an external `_test` package is separate),
// among the files the go command would build on this machine (go/build's default context
// judges each file's //go:build lines, _GOOS/_GOARCH name and import "C"; Options.AllFiles
// takes every file).
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
//   - calls through interfaces, by Options.Interfaces (see below).
//
// # Interface calls and function values
//
// A call x.M() where x has an interface type (declared in the module, a common
// standard-library interface such as error, fmt.Stringer, io.Reader or sort.Interface, or
// another interface from outside the module), or where M is promoted from an embedded
// interface field, is resolved according to Options.Interfaces:
//
//   - InterfacesTypeFlow (the default) follows types as VTA (variable type analysis) does,
//     on syntax. Every local variable, parameter, result, struct field (per declaring
//     type), package-level variable or constant, and the elements, map keys and channel
//     elements of each element type are locations. Expressions whose syntactic type is a
//     concrete named type of the module seed that type; functions, method values (x.M),
//     method expressions (T.M) and function literals used as values seed themselves (a
//     method value on an interface-typed x holds the methods x.M() dispatches to).
//     Assignments, :=, var declarations, conversions, composite-literal elements,
//     append, range, sends and receives, returns, type assertions and switches, and
//     arguments passed to every callee (the static callee, or the class-hierarchy
//     candidates of a call through an interface, as VTA seeded with CHA does) carry them
//     between locations. A call through a value of function type (a variable, parameter,
//     field, element or result) links, as the values reaching it are found, its
//     arguments to their parameters and their results to its value; a function literal
//     passed to a function outside the module together with a slice or map (sort.Slice,
//     slices.SortFunc…) receives the elements in its parameters of the element type.
//     After propagation a call through an interface reaches method M of each type that
//     reaches its receiver and whose method set implements the interface (names,
//     parameter and result counts and, where syntax knows them, types); a type that gets
//     M from an embedded interface field dispatches again on that field's types. A call
//     through a function value reaches the module's functions and methods that reach it
//     (and takes as many arguments); one reaching only function literals is resolved
//     without an edge (literals are folded). A receiver that nothing flows into (a
//     parameter of an exported function the module never calls) gets no edge, as in VTA.
//   - InterfacesNone leaves interface calls unresolved, and calls through function values
//     too (except a variable initialised with a function, g := pkg.F; g()).
//   - InterfacesCHA expands an interface call to that method on
//     every named type of the module whose syntactic method set covers the interface and
//     whose values the code creates (rapid-type-analysis style: composite literals, new,
//     make, conversions, var declarations); calls through function values are as with
//     InterfacesNone.
//
// Measured against golang.org/x/tools/go/callgraph VTA ∪ static (TestGroundTruth), edge
// precision / recall with the default: go-diff 1.000 / 1.000, testify 1.000 / 0.999,
// go-logr/logr 0.995 / 0.976, go.yaml.in/yaml/v3 1.000 / 1.000, gonum/graph 0.9997 /
// 0.9992 (there InterfacesNone gives 1.000 / 0.229 and InterfacesCHA 0.428 / 0.997).
//
// Every call expression counts as a call site, conversions and builtins included; calls
// to other modules and to builtins are unresolved, and so are calls through interfaces
// and function values that no module function reaches.
//
// The graph is built from syntax alone: it is neither sound nor complete. Reflection,
// values that pass through code outside the module (other than the callback rule above),
// and calls whose receiver type needs real type inference (generic type parameters,
// untyped results of external functions) are missed; with CHA, interface calls
// over-approximate. Where the default differs from the reference
// (golang.org/x/tools/go/callgraph VTA ∪ static, see testdata/gtgen): VTA works on SSA
// values (one location per assignment; here a local variable is one location for all its
// assignments), keys container elements by exact type (here slices and maps of one
// element type share a location), sees the standard library's code (types that flow
// through it, such as values stored in a container/heap), and reports calls into
// function literals, which this package folds; a value whose syntactic type is unknown
// carries no types here.
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
// Analyze works file by file where it can, so that the syntax trees of a large
// repository are never all in memory as Go values:
//
//   - Parsing runs on all cores. Each worker parses a file (the C tree is flattened in one
//     cgo call and deleted at once), measures its declarations on the whole tree
//     (definitions, spans, doc comments, metrics), and keeps pruned parts of it: the
//     outline (package clause, imports, type declarations, function signatures) as small
//     Go nodes, and in a compact encoding without pointers (20 bytes a node) the bodies of
//     its functions and methods and, spec by spec, its package-level variable and
//     constant declarations. Pruning drops what resolution never reads: comments, string
//     literals' insides and field-less punctuation. A file go/parser parses never has its
//     function bodies built as a tree: they are encoded and measured straight from
//     go/parser's nodes and the scanned tokens.
//     The parse's workers also list each file's functions and methods with their IDs.
//   - Declarations, imports and types are then read from the outlines of all files, each
//     variable or constant spec decoded when it is needed and dropped after (declare
//     reads the specs' names in their encoding without decoding them).
//   - Calls are resolved on all cores, a file at a time per worker: the file's bodies are
//     decoded, walked and dropped. The files' calls and type-flow facts are merged in
//     file order, so the result is the one resolving the files in order gives (see
//     parallel.go). Facts about syntax nodes that outlive a walk (function literals, call
//     values, bound methods, index expressions) are keyed by file and byte span, not by
//     node, so a node decoded twice is the same node to the analysis.
//   - The type-flow graph labels each location with a set of the types and functions
//     reaching it, interned (locations share a few thousand distinct sets); the encoded
//     declarations are dropped before it propagates.
//
// On the Go toolchain's own source with tests (5,600 files, 2.2M lines without testdata)
// the heap in use stays near 0.5 GB; bench/gocallgraph compares wall time and peak
// memory with x/tools' VTA call graph.
// tree-sitter parsers are pooled per Frontend, and no tree-sitter object outlives a parse. A Frontend
// is safe for concurrent use.
package golang
