//go:build unix

// Package proc reads the resource usage of the current process and of finished child
// processes, for the benchmark programs under bench/.
package proc

import (
	"os"
	"syscall"
)

// CPUSeconds is the current process's user + system CPU time, all threads together.
func CPUSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return seconds(ru.Utime) + seconds(ru.Stime)
}

// PeakMB is the peak resident set size of a finished child process in MiB (ru_maxrss,
// which Linux reports in KiB), or 0 when the platform does not say.
func PeakMB(ps *os.ProcessState) float64 {
	if ps == nil {
		return 0
	}
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return float64(ru.Maxrss) / 1024
	}
	return 0
}

func seconds(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
