def approx(a, b):
    return abs(a - b) < 1e-9
