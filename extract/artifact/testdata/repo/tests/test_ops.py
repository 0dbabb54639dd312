from calc import add, Accumulator


def test_add():
    assert add(1, 2) == 3


def test_push():
    acc = Accumulator()
    acc.push(2)
    assert acc.push(3) == 5
