// Package mask removes a feature from a repository for FeatureBench (docs/featurebench.md,
// Pipeline): given the definitions to extract, it produces a task.Overlay of masked files
// in which those definitions are gone and the rest still imports, collects and builds.
// The repository is only read.
//
// # Terms
//
// A target names a definition by file, qualified name and optionally line (Target,
// ParseTarget accepts the trace's `file::Name::line` ids and callgraph's `file::Name@line`).
// A removal deletes a definition's whole lines. A protected target is one that was asked to
// be removed but is kept, with a reason (Protection). The masked tree is the repository with
// Result.Overlay applied.
//
// # Python
//
// Definitions and their exact spans come from the callgraph/python front end (decorators
// included). Mask
//   - removes each target's lines from its first decorator to the end of its body, with the
//     comment block directly above it at the same indentation (no blank line between);
//     blank lines that followed a removal preceded by a blank line go too;
//   - puts `pass` (at the body's indentation) into every compound statement whose body the
//     removals emptied: class and def bodies, if/elif/else, for/while, try/except/finally,
//     with and match blocks;
//   - drops, in every non-test file, the entries of `from M import a, b as c` statements
//     that import a removed top-level name from M (M resolved to a repository file, relative
//     imports by directory), keeping the other entries with their `as` aliases and keeping
//     parenthesised multi-line statements well formed; a statement with no entry left is
//     deleted. A module-level entry removed this way removes the bound name from the
//     importing module too, so re-exports through packages are followed to a fixpoint;
//   - never removes a top-level name listed in its module's `__all__`, nor one re-exported
//     by a module that lists the imported name in its own `__all__`: those targets are
//     protected (ReasonAll, ReasonReexported);
//   - removes nested definitions and methods of classes that stay; a target inside another
//     removed target is removed with it.
//
// `import m` followed by `m.name` uses, and uses of removed names elsewhere in the code, are
// not rewritten: MaskUntilCollects finds them through the collection errors they cause.
//
// Where this differs from the FeatureBench reference: the reference rebuilt import
// statements from the names alone and lost `as` aliases of the remaining names; Mask keeps
// them. Comments inside a multi-line import whose entries change are not kept (a trailing
// comment on the statement's last line is).
//
// # Go
//
// Targets are function and method declarations (`F`, `T.M`), found with go/parser; a
// removal takes the declaration with its doc comment. After removal the changed packages and
// every package of the module that imports one of them are type-checked with go/types
// (module packages from source with the masked contents, others from the go command's
// export data, falling back to the source importer); imports the removal left unused are deleted, and a target the remaining code
// still uses (`undefined: F`, `x.M undefined`, a missing interface method) is protected
// with ReasonUsed and the masking is redone. Errors the unmasked tree already had are not
// counted. Test files are not type-checked here (MaskUntilCollects builds the tests).
// Options.Keep protects the API the P2P tests use. The type checker is internal/gocheck,
// shared with corrupt.GoChecker (which imports from source rather than export data).
//
// # The collection loop
//
// MaskUntilCollects masks, then asks a task.Runner whether the selected tests still collect
// (pytest --collect-only; for Go a test build that runs no test). On failure it parses the
// NameError / ImportError / AttributeError messages (Python) or `undefined: X` build errors
// (Go), protects the removed targets they name and retries; when the messages name nothing
// it bisects the removal set for a smallest failing part and protects it. Iterations are
// bounded.
package mask
