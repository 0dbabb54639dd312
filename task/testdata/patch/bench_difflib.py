#!/usr/bin/python3
"""Peer timing for BenchmarkDiffText: CPython's difflib.unified_diff on the same pair.

    /usr/bin/python3 bench_difflib.py      (from this directory; bench.sh runs both)

Prints ns/op for unified_diff(old, new, n=3) on the "simplejson/encoder.py:lf" vector of
difflib_vectors.json, lines split after "\\n" as task.DiffText splits them.
"""
import difflib
import json
import re
import timeit

with open("difflib_vectors.json", encoding="utf-8") as f:
    cases = {c["name"]: c for c in json.load(f)["cases"]}
c = cases["simplejson/encoder.py:lf"]


def split_nl(s):
    return re.findall(r"[^\n]*\n|[^\n]+$", s)


def run():
    return list(difflib.unified_diff(split_nl(c["old"]), split_nl(c["new"]), n=3))


n, total = timeit.Timer(run).autorange()
best = min(timeit.repeat(run, number=n, repeat=5)) / n
print("python_unified_diff_ns_per_op %.0f" % (best * 1e9))
