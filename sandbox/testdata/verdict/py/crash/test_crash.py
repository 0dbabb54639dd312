import ctypes
import os


def test_a():
    assert 1 + 1 == 2


def test_exits():
    os._exit(3)


def test_b():
    pass


def test_segfault():
    ctypes.string_at(0)


def test_c_fails():
    assert 2 + 2 == 5


def test_exits_zero_after_failures():
    os._exit(0)


def test_d():
    pass
