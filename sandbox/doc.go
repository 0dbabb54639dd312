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
//   - A slot is one of Options.Jobs fixed run directories. Reusing the same directory
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
//
// # Threat model and isolation
//
// The tested code is hostile: a repository's tests, a corruption, a model's patch. It may
// try to write the host's files or the user's checkout, leave processes behind, reach the
// network or a host socket, read secrets, fill the disk, poison a build cache that later
// builds (faultline's or the user's) trust, or forge its own verdict (see Evidence). The
// runner, the go command and the Python interpreter's startup are trusted; so is the host's
// kernel. Layer names what Local sets up against each, probed once per Local; every layer
// the host refuses is a note in Report.Notes, and Options.Require makes a runner refuse to
// run (ErrIsolation) rather than run with less:
//
//   - LayerNetwork, LayerPID, LayerUTS: network (loopback only, brought up with ip(8)), PID,
//     UTS and IPC namespaces (unshare(1)); the PID namespace takes every process of the run
//     with it, daemons included, and its /proc shows no other process.
//   - LayerReadOnly: every mount is remounted read-only except the slot (the run's tree,
//     HOME, TMPDIR) and the go command's build cache. /tmp is a tmpfs of the run's own
//     (DiskBytes): a test that writes a fixed /tmp path (python3-oslo.utils' /tmp/<uuid>/,
//     pymemcache's Unix socket) can, as outside the sandbox, and what it writes neither
//     reaches the host nor outlives the run. Of the host's /tmp it shows, bound read-only,
//     only the entries holding a path the run needs (the work directory, the toolchains
//     and caches, paths named in the run's environment or arguments: Local.keepPaths); the
//     others, with whatever Unix sockets they hold (an ssh agent's, tmux's), are not there.
//     Without root (the tests run as the user), the user's home is covered likewise: a
//     read-only tmpfs where only the paths runs need appear (privateHome), so ~/.ssh,
//     ~/.aws and the user's files are not there.
//   - LayerDevices: /dev is a tmpfs with null, zero, full, random, urandom and tty bound
//     from the host, the fd links and a private 64 MiB /dev/shm; /run (and /var/run) is an
//     empty read-only tmpfs, so no host socket (Docker's) is reachable by path.
//   - LayerUnprivileged: the prelude that sets this up runs as root inside the new
//     namespaces; the tested code then runs through setpriv(1) with no_new_privs and empty
//     capability sets (bounding set included), as RunUID (nobody) when the runner is root,
//     so it cannot undo a mount, write what root owns (/proc/sys, the build cache) or read
//     /etc/shadow. Without root, the namespaces belong to a user namespace and the tests run
//     as the user without capabilities. setarch -R turns address randomisation off for them.
//   - LayerQuota: with root, each slot keeps its namespaces in a holder process (see holder)
//     whose slot directory is a tmpfs of Options.DiskBytes: the tree's copy and everything
//     the run writes count against it. The runner reaches it through /proc/<holder>/root.
//
// The environment is an allow-list of the host's (PATH, the go command's settings; never a
// token), with a private HOME and TMPDIR, TZ=UTC, LANG and LC_ALL C.UTF-8, PYTHONHASHSEED=0,
// PYTHONDONTWRITEBYTECODE=1 (no PYTHONPYCACHEPREFIX: it would hide the installed packages'
// bytecode and cost a second per pytest run), and GOPROXY=off unless the network is
// allowed. Holders start with nothing but PATH, so /proc/1/environ holds no secret (and,
// running as another uid, the tests cannot read it anyway).
//
// The cache rule: untrusted code never writes a cache that another run or the user reads.
// The go command compiles with faultline's own build cache (FaultlineGoCache; the user's
// GOCACHE is never used, writable or not) and runs each test binary through `go test
// -exec`, a program (writeGoExec) that drops every privilege first, so the binary cannot
// write the cache; a test that runs the go command itself gets a GOCACHE in its TMPDIR.
// Without root, that program gives the binary a mount namespace of its own where the cache
// is read-only. In Go runs as root, the tree's files stay root's (its directories are
// sticky and world-writable): a test binary running while the go command compiles another
// package cannot swap the sources being compiled. Nor can it reach the go command's TMPDIR
// (its work directory, where compiled packages wait to be stored in the cache, and the C
// compiler's temporary files): a directory of the runner's that the run's uid can only
// search; the test binary gets the run's TMPDIR back. Flags in RunRequest.Args that would make
// the go command run a program (-exec, -toolexec, an external linker) are refused
// (CheckGoArgs). Python runs write no bytecode cache into the tree.
//
// Limits of the local runner: the tested code can read whatever the run's uid can read on
// the host (world-readable files, the host's /tmp entries it needs, read-only; as RunUID not a module cache
// under root's home, so a test that runs the go command itself may fail); the go command
// reads what root reads (a cgo #include of a host file ends up in the test binary); System V IPC
// objects live as long as the slot's holder; RLIMIT_NPROC counts every process of RunUID,
// across slots; resource limits (RLIMIT_AS, RLIMIT_CPU, RLIMIT_NPROC) are set with
// prlimit(1) — Go's SysProcAttr has no rlimit field. Limits.MemoryBytes bounds the tested
// process: the interpreter, or each Go test binary (set by the -exec program, or on a kept
// binary); the go command and its compilers, which run no repository code, get at least
// DefaultMemoryBytes, as a compiler of a large package needs more address space than a test
// binary (under a 1 GiB limit the build of runtime failed now and then: a build_failed
// verdict the repository was not to blame for). The Docker runner (sandbox/container)
// is the stronger boundary: its test containers see no file of the host at all.
//
// Kept test binaries: an attempt about one Go package — a re-run of a unit (see Verdicts)
// or a run whose selected ids all lie in one package — runs that package's test binary
// directly instead of the go command, which spends a second or more loading, checking and
// linking where the binary may run for milliseconds. The binary is built once per (tree,
// overlay, package) with `go test -c -vet=off` by the go command in a slot, as for any run
// (the cache rule holds: compiling runs no repository code), kept in the runner's work
// directory (the last eight trees), and copied into each attempt's fresh copy, checked
// against the SHA-256 it had when built (the copy is written with the process's forks held
// off: a process another attempt started meanwhile would otherwise hold it open for writing
// and running it would fail with ETXTBSY); it runs without privilege in its package's
// directory with the flags go test gives it (-test.paniconexit0, -test.v=test2json,
// -test.count=1, -test.timeout, -test.run, -test.skip) and the toolchain's bin directory
// first on PATH. Its output and go's own summary line go through test2json (built once
// per runner from the toolchain, run on the host, reading a pipe), so the report is built
// from the stream `go test -json` would have written; its exit status is one more channel
// of the cross-check. Requests with RunRequest.Args, listings, file selections and
// packages whose binary does not build take the go command, and so does an attempt whose
// copy could not be executed at all (exit status 126 or 127 with the exec's complaint as
// the whole output: no test ran, so it is neither a crash nor cached as one; the report's
// notes say so). TestBinaryMatchesGoCommand checks that both ways give the same verdicts
// and messages.
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
// implemented once for every runner (in sandbox/internal/testrun, which the container
// subpackage shares):
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
//     (Options.Reruns: twice as many re-runs as the run has known tests, at least
//     DefaultRerunAttempts, each within the run's time limit; the
//     re-runs that end at a time limit take the run's limit in all, the others no wall
//     time, so the outcome does not depend on the load) is spent. A test run alone that passes gets Pass.
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
// What the cross-check cannot see: code that runs inside the tested process before the
// framework reports — a Go init function (or a function a test calls) that sends os.Stdout
// or file descriptor 1 through a filter turning FAIL into PASS, a module a pytest test
// imports that patches pytest's TestReport — rewrites the evidence as it is written, and
// every channel then agrees. The channels all come from that process; no runner-side check
// tells such a report from a true one. Code from a model is therefore not trusted to leave
// the test framework alone: review patches for such hooks, or score with tests the patch
// cannot reach in-process.
//
// Everything read from a run is untrusted and read within bounds, whatever its size:
// stream lines up to 1 MiB, 262,144 results and 32 MiB of ids and text per stream or file,
// messages cut to Limits.MessageLen, output to Limits.OutputBytes per stream (head and tail
// kept), and the JUnit file through a filter that cuts each text, attribute value, comment
// and CDATA section to 64 KiB before the XML decoder sees it. What is left out is noted; a stream that names more tests or ids than
// the bounds is untrusted, more text only cuts messages. TestHarnessMemoryBound (in
// sandbox/internal/testrun) measures the result: with the default limits, reading an attempt whose stdout, JUnit file and event
// file each hold 1 GiB (one 1 GiB <failure>, one 1 GiB line) keeps the harness's peak RSS
// under 200 MiB (about 90 MiB measured; 20 MiB for a 1.25 GiB go test -json stream).
// TestRunMemoryBound does it end to end: a Go test and a pytest test each writing 1 GiB to
// stdout through Local leave the harness's own peak at about 20 MiB (the go command and
// pytest, inside the run, reach about 3 GiB: only Limits.MemoryBytes bounds them).
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
