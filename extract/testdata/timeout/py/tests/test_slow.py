import time

from pkg.calc import add


def test_fast():
    assert add(1, 1) == 2


def test_sleeps():
    # Would pass after 30 s. The per-test limit must stop it, even though it swallows
    # every Exception.
    try:
        time.sleep(30)
    except Exception:
        pass
    assert add(1, 2) == 3
