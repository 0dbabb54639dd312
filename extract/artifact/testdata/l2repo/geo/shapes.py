"""Shapes with an area."""
from . import compat
from geo.compat import isclose

UNITS = "geo.units"  # a dotted name that starts with the package: renamed with it
LABEL = "geo shapes"  # not a dotted name: kept


def area(side):
    """Return the area of a square with the given side."""
    return side * side


class Square:
    """A square."""

    def __init__(self, side):
        self.side = side

    def area(self):
        return area(self.side)

    def same(self, other):
        return compat.isclose(self.area(), other.area()) and isclose(0, 0)
