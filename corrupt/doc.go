// Package corrupt implements the Breakpoint method (docs/breakpoint.md): it corrupts
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
//     accepts it when the tests ran (a run that broke, or whose evidence channels
//     disagreed — task.RunUntrusted — never counts), none timed out, and at least N
//     baseline-passing tests ran and failed (REMOVE N = 5; DISCOVERY and hard mode N = 2).
//     They are its FAIL_TO_PASS tests; the baseline-passing tests that ran and passed are
//     PASS_TO_PASS.
//   - A verdict is a fact: a test is failing only if it ran and failed. A test the run
//     did not reach (task.NotRun — another test panicked or called os.Exit and took the
//     binary down, the interpreter crashed — or missing from the report) or that it
//     skipped has no verdict: it is never counted as failing, never in FAIL_TO_PASS or
//     PASS_TO_PASS (Validation.NotRun, Validation.Skipped list them; Validation.NotRunWhy
//     gives the runner's reason beside each, an observation kept out of records), and in a solver's
//     submission it earns no credit (Attempt.Unverified).
//   - A failure record is the stable part of a failing test's output (Failure): its kind
//     (exception type, Go panic class, t.Error report, timeout) and its site in the
//     repository with the source line there. Task records carry records, never the raw
//     output, whose durations, addresses, goroutine numbers, temporary paths and repr
//     truncations differ from run to run; so the same inputs and seed give byte-identical
//     records. The raw output is an observation (Validation.Observed).
//   - Test output that reaches a model (the solver's feedback, the LLM corruption loop) is
//     passed through a redactor for the secrets of the environment (task/llm's
//     Redactor): code under test can print what it can read.
//   - A generated file carries a code generator's marker (IsGenerated); it is never
//     corrupted.
//
// Generate ties these together: it tries units in a seeded order, validating up to
// Options.Jobs at once, and returns the first N that pass in that order, so its output is
// byte-identical for the same repository, tests and seed. Result.Problem turns a result
// into a task.BreakpointProblem (and from there a SWE-bench instance); Env is the solver's
// environment (list_directory, search_code, read_file, list_file_functions,
// read_function, submit_attempt, replace_function) with its tool and attempt budgets and
// the paper's scores. replace_function (and submit_attempt in REMOVE) accepts exactly one
// definition of the named function — white space and comments around it, nothing else: a
// second function, a trailing `func init()` or a statement that would run when the file
// is loaded is refused.
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
