def test_one():
    pass


def test_one_fails():
    assert False, "one fails"
