// Package units converts lengths.
package units

// Metres returns n as metres.
func Metres(n int) float64 { return float64(n) }
