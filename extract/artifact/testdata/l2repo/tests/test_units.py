import geo
import units


def test_units():
    assert units.metres(geo.area(2)) == 4.0
