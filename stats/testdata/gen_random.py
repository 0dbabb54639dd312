#!/usr/bin/python3
"""A randomized sweep against the references, complementing the hand-picked cases of
gen_golden.py: random sizes, tie patterns, alternatives, methods, scales and q values.

Regenerate from the repository root with Debian's interpreter (numpy 1.24, scipy 1.10,
statsmodels 0.13):

    /usr/bin/python3 stats/testdata/gen_random.py > stats/testdata/random.json
"""
import json
import sys
import warnings

import numpy as np
import scipy.stats as st
import statsmodels.api as sm

warnings.simplefilter("ignore")
rng = np.random.default_rng(12345)

mwu = []
while len(mwu) < 400:
    n1, n2 = int(rng.integers(1, 25)), int(rng.integers(1, 25))
    if rng.uniform() < 0.5:  # heavy ties
        x = rng.integers(0, int(rng.integers(2, 10)), n1).astype(float)
        y = rng.integers(0, int(rng.integers(2, 10)), n2).astype(float)
    else:
        x = rng.normal(size=n1)
        y = rng.normal(rng.normal(), size=n2)
    alt = str(rng.choice(["two-sided", "less", "greater"]))
    method = str(rng.choice(["auto", "exact", "asymptotic"]))
    cc = bool(rng.uniform() < 0.7)
    r = st.mannwhitneyu(x, y, alternative=alt, method=method, use_continuity=cc)
    if np.isnan(r.pvalue):
        continue
    mwu.append({"x": x.tolist(), "y": y.tolist(), "alternative": alt, "method": method,
                "continuity": cc, "u": float(r.statistic), "p": float(r.pvalue)})

corr = []
while len(corr) < 150:
    n = int(rng.integers(3, 60))
    if rng.uniform() < 0.5:
        x = rng.integers(0, 5, n).astype(float)
        y = rng.integers(0, 5, n).astype(float) + x * rng.uniform()
    else:
        x = rng.normal(size=n)
        y = rng.normal(size=n) + x * rng.normal()
    if np.all(x == x[0]) or np.all(y == y[0]):
        continue
    p, s = st.pearsonr(x, y), st.spearmanr(x, y)
    corr.append({"x": x.tolist(), "y": y.tolist(), "pearson": float(p.statistic),
                 "pearson_p": float(p.pvalue), "spearman": float(s.correlation),
                 "spearman_p": float(s.pvalue)})

percentile = []
for _ in range(200):
    n = int(rng.integers(1, 50))
    x = np.round(rng.normal(size=n) * 10.0 ** rng.integers(-3, 4), int(rng.integers(0, 5)))
    q = float(rng.choice([rng.uniform(0, 100), float(rng.integers(0, 101)),
                          round(rng.uniform(0, 100), 1)]))
    percentile.append({"x": x.tolist(), "q": q, "value": float(np.percentile(x, q))})

logit = []
while len(logit) < 60:
    n, p = int(rng.integers(15, 120)), int(rng.integers(1, 4))
    x = rng.normal(size=(n, p)) * rng.uniform(0.1, 50, size=p) + rng.normal(size=p) * 5
    eta = rng.normal() + (x - x.mean(0)) / x.std(0) @ rng.normal(size=p)
    y = (rng.uniform(size=n) < 1 / (1 + np.exp(-eta))).astype(float)
    if y.min() == y.max():
        continue
    try:
        r = sm.Logit(y, sm.add_constant(x)).fit(disp=0, maxiter=100)
    except Exception:  # PerfectSeparationError: covered by gen_separation.py
        continue
    if not r.mle_retvals["converged"] or np.max(np.abs(r.params)) > 20:
        continue  # quasi-separated draws: statsmodels' numbers are not an MLE
    logit.append({"y": y.tolist(), "x": x.T.tolist(), "coef": r.params.tolist(),
                  "se": r.bse.tolist(), "p": r.pvalues.tolist(), "llf": float(r.llf),
                  "llnull": float(r.llnull), "aic": float(r.aic), "bic": float(r.bic)})

json.dump({"mannwhitneyu": mwu, "corr": corr, "percentile": percentile, "logit": logit},
          sys.stdout, allow_nan=False)
sys.stdout.write("\n")
