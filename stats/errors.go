package stats

import (
	"errors"
	"fmt"
	"math"
)

// Sentinel errors. Callers branch on them with errors.Is; the messages returned by the
// functions of this package wrap them with the detail (which argument, which index).
var (
	// ErrTooFew reports a sample smaller than the analysis needs (for example n < 3 for a
	// correlation p-value, an empty Mann–Whitney sample, fewer observations than logit
	// parameters).
	ErrTooFew = errors.New("too few observations")
	// ErrNotFinite reports a NaN or infinite input value. The package never propagates NaN
	// the way numpy does: a missing value is the caller's decision.
	ErrNotFinite = errors.New("value is NaN or infinite")
	// ErrOverflow reports finite input values so large in magnitude that an intermediate
	// result of the analysis (a sum of squares, an axis span) exceeds the float64 range
	// (about 1.8e308), for example a predictor holding ±1e308.
	ErrOverflow = errors.New("values too large: an intermediate result overflows float64")
	// ErrLength reports paired inputs of different lengths.
	ErrLength = errors.New("length mismatch")
	// ErrConstant reports an input with no variation where variation is required: a
	// constant predictor in a regression, a constant variable in a correlation, zero
	// standard deviation in a z-score.
	ErrConstant = errors.New("constant input")
	// ErrOutcomeConstant reports a binary outcome that is all 0 or all 1 (for example every
	// task solved): the logit model has no finite maximum-likelihood estimate.
	ErrOutcomeConstant = errors.New("outcome has a single class")
	// ErrNotBinary reports a logit outcome value other than 0 or 1.
	ErrNotBinary = errors.New("outcome is not 0/1")
	// ErrSingular reports collinear predictors (the information matrix is not positive
	// definite).
	ErrSingular = errors.New("singular information matrix (collinear predictors)")
	// ErrSeparation reports complete or quasi-complete separation in a logit fit; the error
	// returned is a *SeparationError that also matches this sentinel.
	ErrSeparation = errors.New("separation")
	// ErrNoConvergence reports a Newton iteration that did not converge.
	ErrNoConvergence = errors.New("newton iteration did not converge")
	// ErrRange reports an argument outside its domain (a percentile outside [0, 100], a
	// confidence level outside (0, 1), ddof not 0 or 1).
	ErrRange = errors.New("argument out of range")
)

// SeparationError reports that the outcome of a logistic regression is separated by a linear
// combination of the predictors, so the maximum-likelihood estimate does not exist (some
// coefficient diverges). Complete is true when every observation is on its own side of the
// separating hyperplane, false for quasi-complete separation (some observations lie on it).
type SeparationError struct {
	Complete bool
}

func (e *SeparationError) Error() string {
	if e.Complete {
		return "stats: logit: complete separation (the predictors perfectly predict the outcome)"
	}
	return "stats: logit: quasi-complete separation (the predictors perfectly predict the outcome for a subset of observations)"
}

// Is makes errors.Is(err, ErrSeparation) true for a *SeparationError.
func (e *SeparationError) Is(target error) bool { return target == ErrSeparation }

// checkFinite returns an error wrapping ErrNotFinite naming the argument and index of the
// first NaN or infinite value.
func checkFinite(fn, name string, x []float64) error {
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("stats: %s: %s[%d] = %v: %w", fn, name, i, v, ErrNotFinite)
		}
	}
	return nil
}

// checkScale returns an error wrapping ErrOverflow when the sum of squares of the finite x
// overflows, so that a mean, a variance or a Newton step computed from x cannot.
func checkScale(fn, name string, x []float64) error {
	s := 0.0
	big := 0.0
	for _, v := range x {
		s += v * v
		big = math.Max(big, math.Abs(v))
	}
	if math.IsInf(s, 0) {
		return fmt.Errorf("stats: %s: %s holds values up to %g in magnitude: %w", fn, name, big, ErrOverflow)
	}
	return nil
}
