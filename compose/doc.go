// Package compose generates PDB (Precise Debugging Benchmark) tasks: programs with k
// independent, atomic bugs whose ground-truth fix is known line by line (docs/pdb.md,
// Generation).
//
// # Terms
//
//   - Correct program (gt_solution) and its tests, seen only through a task.Oracle.
//   - Editable / deletable lines: see MarkPython (the Python rules of the reference, plus
//     comment-only lines and multi-line strings excluded).
//   - Bug: a contiguous block of forward edits on the correct program (one line for
//     PDB-Single, up to B_max = MaxLines lines for PDB-Wild) that makes the tests fail.
//   - Atomic: the bug's correction cannot be split — no non-empty proper subset of the
//     correction's edits, applied alone, makes the tests pass. For blocks of at most
//     ExhaustiveLimit (4) edits every subset is tried (2^B − 2 oracle calls, a subset whose
//     result equals the correct program skipped); above it only single-edit reverts are
//     tried. Bug.Atomicity records which was used.
//   - Composition of k bugs: k distinct pool bugs with start_i − end_{i−1} > s in the
//     correct program's coordinates, applied together; the ground-truth diff buggy →
//     correct is recomputed (task.DiffLines) and must satisfy task.Verify(k, s, MaxLines, 1)
//     in buggy coordinates; duplicate programs are dropped. With Independence, the
//     composed program must fail and so must every program with one bug reverted.
//   - Subsampling: at most M3 programs per (task, k), in a seeded random order, each
//     passing the round trip Apply(buggy, gt_diff) == gt.
//   - Hanging candidate: a candidate whose tests are stopped at their time limit (a
//     task.VerdictOracle's Timeout verdict). It is rejected (RejectTimeout) and generation
//     goes on; elsewhere (atomicity, independence) a timeout counts as not passing.
//
// # Output
//
// Examples hold what the PDB release's files hold (Example.PDB converts one to a
// task.PDBExample, whose JSON is the release's record): programs in the release's form
// (Canonical: no trailing white space, no final line break — the form on which the
// release's line splitting and ours agree), gt_diff with the release's edit-type names,
// task_prompt and source_model (Options.TaskPrompt, Options.SourceModel), for single bugs
// bug_type (the ODC category: an LLM source's requested one, or RuleCategory of the
// linemut rule), bug_subtype (the rule) and is_buggy, the line counts frozen_lines,
// gt_length, editable_lines and deletable_lines, and our generation metadata (seed, stride,
// bugs).
//
// Bug sources are pluggable (BugSource): Rules (the default, seeded internal/linemut
// mutations), Given (a fixed list) and LLM (a language model — a task/llm Model with this
// package's prompt, or the caller's generator function — steered by the ODC categories
// with the reference's weights). Randomness comes only from Options.Seed, and every
// example records its seed and each bug's source and rule: the same program, tests and
// seed give byte-identical output (with an LLM source, given the same model answers).
//
// # Parameters
//
// The zero Options are the released generator's values: M1 = 20 bugs per task, M2 = 20
// composition attempts per k, M3 = 5, KMax = 4 (3 multi-line), stride s = 2 (4
// multi-line), MaxLines 1 (4 multi-line), ExhaustiveLimit 4, 100 retries. The paper states
// s = 3 (PDB-Single) and 5 (PDB-Wild) and M2 = 100 for PDB-Single; PDB-Wild on repository
// files used B_max = 30.
//
// # Differences from the reference
//
// The reference did not re-test composed programs (Independence is optional here), its
// subsampling was unseeded (here it is seeded), and it produced only k ≥ 2 compositions;
// here the validated single bugs also yield k = 1 examples unless SkipSingle is set.
package compose
