from pkg.calc import add, twice


def test_add():
    assert add(2, 3) == 5


def test_twice():
    assert twice(4) == 8
