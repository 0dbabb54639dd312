def apply_all(fn, xs):
    return [_call(fn, x) for x in xs]


def _call(fn, x):
    return fn(x)
