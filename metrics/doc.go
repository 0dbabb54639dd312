// Package metrics scores code repairs. It implements the PDB (Precise Debugging Benchmark)
// edit-level precision and bug-level recall of docs/pdb.md: a 3-pass matcher pairs the
// blocks of a predicted fix with the ground-truth bug blocks, every pairing is checked
// semantically with a test oracle, and an ε-relaxed essential-edit search credits
// predictions that needed a few more lines than the ground truth.
//
// # Terms
//
//   - Buggy program, ground truth (gt_diff, a task.Edits keyed by buggy lines) and
//     prediction (the debugger's full program). The predicted diff is
//     task.DiffLines(buggy, prediction).Clean(): edits that only add or remove blank lines
//     are dropped. |Ê| is its number of edits.
//   - Block: a run of adjacent edits (task.Blocks); one ground-truth block per bug.
//   - Pseudo-revision of a match: the buggy program with every other ground-truth block
//     applied plus the matched predicted block (on a key collision the predicted edit wins).
//     The oracle (F_U) decides whether it passes.
//   - Pass 1 (exact): a predicted block identical to a ground-truth block (same start, end,
//     keys and edits) matches with tolerance 0 and needs no oracle call.
//   - Pass 2, on the remaining predicted edits re-parsed into blocks, bottom-most first:
//     wrap (every remaining GT block whose start lies within the predicted block), else near
//     (context windows above and below both blocks share a non-blank line, see Mode), else
//     distant-identical (same number of edits with pairwise equal original/modified text).
//     Matched GT blocks leave the pool at once, whatever the verification says.
//   - Tolerance T = max(min(ε·m, |pred block| − Σ|GT blocks|), 0) for a passing match of m
//     GT blocks, reduced by the essential-edit search to the smallest w − 1 such that some
//     contiguous window of w predicted edits passes (w = 1..T).
//   - precision = min((Σ matched GT lines + Σ tolerance) / |Ê|, 1); recall = matched GT
//     blocks / GT blocks; F1 = 2PR/(P+R); unit = 1 iff the whole predicted program passes.
//     An empty (blank) prediction scores 0 everywhere without an oracle call; a prediction
//     with an empty diff scores P = R = 0 and its unit test still runs.
//   - ε: 2 when every GT block is a single line, 1 otherwise (Options.Epsilon overrides).
//
// # Modes
//
// Reference reproduces the released evaluator exactly. Its near-match windows read 1-based
// line i as buggy[i−1] with Python indexing: the top-most predicted block's "before"
// window is i ∈ [0, start), so it contains the last line; the bottom-most block's "after"
// window is i ∈ [end+1, n), so it misses the last line; a GT block's windows are start − j,
// j ∈ [1, stride_before), and start + j, j ∈ [1, S) with S = stride_after or n − start when
// that is none or 0 — relative to the block's start, so a multi-line block's own lines sit in
// its "after" window. Its essential-edit search applies all GT blocks, the matched ones too,
// plus the window (a membership test against the wrong object in the released code), which
// makes almost every window pass at w = 1.
//
// Paper (the default) follows the paper's intent: a block's windows are the untouched lines
// strictly between it and its neighbouring blocks of the same kind (remaining predicted
// blocks, or all GT blocks), from line 1 for the first block and through line n for the
// last, with no wrap-around; the line L of an Add before L counts as untouched; and the
// essential-edit search applies only the other GT blocks plus the window. Both modes keep
// the set rule: blank lines dropped; match iff the sets intersect, both are empty, or one is
// empty and the other holds the file's first line (above) / last line (below).
//
// Where the spec leaves a choice open, both modes read it as follows: ground-truth blocks
// are visited in ascending line order (the first near or distant-identical one wins);
// their strides are those of the full ground truth (task.StrideBefore/StrideAfter); the
// neighbours of a predicted block are the remaining predicted blocks after Pass 1, fixed
// for the whole of Pass 2; windows of one size are searched left to right. Reference mode
// is checked against testdata/reference.py, a literal Python reading of the algorithm on
// Python's own difflib and list indexing (600 seeded vectors).
//
// Where this package goes beyond the evaluator: before application the merged edit script
// of a pseudo-revision is sorted by (line, type, tie) so that edits from different blocks
// compose; a ground-truth diff that does not fit the buggy program is an error
// (*MismatchError) instead of silently skipped edits; out-of-range window reads (possible
// only on an empty program) are ignored instead of raising.
//
// # Verdicts
//
// The oracle's answer for a program is a task.Verdict: pass, fail, or timeout (an oracle
// that implements task.VerdictOracle can say the tests were stopped at their time limit).
// As in the released evaluator, where only a passing run counts and a run that timed out
// or crashed is a failure, a timeout is a failing verdict: the pseudo-revision does not
// count, the task is still scored and stays in the averages, and Result.OracleTimeouts
// says how many of the verdicts it used were timeouts. An oracle error (the tests could not
// be run at all) is not a verdict: Score returns it and the task is left out of the
// averages (Summary.Errors). Result records the verdict on the whole prediction
// (UnitOutcome) and on each pass-2 pseudo-revision (Match.Outcome), the unmatched predicted
// edits and the unmatched ground-truth edits.
//
// # Lines
//
// Both modes split a program into lines on "\n" (task.Lines). The released evaluator uses
// Python's str.splitlines, which also breaks lines at "\r", "\v", "\f", U+001C–U+001E,
// U+0085, U+2028 and U+2029 and does not count a final line break as the start of an empty
// last line. The two agree on programs that contain none of those characters and do not
// end with a line break — every program of the release's files, and every program package
// compose writes; on a buggy program that ends with "\n", Reference mode's windows see one
// more (empty) last line than the evaluator's.
//
// # Oracle cost
//
// Every oracle call runs a test suite, so Score verifies all pass-2 candidates and the unit
// test concurrently (Options.Jobs), then each essential-search window size across all
// candidates at once, through a Cache keyed by task id and exact program text (identical
// programs share one call, also across Score calls), and reports the calls it made in
// Result.OracleCalls.
//
// # Aggregates
//
// Summarize averages per task (macro, as the released evaluator) and per bug count then
// across bug counts (micro, as the paper), each with a standard error (ddof = 1).
//
// # FeatureBench
//
// FeatureBench scores an instance from its test runs (docs/featurebench.md, Evaluation):
// resolved when the F2P file's run and every P2P file's run exit 0 with no failing test,
// and the pass rate, the fraction of F2P cases that PASSED or XFAILed (an XPASS counts as
// not passing here).
//
// Breakpoint's scores (binary success, the partial score per submission, the anti-hack rule)
// belong to the solver environment in package corrupt, where the submissions are made.
package metrics
