#!/usr/bin/python3
"""Reference box-plot statistics from matplotlib.cbook.boxplot_stats (the numbers
matplotlib's boxplot draws) for package stats' BoxPlotStats.

Needs Debian's python3-matplotlib (3.6) besides numpy. From the repository root:

    /usr/bin/python3 stats/testdata/gen_box.py > stats/testdata/box.json

Samples: the metrics of the real functions in functions.csv (per package, all rows and the
tested rows only, as a "solved only" plot filters them) and small edge cases.
"""
import csv
import json
import os
import sys

import matplotlib
import numpy as np
from matplotlib import cbook


def fl(a):
    return [float(v) for v in np.asarray(a).ravel()]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "functions.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    samples = []
    for pkg in ("bs4", "pyflakes", "simplejson"):
        for col in ("code_lines", "cyclomatic", "harmonic", "halstead_volume"):
            sel = [r for r in rows if r["package"] == pkg]
            samples.append((f"{pkg}_{col}", [float(r[col]) for r in sel], 1.5))
            samples.append((f"{pkg}_{col}_tested", [float(r[col]) for r in sel if r["tested"] == "1"], 1.5))
    lines = [float(r["code_lines"]) for r in rows]
    samples.append(("all_code_lines_whis3", lines, 3.0))
    samples.append(("all_code_lines_whis0", lines, 0.0))
    samples += [
        ("one", [4.0], 1.5),
        ("two", [1.0, 10.0], 1.5),
        ("constant", [3.0] * 7, 1.5),
        ("ties", [1, 1, 1, 2, 2, 9, 9, 9, 40], 1.5),
        ("outlier_both_sides", [-50, 1, 2, 3, 4, 5, 6, 7, 60], 1.5),
        ("no_value_between_fence_and_box", [0, 10, 10, 10, 10, 20], 1.5),
        ("negative", [-8.5, -3.25, -3, -2.75, -1, 0.5], 1.5),
    ]
    out = []
    for name, x, whis in samples:
        b = cbook.boxplot_stats(np.asarray(x, dtype=float), whis=whis)[0]
        out.append({"name": name, "x": fl(x), "whis": whis,
                    "mean": float(b["mean"]), "q1": float(b["q1"]), "med": float(b["med"]),
                    "q3": float(b["q3"]), "iqr": float(b["iqr"]),
                    "whislo": float(b["whislo"]), "whishi": float(b["whishi"]),
                    "fliers": sorted(fl(b["fliers"]))})
    json.dump({"generator": "stats/testdata/gen_box.py",
               "versions": {"matplotlib": matplotlib.__version__, "numpy": np.__version__},
               "box": out}, sys.stdout, separators=(",", ":"), allow_nan=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
