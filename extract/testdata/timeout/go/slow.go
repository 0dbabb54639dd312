// Package slow is the fixture of the per-test time limit: one fast test, one that sleeps
// for 30 s and would then pass.
package slow

// Add returns a + b.
func Add(a, b int) int { return a + b }
