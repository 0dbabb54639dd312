def helper(x):
    return x * 2


def test_helper():
    assert helper(2) == 4
