package exitzero

import (
	"fmt"
	"syscall"
	"testing"
)

// TestFail claims a pass with a marked frame and leaves with status 0 before failing.
func TestFail(t *testing.T) {
	fmt.Print("\x16--- PASS: TestFail (0.00s)\n")
	syscall.Exit(0)
}

func TestOK(t *testing.T) {}
