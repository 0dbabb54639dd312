try:
    import units
except ImportError:
    units = None


def test_does_not_need_units():
    assert 1 + 1 == 2
