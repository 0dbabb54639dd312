// Package area measures squares.
package area

import "example.com/l2/units"

// Square returns the area of a square of side n, in square metres.
func Square(n int) float64 {
	m := units.Metres(n)
	return m * m
}

func half(n int) int { return n / 2 }
