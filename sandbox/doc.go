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
// Go runs use `-count=1` (never go's own test cache) and `-vet=off` (a vet finding is not a
// test outcome; pass -vet in RunRequest.Args to restore it). A test with a start event but
// no end event gets Timeout when its package hit `-timeout` or the run was killed, and Fail
// when its package died otherwise (a panic in another goroutine, os.Exit). Selecting ids
// builds a `-run` pattern that may select more subtests than asked; the report keeps the
// selected ids with their ancestors and descendants.
//
// Pytest runs use `-p no:cacheprovider -rA --junitxml` with `junit_family=xunit1` (so each
// testcase names its file). The JUnit XML is the primary source; the `-rA` summary lines tell
// XPASS apart from PASSED (JUnit records both as passes) and are the fallback when there is no
// XML. Exit code 5 is RunNoTests; errors while collecting are RunCollectionError with the
// message.
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
