import pytest


@pytest.fixture
def side():
    return 3
