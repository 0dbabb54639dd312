#!/usr/bin/python3
"""Reference-mode vectors for package metrics.

An independent, literal Python reading of docs/pdb.md's Reference algorithm (the
released evaluator's behaviour: dict-keyed diffs with space-suffixed tie keys, Python
list indexing — so line 0 is the last line — and the essential-search membership bug),
using Python's own difflib.ndiff for the edit model. It scores seeded random tasks with
a deterministic oracle (a program passes iff it is the fixed program or its CRC-32 is
divisible by 3) and writes reference_vectors.json; TestReferenceVectors checks that
metrics.Score in Reference mode gives the same precision, recall and unit score.

Regenerate (from the repository root):

    /usr/bin/python3 metrics/testdata/reference.py > metrics/testdata/reference_vectors.json
"""
import difflib
import json
import random
import zlib

ORDER = {"add": 0, "delete": 1, "modify": 2}


def lines_of(text):
    return [l.rstrip() for l in text.split("\n")]


def get_diff(old, new):
    a, b = lines_of(old), lines_of(new)
    dels, adds = [], []
    ia = ib = 0
    for d in difflib.ndiff(a, b):
        op = d[0]
        if op == " ":
            ia += 1
            ib += 1
        elif op == "-":
            ia += 1
            dels.append((ia, d[2:]))
        elif op == "+":
            ib += 1
            adds.append((ib, d[2:]))
    out = {}

    def put(line, v):
        k = str(line)
        while k in out:
            k += " "
        out[k] = v

    delta = i = j = 0
    while i < len(dels) or j < len(adds):
        if i < len(dels) and j < len(adds) and dels[i][0] + delta == adds[j][0]:
            put(dels[i][0], ("modify", dels[i][1], adds[j][1]))
            i += 1
            j += 1
        elif i < len(dels) and (j == len(adds) or dels[i][0] + delta < adds[j][0]):
            put(dels[i][0], ("delete", dels[i][1], ""))
            delta -= 1
            i += 1
        else:
            put(adds[j][0] - delta, ("add", "", adds[j][1]))
            delta += 1
            j += 1
    return dict(sorted(out.items(), key=lambda kv: (int(kv[0]), ORDER[kv[1][0]])))


def clean(diff):
    return {k: v for k, v in diff.items() if v[1].strip() or v[2].strip()}


def apply(code, diff):
    ls = lines_of(code)
    for k, (t, _o, m) in reversed(list(diff.items())):
        line, n = int(k), len(ls)
        if t == "modify" and 1 <= line <= n:
            ls[line - 1] = m.rstrip()
        elif t == "add" and 1 <= line <= n + 1:
            ls.insert(line - 1, m.rstrip())
        elif t == "delete" and 1 <= line <= n:
            del ls[line - 1]
    return "\n".join(ls)


def blocks(diff):
    bl, prev = [], None
    for k, e in reversed(list(diff.items())):
        line = int(k)
        if bl and ((e[0] in ("delete", "modify") and line == prev - 1) or (e[0] == "add" and line == prev)):
            bl[-1]["start"] = line
            bl[-1]["edits"].insert(0, (k, e))
        else:
            bl.append({"start": line, "end": line, "edits": [(k, e)]})
        prev = line
    bl.reverse()
    for i, b in enumerate(bl):
        b["id"] = i
    return bl


def adj(b):  # 0 when the block's bottom edit (the first one the walk meets) is an add
    return 0 if b["edits"][-1][1][0] == "add" else 1


def setmatch(p, g, top):
    ps = {x for x in p if x.strip()}
    gs = {x for x in g if x.strip()}
    return bool(ps & gs) or (not ps and not gs) or (not gs and top in ps) or (not ps and top in gs)


