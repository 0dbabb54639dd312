import geo


def test_other():
    assert geo.area(1) == 1
