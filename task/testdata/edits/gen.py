#!/usr/bin/python3
"""Golden vectors for the PDB edit model (task/edit_*.go), computed with CPython's difflib.

Regenerate from this directory with Debian's interpreter (CPython 3.11, the same difflib the
reference evaluator used):

    /usr/bin/python3 gen.py

It reads real modules from /usr/lib/python3/dist-packages (python3-simplejson, python3-bs4,
python3-pyflakes, python3-networkx), writes each input pair to pairs/<name>.old and
pairs/<name>.new (so the Go tests need nothing outside testdata), and writes golden.json with,
for every pair: the ndiff classification and line opcodes, the edit script (keys with their
tie spaces, types, originals, modifieds, in order), the cleaned keys, the blocks (id, start,
end, keys) and strides, the reverse script's keys, digests of apply() on several scripts,
and verify() on several parameter sets.

The second text of a "mut-*" pair is the real module changed by a seeded series of
realistic edits (operators, constants, names, indentation, inserted lines including blank and
"popular" ones, deletions, moved and duplicated blocks, trailing whitespace, CRLF); "dif-*"
pairs are two genuinely different but related modules; "case-*" pairs are small edge cases.
The bench pair (pyflakes/checker.py, ~2,300 lines) is used by the Go benchmark and by
bench_ndiff.py.

The functions below restate the edit model (docs/pdb.md, Line edits) in Python, as the reference does.
"""
import difflib
import hashlib
import json
import os
import random
import sys

DIST = "/usr/lib/python3/dist-packages/"
ORDER = {"add": 0, "delete": 1, "modify": 2}


# ---- the edit model (docs/pdb.md), in the reference's terms -------------------------------

def split(text):
    return [l.rstrip() for l in text.split("\n")]


def get_diff(old, new):
    a, b = split(old), split(new)
    dels, adds = [], []
    ia = ib = 0
    for l in difflib.ndiff(a, b):
        tag = l[:2]
        if tag == "  ":
            ia += 1
            ib += 1
        elif tag == "- ":
            ia += 1
            dels.append((ia, l[2:]))
        elif tag == "+ ":
            ib += 1
            adds.append((ib, l[2:]))
    diff = {}
    delta = i = j = 0
    while i < len(dels) or j < len(adds):
        if i < len(dels) and j < len(adds) and dels[i][0] + delta == adds[j][0]:
            diff[str(dels[i][0])] = {"type": "modify", "original": dels[i][1], "modified": adds[j][1]}
            i += 1
            j += 1
        elif i < len(dels) and (j == len(adds) or dels[i][0] + delta < adds[j][0]):
            diff[str(dels[i][0])] = {"type": "delete", "original": dels[i][1], "modified": ""}
            delta -= 1
            i += 1
        else:
            key = str(adds[j][0] - delta)
            while key in diff:
                key += " "
            diff[key] = {"type": "add", "original": "", "modified": adds[j][1]}
            delta += 1
            j += 1
    merged = list(diff)
    items = sorted(diff.items(), key=lambda kv: (int(kv[0]), ORDER[kv[1]["type"]]))
    return dict(items), [k for k, _ in items] != merged


def clean(diff):
    return {k: v for k, v in diff.items()
            if not (v["original"].strip() == "" and v["modified"].strip() == "")}


def apply(code, diff):
    lines = split(code)
    for key in reversed(list(diff)):
        L, e = int(key), diff[key]
        if e["type"] == "modify":
            if 1 <= L <= len(lines):
                lines[L - 1] = e["modified"]
        elif e["type"] == "add":
            if 1 <= L <= len(lines) + 1:
                lines.insert(L - 1, e["modified"])
        elif e["type"] == "delete":
            if 1 <= L <= len(lines):
                del lines[L - 1]
    return "\n".join(l.rstrip() for l in lines)


def get_blocks(diff):
    """Walk last to first; blocks are returned top to bottom with ids 0, 1, ..."""
    blocks, prev = [], None
    for key in reversed(list(diff)):
        L, t = int(key), diff[key]["type"]
        if blocks and ((t in ("delete", "modify") and L == prev - 1) or (t == "add" and L == prev)):
            blocks[-1]["start"] = L
            blocks[-1]["keys"].insert(0, key)
        else:
            blocks.append({"start": L, "end": L, "keys": [key]})
        prev = L
    blocks.reverse()
    for i, b in enumerate(blocks):
        b["id"] = i
    return blocks


