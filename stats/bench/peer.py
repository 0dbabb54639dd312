#!/usr/bin/python3
"""Time the reference implementations on the same shapes as the Go benchmarks in
stats/bench_test.go, printing "name ns/op" lines (see compare.sh)."""
import timeit
import warnings

import numpy as np
import scipy.stats as st
import statsmodels.api as sm

warnings.simplefilter("ignore")


def best(fn, number):
    return min(timeit.repeat(fn, number=number, repeat=5)) / number * 1e9


rng = np.random.default_rng(3)
for n in (200, 2000):
    x1 = rng.normal(size=n)
    x2 = 0.5 * x1 + rng.normal(size=n)
    y = (rng.uniform(size=n) < 1 / (1 + np.exp(-(0.3 + 0.8 * x1 - 0.6 * x2)))).astype(float)
    X = sm.add_constant(np.column_stack([st.zscore(x1), st.zscore(x2)]))
    # The Go benchmark z-scores and fits; statsmodels' summary numbers (bse, pvalues, llnull)
    # are lazy, so touch them to do comparable work.
    def fit():
        r = sm.Logit(y, sm.add_constant(np.column_stack([st.zscore(x1), st.zscore(x2)]))).fit(disp=0)
        return r.bse, r.pvalues, r.llnull, r.aic, r.bic, r.prsquared
    print(f"Logit/n={n} {best(fit, 20):.0f}")

for n in (8, 30, 100):
    a = rng.normal(size=n)
    b = rng.normal(size=n) + 0.3
    st.mannwhitneyu(a, b, method="exact")  # warm scipy's memo of the distribution
    print(f"MannWhitneyExact/n={n} {best(lambda: st.mannwhitneyu(a, b, method='exact'), 50):.0f}")
