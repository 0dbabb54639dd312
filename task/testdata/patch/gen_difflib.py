#!/usr/bin/python3
"""Reference vectors for task.DiffText: Python's difflib.unified_diff on real files.

Regenerate (from the repository root) with Debian's interpreter, which is CPython 3.11 like
internal/difflib's reference:

    /usr/bin/python3 task/testdata/patch/gen_difflib.py > task/testdata/patch/difflib_vectors.json

Each case takes a real source file shipped by Debian (python3-simplejson, python3-bs4,
python3-pyflakes, python3-networkx), edits it with a seeded random script (replace, insert,
delete and duplicate lines; lines repeated elsewhere in the file so that the alignment has
choices to make) and records, for several context sizes, the hunks unified_diff prints.
Lines are split after each "\n" only, as git and task.DiffText split them (not
str.splitlines, which also splits at a lone "\r" and other separators); they keep their
terminators, so CRLF and a missing final
newline are content; unified_diff prints a line without "\\n" as it is, so the script adds
git's "\\ No newline at end of file" marker after such a line. File header lines
(---/+++) are dropped: task.DiffText's header is git's, not difflib's.
"""
import difflib
import json
import random
import re
import sys

ROOT = "/usr/lib/python3/dist-packages/"
FILES = [
    "simplejson/decoder.py",
    "simplejson/encoder.py",
    "bs4/formatter.py",
    "pyflakes/messages.py",
    "pyflakes/api.py",
    "networkx/algorithms/cycles.py",
    "networkx/utils/misc.py",
]


def split_nl(s):
    return re.findall(r"[^\n]*\n|[^\n]+$", s)


def edit(lines, rng, n):
    out = list(lines)
    for _ in range(n):
        op = rng.choice(["replace", "insert", "delete", "dup", "block"])
        if not out:
            out.append("x = 0\n")
            continue
        i = rng.randrange(len(out))
        if op == "replace":
            out[i] = out[i].rstrip("\n") + "  # edited\n"
        elif op == "insert":
            out.insert(i, "    pass\n" if rng.random() < 0.5 else "\n")
        elif op == "delete":
            del out[i]
        elif op == "dup":
            j = rng.randrange(len(out))
            out.insert(j, out[i])
        else:
            k = rng.randrange(1, 8)
            del out[i:i + k]
    return out


def hunks(a, b, n):
    text = []
    for i, line in enumerate(difflib.unified_diff(a, b, n=n)):
        if i < 2:  # ---/+++ header
            continue
        if line.startswith("@@"):
            # unified_diff writes "@@ -a,b +c,d @@\n"; keep it
            text.append(line)
            continue
        if line.endswith("\n"):
            text.append(line)
        else:
            text.append(line + "\n\\ No newline at end of file\n")
    return "".join(text)


def main():
    rng = random.Random(20261122)
    cases = []
    for name in FILES:
        with open(ROOT + name, encoding="utf-8", newline="") as f:
            src = f.read()
        lines = split_nl(src)
        variants = [
            ("lf", lines),
            ("crlf", [l[:-1] + "\r\n" if l.endswith("\n") else l for l in lines]),
            ("no-final-newline", lines[:-1] + [lines[-1].rstrip("\n")]),
        ]
        for vname, a in variants:
            b = edit(a, rng, rng.randrange(1, 25))
            if vname == "no-final-newline" and rng.random() < 0.5:
                b = b + ["trailer without newline"]
            b = split_nl("".join(b))
            cases.append({
                "name": name + ":" + vname,
                "old": "".join(a),
                "new": "".join(b),
                "hunks": {str(n): hunks(a, b, n) for n in (0, 1, 3, 5)},
            })
    # Small hand-made cases: empty sides, whole-file changes.
    for name, a, b in [
        ("empty-to-text", "", "a\nb"),
        ("text-to-empty", "a\nb\n", ""),
        ("newline-only", "a", "a\n"),
        ("repeated-lines", "x\n" * 300 + "y\n", "x\n" * 150 + "z\n" + "x\n" * 150 + "y\n"),
    ]:
        cases.append({"name": name, "old": a, "new": b,
                      "hunks": {str(n): hunks(split_nl(a), split_nl(b), n) for n in (0, 1, 3, 5)}})
    json.dump({"python": sys.version.split()[0], "cases": cases}, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


main()
