package stats

import (
	"fmt"
	"math/rand/v2"
)

// BootstrapOptions configures Bootstrap. Exactly one source of resamples is used: Indices
// when non-nil, otherwise Reps resamples drawn from Rand.
type BootstrapOptions struct {
	// Reps is the number of resamples drawn from Rand; 0 means 1000.
	Reps int
	// Level is the confidence level of the percentile interval; 0 means 0.95.
	Level float64
	// Rand draws the resamples (n indices uniformly with replacement each). Required
	// unless Indices is given.
	Rand *rand.Rand
	// Indices are caller-given resamples, each a slice of indices into the data (for
	// example drawn by another tool, so results can be compared).
	Indices [][]int
}

// Interval is a bootstrap percentile interval for one statistic.
type Interval struct {
	// Lo and Hi are the (1-Level)/2 and (1+Level)/2 percentiles (numpy linear) of the
	// statistic over the resamples that succeeded.
	Lo, Hi float64
	// Reps counts the resamples that succeeded, Missing those whose statistic failed (for
	// example a logit refit hitting separation on a resample).
	Reps, Missing int
}

// Bootstrap returns a percentile interval for each component of a vector statistic. stat is
// called with the indices of one resample (into the caller's data of length n) and returns
// the statistic's components (always the same number); an error or a non-finite component
// marks the resample as missing instead of failing the whole bootstrap. Bootstrap fails if every resample fails
// or if stat returns a different number of components. It is deterministic given the
// options: resamples are drawn in order from Rand, one index at a time.
func Bootstrap(n int, stat func(idx []int) ([]float64, error), opts BootstrapOptions) ([]Interval, error) {
	if n < 1 {
		return nil, fmt.Errorf("stats: bootstrap: n = %d: %w", n, ErrTooFew)
	}
	level := opts.Level
	if level == 0 {
		level = 0.95
	}
	if !(level > 0 && level < 1) {
		return nil, fmt.Errorf("stats: bootstrap: level %v outside (0, 1): %w", level, ErrRange)
	}
	resamples := opts.Indices
	reps := len(resamples)
	if resamples == nil {
		if opts.Rand == nil {
			return nil, fmt.Errorf("stats: bootstrap: neither Rand nor Indices given: %w", ErrRange)
		}
		reps = opts.Reps
		if reps == 0 {
			reps = 1000
		}
	}
	if reps < 1 {
		return nil, fmt.Errorf("stats: bootstrap: %d resamples: %w", reps, ErrTooFew)
	}
	var values [][]float64 // values[c] = successful statistics of component c
	missing := 0
	idx := make([]int, n)
	for r := 0; r < reps; r++ {
		cur := idx
		if resamples != nil {
			cur = resamples[r]
			for _, i := range cur {
				if i < 0 || i >= n {
					return nil, fmt.Errorf("stats: bootstrap: resample %d has index %d outside [0, %d): %w", r, i, n, ErrRange)
				}
			}
		} else {
			for i := range idx {
				idx[i] = opts.Rand.IntN(n)
			}
		}
		s, err := stat(cur)
		if err == nil {
			err = checkFinite("bootstrap", "statistic", s)
		}
		if err != nil {
			missing++
			continue
		}
		if values == nil {
			values = make([][]float64, len(s))
		}
		if len(s) != len(values) {
			return nil, fmt.Errorf("stats: bootstrap: resample %d gave %d components, earlier ones %d: %w", r, len(s), len(values), ErrLength)
		}
		for c, v := range s {
			values[c] = append(values[c], v)
		}
	}
	if missing == reps {
		return nil, fmt.Errorf("stats: bootstrap: all %d resamples failed: %w", reps, ErrTooFew)
	}
	lo, hi := 100*(1-level)/2, 100*(1+level)/2
	out := make([]Interval, len(values))
	for c, v := range values {
		q, err := Percentiles(v, lo, hi)
		if err != nil {
			return nil, fmt.Errorf("stats: bootstrap: component %d: %w", c, err)
		}
		out[c] = Interval{Lo: q[0], Hi: q[1], Reps: len(v), Missing: missing}
	}
	return out, nil
}
