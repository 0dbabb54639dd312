package stats

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/mathext"
)

// Correlation is a correlation coefficient with its two-sided p-value.
type Correlation struct {
	R float64
	P float64
	N int
}

// Pearson returns Pearson's r of x and y with the two-sided p-value of scipy 1.10's pearsonr:
// r follows, under independence of normal variables, a Beta(n/2-1, n/2-1) law on [-1, 1], so
// p = 2·I_{(1-|r|)/2}(n/2-1, n/2-1) (equal to the t test with n-2 degrees of freedom). It needs
// n ≥ 3 (scipy answers n = 2 with p = 1, a p-value that carries no information) and fails
// with ErrConstant where scipy warns and returns NaN.
func Pearson(x, y []float64) (Correlation, error) {
	if err := checkCorrInput("pearson", x, y); err != nil {
		return Correlation{}, err
	}
	r := pearsonR(x, y)
	return Correlation{R: r, P: pearsonP(r, len(x)), N: len(x)}, nil
}

// Spearman returns Spearman's ρ, the Pearson correlation of the average ranks (ties
// averaged), with scipy 1.10's spearmanr p-value: t = ρ·√((n-2)/((1+ρ)(1-ρ))) and
// p = 2·P(T_{n-2} > |t|). Needs n ≥ 3; fails with ErrConstant on a constant variable.
func Spearman(x, y []float64) (Correlation, error) {
	if err := checkCorrInput("spearman", x, y); err != nil {
		return Correlation{}, err
	}
	rx, _ := rankTies(x)
	ry, _ := rankTies(y)
	rho := corrcoefR(rx, ry)
	return Correlation{R: rho, P: spearmanP(rho, len(x)), N: len(x)}, nil
}

func checkCorrInput(fn string, x, y []float64) error {
	if err := checkPair(fn, x, y); err != nil {
		return err
	}
	if len(x) < 3 {
		return fmt.Errorf("stats: %s: n = %d, need at least 3: %w", fn, len(x), ErrTooFew)
	}
	if isConstant(x) {
		return fmt.Errorf("stats: %s: x is constant (%v): %w", fn, x[0], ErrConstant)
	}
	if isConstant(y) {
		return fmt.Errorf("stats: %s: y is constant (%v): %w", fn, y[0], ErrConstant)
	}
	return nil
}

// pearsonR computes r as scipy does: centre, normalize each vector, dot, clip to [-1, 1].
func pearsonR(x, y []float64) float64 {
	mx, my := mean(x), mean(y)
	xm := make([]float64, len(x))
	ym := make([]float64, len(y))
	for i := range x {
		xm[i] = x[i] - mx
		ym[i] = y[i] - my
	}
	nx, ny := norm2(xm), norm2(ym)
	r := 0.0
	for i := range xm {
		r += (xm[i] / nx) * (ym[i] / ny)
	}
	return math.Max(math.Min(r, 1), -1)
}

// corrcoefR computes r as numpy.corrcoef does (scipy's spearmanr uses it): the covariance
// divided by each standard deviation in turn, then clipped. On ranks it is exact in more
// cases than pearsonR (for example ρ = -1 for three reversed ranks).
func corrcoefR(x, y []float64) float64 {
	mx, my := mean(x), mean(y)
	f := 1 / float64(len(x)-1)
	var sxy, sxx, syy float64
	for i := range x {
		dx, dy := x[i]-mx, y[i]-my
		sxy += dx * dy
		sxx += dx * dx
		syy += dy * dy
	}
	r := sxy * f / math.Sqrt(sxx*f) / math.Sqrt(syy*f)
	return math.Max(math.Min(r, 1), -1)
}

func norm2(x []float64) float64 {
	// Scaled to avoid overflow, like BLAS nrm2.
	scale, ssq := 0.0, 1.0
	for _, v := range x {
		if v == 0 {
			continue
		}
		a := math.Abs(v)
		if scale < a {
			ssq = 1 + ssq*(scale/a)*(scale/a)
			scale = a
		} else {
			ssq += (a / scale) * (a / scale)
		}
	}
	return scale * math.Sqrt(ssq)
}

func pearsonP(r float64, n int) float64 {
	ab := float64(n)/2 - 1
	// sf of Beta(ab, ab) on [-1, 1] at |r|: I_{1-x}(ab, ab) with x = (|r|+1)/2.
	x := (math.Abs(r) + 1) / 2
	return math.Min(2*mathext.RegIncBeta(ab, ab, 1-x), 1)
}

func spearmanP(rho float64, n int) float64 {
	df := float64(n - 2)
	t := rho * math.Sqrt(math.Max(df/((rho+1)*(1-rho)), 0))
	return 2 * studentTSF(math.Abs(t), df)
}

// CorrMatrix holds the pairwise correlations of a table of metrics: R.At(i, j) is the
// coefficient of metrics i and j and P.At(i, j) its p-value (the diagonal is 1 and 0).
type CorrMatrix struct {
	R, P *mat.SymDense
}

// CorrelationMatrix returns the pairwise Pearson (spearman false) or Spearman (spearman
// true) correlations of the columns of a table; columns[i] holds the values of metric i, all
// of the same length.
func CorrelationMatrix(columns [][]float64, spearman bool) (CorrMatrix, error) {
	k := len(columns)
	if k == 0 {
		return CorrMatrix{}, fmt.Errorf("stats: correlation matrix: no columns: %w", ErrTooFew)
	}
	f := Pearson
	if spearman {
		f = Spearman
	}
	r := mat.NewSymDense(k, nil)
	p := mat.NewSymDense(k, nil)
	for i := 0; i < k; i++ {
		for j := i; j < k; j++ {
			c, err := f(columns[i], columns[j])
			if i == j && err == nil {
				c = Correlation{R: 1, P: 0}
			}
			if err != nil {
				return CorrMatrix{}, fmt.Errorf("stats: correlation matrix: columns %d and %d: %w", i, j, err)
			}
			r.SetSym(i, j, c.R)
			p.SetSym(i, j, c.P)
		}
	}
	return CorrMatrix{R: r, P: p}, nil
}
