import time


def test_busy():
    # Spins on the CPU for 60 s of CPU time unless stopped; swallows every Exception.
    start = time.process_time()
    try:
        while time.process_time() - start < 60:
            pass
    except Exception:
        pass


def test_quick():
    assert sum(range(10)) == 45
