package exitzero

import (
	"syscall"
	"testing"
)

func TestA(t *testing.T) { t.Fatal("a fails") }

// TestExitsZero leaves through the system call, around the testing package's os.Exit(0)
// guard: go then reports the package as passed.
func TestExitsZero(t *testing.T) { syscall.Exit(0) }

func TestB(t *testing.T) {}
