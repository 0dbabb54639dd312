package stats

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"
)

// LogitOptions configures Logit. The zero value fits the raw predictors with the defaults
// below.
type LogitOptions struct {
	// ZScore standardizes every predictor, (x - mean)/sd, before the fit, so each slope is
	// the change in log-odds per standard deviation.
	ZScore bool
	// DDoF is the delta degrees of freedom of the z-score standard deviation: 0 (the
	// default; scipy.stats.zscore, numpy) or 1 (pandas, gonum stat.StdDev). Only the
	// slopes, their standard errors and the odds ratios depend on it.
	DDoF int
	// MaxIter bounds the Newton iterations; 0 means 100.
	MaxIter int
	// Tol is the convergence threshold on the Newton step, max|Δβ| ≤ Tol·(1 + max|β|);
	// 0 means 1e-10. Newton converges quadratically, so the estimate returned is accurate
	// to about machine precision.
	Tol float64
}

// LogitResult is a fitted logistic regression P(y=1 | x) = 1/(1 + exp(-(β₀ + Σ βⱼ xⱼ))).
// Slices indexed by parameter hold the intercept first, then one entry per predictor in the
// order given.
type LogitResult struct {
	Coef []float64 // β, maximum-likelihood estimates
	SE   []float64 // standard errors: square roots of the diagonal of Cov
	Z    []float64 // Wald statistics Coef/SE
	P    []float64 // two-sided p-values of Z from the standard normal (not t)
	// Cov is the inverse of the observed information Xᵀ W X at the estimate.
	Cov *mat.SymDense
	// LLF is the maximized log-likelihood; LLNull that of the intercept-only model
	// (closed form n₁·log(ȳ) + n₀·log(1-ȳ)).
	LLF, LLNull float64
	// McFaddenR2 is 1 - LLF/LLNull (statsmodels prsquared).
	McFaddenR2 float64
	// LLR is the likelihood-ratio statistic 2·(LLF - LLNull) of the fitted model against
	// the intercept-only model, and LLRPValue its upper tail under χ² with DfModel degrees
	// of freedom (statsmodels llr, llr_pvalue).
	LLR, LLRPValue float64
	// AIC = -2·LLF + 2K and BIC = -2·LLF + K·ln(N), K counting the intercept.
	AIC, BIC float64
	// N is the number of observations and K the number of parameters (the intercept
	// included); DfModel = K - 1 and DfResid = N - K (statsmodels df_model, df_resid).
	N, K             int
	DfModel, DfResid int
	// Converged reports that the Newton iteration met its tolerance. Logit returns
	// ErrNoConvergence instead of a result that did not converge, so a returned result
	// always has Converged set; the field is there so reports can state it.
	Converged bool
	// OddsRatio[j] = exp(Coef[j+1]), the multiplicative change in the odds per unit of
	// predictor j as fitted: per standard deviation when ZScore was set.
	OddsRatio []float64
	// Center and Scale describe the transformation applied to predictor j before the fit,
	// (x - Center[j])/Scale[j]: mean and standard deviation with ZScore, 0 and 1 without.
	Center, Scale []float64
	// ZScored and DDoF repeat the options the predictors were fitted with.
	ZScored bool
	DDoF    int
	// Iterations is the number of Newton steps taken.
	Iterations int
}

// LinearPredictor returns the log-odds β₀ + Σ βⱼ·(xⱼ - Center[j])/Scale[j] for raw predictor
// values x (one per predictor). It panics if len(x) is not the number of predictors.
func (r *LogitResult) LinearPredictor(x ...float64) float64 {
	if len(x) != r.K-1 {
		panic(fmt.Sprintf("stats: logit: %d predictor values for %d predictors", len(x), r.K-1))
	}
	eta := r.Coef[0]
	for j, v := range x {
		eta += r.Coef[j+1] * (v - r.Center[j]) / r.Scale[j]
	}
	return eta
}

// Prob returns the fitted probability P(y=1) for raw predictor values x.
func (r *LogitResult) Prob(x ...float64) float64 { return sigmoid(r.LinearPredictor(x...)) }

