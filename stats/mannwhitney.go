package stats

import (
	"fmt"
	"math"
)

// Alternative is the alternative hypothesis of a test.
type Alternative int

const (
	// TwoSided tests whether the distributions differ (the default).
	TwoSided Alternative = iota
	// Less tests whether the first sample tends to be smaller than the second.
	Less
	// Greater tests whether the first sample tends to be larger than the second.
	Greater
)

func (a Alternative) String() string {
	switch a {
	case TwoSided:
		return "two-sided"
	case Less:
		return "less"
	case Greater:
		return "greater"
	}
	return fmt.Sprintf("Alternative(%d)", int(a))
}

// ParseAlternative parses "two-sided", "less" or "greater" (scipy's spellings).
func ParseAlternative(s string) (Alternative, error) {
	for _, a := range []Alternative{TwoSided, Less, Greater} {
		if a.String() == s {
			return a, nil
		}
	}
	return 0, fmt.Errorf("stats: unknown alternative %q (want two-sided, less or greater): %w", s, ErrRange)
}

// MWUMethod selects how the Mann–Whitney p-value is computed.
type MWUMethod int

const (
	// MWUAuto uses MWUExact when one sample has at most 8 values and there are no ties,
	// MWUAsymptotic otherwise (scipy 1.10's rule).
	MWUAuto MWUMethod = iota
	// MWUExact uses the exact null distribution of U, which assumes no ties. With ties, U
	// (then a multiple of ½) is truncated to an integer before the tail is read, as scipy
	// 1.10 does.
	MWUExact
	// MWUAsymptotic uses the normal approximation with the tie-corrected variance and,
	// unless disabled, the continuity correction.
	MWUAsymptotic
)

func (m MWUMethod) String() string {
	switch m {
	case MWUAuto:
		return "auto"
	case MWUExact:
		return "exact"
	case MWUAsymptotic:
		return "asymptotic"
	}
	return fmt.Sprintf("MWUMethod(%d)", int(m))
}

// ParseMWUMethod parses "auto", "exact" or "asymptotic".
func ParseMWUMethod(s string) (MWUMethod, error) {
	for _, m := range []MWUMethod{MWUAuto, MWUExact, MWUAsymptotic} {
		if m.String() == s {
			return m, nil
		}
	}
	return 0, fmt.Errorf("stats: unknown Mann-Whitney method %q (want auto, exact or asymptotic): %w", s, ErrRange)
}

// MannWhitneyOptions configures MannWhitneyU. The zero value is scipy's default: two-sided,
// automatic method, continuity correction on.
type MannWhitneyOptions struct {
	Alternative Alternative
	Method      MWUMethod
	// NoContinuity turns the continuity correction of the asymptotic method off (scipy's
	// use_continuity=False).
	NoContinuity bool
}

// MannWhitneyResult is the outcome of a Mann–Whitney U test.
type MannWhitneyResult struct {
	// U is the statistic of the first sample, U1 = R1 - n1(n1+1)/2 with R1 the sum of its
	// average ranks in the pooled sample (what scipy returns).
	U float64
	// P is the p-value under the chosen alternative.
	P float64
	// Method is the method actually used (never MWUAuto).
	Method MWUMethod
	// Z is the standardized U1: (U1 - n1·n2/2)/σ with the tie-corrected σ and WITHOUT the
	// continuity correction, whatever the method. Positive when the first sample tends to
	// be larger. Zero when all values are equal (σ = 0).
	Z float64
	// R is the effect size Z/√(n1+n2), with Z as above.
	R float64
	// N1 and N2 are the sample sizes.
	N1, N2 int
}

