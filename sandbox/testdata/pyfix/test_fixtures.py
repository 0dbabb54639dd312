import pytest


@pytest.fixture
def broken_setup():
    raise RuntimeError("setup exploded")


@pytest.fixture
def broken_teardown():
    yield 1
    raise RuntimeError("teardown exploded")


def test_setup_error(broken_setup):
    assert True


def test_teardown_error(broken_teardown):
    assert broken_teardown == 1