// Logit fits a logistic regression of the 0/1 outcome y on the predictors (predictors[j]
// holds the n values of predictor j; an intercept is always added) by Newton–Raphson (IRLS)
// with a Cholesky solve, and reports inference the way statsmodels' Logit does.
//
// Errors: ErrLength, ErrNotFinite, ErrNotBinary, ErrTooFew (n < 3 or n ≤ K),
// ErrOutcomeConstant (all 0 or all 1), ErrConstant (a predictor with one value),
// ErrSingular (collinear predictors), *SeparationError (matching ErrSeparation) when the
// MLE does not exist, ErrNoConvergence. Separation is detected before the fit with a linear
// program (Stiemke's alternative: the MLE exists iff some strictly positive weights w give
// Σ wᵢ·sᵢ·xᵢ = 0 with sᵢ = ±1 the sign of the outcome), where statsmodels would warn or
// return huge coefficients.
func Logit(y []float64, predictors [][]float64, opts *LogitOptions) (*LogitResult, error) {
	var o LogitOptions
	if opts != nil {
		o = *opts
	}
	if o.MaxIter == 0 {
		o.MaxIter = 100
	}
	if o.Tol == 0 {
		o.Tol = 1e-10
	}
	if o.DDoF != 0 && o.DDoF != 1 {
		return nil, fmt.Errorf("stats: logit: ddof %d, want 0 or 1: %w", o.DDoF, ErrRange)
	}
	n, p := len(y), len(predictors)
	k := p + 1
	if err := checkFinite("logit", "y", y); err != nil {
		return nil, err
	}
	for j, x := range predictors {
		if len(x) != n {
			return nil, fmt.Errorf("stats: logit: predictor %d has %d values, y has %d: %w", j, len(x), n, ErrLength)
		}
		if err := checkFinite("logit", fmt.Sprintf("predictor %d", j), x); err != nil {
			return nil, err
		}
		if err := checkScale("logit", fmt.Sprintf("predictor %d", j), x); err != nil {
			return nil, err
		}
	}
	if n < 3 || n <= k {
		return nil, fmt.Errorf("stats: logit: n = %d for %d parameters: %w", n, k, ErrTooFew)
	}
	ones := 0
	for i, v := range y {
		switch v {
		case 1:
			ones++
		case 0:
		default:
			return nil, fmt.Errorf("stats: logit: y[%d] = %v: %w", i, v, ErrNotBinary)
		}
	}
	if ones == 0 || ones == n {
		return nil, fmt.Errorf("stats: logit: all %d outcomes are %v: %w", n, y[0], ErrOutcomeConstant)
	}

	res := &LogitResult{N: n, K: k, Center: make([]float64, p), Scale: make([]float64, p), ZScored: o.ZScore}
	if o.ZScore {
		res.DDoF = o.DDoF
	}
	X := mat.NewDense(n, k, nil)
	for i := 0; i < n; i++ {
		X.Set(i, 0, 1)
	}
	for j, x := range predictors {
		if isConstant(x) {
			return nil, fmt.Errorf("stats: logit: predictor %d is constant (%v): %w", j, x[0], ErrConstant)
		}
		c, s := 0.0, 1.0
		if o.ZScore {
			var err error
			if c, s, err = meanSD("logit", x, o.DDoF); err != nil {
				return nil, fmt.Errorf("stats: logit: predictor %d: %w", j, err)
			}
		}
		res.Center[j], res.Scale[j] = c, s
		for i, v := range x {
			X.Set(i, j+1, (v-c)/s)
		}
	}

	if sep, err := separated(X, y); err != nil {
		return nil, err
	} else if sep != nil {
		return nil, sep
	}

	beta, info, llf, iters, err := newton(X, y, o.MaxIter, o.Tol)
	res.Iterations = iters
	if err != nil {
		return nil, err
	}
	var chol mat.Cholesky
	if !chol.Factorize(info) {
		return nil, fmt.Errorf("stats: logit: %w", ErrSingular)
	}
	cov := mat.NewSymDense(k, nil)
	if err := chol.InverseTo(cov); err != nil {
		return nil, fmt.Errorf("stats: logit: %w: %v", ErrSingular, err)
	}
	res.Coef = beta
	res.Cov = cov
	res.SE = make([]float64, k)
	res.Z = make([]float64, k)
	res.P = make([]float64, k)
	for j := range beta {
		res.SE[j] = math.Sqrt(cov.At(j, j))
		res.Z[j] = beta[j] / res.SE[j]
		res.P[j] = 2 * normalSF(math.Abs(res.Z[j]))
	}
	res.OddsRatio = make([]float64, p)
	for j := range res.OddsRatio {
		res.OddsRatio[j] = math.Exp(beta[j+1])
	}
	fn, fOnes := float64(n), float64(ones)
	ybar := fOnes / fn
	res.LLF = llf
	res.LLNull = fOnes*math.Log(ybar) + (fn-fOnes)*math.Log1p(-ybar)
	res.McFaddenR2 = 1 - llf/res.LLNull
	res.LLR = 2 * (llf - res.LLNull)
	res.DfModel, res.DfResid = k-1, n-k
	res.LLRPValue = chi2SF(res.LLR, float64(res.DfModel))
	res.AIC = -2*llf + 2*float64(k)
	res.BIC = -2*llf + float64(k)*math.Log(fn)
	res.Converged = true
	return res, nil
}

