#!/usr/bin/python3
"""Generate golden vectors for package stats from the reference implementations.

Regenerate (from the repository root) with Debian's interpreter, which has the references
installed (scipy 1.10, statsmodels 0.13, numpy 1.24):

    /usr/bin/python3 stats/testdata/gen_golden.py > stats/testdata/golden.json

Every dataset is drawn from a seeded numpy Generator, so the file is reproducible.
"""
import json
import sys
import warnings

import numpy as np
import scipy
import scipy.stats as st
import statsmodels
import statsmodels.api as sm
from statsmodels.tools.sm_exceptions import PerfectSeparationError

warnings.simplefilter("ignore")


def fl(a):
    return [float(v) for v in np.asarray(a).ravel()]


def logit_cases():
    cases = []
    rng = np.random.default_rng(20240801)
    for n in (20, 30, 200):
        for p in (1, 2):
            for scale in (1.0, 40.0):
                x = [rng.normal(loc=3.0, scale=scale, size=n) for _ in range(p)]
                if p == 2:
                    # Correlated predictors, like code lines and centrality.
                    x[1] = 0.6 * x[1] + 0.4 * x[0] * (1 if scale == 1 else 1)
                beta = [0.3] + [0.9 / scale * (j + 1) * (-1) ** j for j in range(p)]
                eta = beta[0] + sum(b * (xi - 3.0) for b, xi in zip(beta[1:], x))
                y = (rng.uniform(size=n) < 1 / (1 + np.exp(-eta))).astype(float)
                for zscore in (False, True):
                    for ddof in ((0, 1) if zscore else (0,)):
                        cols = [st.zscore(xi, ddof=ddof) if zscore else xi for xi in x]
                        X = sm.add_constant(np.column_stack(cols), has_constant="add")
                        res = sm.Logit(y, X).fit(disp=0, method="newton", maxiter=100)
                        cases.append({
                            "name": f"n{n}_p{p}_scale{scale:g}_z{int(zscore)}_ddof{ddof}",
                            "y": fl(y), "x": [fl(xi) for xi in x],
                            "zscore": zscore, "ddof": ddof,
                            "coef": fl(res.params), "se": fl(res.bse),
                            "z": fl(res.tvalues), "p": fl(res.pvalues),
                            "llf": float(res.llf), "llnull": float(res.llnull),
                            "mcfadden_r2": float(res.prsquared),
                            "aic": float(res.aic), "bic": float(res.bic),
                            "odds_ratio": fl(np.exp(res.params[1:])),
                            **inference(res),
                            "separation": "",
                        })
    # Separation: statsmodels raises PerfectSeparationError on complete separation and
    # returns diverging estimates (with a warning) on quasi-complete separation.
    x = np.arange(12, dtype=float)
    y = (x >= 6).astype(float)
    try:
        sm.Logit(y, sm.add_constant(x)).fit(disp=0)
        raise SystemExit("expected PerfectSeparationError")
    except PerfectSeparationError:
        pass
    cases.append({"name": "complete_separation", "y": fl(y), "x": [fl(x)],
                  "zscore": False, "ddof": 0, "separation": "complete"})
    x = np.array([0, 1, 2, 3, 4, 5, 5, 5, 6, 7, 8, 9], dtype=float)
    y = np.array([0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1], dtype=float)
    try:
        res = sm.Logit(y, sm.add_constant(x)).fit(disp=0, maxiter=100)
        assert abs(res.params[1]) > 5 or not res.mle_retvals["converged"], res.params
    except np.linalg.LinAlgError:
        pass  # the Hessian became singular while the slope diverged
    cases.append({"name": "quasi_separation", "y": fl(y), "x": [fl(x)],
                  "zscore": False, "ddof": 0, "separation": "quasi"})
    # Two predictors, separated by their sum only (neither alone separates).
    rng2 = np.random.default_rng(7)
    a = rng2.normal(size=30)
    b = rng2.normal(size=30)
    y = (a + b > 0).astype(float)
    cases.append({"name": "complete_separation_two_predictors", "y": fl(y),
                  "x": [fl(a), fl(b)], "zscore": True, "ddof": 0, "separation": "complete"})
    return cases


