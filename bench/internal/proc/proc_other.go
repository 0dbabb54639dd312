//go:build !unix

// Package proc reads the resource usage of the current process and of finished child
// processes, for the benchmark programs under bench/.
package proc

import "os"

// CPUSeconds is not measured on this platform.
func CPUSeconds() float64 { return 0 }

// PeakMB is not measured on this platform.
func PeakMB(*os.ProcessState) float64 { return 0 }
