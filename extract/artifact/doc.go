// Package artifact writes FeatureBench instance directories (docs/featurebench.md,
// Pipeline: Instances).
//
// # Terms
//
// An instance is one task: a repository at a base commit in which the feature's code was
// masked (package mask) and the F2P test file removed. Its directory, named by the
// instance id `{owner}__{repo}.{commit8}.{test_stem}.{hash8}.lv{1|2}` (task.FeatureBenchID),
// holds:
//
//   - problem_statement.md: the task summary, the interface of every top object (path,
//     import, signature, docstring) and a NOTE block (where to work, dependencies
//     installed, forbidden URLs);
//   - patch.diff: the gold patch, masked tree → original (Options.ReversePatch stores the
//     reference's direction, original → masked);
//   - test_patch.diff: the patch that restores the F2P test file (the instance's starting
//     tree does not have it; Artifacts.Overlay removes it); at Level 2 it creates the
//     tests (see below), and env_patch.diff creates the starting tree;
//   - instance.json: a task.SWEInstance with instance_id, patch, test_patch,
//     FAIL_TO_PASS, PASS_TO_PASS, image_name, repo, base_commit, problem_statement,
//     repo_settings (a JSON string) and the counts: lines (lines the gold patch adds),
//     files (files it touches), functions (removed definitions), and the F2P and P2P test
//     points (the number of test ids in each list). One line of instances.jsonl is the same
//     value written with task.JSONLWriter.
//
// Level 1 asks to implement the feature inside the masked repository. Level 2 asks to
// implement it from scratch as a package the tests import, so the problem statement gives
// import paths, no file paths, and does not name the repository.
//
// # Level 2
//
// A Level 2 instance has no repository (Environment, built by Level2): the agent starts
// from an almost empty tree, the test patch adds the tests, and the gold patch creates the
// solution. All three patches create files in an empty directory, in the order
// env_patch.diff (the starting tree: Go's go.mod and go.sum; the root's pytest
// configuration for Python, usually nothing — then the file is empty), test_patch.diff,
// patch.diff. instance.json carries the starting patch as "env_patch", the solution's
// packages as "solution_packages" and the F2P file's path in the tree as "test_file";
// EnvironmentFromInstance reads the environment back from them.
//
//   - The solution is the reference implementation: the original non-test files of the
//     packages the tests import (Python: every file of each top-level package — a
//     directory with .py files, or a module — outside test/ and tests/ directories and
//     test_*.py, *_test.py and conftest.py files, closed over the repository packages the
//     solution imports; Go: the non-test files of the test's own package directory and of
//     the module packages the tests import, closed over the module packages they import).
//     Binary files (compiled extensions such as simplejson's _speedups) cannot travel in
//     a patch and are left out, as are __pycache__ and dot directories. Python packages
//     are looked up at the repository root only (not below src/); a Go package's files
//     other than .go files (//go:embed assets) are not copied. What this leaves out
//     shows when the gold run fails, and the instance is rejected.
//   - The tests are the F2P test file and what it needs to run: for Python the
//     __init__.py files of its test packages, the conftest.py files from the root down to
//     its directory, the test helper modules it imports (found statically, transitively)
//     and the data files of its directory tree whose base name a test source mentions;
//     for Go the sibling _test.go files that declare a name it uses or a TestMain, and the
//     package's testdata directory when a test mentions "testdata". Imports through
//     importlib or exec are not seen.
//   - Python packages can be renamed (Spec.Package, e.g. agent_code): the package
//     directory moves (geo/ → agent_code/, test files inside it with it, so the F2P ids
//     change accordingly), and in the tests and the solution every name token equal to
//     the old name that is neither an attribute (obj.geo) nor a call's keyword argument
//     (f(geo=1)) is renamed, as is every plain string literal that is a dotted name
//     starting with it ("geo.shapes.area" for mock.patch). Comments, bytes, f-strings and
//     other strings keep it. Renaming also keeps an installed copy of the original package
//     (a Debian python3-* package, say) from satisfying the tests. A rename needs exactly
//     one solution package. Go keeps the module path: renaming Go imports is not done.
//   - Test files keep their paths, except inside a renamed package directory. A test
//     file inside the package (simplejson/tests/test_dump.py) stays inside it
//     (agent_code/tests/test_dump.py): the test patch adds it there, and the problem
//     statement tells the agent not to create files at the tests' paths.
//   - FAIL_TO_PASS are the F2P tests at their Level 2 paths (an id pytest reports under
//     another test file the F2P file imports follows that file); PASS_TO_PASS is empty: no
//     repository code is left to regress. The counts are those of the gold patch (lines
//     and files it creates, functions: the definitions of the solution).
//
// extract.VerifyLevel2 checks an instance through a task.Runner: with the tests and
// without the solution the F2P file fails (pass rate ≤ 0.3, a collection, conftest or
// build error counting as none passing), with the solution exactly the FAIL_TO_PASS tests
// pass. extract.ScoreLevel2 scores an agent's files the same way.
//
// The FeatureBench reference builds Level 2 differently: it keeps the repository in the
// container, installs an empty agent_code package and has a model rewrite the test file's
// references to the top objects into agent_code imports. Here the repository is removed
// and the rewrite is a deterministic token-level rename of the whole package.
//
// Docstrings come from the original source (Python docstrings cleaned as
// inspect.cleandoc does, without interpreting escapes; Go doc comments without their
// markers). An object without one gets a docstring from Options.Docstrings when set
// (LLMDocstrings asks an OpenAI-compatible model), else the signature alone.
//
// Output is deterministic: the same spec and options give byte-identical files
// (FAIL_TO_PASS and PASS_TO_PASS are sorted, JSON keys are sorted).
//
// Where this differs from the FeatureBench reference: the reference stored patch.diff in
// the original → masked direction; here that is an explicit option (Level 1 only) and the
// default is the gold direction.
package artifact
