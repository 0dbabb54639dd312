// Package stats implements the analyses of the Breakpoint and PDB papers on gonum, with
// numbers equal to scipy 1.10, statsmodels 0.13 and numpy 1.24 to about 1e-8 relative
// (testdata/gen_golden.py produces the reference vectors the tests compare against).
//
// Terms:
//
//   - Logistic regression (Logit): P(y=1|x) = 1/(1+exp(-(β₀+Σβⱼxⱼ))) fitted by Newton–Raphson
//     with a Cholesky solve, statsmodels' Logit conventions: standard errors from the inverse
//     information, Wald z with two-sided normal p-values, llf, llnull (intercept-only model),
//     McFadden R² = 1 - llf/llnull, AIC = -2·llf + 2K and BIC = -2·llf + K·ln n with K
//     counting the intercept. Odds ratio: exp(β) per unit of the fitted predictor, per
//     standard deviation when the predictor was z-scored; exp(β₀) of the intercept is the
//     odds when every fitted predictor is 0 (at the predictors' means when z-scored).
//     Wald interval: β ∓ Φ⁻¹(1-α/2)·SE. Likelihood-ratio test: LLR = 2·(llf - llnull),
//     p from χ² with K-1 degrees of freedom. LogitResult.Summary prints all of it in
//     statsmodels' summary layout and number formats.
//   - Box-plot statistics (BoxPlotStats): numpy-linear quartiles, whiskers at the most
//     extreme values within 1.5 IQR of the box, the rest outliers — matplotlib's boxplot
//     defaults.
//   - Separation: a linear combination of the predictors that puts every observation with
//     y=1 on one side and every y=0 on the other (complete) or on the boundary
//     (quasi-complete). The MLE then does not exist; Logit returns a *SeparationError.
//   - z-score: (x - mean)/sd with ddof 0 (scipy, numpy; the default) or 1 (pandas, gonum).
//   - Mann–Whitney U: scipy.stats.mannwhitneyu; U is the statistic of the first sample.
//     Effect size r = Z/√N with Z the tie-corrected standardized U1 without continuity
//     correction (see MannWhitneyResult).
//   - Percentile: numpy's default linear method, bit for bit.
//   - Standard error: ddof 1 (scipy.stats.sem). Macro average: the mean over tasks. Micro
//     average: the mean of per-group means (the spec's naming).
//   - Bootstrap percentile interval: the percentiles of a statistic over resamples; failed
//     resamples are counted as missing, not fatal.
//
// Where this package differs from the references, on purpose:
//
//   - Inputs containing NaN or ±Inf are rejected with ErrNotFinite (numpy and scipy propagate
//     NaN). Constant inputs to a correlation or z-score fail with ErrConstant (scipy warns
//     and returns NaN).
//   - Pearson and Spearman need n ≥ 3 (scipy returns p = 1 for n = 2).
//   - Separation is an error (statsmodels raises only on complete separation, and on
//     quasi-complete separation returns diverging estimates with a warning).
//   - llnull is the closed form n₁·ln ȳ + n₀·ln(1-ȳ); statsmodels fits the null model
//     numerically with BFGS, which on real data (testdata/functions.csv) stops up to 3e-8
//     below that maximum, so its llr, llr_pvalue and prsquared can differ from the exact
//     ones here by ~2e-8 relative (the tests compare with both).
//   - Values finite but so large that a sum of squares overflows (|x| near 1e154 and
//     beyond) fail with ErrOverflow where numpy would return inf or nan; a percentile
//     between two neighbours whose difference overflows is still interpolated.
//
// The plots of the papers live in the subpackage stats/plot, so this package depends on gonum
// only and builds with CGO_ENABLED=0.
package stats
