// Package testrun is what sandbox's local runner and the Docker runner of sandbox/container
// share: the go test and pytest command lines of a request (GoTestArgs, PytestArgs and the
// per-attempt forms), the bounded readers of their output (go test -json, JUnit XML, pytest's
// report events and summary, test listings), the verdict built from them (BuildReport), and
// the re-runs of tests an early end of their process left without a verdict (Resolve).
//
// Nothing here starts a process: a runner executes the commands (an Execute) and hands back
// what they wrote (a CommandResult). The package is internal because its types are the
// runners' working parts, not faultline's API; sandbox re-exports the sentinel errors and
// the defaults a caller needs.
package testrun

import "errors"

// DefaultMessageLen bounds a test's failure message when the limits give none (4 KiB).
const DefaultMessageLen = 4 << 10

// ErrBadRequest is wrapped by errors about a request the runner cannot use
// (sandbox.ErrBadRequest).
var ErrBadRequest = errors.New("bad run request")

// ErrListFailed is wrapped by List errors when discovery itself failed (build or collection
// errors; sandbox.ErrListFailed).
var ErrListFailed = errors.New("test discovery failed")
