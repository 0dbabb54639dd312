#!/usr/bin/python3
"""Build functions.csv: task-level data from real call graphs of Debian Python packages.

Each row is one function or method (a candidate repair task) of a package installed by
Debian (python3-simplejson, python3-bs4, python3-pyflakes), measured by the project's own
program examples/callgraph on a copy of the package:

    package, id            the package and the callgraph node id (file::qualified name)
    code_lines, cyclomatic, halstead_volume, nesting
                           complexity metrics of the function
    harmonic, pagerank, betweenness, out_degree
                           centrality in the call graph of the non-test code
                           (callgraph -skip-tests)
    tested                 1 if a function in the package's own test files calls it
                           directly (an edge from a node that -skip-tests removes), else 0

Modules and classes are left out. Rows are sorted by package and id, so the file is
reproducible for given package versions. From the repository root:

    /usr/bin/python3 stats/testdata/gen_functions.py > stats/testdata/functions.csv

It needs the go command (to build examples/callgraph) and the three Debian packages.
"""
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile

PACKAGES = ("simplejson", "bs4", "pyflakes")
SITE = "/usr/lib/python3/dist-packages"


def graph(binary, root, skip_tests):
    args = [binary, "-lang", "python"] + (["-skip-tests"] if skip_tests else []) + [root]
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def main():
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    with tempfile.TemporaryDirectory() as tmp:
        binary = os.path.join(tmp, "callgraph")
        subprocess.run(["go", "build", "-o", binary, "./examples/callgraph"], check=True, cwd=repo)
        rows = []
        for pkg in PACKAGES:
            root = os.path.join(tmp, pkg)
            shutil.copytree(os.path.join(SITE, pkg), os.path.join(root, pkg),
                            ignore=shutil.ignore_patterns("__pycache__"))
            full = graph(binary, root, False)
            code = graph(binary, root, True)
            kept = {n["id"] for n in code["nodes"]}
            tests = {n["id"] for n in full["nodes"]} - kept
            tested = {e["callee"] for e in full["edges"] if e["caller"] in tests}
            for n in code["nodes"]:
                if n["kind"] not in ("function", "method"):
                    continue
                m, c = n["metrics"], n["centrality"]
                rows.append([pkg, n["id"], m["code_lines"], m["cyclomatic"],
                             repr(float(m["halstead_volume"])), m["nesting"],
                             repr(float(c["harmonic"])), repr(float(c["pagerank"])),
                             repr(float(c["betweenness"])), c["out_degree"],
                             int(n["id"] in tested)])
    rows.sort(key=lambda r: (r[0], r[1]))
    w = csv.writer(sys.stdout, lineterminator="\n")
    w.writerow(["package", "id", "code_lines", "cyclomatic", "halstead_volume", "nesting",
                "harmonic", "pagerank", "betweenness", "out_degree", "tested"])
    w.writerows(rows)


if __name__ == "__main__":
    main()
