package testrun

import "time"

// ProcResult is how a test command ended.
type ProcResult struct {
	ExitCode  int    // -1 when killed by a signal
	Signal    string // the signal's name when killed by one ("killed", "segmentation fault")
	TimedOut  bool
	Cancelled bool
	Wall      time.Duration
	StartErr  error
}
