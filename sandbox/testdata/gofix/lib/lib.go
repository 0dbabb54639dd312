// Package lib is a tiny library under test.
package lib

// Add returns a+b.
func Add(a, b int) int { return a + b }
