package testrun

import "time"

// ProcResult is how a test command ended.
type ProcResult struct {
	ExitCode  int // -1 when killed by a signal
	TimedOut  bool
	Cancelled bool
	Wall      time.Duration
	StartErr  error
}
