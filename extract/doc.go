// Package extract implements the FeatureBench pipeline (spec/featurebench.md): it traces
// what a repository's tests execute, builds a dependency graph of repository objects,
// finds the objects a fail-to-pass (F2P) test file targets, chooses pass-to-pass (P2P)
// files that do not touch them, extracts a feature under a seeded line budget and
// verifies the masked repository through a task.Runner.
//
// # Terms
//
// An object is a repository function, method or class (a class stands for its body and
// constructor). Its id is `file::Qualified.Name::line`: the slash path relative to the
// repository root, the qualified name through enclosing classes and functions (Python's
// co_qualname with `.<locals>` removed; Go's `Type.Method`), and the line where the code
// object starts — for a decorated Python definition that is the first decorator's line,
// as co_firstlineno reports it. Two definitions with one qualified name in one file (two
// `get` methods of a class, redefinitions under if/else) therefore keep distinct ids; the
// reference toolkit keyed objects by name and collapsed them.
//
// A trace (Trace) is what one test file executed: every repository object entered, how
// often, and its callees. An edge f → g means g was entered while f was the nearest
// repository object on the same thread's stack: calls through third-party or standard
// library frames (a key function passed to sorted, a callback run by a library) are
// attributed to the repository caller below them. Frames with pseudo-names (<module>,
// <lambda>, comprehensions, generator expressions) are transparent. Calls on another
// thread start from an empty stack, so a thread's target has no caller.
//
// The Python tracer (TracerSource) is a pytest plugin run with the repository's own
// interpreter: TracePython writes it into the run's overlay and adds `-p` to the pytest
// arguments, so it needs nothing from the runner but pytest. It hooks sys.setprofile and
// threading.setprofile (call and return events only) and wraps builtins.__import__ to
// record which repository file imports which name and where the name is defined. On
// Python < 3.11 (no co_qualname) the name is co_name, qualified by the class of a first
// argument named self or cls when that class defines the code; ids stay distinct by line.
// The protected objects are those a second, collect-only run executes (class bodies,
// decorators, module-level calls): extraction never removes them.
//
// Go has no tracer: TraceGo runs a test file's tests with a coverage profile, maps covered
// blocks to the functions of the static call graph (callgraph/golang), and keeps the
// static edges between executed functions.
package extract
