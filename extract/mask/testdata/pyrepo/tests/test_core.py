from pkg.core import helper
from pkg.util import fmt_a


def test_helper():
    assert helper(1) == 2


def test_fmt():
    assert fmt_a(1) == "a1"
