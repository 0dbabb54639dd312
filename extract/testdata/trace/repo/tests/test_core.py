import threading

from pkg.core import Another, Box, comp, decorated, gen, order, outer, via_third


def test_order():
    assert order([1, 3, 2]) == [3, 2, 1]


def test_third():
    assert via_third([1, 2]) == [2, 4]


def test_box():
    b = Box()
    assert b.get() == 3
    assert b.first_get() == 1


def test_inits():
    assert Another().v == -1


def test_misc():
    assert decorated() == 3
    assert list(gen()) == [-1, -2]
    assert comp([1]) == [-1]
    assert outer() == -3


def test_thread():
    out = []
    t = threading.Thread(target=lambda: out.append(order([2, 1])))
    t.start()
    t.join()
    assert out == [[2, 1]]
