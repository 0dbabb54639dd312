#!/usr/bin/python3
"""Separation verdicts for random logit datasets, decided by scipy's HiGHS LP solver with a
formulation independent of the one in stats (Konis 2007, the "safeBinaryRegression" check):

  quasi or complete:  max Σᵢ aᵢ·β  s.t. aᵢ·β ≥ 0, -1 ≤ β ≤ 1   (optimum > 0)
  complete:           max t       s.t. aᵢ·β ≥ t, -1 ≤ β ≤ 1, t ≤ 1  (optimum > 0)

with aᵢ = ±xᵢ (+ for y=1) and xᵢ the design row including the intercept. Small samples with
strong effects make separation common, so both verdicts occur often.

Regenerate from the repository root:

    /usr/bin/python3 stats/testdata/gen_separation.py > stats/testdata/separation.json
"""
import json
import sys

import numpy as np
import scipy
from scipy.optimize import linprog


def verdict(y, X):
    A = np.where(y[:, None] == 1, 1.0, -1.0) * X
    k = X.shape[1]
    r = linprog(-A.sum(axis=0), A_ub=-A, b_ub=np.zeros(len(y)), bounds=[(-1, 1)] * k,
                method="highs")
    assert r.status == 0, r.message
    if -r.fun <= 1e-7:
        return "none"
    c = np.zeros(k + 1)
    c[-1] = -1
    A_ub = np.hstack([-A, np.ones((len(y), 1))])
    r = linprog(c, A_ub=A_ub, b_ub=np.zeros(len(y)), bounds=[(-1, 1)] * k + [(None, 1)],
                method="highs")
    assert r.status == 0, r.message
    return "complete" if -r.fun > 1e-7 else "quasi"


rng = np.random.default_rng(2024)
cases = []
counts = {}
while len(cases) < 240:
    n = int(rng.integers(6, 60))
    p = int(rng.integers(1, 4))
    discrete = rng.uniform() < 0.4
    if discrete:
        x = rng.integers(0, 4, size=(n, p)).astype(float)
    else:
        x = rng.normal(size=(n, p))
    beta = rng.normal(scale=rng.choice([0.5, 3.0, 10.0]), size=p)
    eta = x @ beta + rng.normal(scale=0.3)
    y = (rng.uniform(size=n) < 1 / (1 + np.exp(-eta))).astype(float)
    if y.min() == y.max():
        continue
    if np.any(x.std(axis=0) == 0):
        continue
    X = np.column_stack([np.ones(n), x])
    if np.linalg.matrix_rank(X) < X.shape[1]:
        continue
    v = verdict(y, X)
    counts[v] = counts.get(v, 0) + 1
    cases.append({"y": y.tolist(), "x": x.T.tolist(), "separation": v})
json.dump({"scipy": scipy.__version__, "counts": counts, "cases": cases}, sys.stdout)
sys.stdout.write("\n")
