import pytest


def test_pass():
    assert 1 + 1 == 2


def test_fail():
    assert 1 + 1 == 3, "arithmetic is broken"


def test_skip():
    pytest.skip("not today")


@pytest.mark.xfail(reason="known bug")
def test_xfail():
    assert False


@pytest.mark.xfail(reason="fixed already")
def test_xpass():
    assert True


@pytest.mark.parametrize("x", [1, 2, 3], ids=["one", "two words", "three"])
def test_param(x):
    assert x != 3


class TestGroup:
    def test_inside(self):
        assert True

    @pytest.mark.parametrize("s", ["a b", "c"])
    def test_inside_param(self, s):
        assert s
