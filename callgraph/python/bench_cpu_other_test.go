//go:build !unix

package python

import "time"

// processCPU is not measured on this platform: cpu-ms/op reports 0.
func processCPU() time.Duration { return 0 }
