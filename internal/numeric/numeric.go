// Package numeric holds the few numerical rules that several faultline packages compute and
// that must give the same numbers everywhere: numpy's default percentile and the mean with its
// standard error. stats builds its checked, documented API on them; corrupt and metrics, which
// may not depend on stats, call them directly. Standard library only.
package numeric

import (
	"math"
	"slices"
)

// SortedPercentile returns the q-th percentile (0 ≤ q ≤ 100) of the sorted, finite, non-empty
// s with numpy's default "linear" method (Hyndman–Fan type 7), bit for bit: with h =
// (n−1)·(q/100) and γ = h − ⌊h⌋, v[⌊h⌋] + (v[⌊h⌋+1] − v[⌊h⌋])·γ when γ < 0.5 and v[⌊h⌋+1] −
// (v[⌊h⌋+1] − v[⌊h⌋])·(1−γ) otherwise (numpy's _lerp). Where the difference of two neighbours
// overflows (−1e308 and 1e308), where numpy returns ±Inf or NaN, the value is interpolated on
// the halved difference and stays between them. q outside [0, 100] is clamped.
func SortedPercentile(s []float64, q float64) float64 {
	n := len(s)
	h := float64(n-1) * (q / 100)
	if h >= float64(n-1) {
		return s[n-1]
	}
	if h < 0 || math.IsNaN(h) {
		return s[0]
	}
	lo := math.Floor(h)
	i := int(lo)
	g := h - lo
	a, b := s[i], s[i+1]
	d := b - a
	if math.IsInf(d, 0) {
		h := b/2 - a/2
		if g >= 0.5 {
			return b - h*(2*(1-g))
		}
		return a + h*(2*g)
	}
	if g >= 0.5 {
		return b - d*(1-g)
	}
	return a + d*g
}

// Percentile is SortedPercentile of a sorted copy of xs; NaN for an empty xs or a NaN q.
// xs is not modified.
func Percentile(xs []float64, q float64) float64 {
	if len(xs) == 0 || math.IsNaN(q) {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return SortedPercentile(s, q)
}

// MeanStdErr returns the mean of xs and its standard error s/√n with the sample standard
// deviation s (ddof 1, scipy.stats.sem). The error is 0 for fewer than two values, and both
// are 0 for none.
func MeanStdErr(xs []float64) (mean, se float64) {
	if len(xs) == 0 {
		return 0, 0
	}
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	mean = sum / float64(len(xs))
	if len(xs) < 2 {
		return mean, 0
	}
	ss := 0.0
	for _, x := range xs {
		d := x - mean
		ss += d * d
	}
	return mean, math.Sqrt(ss/float64(len(xs)-1)) / math.Sqrt(float64(len(xs)))
}
