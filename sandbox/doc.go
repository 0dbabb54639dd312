// Package sandbox runs a repository's tests against a snapshot — the original tree plus a
// task.Overlay of changed files — and reports one outcome per test. Everything that changes
// code in faultline (corruptions, masks, composed bugs, agent patches) is untrusted and runs
// here.
//
// Terms:
//
//   - A private copy is a fresh byte-for-byte copy of the repository (version-control
//     directories, __pycache__ and .pytest_cache left out) with the overlay written on top.
//     Files are copied, never hard-linked: tests often run as root, and root can write
//     through a hard link into the user's checkout. The user's checkout is never written.
//   - A slot is one of Options.Concurrency fixed run directories. Reusing the same directory
//     keeps Go's build cache warm (it keys compiled packages by directory as well as content).
//   - A test id is `import/path.TestName/sub` for Go (subtest names as `go test` prints them:
//     spaces replaced by `_`, duplicates suffixed `#01`) and the pytest node id
//     `path/to/test_x.py::Class::test_name[param]` for pytest.
//   - A run "did not run" (task.Report.State other than RunOK) when the command could not
//     report its tests: a build failure, a collection error, no tests, a time-out of the whole
//     run, a crash, or a setup failure. Failing tests are an outcome, not an error.
//
// Local (the default) runs `go test -json` or `python3 -m pytest` as a local process in its
// own process group; at the time limit the whole group gets SIGTERM, then SIGKILL after a
// grace period. Output is capped per stream (the head and the tail are kept) while the
// parsers still see every byte, so a test printing 100 MB neither blocks nor exhausts memory.
// The environment is scrubbed to an allow-list (no tokens or credentials), with a private HOME
// and TMPDIR inside the run directory and the host's Go build and module caches shared (warm).
//
// Isolation, probed once per Local: when unshare(1) works (as root, or with user namespaces)
// each run gets new network, mount and PID namespaces. The loopback interface is brought up
// (ip(8)) because test suites use 127.0.0.1; every mount except /proc, /sys and /dev is
// remounted read-only except the run directory and the shared Go build cache, so a test
// cannot write outside its tree; and when the run ends the PID namespace takes every process
// it started with it, including daemons that left the process group. Resource limits
// (RLIMIT_AS, RLIMIT_CPU, RLIMIT_NPROC) are set with prlimit(1) — Go's SysProcAttr has no
// rlimit field and a re-exec shim would need a hook in every program's main. RLIMIT_NPROC
// counts all processes of the user and is not enforced for root; the Docker runner's pids
// limit is the reliable bound. Whatever is unavailable is recorded in Report.Notes.
//
// Go runs and listings use `-count=1` (never go's own test cache) and `-vet=off`: a vet
// finding a corruption introduces is not a test outcome and must not hide the verdicts.
// Baselines restore go test's default vet checks (WithGoVet, Check's default), so a module
// whose own `go test` fails on vet is not green. Selecting ids builds a `-run`
// pattern that may select more subtests than asked; the report keeps the selected ids with
// their ancestors and descendants.
//
// Pytest runs execute `python3 -c <bootstrap>`: pytest.main with `-p no:cacheprovider -rA
// --junitxml --continue-on-collection-errors` and `junit_family=xunit1` (so each testcase
// names its file), plus a reporter plugin of ours that appends one JSON event per line to a
// file outside the tree as things happen: each file collected or failing to collect, the
// collected node ids, each test's start, each phase's outcome, the session's end. The
// bootstrap then prints "faultline-pytest-exit: N" (pytest's own exit status) before the
// interpreter shuts down. A collection error in one file leaves the other files running; the
// run's state is then RunCollectionError, with the other files' verdicts in Tests.
//
// # Verdicts
//
// A test has a verdict only if it ran to one: task.NotRun is the state of a selected test
// that got none, with the reason in its message; it is neither a pass nor a failure. The rule,
// implemented once (Resolve) for every runner:
//
//   - An attempt runs the request. A test binary (Go package) or interpreter (pytest) that
//     ended before all its tests had a verdict — a panic outside a test's own goroutine,
//     os.Exit or syscall.Exit in a test, the package's -timeout, a segfault, os._exit, a
//     kill, an interpreter dying while collecting a file — leaves three kinds of tests: those
//     that ended with their own verdict (kept: a test that itself panicked is Fail, as the
//     testing package reports it), the one running alone when it died (the culprit: Fail,
//     confirmed by running it alone), and the rest (cut off while running with others,
//     paused by t.Parallel, never reached).
//   - At a time limit, a test that had been running for at least half of its binary's time
//     gets Timeout; one that had just started is cut off.
//   - The tests without a verdict are re-run in a fresh copy, one binary or interpreter at a
//     time, leaving out the decided ones (`go test -skip`, the plugin's deselection): the
//     culprit and each test cut off while running with others alone, the rest together,
//     until their binary runs to its end, an attempt decides nothing new, or the budget
//     (Options.Reruns: DefaultRerunAttempts re-runs and the run's time limit in all) is
//     spent. A test run alone that passes gets Pass.
//   - What is still without a verdict is NotRun with the reason. Which tests exist comes
//     from the selection's ids, pytest's collection (the plugin's events) or, for a Go
//     package that never ran to its end when no ids were selected, `go test -list`. Tests
//     that were never selected are not invented.
//   - A parent Go test fails when one of its subtests fails, also across re-runs.
//
// # Evidence
//
// A tested process can rewrite files after the fact and print anything. Each run's verdicts
// are cross-checked between channels, and any disagreement makes the report
// task.RunUntrusted (never a pass) with the disagreements in Detail:
//
//   - Go: the test2json stream must be consistent (one end event per test, none after its
//     package's end, no package passing with a failing test, nothing but the go command's
//     events once tests ran) and agree with the go command's exit status (0 if and only if
//     every package passed). A test binary that exits 0 in the middle of a test (go then
//     reports the package as passed and gives the test its end event) is caught by go's
//     summary line appearing in that test's output without a package end of its own.
//   - pytest: the plugin's events, the JUnit file, the -rA lines of the short test summary
//     (streamed on stdout, so they cannot be rewritten afterwards) and the exit marker must
//     give every test the same verdict, and the process's exit status must be pytest's. An
//     atexit hook rewriting the JUnit file, fake -rA lines or exit markers, os._exit(0) after
//     pytest returned: each is a disagreement. A test calling os._exit(0) mid-run is a
//     crash, and that test the culprit.
//
// Everything read from a run is untrusted and read within bounds, whatever its size:
// stream lines up to MaxStreamLine, MaxStreamTests results and MaxStreamText bytes of ids
// and text per stream or file, messages cut to Limits.MessageLen, output to
// Limits.OutputBytes per stream (head and tail kept), and the JUnit file through a filter
// that cuts each text, attribute value, comment and CDATA section to MaxXMLText before the
// XML decoder sees it. What is left out is noted; a stream that names more tests or ids than
// the bounds is untrusted, more text only cuts messages. TestHarnessMemoryBound measures the
// result: with the default limits, reading an attempt whose stdout, JUnit file and event
// file each hold 1 GiB (one 1 GiB <failure>, one 1 GiB line) keeps the harness's peak RSS
// under 200 MiB (about 90 MiB measured; 20 MiB for a 1.25 GiB go test -json stream).
//
// Cache adds a content-addressed result cache (memory, optionally disk), a bounded worker
// pool and coalescing of identical concurrent requests to any runner. Baseline runs a clean
// tree n times and separates flaky tests; TimeoutRule turns a baseline time into a limit;
// FileOracle adapts a runner to task.Oracle for single-file programs.
//
// Differences from the reference tools: the test ids are those of `go test -json` and pytest
// with one exception — JUnit reports written without a file attribute (xunit2) are mapped
// back to node ids by guessing the module from the dotted classname. The Docker runner is in
// the container subpackage.
package sandbox
