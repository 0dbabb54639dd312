def test_ok():
    pass


def test_fail():
    assert 1 == 2, "real failure"
