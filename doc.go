// Package faultline is a Go SDK that turns real software repositories into code-repair
// benchmarks and scores the repairs. It implements three published methods as composable
// primitives with stable interfaces:
//
//   - Breakpoint (package corrupt): corrupt functions of a real, test-passing repository —
//     delete a body keeping signature and docstring, inject a subtle bug by rule or by an LLM
//     loop with test feedback, or corrupt several call-graph neighbours — so tests fail; rank
//     difficulty by call-graph centrality and function complexity; give a solver tools and
//     budgets and score it.
//   - FeatureBench (package extract): trace which functions each test executes, find the
//     objects a test file targets, remove that feature under a line budget while keeping what
//     other tests need, verify, and emit SWE-bench-style instances.
//   - PDB (packages compose and metrics): inject atomic bugs, reject non-atomic ones, compose
//     k bugs with a stride, and score a debugger's patch by edit-level precision and
//     bug-level recall with ε-relaxed essential-edit search.
//
// Under them:
//
//   - task: the shared data model (function spans, line edits and blocks, unified diffs,
//     overlays, test reports, instance formats, JSONL) and the small interfaces that connect
//     producers and consumers: task.Runner runs tests, task.Oracle decides pass/fail.
//   - callgraph: tree-sitter front ends (callgraph/python, callgraph/golang,
//     callgraph/javascript), the call graph, centrality and complexity.
//   - sandbox: runs a repository's tests — local processes by default, Docker via
//     testcontainers-go in sandbox/container — with a result cache and flaky-test detection.
//   - stats: the papers' analyses (logistic regression, Mann–Whitney U, correlations,
//     percentiles, bootstrap), numerically equal to scipy/statsmodels, and difficulty plots.
//
// A session end to end (the package's Example runs exactly this; errors elided):
//
//	ctx := context.Background()
//	g, _ := callgraph.Build(ctx, repo, []callgraph.Language{golang.New(golang.Options{})}, callgraph.BuildOptions{SkipTests: true})
//	cent, _ := g.Centrality(ctx, callgraph.CentralityOptions{}) // harmonic, PageRank, betweenness, …
//
//	runner := sandbox.NewLocal(sandbox.Options{}) // a task.Runner: private copies, limits
//	req := task.RunRequest{Root: repo, Kind: task.GoTest}
//	base, _ := sandbox.Baseline(ctx, runner, req, 2) // clean run twice; flaky tests excluded
//
//	// Delete function bodies until two deletions each break ≥ 5 passing tests.
//	tasks, _ := corrupt.Generate(ctx, repo, g, cent, runner,
//		corrupt.Baseline{Passing: base.Passing, Failing: base.Failing, Flaky: base.Flaky},
//		corrupt.Options{Mode: corrupt.Remove, N: 2, Seed: 1, Run: req})
//	record := tasks[0].Problem("ledger", "") // a task.BreakpointProblem for JSONL
//
//	// Score a repair: rerun the tests with the solver's files as an overlay.
//	rep, _ := runner.Run(ctx, task.RunRequest{Root: repo, Kind: task.GoTest, Overlay: repaired})
//	solved := rep.AllPassed(record.FailToPass)
//
//	// PDB: precision and recall of a debugger's program against ground-truth line edits.
//	res, _ := metrics.Score(ctx, metrics.Input{Buggy: buggy, GT: task.DiffLines(buggy, fixed), Prediction: pred}, oracle, metrics.Options{})
//
// Every package's doc comment defines its terms and says where it differs from the
// reference implementation; docs/ describes each method in full (docs/breakpoint.md,
// docs/featurebench.md, docs/pdb.md, docs/callgraph.md, docs/sandbox.md, docs/stats.md,
// docs/scale.md).
//
// Determinism: randomness enters as a seed or *rand.Rand, every output is sorted, and the
// same inputs and seed give byte-identical output. Safety: the user's repository is never
// written; all code under test runs in a private copy.
package faultline