// MannWhitneyU performs the Mann–Whitney U rank test of x against y, matching
// scipy.stats.mannwhitneyu (scipy 1.10):
//
//   - U = U1 for x; for the p-value the statistic is max(U1, U2) for two-sided (p doubled and
//     clipped to 1), U1 for Greater and U2 for Less, each read in the upper tail.
//   - Asymptotic: μ = n1·n2/2, σ² = n1·n2/12·((N+1) - Σ(t³-t)/(N(N-1))), z = (U - μ - ½)/σ with
//     the continuity correction, p = sf(z) from math.Erfc. If σ = 0 (all values equal) the
//     p-value is 1 with the continuity correction and NaN without, as scipy.
//   - Exact: the null distribution of U by counting (Gaussian binomial coefficients), p =
//     P(U ≥ ⌊u⌋).
//
// Both samples must be non-empty and finite.
func MannWhitneyU(x, y []float64, opts *MannWhitneyOptions) (MannWhitneyResult, error) {
	var o MannWhitneyOptions
	if opts != nil {
		o = *opts
	}
	if len(x) == 0 || len(y) == 0 {
		return MannWhitneyResult{}, fmt.Errorf("stats: mann-whitney: empty sample (n1 = %d, n2 = %d): %w", len(x), len(y), ErrTooFew)
	}
	if err := checkFinite("mann-whitney", "x", x); err != nil {
		return MannWhitneyResult{}, err
	}
	if err := checkFinite("mann-whitney", "y", y); err != nil {
		return MannWhitneyResult{}, err
	}
	if o.Alternative < TwoSided || o.Alternative > Greater {
		return MannWhitneyResult{}, fmt.Errorf("stats: mann-whitney: %v: %w", o.Alternative, ErrRange)
	}
	n1, n2 := len(x), len(y)
	xy := make([]float64, 0, n1+n2)
	xy = append(append(xy, x...), y...)
	ranks, tieTerm := rankTies(xy)
	r1 := 0.0
	for _, r := range ranks[:n1] {
		r1 += r
	}
	fn1, fn2 := float64(n1), float64(n2)
	u1 := r1 - fn1*(fn1+1)/2
	u2 := fn1*fn2 - u1

	method := o.Method
	switch method {
	case MWUAuto:
		method = MWUExact
		if (n1 > 8 && n2 > 8) || tieTerm > 0 {
			method = MWUAsymptotic
		}
	case MWUExact, MWUAsymptotic:
	default:
		return MannWhitneyResult{}, fmt.Errorf("stats: mann-whitney: %v: %w", o.Method, ErrRange)
	}

	var u, factor float64
	switch o.Alternative {
	case Greater:
		u, factor = u1, 1
	case Less:
		u, factor = u2, 1
	default:
		u, factor = math.Max(u1, u2), 2
	}

	n := fn1 + fn2
	mu := fn1 * fn2 / 2
	sigma := math.Sqrt(fn1 * fn2 / 12 * ((n + 1) - tieTerm/(n*(n-1))))
	var p float64
	if method == MWUExact {
		p = mwuExactSF(int(u), n1, n2)
	} else {
		num := u - mu
		if !o.NoContinuity {
			num -= 0.5
		}
		p = normalSF(num / sigma)
	}
	p = math.Min(math.Max(p*factor, 0), 1)

	z := 0.0
	if sigma > 0 {
		z = (u1 - mu) / sigma
	}
	return MannWhitneyResult{U: u1, P: p, Method: method, Z: z, R: z / math.Sqrt(n), N1: n1, N2: n2}, nil
}

// mwuExactSF returns P(U ≥ k) under the null for samples of sizes m and n, summed as scipy
// does: the cdf at m·n - k, accumulating the probability mass from 0 upward.
func mwuExactSF(k, m, n int) float64 {
	kk := m*n - k
	if kk < 0 {
		return 0
	}
	counts := mwuCounts(m, n)
	total := binomial(m+n, m)
	p := 0.0
	for j := 0; j <= kk; j++ {
		p += counts[j] / total
	}
	return p
}

// mwuCounts returns, for j = 0..m·n, the number of arrangements of m x's and n y's with U = j:
// the coefficients of the Gaussian binomial [m+n choose m]_q, built as the product over
// i = 1..a of (1 - q^(b+i)) / (1 - q^i) with a = min(m, n), b = max(m, n). Every
// intermediate polynomial is [b+i choose i]_q, so all coefficients are non-negative
// integers (exact in float64 up to 2^53).
func mwuCounts(m, n int) []float64 {
	a, b := min(m, n), max(m, n)
	c := make([]float64, a*b+1)
	c[0] = 1
	for i := 1; i <= a; i++ {
		deg := i * b // degree after this step
		// Multiply by (1 - q^(b+i)); descending so c[k-(b+i)] is still the old value.
		for k := deg; k >= b+i; k-- {
			c[k] -= c[k-b-i]
		}
		// Divide by (1 - q^i); ascending so c[k-i] is already the quotient.
		for k := i; k <= deg; k++ {
			c[k] += c[k-i]
		}
	}
	// Once the counts pass 2^53 the subtractions round, and in the upper tail (small true
	// counts built from large intermediate ones) that rounding can even turn counts
	// negative. The lower tail stays accurate (the tests check 1e-12 against exact
	// integers), so restore the upper half from the symmetry count[k] = count[m·n-k].
	for k := len(c) / 2; k < len(c); k++ {
		c[k] = c[len(c)-1-k]
	}
	return c
}

// binomial returns C(n, k) in floating point.
func binomial(n, k int) float64 {
	k = min(k, n-k)
	r := 1.0
	for i := 1; i <= k; i++ {
		r = r * float64(n-k+i) / float64(i)
	}
	return r
}