def inference(res):
    """The fields of a statsmodels Logit fit beyond the estimates: Wald intervals,
    likelihood-ratio test, degrees of freedom and convergence."""
    ci = np.asarray(res.conf_int(alpha=0.05))
    ci90 = np.asarray(res.conf_int(alpha=0.10))
    # statsmodels fits the intercept-only model numerically (BFGS), which can stop ~1e-8
    # short of its maximum; the closed form n1·log(p) + n0·log(1-p) is exact. The *_exact
    # fields recompute the likelihood-ratio quantities from it with scipy.
    y = np.asarray(res.model.endog)
    n1, n = float(y.sum()), float(len(y))
    llnull = n1 * np.log(n1 / n) + (n - n1) * np.log1p(-n1 / n)
    llr = 2 * (res.llf - llnull)
    return {"ci_lo": fl(ci[:, 0]), "ci_hi": fl(ci[:, 1]),
            "ci90_lo": fl(ci90[:, 0]), "ci90_hi": fl(ci90[:, 1]),
            "llr": float(res.llr), "llr_pvalue": float(res.llr_pvalue),
            "llnull_exact": float(llnull), "llr_exact": float(llr),
            "llr_pvalue_exact": float(st.chi2.sf(llr, res.df_model)),
            "mcfadden_r2_exact": float(1 - res.llf / llnull),
            "df_model": int(res.df_model), "df_resid": int(res.df_resid),
            "converged": bool(res.mle_retvals["converged"])}


# Logit fits on real task-level data: functions.csv holds the functions of three Debian
# Python packages measured by examples/callgraph (gen_functions.py), with the outcome
# "tested" (called directly from the package's own tests).
REAL_LOGIT = [
    # name, package ("" = all rows), predictors, zscore, ddof
    ("all_lines_harmonic_z", "", ["code_lines", "harmonic"], True, 0),
    ("all_lines_cyclomatic_harmonic_raw", "", ["code_lines", "cyclomatic", "harmonic"], False, 0),
    ("all_pagerank_raw", "", ["pagerank"], False, 0),
    ("all_halstead_outdegree_raw", "", ["halstead_volume", "out_degree"], False, 0),
    ("bs4_lines_harmonic_z1", "bs4", ["code_lines", "harmonic"], True, 1),
    ("pyflakes_lines_harmonic_z", "pyflakes", ["code_lines", "harmonic"], True, 0),
    ("simplejson_lines_z", "simplejson", ["code_lines"], True, 0),
]


def summary_text(res, yname, xnames):
    """statsmodels' summary without its Date and Time lines (the only ones that change
    from run to run)."""
    text = res.summary(yname=yname, xname=["const"] + xnames).as_text()
    return [l for l in text.split("\n") if not l.startswith(("Date:", "Time:"))]


def logit_real_cases():
    import csv
    import os
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "functions.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    cases = []
    for name, pkg, xs, zscore, ddof in REAL_LOGIT:
        sel = [r for r in rows if pkg in ("", r["package"])]
        y = np.array([float(r["tested"]) for r in sel])
        x = [np.array([float(r[c]) for r in sel]) for c in xs]
        cols = [st.zscore(xi, ddof=ddof) if zscore else xi for xi in x]
        X = sm.add_constant(np.column_stack(cols), has_constant="add")
        res = sm.Logit(y, X).fit(disp=0, method="newton", maxiter=100)
        cases.append({
            "name": name, "package": pkg, "y_col": "tested", "x_cols": xs,
            "zscore": zscore, "ddof": ddof, "n": int(res.nobs),
            "coef": fl(res.params), "se": fl(res.bse), "z": fl(res.tvalues),
            "p": fl(res.pvalues), "llf": float(res.llf), "llnull": float(res.llnull),
            "mcfadden_r2": float(res.prsquared), "aic": float(res.aic), "bic": float(res.bic),
            "odds_ratio": fl(np.exp(res.params)), **inference(res),
            "summary": summary_text(res, "tested", xs),
        })
    return cases


def mwu_cases():
    cases = []
    rng = np.random.default_rng(99)
    samples = []
    for n1, n2 in ((3, 4), (5, 7), (8, 8), (8, 30), (4, 200), (9, 12), (20, 30), (60, 45)):
        samples.append((f"cont_{n1}_{n2}", rng.normal(size=n1), rng.normal(0.5, size=n2)))
    for n1, n2 in ((5, 6), (7, 9), (20, 30), (100, 100)):
        samples.append((f"ties_{n1}_{n2}", rng.integers(0, 5, size=n1).astype(float),
                        rng.integers(1, 6, size=n2).astype(float)))
    samples.append(("exact_big_15_15", rng.normal(size=15), rng.normal(size=15)))
    samples.append(("exact_big_30_30", rng.normal(size=30), rng.normal(0.3, size=30)))
    samples.append(("disjoint_6_6", np.arange(6.0), np.arange(6.0) + 10))
    samples.append(("all_equal_4_5", np.ones(4), np.ones(5)))
    samples.append(("single_1_1", np.array([1.0]), np.array([2.0])))
    for name, x, y in samples:
        for alt in ("two-sided", "less", "greater"):
            for method in ("auto", "exact", "asymptotic"):
                for cont in ((True, False) if method != "exact" else (True,)):
                    r = st.mannwhitneyu(x, y, use_continuity=cont, alternative=alt, method=method)
                    cases.append({"name": f"{name}_{alt}_{method}_cc{int(cont)}",
                                  "x": fl(x), "y": fl(y), "alternative": alt,
                                  "method": method, "continuity": cont,
                                  "u": float(r.statistic),
                                  # NaN (no variation, no continuity correction) as null.
                                  "p": None if np.isnan(r.pvalue) else float(r.pvalue)})
    return cases


