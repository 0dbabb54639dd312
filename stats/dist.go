package stats

import (
	"math"

	"gonum.org/v1/gonum/mathext"
)

// normalSF is the upper tail of the standard normal, 1 - Φ(z), computed with math.Erfc so it
// keeps full relative accuracy far into the tail (gonum's distuv.Normal.Survival returns 0
// from z ≈ 8.3).
func normalSF(z float64) float64 {
	return 0.5 * math.Erfc(z/math.Sqrt2)
}

// studentTSF is the upper tail P(T > t) of Student's t with df degrees of freedom, for t ≥ 0:
// ½·I_{df/(df+t²)}(df/2, ½).
func studentTSF(t, df float64) float64 {
	if math.IsInf(t, 1) {
		return 0
	}
	return 0.5 * mathext.RegIncBeta(df/2, 0.5, df/(df+t*t))
}

// normalQuantile is the inverse of the standard normal CDF, Φ⁻¹(p) for 0 < p < 1.
func normalQuantile(p float64) float64 {
	return -math.Sqrt2 * math.Erfcinv(2*p)
}

// chi2SF is the upper tail P(X > x) of the χ² distribution with df degrees of freedom, the
// regularized upper incomplete gamma function Q(df/2, x/2); 1 for x ≤ 0.
func chi2SF(x, df float64) float64 {
	if x <= 0 {
		return 1
	}
	if math.IsInf(x, 1) {
		return 0
	}
	return mathext.GammaIncRegComp(df/2, x/2)
}
