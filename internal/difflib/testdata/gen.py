#!/usr/bin/python3
"""Generate golden vectors for internal/difflib from CPython's difflib.

Regenerate (from this directory) with Debian's interpreter, which is CPython 3.11:

    /usr/bin/python3 gen.py > golden.json

Every case is built from a seeded random generator, so the output is reproducible for a
given Python version. The cases cover: token sequences over small alphabets (many ties and
repeats), lengths around and above 200 so the autojunk rule matters, an explicit isjunk set,
autojunk on and off, grouped opcodes with several context sizes, the three ratios, character
level matching with IS_CHARACTER_JUNK, and ndiff over line lists with near-duplicate lines
(so _fancy_replace pairs lines), popular identical lines inside replace blocks, long lines
(character autojunk) and tabs/spaces.
"""
import difflib
import json
import random
import sys

rng = random.Random(20261122)


def mutate(seq, alphabet, nops):
    s = list(seq)
    for _ in range(nops):
        op = rng.random()
        if op < 0.3 and s:
            i = rng.randrange(len(s))
            s[i] = rng.choice(alphabet)
        elif op < 0.55:
            i = rng.randrange(len(s) + 1)
            s[i:i] = [rng.choice(alphabet) for _ in range(rng.randint(1, 4))]
        elif op < 0.8 and s:
            i = rng.randrange(len(s))
            del s[i:i + rng.randint(1, 4)]
        elif s:
            i = rng.randrange(len(s))
            j = rng.randrange(len(s))
            blk = s[i:i + rng.randint(1, 6)]
            del s[i:i + len(blk)]
            s[j:j] = blk
    return s


def seq_case(a, b, autojunk, junk):
    isjunk = (lambda x: x in junk) if junk else None
    m = difflib.SequenceMatcher(isjunk, a, b, autojunk=autojunk)
    return {
        "a": a, "b": b, "autojunk": autojunk, "junk": sorted(junk),
        "longest": list(m.find_longest_match(0, len(a), 0, len(b))),
        "blocks": [list(x) for x in m.get_matching_blocks()],
        "opcodes": [[t[0][0]] + list(t[1:]) for t in m.get_opcodes()],
        # get_grouped_opcodes edits the matcher's cached opcode list in place, so each
        # context size gets a fresh matcher.
        "grouped": {str(n): [[[t[0][0]] + list(t[1:]) for t in g] for g in
                             difflib.SequenceMatcher(isjunk, a, b, autojunk=autojunk).get_grouped_opcodes(n)]
                    for n in (0, 1, 3)},
        "ratio": m.ratio(), "quick": m.quick_ratio(), "real_quick": m.real_quick_ratio(),
        "popular": sorted(m.bpopular),
        "bjunk": sorted(m.bjunk),
    }


seqs = []
for n in range(120):
    k = rng.choice([1, 2, 3, 5, 10, 40])
    alphabet = ["t%d" % i for i in range(k)]
    la = rng.choice([0, 1, 2, 5, 20, 60, 150, 199, 200, 230, 320])
    a = [rng.choice(alphabet) for _ in range(la)]
    b = mutate(a, alphabet, rng.randint(0, 12)) if rng.random() < 0.8 else \
        [rng.choice(alphabet) for _ in range(rng.choice([0, 3, 50, 210]))]
    junk = set(rng.sample(alphabet, rng.randint(0, min(2, k)))) if rng.random() < 0.3 else set()
    seqs.append(seq_case(a, b, rng.random() < 0.7, junk))

chars = []
for n in range(80):
    base = "".join(rng.choice("abc de\tfg") for _ in range(rng.choice([0, 3, 15, 60, 210, 260])))
    other = "".join(mutate(list(base), list("abc de\tfgx"), rng.randint(0, 10)))
    m = difflib.SequenceMatcher(difflib.IS_CHARACTER_JUNK, base, other)
    chars.append({"a": base, "b": other,
                  "opcodes": [[t[0][0]] + list(t[1:]) for t in m.get_opcodes()],
                  "ratio": m.ratio(), "quick": m.quick_ratio(), "real_quick": m.real_quick_ratio()})

WORDS = ["x", "y", "self", "return", "value", "items", "if", "for", "in", "range", "len",
         "None", "True", "data", "result", "append", "(", ")", ":", "=", "+", "1", "0"]


def line():
    ind = rng.choice(["", "    ", "        ", "\t"])
    return ind + " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 9)))


def tweak(s):
    c = list(s)
    for _ in range(rng.randint(1, 3)):
        if c:
            c[rng.randrange(len(c))] = rng.choice("xyz01 ")
    return "".join(c)


ndiffs = []
for n in range(60):
    la = rng.choice([3, 10, 40, 120, 210, 260])
    pool = [line() for _ in range(max(3, la // 3))]
    popular = ["", "    pass", "}", "        return None"]
    a = []
    for _ in range(la):
        r = rng.random()
        a.append(rng.choice(popular) if r < 0.15 else rng.choice(pool) if r < 0.4 else line())
    if rng.random() < 0.1:
        a.append("long " * 50 + line())
    b = []
    for s in a:
        r = rng.random()
        if r < 0.12:
            b.append(tweak(s))
        elif r < 0.16:
            continue
        elif r < 0.2:
            b.append(s)
            b.append(rng.choice(popular + [line(), tweak(s)]))
        else:
            b.append(s)
    if rng.random() < 0.3:
        a = [l + rng.choice(["", " #", "\u3000"]) if not l.strip() else l for l in a]
    # Only the classification letters are stored: the ' ' and '-' lines are a in order and
    # the ' ' and '+' lines are b in order, so the letters determine the whole output.
    ops = lambda d: "".join(l[0] for l in d if l[0] != "?")
    ndiffs.append({"a": a, "b": b,
                   "ndiff": ops(difflib.ndiff(a, b)),
                   "linejunk": ops(difflib.ndiff(a, b, linejunk=difflib.IS_LINE_JUNK)),
                   "plain": ops(difflib.Differ().compare(a, b)),
                   # '?' lines of the full ndiff output: [position, text without "? " and "\n"]
                   "hints": [[k, l[2:].rstrip("\n")] for k, l in enumerate(difflib.ndiff(a, b))
                             if l[0] == "?"]})

line_junk = [[l, bool(difflib.IS_LINE_JUNK(l))] for l in
             ["", "   ", "#", "  #  ", "\t# \u3000", "\x1f", "##", "# x", "x", "  a #", "\u200b", "#\n", "\x85#"]]

json.dump({"python": sys.version.split()[0], "seqs": seqs, "chars": chars, "ndiff": ndiffs,
           "line_junk": line_junk},
          sys.stdout, indent=None, separators=(",", ":"))
sys.stdout.write("\n")