def corr_cases():
    cases = []
    rng = np.random.default_rng(5)
    for n in (3, 4, 20, 30, 200):
        x = rng.normal(size=n)
        y = 0.5 * x + rng.normal(size=n)
        cases.append((f"normal_{n}", x, y))
    x = rng.integers(0, 6, size=30).astype(float)
    y = x + rng.integers(0, 3, size=30)
    cases.append(("ties_30", x, y))
    x = rng.integers(0, 4, size=200).astype(float)
    y = rng.integers(0, 4, size=200) + 0.3 * x
    cases.append(("ties_200", x, y))
    x = np.arange(20.0)
    cases.append(("perfect_20", x, 2 * x + 1))
    cases.append(("perfect_negative_monotone_20", x, -np.exp(x / 5)))
    x = rng.normal(size=200)
    cases.append(("strong_200", x, x + 1e-3 * rng.normal(size=200)))
    out = []
    for name, x, y in cases:
        pr = st.pearsonr(x, y)
        sr = st.spearmanr(x, y)
        out.append({"name": name, "x": fl(x), "y": fl(y),
                    "pearson": float(pr.statistic), "pearson_p": float(pr.pvalue),
                    "spearman": float(sr.correlation), "spearman_p": float(sr.pvalue)})
    return out


def percentile_cases():
    rng = np.random.default_rng(11)
    qs = [0, 0.5, 1, 2.5, 5, 10, 12.5, 25, 33.3, 50, 66.7, 75, 80, 90, 95, 97.5, 99, 99.9, 100]
    arrays = [("one", np.array([3.5])), ("two", np.array([2.0, -1.0])),
              ("one_to_ten", np.arange(1.0, 11.0)), ("normal_20", rng.normal(size=20)),
              ("ties_30", rng.integers(0, 5, size=30).astype(float)),
              ("lognormal_200", rng.lognormal(size=200)),
              ("mixed_sign_201", rng.normal(scale=1e6, size=201))]
    return [{"name": name, "x": fl(a), "q": qs, "values": fl(np.percentile(a, qs))}
            for name, a in arrays]


def describe_cases():
    rng = np.random.default_rng(3)
    out = []
    for n in (2, 20, 200):
        x = rng.gamma(2.0, size=n)
        out.append({"name": f"gamma_{n}", "x": fl(x), "mean": float(np.mean(x)),
                    "sem": float(st.sem(x)),
                    "zscore0": fl(st.zscore(x, ddof=0)), "zscore1": fl(st.zscore(x, ddof=1)),
                    "rank": fl(st.rankdata(np.round(x, 1)))})
    return out


def bootstrap_cases():
    # Percentile bootstrap of the mean with explicit resampling indices, so the Go side can
    # use the same resamples.
    rng = np.random.default_rng(17)
    x = rng.exponential(size=40)
    idx = rng.integers(0, len(x), size=(300, len(x)))
    stats_ = x[idx].mean(axis=1)
    lo, hi = np.percentile(stats_, [2.5, 97.5])
    lo90, hi90 = np.percentile(stats_, [5, 95])
    return [{"name": "mean_exponential_40", "x": fl(x), "indices": idx.tolist(),
             "lo95": float(lo), "hi95": float(hi), "lo90": float(lo90), "hi90": float(hi90)}]


def main():
    json.dump({  # allow_nan=False: JSON has no NaN
        "generator": "stats/testdata/gen_golden.py",
        "versions": {"python": sys.version.split()[0], "numpy": np.__version__,
                     "scipy": scipy.__version__, "statsmodels": statsmodels.__version__},
        "logit": logit_cases(), "logit_real": logit_real_cases(), "mannwhitneyu": mwu_cases(), "corr": corr_cases(),
        "percentile": percentile_cases(), "describe": describe_cases(),
        "bootstrap": bootstrap_cases(),
    }, sys.stdout, indent=None, separators=(",", ":"), allow_nan=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
