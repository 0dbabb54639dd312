package stats

import (
	"fmt"
	"math"
	"slices"
)

// BoxStats are the numbers a box plot draws for one sample, with the conventions of
// matplotlib's boxplot (matplotlib.cbook.boxplot_stats; its default reach is whis = 1.5):
//
//   - Q1, Median and Q3 are numpy's linear percentiles 25, 50 and 75 (see Percentile);
//     gonum's plotter.BoxPlot uses another quantile rule and draws different boxes on
//     small samples.
//   - The whiskers end at the most extreme data values inside the fences
//     Q1 - whis·IQR and Q3 + whis·IQR, never inside the box: when no value lies between
//     a fence and its quartile, the whisker ends at the quartile.
//   - Outliers (matplotlib's fliers) are the values beyond the whiskers.
type BoxStats struct {
	N                    int
	Mean                 float64
	Q1, Median, Q3, IQR  float64
	WhiskerLo, WhiskerHi float64
	// LoFence and HiFence are Q1 - whis·IQR and Q3 + whis·IQR.
	LoFence, HiFence float64
	// Outliers holds the values below WhiskerLo or above WhiskerHi in increasing order
	// (matplotlib keeps the data order).
	Outliers []float64
}

// BoxPlotStats returns the box-plot statistics of x with whiskers reaching at most whis
// interquartile ranges beyond the box (1.5 is matplotlib's default; 0 puts the whiskers on
// the quartiles). It fails on an empty or non-finite input and on a negative or infinite
// whis.
func BoxPlotStats(x []float64, whis float64) (BoxStats, error) {
	if !(whis >= 0) || math.IsInf(whis, 0) {
		return BoxStats{}, fmt.Errorf("stats: box plot: whis %v, want a finite value ≥ 0: %w", whis, ErrRange)
	}
	if len(x) == 0 {
		return BoxStats{}, fmt.Errorf("stats: box plot: empty input: %w", ErrTooFew)
	}
	if err := checkFinite("box plot", "x", x); err != nil {
		return BoxStats{}, err
	}
	s := slices.Clone(x)
	slices.Sort(s)
	b := BoxStats{
		N:      len(s),
		Mean:   safeMean(s),
		Q1:     sortedPercentile(s, 25),
		Median: sortedPercentile(s, 50),
		Q3:     sortedPercentile(s, 75),
	}
	b.IQR = b.Q3 - b.Q1 // may overflow to +Inf for values near ±1.8e308; the fences then do too
	b.LoFence, b.HiFence = b.Q1-whis*b.IQR, b.Q3+whis*b.IQR
	if whis == 0 {
		b.LoFence, b.HiFence = b.Q1, b.Q3 // 0·Inf would be NaN
	}
	b.WhiskerLo, b.WhiskerHi = b.Q1, b.Q3
	for _, v := range s { // the smallest value at or above the lower fence
		if v >= b.LoFence {
			b.WhiskerLo = min(v, b.Q1)
			break
		}
	}
	for _, v := range slices.Backward(s) { // the largest value at or below the upper fence
		if v <= b.HiFence {
			b.WhiskerHi = max(v, b.Q3)
			break
		}
	}
	for _, v := range s {
		if v < b.WhiskerLo || v > b.WhiskerHi {
			b.Outliers = append(b.Outliers, v)
		}
	}
	return b, nil
}

// safeMean is the mean of finite values whose sum may overflow.
func safeMean(x []float64) float64 {
	if m := mean(x); !math.IsInf(m, 0) {
		return m
	}
	n := float64(len(x))
	m := 0.0
	for _, v := range x {
		m += v / n
	}
	return m
}
