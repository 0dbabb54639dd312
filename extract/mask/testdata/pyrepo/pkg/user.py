from pkg.util import fmt_b as b2, fmt_c


def use():
    from .core import helper
    return helper(b2(fmt_c(1)))
