// Package extract implements the FeatureBench pipeline (docs/featurebench.md): it traces
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
// static edges between executed functions. Test files are not instrumented: the test-file
// functions the static graph reaches from the tests through test-file functions (their
// helpers) count as executed.
//
// # Top objects, P2P choice, extraction
//
// Candidates are the objects a layered breadth-first search reaches from the test file's
// own objects (depth ≤ 5), outside test files, conftest.py and __init__.py, without
// pseudo-names. Calls into those excluded files cost no depth, so a package facade such
// as json's dumps in __init__.py leaves the encoder it calls "directly called"; the
// reference counted the facade as a level. The default classifier (Heuristic) takes the
// candidates the test file calls or imports directly that are not general utilities
// (used directly by more than half of the other test files), falling back to the least
// shared ones when all are; LLMClassifier asks a model in batches of five.
//
// ChooseP2P keeps the passing test files whose traces hold none of the top objects,
// dropping the most widespread top object while too few qualify, and samples up to five
// with the item's seed. A test file whose tests reach no candidate object (they run the
// code in a subprocess) is never a P2P file here: it cannot show what a mask breaks.
//
// Extract walks the dependency graph (NewDepGraph) breadth-first from the top objects
// under a line budget drawn uniformly from [3000, 5000]: objects seen in P2P or protected
// are kept and traversed, others are extracted while they fit. Lines are counted once
// (LineSet): a method inside an extracted class costs nothing.
//
// # Verification and scores
//
// Verify checks a masked candidate through the runner: the F2P file still runs and at
// most 30 % of its tests pass (passed / (passed + failed + error)), every P2P file passes
// on the masked tree without the F2P file, and the original code passes everything.
// For Go, a test file calling removed functions no longer compiles; that build failure is
// how its tests fail (VerifyRequest.BuildFailureFails), and the masking loop checks that
// the package builds without the F2P file.
//
// A repair attempt is scored by metrics.FeatureBench, the one FeatureBench scorer of the
// module (ScoreLevel2 uses it for Level 2 attempts): resolved when the F2P run and every
// P2P run exit clean and every F2P case passes, and the pass rate of the F2P cases
// (PASSED or XFAIL; an XPASS does not pass). Post-verification's own measure, PassRate, is
// a different question — how much of the F2P file still passes on the masked code, where
// any passing outcome counts against the mask — and stays here. extract imports metrics
// for this alone (the dependency policy allows that one edge) so that a score computed
// while building instances and one computed by an evaluator cannot disagree.
//
// # Time limits and the date filter
//
// Every run is bounded by the per-run limit (task.Limits.Timeout; the spec's 600 s is the
// sandbox runner's default) and, through WithTestTimeout, by a per-test limit of 10 s: for
// pytest a small plugin fails the test when it has used 10 s of CPU time (or 100 s of
// wall-clock time, WallBackstop: a wall-clock limit alone made verdicts depend on the
// machine's load, and instances with them), for go test (which has no
// per-test limit) the test binary gets -timeout = tests selected × 10 s and any test
// whose elapsed time is over 10 s counts as timed out. A timed-out test is a failing test
// (task.Timeout): the file it belongs to cannot be an F2P or P2P file.
//
// Options.CommittedAfter keeps as F2P candidates only test files first committed after a
// date (the committer date of the earliest commit adding the file, read with git log from
// the repository, which is never written).
//
// # Splitting a run
//
// Pipeline tries the F2P candidates in one deterministic order (descending test count,
// then path; Item.Candidate is the position) and keeps the first Options.N it accepts. An
// item depends only on its test file, the traces of every test file and the seed, not on
// the items tried before it. Options.Owns therefore splits a run: each part traces every
// test file, walks the whole order and builds only the candidates it owns (the others are
// Result.PassedOver, without a run), stopping at N accepted of its own. Any of the
// unsharded run's first N accepted items has fewer than N accepted owned items before it,
// so its part kept it: the parts' accepted items, ordered by Candidate, begin with exactly
// the unsharded run's N. examples/featurebench's -shard i/n and -merge are built on this
// (docs/scale.md).
//
// Pipeline ties the steps together for one repository; examples/featurebench writes the
// accepted items as instance directories (package artifact). VerifyLevel2 checks a Level 2
// instance (no repository: the tests and the solution package in an empty tree, see
// artifact.Environment) through the same runner.
package extract
