package stats

import (
	"fmt"
	"math"
	"slices"

	"github.com/faultline-dev/faultline/internal/numeric"
)

// Mean returns the arithmetic mean of x. It fails on an empty or non-finite input.
func Mean(x []float64) (float64, error) {
	if len(x) == 0 {
		return 0, fmt.Errorf("stats: mean: empty input: %w", ErrTooFew)
	}
	if err := checkFinite("mean", "x", x); err != nil {
		return 0, err
	}
	return mean(x), nil
}

func mean(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// variance returns the sum of squared deviations from m divided by n-ddof.
func variance(x []float64, m float64, ddof int) float64 {
	s := 0.0
	for _, v := range x {
		d := v - m
		s += d * d
	}
	return s / float64(len(x)-ddof)
}

// MeanSE is a mean with its standard error.
type MeanSE struct {
	Mean float64
	// SE is the standard error of the mean, s/√n with the sample standard deviation s
	// (ddof 1), as scipy.stats.sem.
	SE float64
	N  int
}

// MeanStdErr returns the mean of x and its standard error (ddof 1, scipy.stats.sem). It
// needs at least two values.
func MeanStdErr(x []float64) (MeanSE, error) {
	if len(x) < 2 {
		return MeanSE{}, fmt.Errorf("stats: mean standard error: n = %d, need at least 2: %w", len(x), ErrTooFew)
	}
	if err := checkFinite("mean standard error", "x", x); err != nil {
		return MeanSE{}, err
	}
	m, se := numeric.MeanStdErr(x)
	return MeanSE{Mean: m, SE: se, N: len(x)}, nil
}

// MacroAverage is the plain mean over tasks: every task weighs the same. It is Mean under
// the name the papers use.
func MacroAverage(perTask []float64) (float64, error) {
	m, err := Mean(perTask)
	if err != nil {
		return 0, fmt.Errorf("stats: macro average: %w", err)
	}
	return m, nil
}

// GroupMean is the mean of the values of one group.
type GroupMean struct {
	Group string
	Mean  float64
	N     int
}

// GroupMeans returns the mean of values per group, sorted by group name. groups[i] names the
// group of values[i].
func GroupMeans(values []float64, groups []string) ([]GroupMean, error) {
	if len(values) != len(groups) {
		return nil, fmt.Errorf("stats: group means: %d values, %d groups: %w", len(values), len(groups), ErrLength)
	}
	if len(values) == 0 {
		return nil, fmt.Errorf("stats: group means: empty input: %w", ErrTooFew)
	}
	if err := checkFinite("group means", "values", values); err != nil {
		return nil, err
	}
	byGroup := map[string][]float64{}
	for i, g := range groups {
		byGroup[g] = append(byGroup[g], values[i])
	}
	names := make([]string, 0, len(byGroup))
	for g := range byGroup {
		names = append(names, g)
	}
	slices.Sort(names)
	out := make([]GroupMean, len(names))
	for i, g := range names {
		out[i] = GroupMean{Group: g, Mean: mean(byGroup[g]), N: len(byGroup[g])}
	}
	return out, nil
}

// MicroAverage is the average "by group" of the spec: the mean of the per-group means, so
// every group (for example every repository) weighs the same however many tasks it holds.
// This differs from the pooled mean over all values whenever groups have different sizes.
// (The spec's naming is kept: what some texts call a macro average over groups is the
// MicroAverage here, and MacroAverage is the plain mean over tasks.)
func MicroAverage(values []float64, groups []string) (float64, error) {
	gm, err := GroupMeans(values, groups)
	if err != nil {
		return 0, fmt.Errorf("stats: micro average: %w", err)
	}
	s := 0.0
	for _, g := range gm {
		s += g.Mean
	}
	return s / float64(len(gm)), nil
}

// ZScore returns (x - mean) / sd with the standard deviation computed with ddof 0
// (scipy.stats.zscore and numpy's default) or ddof 1 (pandas, gonum's stat.StdDev). It fails
// on a constant input rather than returning NaN.
func ZScore(x []float64, ddof int) ([]float64, error) {
	m, sd, err := meanSD("zscore", x, ddof)
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = (v - m) / sd
	}
	return out, nil
}

func meanSD(fn string, x []float64, ddof int) (m, sd float64, err error) {
	if ddof != 0 && ddof != 1 {
		return 0, 0, fmt.Errorf("stats: %s: ddof %d, want 0 or 1: %w", fn, ddof, ErrRange)
	}
	if len(x) <= ddof || len(x) < 2 {
		return 0, 0, fmt.Errorf("stats: %s: n = %d: %w", fn, len(x), ErrTooFew)
	}
	if err := checkFinite(fn, "x", x); err != nil {
		return 0, 0, err
	}
	if err := checkScale(fn, "x", x); err != nil {
		return 0, 0, err
	}
	m = mean(x)
	sd = math.Sqrt(variance(x, m, ddof))
	if sd == 0 || isConstant(x) {
		return 0, 0, fmt.Errorf("stats: %s: all values equal %v: %w", fn, x[0], ErrConstant)
	}
	return m, sd, nil
}

func isConstant(x []float64) bool {
	for _, v := range x[1:] {
		if v != x[0] {
			return false
		}
	}
	return true
}
