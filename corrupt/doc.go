// Package corrupt implements the Breakpoint method (spec/breakpoint.md): it corrupts
// functions of a repository whose tests pass, keeps the corruptions that make enough tests
// fail, and offers the resulting tasks to solvers through a tool environment with budgets
// and scores.
//
// Terms:
//
//   - A candidate is a function or method (not a class or module code) outside test files,
//     with at least 5 code lines and call-graph degree ≥ 1 (hard mode: 20 and 4, and at or
//     above the 90th percentile of both log(code lines + 1) and harmonic centrality, numpy's
//     linear percentile). See Select.
//   - A REMOVE corruption (Stub) replaces a body by the language's empty body, keeping
//     decorators, the whole signature, the docstring and leading comments. A DISCOVERY
//     corruption is a Mutant made by a Rule (GoRules, PythonRules: flip a comparison, swap
//     if/else, off-by-one, …) or written by a model (LLMCorruptor); Go mutants must
//     type-check (GoChecker), Python mutants must parse (SyntaxChecker).
//   - A group is K candidates corrupted together, every pair within chain distance d in the
//     call graph (Groups). A unit is what one validation tries: a function or a group.
//   - The baseline is the clean repository's tests run several times: the tests that
//     always pass, always fail, or are flaky. Validation (Validate) runs a corruption and
//     accepts it when the tests ran, none timed out, and at least N baseline-passing
//     tests no longer pass (REMOVE N = 5; DISCOVERY and hard mode N = 2). They are its
//     FAIL_TO_PASS tests; the other baseline-passing tests are PASS_TO_PASS.
//   - A generated file carries a code generator's marker (IsGenerated); it is never
//     corrupted.
//
// Generate ties these together: it tries units in a seeded order, validating up to
// Options.Jobs at once, and returns the first N that pass in that order, so its output is
// byte-identical for the same repository, tests and seed. Result.Problem turns a result
// into a task.BreakpointProblem (and from there a SWE-bench instance); Env is the solver's
// environment (list_directory, search_code, read_file, list_file_functions,
// read_function, submit_attempt, replace_function) with its tool and attempt budgets and
// the paper's scores.
//
// Where this differs from Breakpoint's released code:
//
//   - Go REMOVE stubs return zero values instead of panicking (a panic aborts the whole
//     test binary, so every later test would go missing).
//   - The group distance is enforced (the reference's check was optional and grouped
//     arbitrary functions in practice); directed by default, undirected on request.
//   - The LLM loop keeps the accepted attempt with the fewest failing tests, not the last.
//   - A corruption that makes a test time out is rejected: which tests a killed run
//     reports depends on the machine, so such a task would not be reproducible.
//   - Code lines follow callgraph's definition; SelectOptions.Compat adds the reference's
//     +1 for the end marker.
package corrupt
