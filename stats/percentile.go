package stats

import (
	"fmt"
	"slices"

	"github.com/faultline-dev/faultline/internal/numeric"
)

// Percentile returns the q-th percentile (0 ≤ q ≤ 100) of x with numpy's default "linear"
// method (Hyndman–Fan type 7), bit for bit: with the sorted values v, the virtual index
// h = (n-1)·(q/100), and γ = h - ⌊h⌋, the result is v[⌊h⌋] + (v[⌊h⌋+1]-v[⌊h⌋])·γ when γ < 0.5
// and v[⌊h⌋+1] - (v[⌊h⌋+1]-v[⌊h⌋])·(1-γ) otherwise (numpy's _lerp). gonum's stat.Quantile
// kinds differ: the 90th percentile of 1..10 is 9.1 here and in numpy, 9 in gonum. Where
// numpy overflows (two neighbours whose difference exceeds the float64 range, such as -1e308
// and 1e308) the result here is still the interpolated value between them.
func Percentile(x []float64, q float64) (float64, error) {
	v, err := Percentiles(x, q)
	if err != nil {
		return 0, err
	}
	return v[0], nil
}

// Percentiles returns the percentiles of x at each q, as Percentile, sorting x once.
func Percentiles(x []float64, q ...float64) ([]float64, error) {
	if len(x) == 0 {
		return nil, fmt.Errorf("stats: percentile: empty input: %w", ErrTooFew)
	}
	if err := checkFinite("percentile", "x", x); err != nil {
		return nil, err
	}
	for _, p := range q {
		if !(p >= 0 && p <= 100) {
			return nil, fmt.Errorf("stats: percentile: q = %v outside [0, 100]: %w", p, ErrRange)
		}
	}
	s := slices.Clone(x)
	slices.Sort(s)
	out := make([]float64, len(q))
	for i, p := range q {
		out[i] = sortedPercentile(s, p)
	}
	return out, nil
}

// sortedPercentile is numpy's linear percentile of the sorted, finite s.
func sortedPercentile(s []float64, q float64) float64 { return numeric.SortedPercentile(s, q) }

// SelectAtLeastPercentile returns, in increasing order, the indices i such that for every
// metric m in metrics, m[i] is at least the q-th percentile (numpy linear) of m: the papers'
// "≥ p-th percentile in all of these metrics" selection (for example the functions at or
// above the 75th percentile of both code lines and harmonic centrality). All metrics must
// have the same length.
func SelectAtLeastPercentile(q float64, metrics ...[]float64) ([]int, error) {
	if len(metrics) == 0 {
		return nil, fmt.Errorf("stats: select at least percentile: no metrics: %w", ErrTooFew)
	}
	n := len(metrics[0])
	thresholds := make([]float64, len(metrics))
	for j, m := range metrics {
		if len(m) != n {
			return nil, fmt.Errorf("stats: select at least percentile: metric %d has %d values, metric 0 has %d: %w", j, len(m), n, ErrLength)
		}
		t, err := Percentile(m, q)
		if err != nil {
			return nil, fmt.Errorf("stats: select at least percentile: metric %d: %w", j, err)
		}
		thresholds[j] = t
	}
	var out []int
	for i := 0; i < n; i++ {
		ok := true
		for j, m := range metrics {
			if m[i] < thresholds[j] {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, i)
		}
	}
	return out, nil
}