def bottom_is_add(diff, block):
    # the block's first edit in the last-to-first walk, i.e. the one at its end
    return diff[block["keys"][-1]]["type"] == "add"


def strides(diff, blocks):
    out = []
    for i, b in enumerate(blocks):
        before = b["start"] - 1 if i == 0 else \
            b["start"] - blocks[i - 1]["end"] - (0 if bottom_is_add(diff, blocks[i - 1]) else 1)
        after = None if i == len(blocks) - 1 else \
            blocks[i + 1]["start"] - b["end"] - (0 if bottom_is_add(diff, b) else 1)
        out.append([before, after])
    return out


def verify(diff, k, stride, max_lines, min_lines):
    blocks = get_blocks(diff)
    if k >= 0 and len(blocks) != k:
        return False
    for i, b in enumerate(blocks):
        if i > 0 and b["start"] - blocks[i - 1]["end"] < stride:
            return False
        n = len(b["keys"])
        if n < min_lines or (max_lines > 0 and n > max_lines):
            return False
    return True


# ---- inputs ---------------------------------------------------------------------------

def read(rel):
    with open(DIST + rel, encoding="utf-8") as f:
        return f.read()


OPS = [("==", "!="), ("<=", "<"), (" + ", " - "), ("True", "False"), (" and ", " or "),
       ("0", "1"), ("1", "2"), ("None", "0"), ("self.", "self._"), ("[0]", "[1]"), ("is not", "is")]
POPULAR = ["", "pass", "return None", "continue", ")"]


def mutate(text, rng, n, crlf=False, trailing=False):
    lines = text.split("\n")
    for _ in range(n):
        r = rng.random()
        i = rng.randrange(len(lines))
        ind = lines[i][:len(lines[i]) - len(lines[i].lstrip())]
        if r < 0.35:
            cands = [(a, b) for a, b in OPS if a in lines[i]]
            if cands:
                a, b = rng.choice(cands)
                lines[i] = lines[i].replace(a, b, 1)
            elif lines[i].strip():
                lines[i] = ind + "    " + lines[i].lstrip() if rng.random() < 0.3 else lines[i] + "  # changed"
        elif r < 0.55:
            new = rng.choice([ind + rng.choice(POPULAR), lines[max(0, i - 1)],
                              ind + "value = compute(%d)" % rng.randrange(100), ""])
            lines[i:i] = [new] * rng.choice([1, 1, 1, 2])
        elif r < 0.7:
            del lines[i:i + rng.choice([1, 1, 2, 3])]
        elif r < 0.82:
            blk = lines[i:i + rng.randint(2, 8)]
            del lines[i:i + len(blk)]
            j = rng.randrange(len(lines) + 1)
            lines[j:j] = blk
        elif r < 0.9:
            lines[i:i] = lines[i:i + rng.randint(1, 4)]
        else:
            if lines[i].strip():
                lines[i] = lines[i].replace("_", "", 1) if "_" in lines[i] else lines[i].upper()
        if not lines:
            lines = [""]
    if trailing:
        lines = [l + rng.choice(["", "", " ", "\t", "  "]) for l in lines]
    sep = "\n"
    out = sep.join(lines)
    if crlf:
        out = "\n".join(l + ("\r" if rng.random() < 0.7 else "") for l in out.split("\n"))
    return out


