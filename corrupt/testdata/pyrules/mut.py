import math


def window(words, lo, n, loud=False):
    """Return at most n words from index lo, upper-cased when loud."""
    if lo < 0 or n <= 0:
        raise ValueError("bad window %d,%d" % (lo, n))
    hi = lo + n
    if hi > len(words):
        hi = len(words)
    out = []
    for i in range(lo, hi):
        w = words[i]
        if not w:
            continue
        if loud and len(w) > 1:
            w = w.upper()
        else:
            w = w.lower()
        out.append(w)
    count = 0
    while count < len(out):
        count += 1
        if count >= 100:
            break
    return " ".join(out[0:count])


def scale(a, b, c=2):
    total = 0
    total += a * b
    total -= c // 2
    if c % 2 == 1:
        total = total - 1
    label = "odd" if c % 2 else "even"
    print(label, math.floor(total / 3))
    return total