// ConfInt returns the Wald confidence interval of each parameter at level 1 - alpha
// (alpha = 0.05 for 95 %): Coef ∓ q·SE with q the 1 - alpha/2 quantile of the standard
// normal, as statsmodels' conf_int. lo and hi are indexed like Coef (intercept first).
func (r *LogitResult) ConfInt(alpha float64) (lo, hi []float64, err error) {
	if !(alpha > 0 && alpha < 1) {
		return nil, nil, fmt.Errorf("stats: logit: confidence interval alpha %v outside (0, 1): %w", alpha, ErrRange)
	}
	q := normalQuantile(1 - alpha/2)
	lo, hi = make([]float64, len(r.Coef)), make([]float64, len(r.Coef))
	for j, b := range r.Coef {
		lo[j], hi[j] = b-q*r.SE[j], b+q*r.SE[j]
	}
	return lo, hi, nil
}

// newton maximizes the logit log-likelihood from β = 0 and returns the estimate with the
// information matrix and log-likelihood there. A step that lowers the likelihood is halved
// (up to 30 times); that never changes the optimum, only guards the path to it.
func newton(X *mat.Dense, y []float64, maxIter int, tol float64) (beta []float64, info *mat.SymDense, llf float64, iters int, err error) {
	_, k := X.Dims()
	beta = make([]float64, k)
	info, grad, llf := logitTerms(X, y, beta)
	step := mat.NewVecDense(k, nil)
	var chol mat.Cholesky
	for it := 1; it <= maxIter; it++ {
		if !chol.Factorize(info) {
			return nil, nil, 0, it, fmt.Errorf("stats: logit: %w", ErrSingular)
		}
		if err := chol.SolveVecTo(step, mat.NewVecDense(k, grad)); err != nil {
			return nil, nil, 0, it, fmt.Errorf("stats: logit: %w: %v", ErrSingular, err)
		}
		next := make([]float64, k)
		var nInfo *mat.SymDense
		var nGrad []float64
		var nLLF float64
		scale := 1.0
		for h := 0; ; h++ {
			for j := range next {
				next[j] = beta[j] + scale*step.AtVec(j)
			}
			nInfo, nGrad, nLLF = logitTerms(X, y, next)
			if nLLF >= llf-1e-12*math.Abs(llf) || h == 30 {
				break
			}
			scale /= 2
		}
		maxStep, maxBeta := 0.0, 0.0
		for j := range next {
			maxStep = math.Max(maxStep, math.Abs(next[j]-beta[j]))
			maxBeta = math.Max(maxBeta, math.Abs(next[j]))
		}
		beta, info, grad, llf = next, nInfo, nGrad, nLLF
		if maxStep <= tol*(1+maxBeta) {
			return beta, info, llf, it, nil
		}
	}
	return nil, nil, 0, maxIter, fmt.Errorf("stats: logit: %d iterations: %w", maxIter, ErrNoConvergence)
}

// logitTerms returns the information matrix Xᵀ W X, the score Xᵀ(y - p) and the
// log-likelihood at beta.
func logitTerms(X *mat.Dense, y, beta []float64) (*mat.SymDense, []float64, float64) {
	n, k := X.Dims()
	acc := make([]float64, k*k) // upper triangle of Xᵀ W X, row-major
	grad := make([]float64, k)
	llf := 0.0
	for i := 0; i < n; i++ {
		row := X.RawRowView(i)
		eta := 0.0
		for j, v := range row {
			eta += v * beta[j]
		}
		pr := sigmoid(eta)
		if y[i] == 1 {
			llf += logSigmoid(eta)
		} else {
			llf += logSigmoid(-eta)
		}
		w := pr * (1 - pr)
		r := y[i] - pr
		for a := 0; a < k; a++ {
			grad[a] += row[a] * r
			wa := w * row[a]
			for b := a; b < k; b++ {
				acc[a*k+b] += wa * row[b]
			}
		}
	}
	return mat.NewSymDense(k, acc), grad, llf
}

