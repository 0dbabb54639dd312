// Package tools has small numeric helpers.
package tools

// Mean returns the arithmetic mean of xs (0 for none).
func Mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	return Sum(xs) / float64(len(xs))
}

// Sum adds xs.
func Sum(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s
}

// Acc accumulates values.
type Acc struct{ xs []float64 }

// Add appends x.
func (a *Acc) Add(x float64) { a.xs = append(a.xs, x) }

// Mean is the mean of the values added so far.
func (a Acc) Mean() float64 { return Mean(a.xs) }