def main():
    rng = random.Random(7)
    pairs = []
    muts = [
        ("mut-scanner", "simplejson/scanner.py", 6, {}),
        ("mut-decoder", "simplejson/decoder.py", 12, {}),
        ("mut-encoder", "simplejson/encoder.py", 25, {}),
        ("mut-messages", "pyflakes/messages.py", 20, {}),
        ("mut-htmlparser", "bs4/builder/_htmlparser.py", 15, {}),
        ("mut-diagnose", "bs4/diagnose.py", 10, {"crlf": True, "trailing": True}),
        ("mut-formatter", "bs4/formatter.py", 30, {}),
        ("mut-api", "pyflakes/api.py", 4, {"trailing": True}),
        ("mut-builder", "bs4/builder/__init__.py", 3, {}),
        ("mut-betweenness", "networkx/algorithms/centrality/betweenness.py", 40, {}),
        ("mut-dammit", "bs4/dammit.py", 20, {}),
        ("bench-checker", "pyflakes/checker.py", 60, {}),
    ]
    for name, rel, n, kw in muts:
        old = read(rel)
        pairs.append((name, old, mutate(old, rng, n, **kw)))
    difs = [
        ("dif-betweenness", "networkx/algorithms/centrality/betweenness.py",
         "networkx/algorithms/centrality/betweenness_subset.py"),
        ("dif-builders", "bs4/builder/_htmlparser.py", "bs4/builder/_lxml.py"),
        ("dif-reporter-api", "pyflakes/reporter.py", "pyflakes/api.py"),
        ("dif-scanner-errors", "simplejson/scanner.py", "simplejson/errors.py"),
    ]
    for name, r1, r2 in difs:
        pairs.append((name, read(r1), read(r2)))
    cases = [
        ("case-empty-old", "", "a\nb\n"),
        ("case-empty-new", "a\nb\n", ""),
        ("case-identical", "x = 1\ny = 2\n", "x = 1  \ny = 2\t\n"),
        ("case-append", "a\nb", "a\nb\nc\nd"),
        ("case-prepend-ties", "a\nb", "x\ny\nz\na\nb"),
        ("case-modify-add", "def f():\n    return 1\n", "def f():\n    x = 0\n    return x + 1\n"),
        ("case-crlf", "a\r\nb\r\nc\r\n", "a\nB\nc\n"),
        ("case-blank-lines", "a\n\nb\n\nc", "a\nb\n\n\n\nc"),
        ("case-leading-ws", "if x:\n    y\n", "if x:\n        y\n"),
        ("case-swap", "one\ntwo\nthree\n", "ore\ntree\nemu\n"),
        ("case-unicode-space", "a\u3000\nb\x1c\nc\u00a0", "a\nb\nc"),
    ]
    pairs.extend(cases)

    os.makedirs("pairs", exist_ok=True)
    # str.isspace() decides what rstrip()/strip() remove; Go's unicode.IsSpace differs.
    out = {"python": sys.version.split()[0],
           "isspace": [c for c in range(0x110000) if chr(c).isspace()], "pairs": []}
    for name, old, new in pairs:
        for ext, text in (("old", old), ("new", new)):
            with open("pairs/%s.%s" % (name, ext), "w", encoding="utf-8", newline="") as f:
                f.write(text)
        a, b = split(old), split(new)
        diff, reordered = get_diff(old, new)
        assert apply(old, diff) == "\n".join(b), name
        cl = clean(diff)
        blocks = get_blocks(diff)
        alt = {k: v for bl in blocks[::2] for k in bl["keys"] for v in [diff[k]]}
        shifted = {str(int(k) + len(a) // 2) + " " * (len(k) - len(k.rstrip())): v for k, v in diff.items()}
        rev, _ = get_diff(apply(old, diff), old)
        assert apply(apply(old, diff), rev) == "\n".join(a), name
        sha = lambda s: hashlib.sha256(s.encode("utf-8")).hexdigest()
        nb = len(blocks)
        out["pairs"].append({
            "name": name,
            "ndiff": "".join(l[0] for l in difflib.ndiff(a, b) if l[0] != "?"),
            "opcodes": [[t[0][0]] + list(t[1:]) for t in difflib.SequenceMatcher(None, a, b).get_opcodes()],
            "edits": [[k, v["type"], v["original"], v["modified"]] for k, v in diff.items()],
            "reordered_by_sort": reordered,
            "clean_keys": list(cl),
            "blocks": [[bl["id"], bl["start"], bl["end"], bl["keys"]] for bl in blocks],
            "strides": strides(diff, blocks),
            "reverse_keys": list(rev),
            "apply_clean": sha(apply(old, cl)),
            "apply_alternate_blocks": sha(apply(old, alt)),
            "apply_shifted": sha(apply(old, shifted)),
            "verify": [[k, s, mx, mn, verify(diff, k, s, mx, mn)]
                       for k, s, mx, mn in [(nb, 0, 0, 1), (nb, 3, 0, 1), (nb, 5, 4, 1), (-1, 2, 2, 1),
                                            (nb + 1, 0, 0, 1), (-1, 0, 1, 1), (-1, 1, 0, 2)]],
        })
    with open("golden.json", "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1, ensure_ascii=False)
        f.write("\n")


if __name__ == "__main__":
    main()