func sigmoid(t float64) float64 {
	if t >= 0 {
		return 1 / (1 + math.Exp(-t))
	}
	e := math.Exp(t)
	return e / (1 + e)
}

// logSigmoid is log(1/(1+exp(-t))) without overflow or cancellation.
func logSigmoid(t float64) float64 {
	if t >= 0 {
		return -math.Log1p(math.Exp(-t))
	}
	return t - math.Log1p(math.Exp(t))
}

// separated decides whether the outcome is separated. With sᵢ = +1 for y=1 and -1 for y=0,
// aᵢ = sᵢ·xᵢ (xᵢ the design row with the intercept), the MLE exists iff some w > 0 has
// Σ wᵢ aᵢ = 0 (Stiemke's theorem). Writing w = z + t·1 with z ≥ 0, t ≥ 0 and Σ w = 1, a linear
// program maximizes t: infeasible means complete separation (Gordan: some β has aᵢ·β > 0 for
// all i), an optimum t = 0 quasi-complete separation. The constraint matrix is rank deficient
// exactly when X is (collinear predictors: ErrSingular) or when s lies in the column space of
// X (some β has Xβ = s: complete separation), so those two cases are decided first by
// least squares. Columns are standardized (separation is invariant under that). If the LP
// solver fails for numerical reasons, separated returns (nil, nil) and leaves the decision to
// the Newton iteration.
func separated(X *mat.Dense, y []float64) (*SeparationError, error) {
	n, k := X.Dims()
	Z := mat.NewDense(n, k, nil)
	s := make([]float64, n)
	for i := range s {
		s[i] = 1
		if y[i] == 0 {
			s[i] = -1
		}
		Z.Set(i, 0, 1)
	}
	for j := 1; j < k; j++ {
		col := mat.Col(nil, j, X)
		c := mean(col)
		sd := math.Sqrt(variance(col, c, 0))
		for i, v := range col {
			Z.Set(i, j, (v-c)/sd)
		}
	}
	var svd mat.SVD
	if !svd.Factorize(Z, mat.SVDThin) {
		return nil, nil
	}
	sv := svd.Values(nil)
	if sv[len(sv)-1] <= 1e-10*sv[0] {
		return nil, fmt.Errorf("stats: logit: %w", ErrSingular)
	}
	// Least squares Zβ ≈ s through the SVD; a zero residual means complete separation.
	var u mat.Dense
	svd.UTo(&u)
	resid := slices.Clone(s)
	for j := 0; j < k; j++ {
		dot := 0.0
		for i := 0; i < n; i++ {
			dot += u.At(i, j) * s[i]
		}
		for i := 0; i < n; i++ {
			resid[i] -= dot * u.At(i, j)
		}
	}
	if norm := floats.Norm(resid, 2); norm <= 1e-9*math.Sqrt(float64(n)) {
		return &SeparationError{Complete: true}, nil
	}

	A := mat.NewDense(k+1, n+1, nil)
	for j := 0; j < k; j++ {
		sum := 0.0
		for i := 0; i < n; i++ {
			a := s[i] * Z.At(i, j)
			A.Set(j, i, a)
			sum += a
		}
		A.Set(j, n, sum)
	}
	for i := 0; i < n; i++ {
		A.Set(k, i, 1)
	}
	A.Set(k, n, float64(n))
	b := make([]float64, k+1)
	b[k] = 1
	c := make([]float64, n+1)
	c[n] = -1
	opt, _, err := lp.Simplex(c, A, b, 1e-12, nil)
	switch {
	case errors.Is(err, lp.ErrInfeasible):
		return &SeparationError{Complete: true}, nil
	case err != nil:
		return nil, nil
	case -opt*float64(n) <= 1e-9:
		return &SeparationError{Complete: false}, nil
	}
	return nil, nil
}
