#!/usr/bin/python3
"""Reference values for stats/plot.KDE from scipy.stats.gaussian_kde (scipy 1.10).

Regenerate from the repository root with Debian's interpreter:

    /usr/bin/python3 stats/plot/testdata/gen_kde.py > stats/plot/testdata/kde.json
"""
import json
import sys

import numpy as np
import scipy
from scipy.stats import gaussian_kde

rng = np.random.default_rng(42)
cases = []
for name, values in (("normal_30", rng.normal(size=30)),
                     ("lognormal_200", rng.lognormal(size=200)),
                     ("ties_12", rng.integers(0, 4, size=12).astype(float))):
    points = np.linspace(values.min() - 1, values.max() + 1, 25)
    cases.append({"name": name, "values": values.tolist(), "points": points.tolist(),
                  "density": gaussian_kde(values)(points).tolist()})
json.dump({"scipy": scipy.__version__, "cases": cases}, sys.stdout, allow_nan=False)
sys.stdout.write("\n")
