import pytest

import units


@pytest.fixture
def metre():
    return units.metres(1)
