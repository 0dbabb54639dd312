// Package artifact writes FeatureBench instance directories (spec/featurebench.md
// §Artifacts, §Problem statement).
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
//     tree does not have it; Artifacts.Overlay removes it);
//   - instance.json: a task.SWEInstance with instance_id, patch, test_patch,
//     FAIL_TO_PASS, PASS_TO_PASS, image_name, repo, base_commit, problem_statement,
//     repo_settings (a JSON string) and the counts: lines (lines the gold patch adds),
//     files (files it touches), functions (removed definitions), and the F2P and P2P test
//     points (the number of test ids in each list). One line of instances.jsonl is the same
//     value written with task.JSONLWriter.
//
// Level 1 asks to implement the feature inside the masked repository; Level 2 asks to
// implement it from scratch as a package the tests import (no repository, so the problem
// statement gives import paths and no file paths). Both levels carry the same gold patch:
// the original code is the reference solution.
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
// the original → masked direction; here that is an explicit option and the default is the
// gold direction.
package artifact
