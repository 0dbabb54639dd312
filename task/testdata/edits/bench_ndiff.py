#!/usr/bin/python3
"""Compare task.DiffLines with the Python reference on the same file pairs, in one run.

Usage (from anywhere inside the module):

    /usr/bin/python3 task/testdata/edits/bench_ndiff.py

For each pair it times gen.get_diff (CPython's difflib.ndiff plus the reference merge) and
runs the Go benchmarks BenchmarkDiffLines / BenchmarkDiffLinesDifferentFiles, then prints
the ratio Python time / Go time. Machines here are shared and noisy: read the ratio, not
the absolute times.
"""
import os
import re
import subprocess
import sys
import timeit

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen  # noqa: E402

PAIRS = {"BenchmarkDiffLines": "bench-checker", "BenchmarkDiffLinesDifferentFiles": "dif-builders"}


def read(name):
    with open(os.path.join(HERE, "pairs", name), encoding="utf-8", newline="") as f:
        return f.read()


def main():
    out = subprocess.run(
        ["go", "test", "-run", "^$", "-bench", "^(" + "|".join(PAIRS) + ")$", "-benchtime", "20x",
         "-count", "5", "."],
        cwd=os.path.dirname(os.path.dirname(HERE)), capture_output=True, text=True, check=True).stdout
    for bench, pair in PAIRS.items():
        old, new = read(pair + ".old"), read(pair + ".new")
        n = 5
        py = min(timeit.repeat(lambda: gen.get_diff(old, new), number=1, repeat=n))
        runs = re.findall(r"^%s-\d+\s+\d+\s+(\d+(?:\.\d+)?) ns/op" % bench, out, re.M)
        if not runs:
            sys.exit("no result for %s in:\n%s" % (bench, out))
        go = min(float(r) for r in runs) / 1e9  # best of 5, like the Python side
        print("%-34s %-14s lines %5d/%5d  python %.4fs  go %.4fs  python/go %.1fx" % (
            bench, pair, len(old.split("\n")), len(new.split("\n")), py, go, py / go))


if __name__ == "__main__":
    main()