def evaluate(buggy, gt, pred_text, oracle, eps=None):
    if not pred_text.strip():
        return 0.0, 0.0, 0
    B = lines_of(buggy)
    n = len(B)
    gtb = blocks(gt)
    for i, b in enumerate(gtb):
        b["sb"] = b["start"] - 1 if i == 0 else b["start"] - gtb[i - 1]["end"] - adj(gtb[i - 1])
        b["sa"] = None if i == len(gtb) - 1 else gtb[i + 1]["start"] - b["end"] - adj(b)
    if eps is None:
        eps = 2 if all(len(b["edits"]) == 1 for b in gtb) else 1
    pred = clean(get_diff(buggy, pred_text))
    unit = 1 if oracle(apply(pred_text, {})) else 0

    def program(exclude_ids, extra):
        merged = {}
        for b in gtb:
            if b["id"] not in exclude_ids:
                for k, e in b["edits"]:
                    merged[k] = e
        for k, e in extra:
            merged[k] = e
        items = sorted(merged.items(), key=lambda kv: (int(kv[0]), ORDER[kv[1][0]], len(kv[0]) - len(kv[0].rstrip())))
        return apply(buggy, dict(items))

    if not pred:
        return 0.0, 0.0, unit
    remaining = list(gtb)
    matched_lines = matched_blocks = tolerance = 0
    used = set()
    pb = blocks(pred)
    for p in reversed(pb):  # pass 1
        for g in remaining:
            if g["start"] == p["start"] and g["end"] == p["end"] and len(g["edits"]) == len(p["edits"]) and g["edits"] == p["edits"]:
                matched_lines += len(g["edits"])
                matched_blocks += 1
                used.update(k for k, _ in p["edits"])
                remaining.remove(g)
                break
    rb = blocks({k: v for k, v in pred.items() if k not in used})
    cands = []
    for idx in range(len(rb) - 1, -1, -1):  # pass 2, bottom-most first
        p = rb[idx]
        got = [g for g in remaining if p["start"] <= g["start"] <= p["end"]]
        if not got:
            lo = rb[idx - 1]["end"] + 1 if idx > 0 else 0
            hi = rb[idx + 1]["start"] if idx < len(rb) - 1 else n
            pbefore = [B[i - 1] for i in range(lo, p["start"])]
            pafter = [B[i - 1] for i in range(p["end"] + 1, hi)]
            for g in remaining:
                gbefore = [B[g["start"] - j - 1] for j in range(1, g["sb"])]
                S = g["sa"] if g["sa"] else n - g["start"]
                gafter = [B[g["start"] + j - 1] for j in range(1, S)]
                if setmatch(pbefore, gbefore, B[0]) and setmatch(pafter, gafter, B[-1]):
                    got = [g]
                    break
        if not got:
            for g in remaining:
                if len(g["edits"]) == len(p["edits"]) and all(
                        a[1][1] == b[1][1] and a[1][2] == b[1][2] for a, b in zip(g["edits"], p["edits"])):
                    got = [g]
                    break
        if not got:
            continue
        for g in got:
            remaining.remove(g)
        gl = sum(len(g["edits"]) for g in got)
        cands.append((p, {g["id"] for g in got}, gl, max(min(eps * len(got), len(p["edits"]) - gl), 0)))
    for p, ids, gl, T in cands:
        if not oracle(program(ids, p["edits"])):
            continue
        tol = T
        for w in range(1, T + 1):
            if any(oracle(program(set(), p["edits"][s:s + w]))  # the membership bug: all GT blocks
                   for s in range(0, len(p["edits"]) - w + 1)):
                tol = w - 1
                break
        matched_lines += gl
        matched_blocks += len(ids)
        tolerance += tol
    return min((matched_lines + tolerance) / len(pred), 1.0), matched_blocks / len(gtb), unit


VOCAB = ["x = 1", "y = x + 2", "z = y * 3", "", "if x > y:", "    x -= 1", "return z",
         "w = x", "total += w", "# note", "for i in range(3):", "    y += i", "print(x)"]


def random_program(rng, n):
    return [rng.choice(VOCAB) for _ in range(n)]


def mutate_line(rng, line):
    return rng.choice([line + " + 1", line.replace("x", "q") if "x" in line else "q = 0", rng.choice(VOCAB) + "  # b"])


def make_case(rng):
    n = rng.randint(4, 24)
    fixed = random_program(rng, n)
    buggy = list(fixed)
    k = rng.randint(1, 3)
    spots = sorted(rng.sample(range(n), min(k, n)), reverse=True)
    for s in spots:
        kind = rng.random()
        if kind < 0.6:
            buggy[s] = mutate_line(rng, buggy[s])
            if rng.random() < 0.3 and s + 1 < len(buggy):
                buggy[s + 1] = mutate_line(rng, buggy[s + 1])
        elif kind < 0.8:
            del buggy[s]
        else:
            buggy.insert(s, mutate_line(rng, "extra"))
    return "\n".join(buggy), "\n".join(fixed)


def predictions(rng, buggy, fixed):
    b, f = buggy.split("\n"), fixed.split("\n")
    out = [fixed, "", buggy]
    extra = list(f)
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(extra))
        extra[i] = mutate_line(rng, extra[i])
    out.append("\n".join(extra))
    near = list(b)
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(near))
        near[i] = rng.choice([mutate_line(rng, near[i]), f[min(i, len(f) - 1)]])
    out.append("\n".join(near))
    mixed = [f[i] if i < len(f) and rng.random() < 0.5 else line for i, line in enumerate(b)]
    out.append("\n".join(mixed))
    return out


def main():
    rng = random.Random(20261122)
    cases = []
    while len(cases) < 600:
        buggy, fixed = make_case(rng)
        gt = get_diff(buggy, fixed)
        if not gt:
            continue
        want = "\n".join(lines_of(fixed))

        def oracle(p):
            return p == want or zlib.crc32(p.encode()) % 3 == 0

        for pred in predictions(rng, buggy, fixed):
            p, r, u = evaluate(buggy, gt, pred, oracle)
            cases.append({
                "buggy": buggy, "fixed": fixed,
                "gt_diff": {k: {"type": t, "original": o, "modified": m} for k, (t, o, m) in gt.items()},
                "prediction": pred, "precision": p, "recall": r, "unit": u,
            })
    json.dump(cases, __import__("sys").stdout, indent=0)


if __name__ == "__main__":
    main()
