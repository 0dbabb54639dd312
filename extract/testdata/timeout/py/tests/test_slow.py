import time

from pkg.calc import add


def test_fast():
    assert add(1, 1) == 2


def test_sleeps():
    # Would pass after 300 s without using CPU. The wall-clock backstop of the per-test
    # limit must stop it, even though it swallows every Exception.
    try:
        time.sleep(300)
    except Exception:
        pass
    assert add(1, 2) == 3
