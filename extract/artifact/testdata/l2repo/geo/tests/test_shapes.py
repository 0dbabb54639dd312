# Tests of geo (this comment names geo and stays as written).
import json
import os
import types
from unittest import mock

import geo
from geo.shapes import Square
from geo.tests.helper import approx

HERE = os.path.dirname(__file__)


def test_area(side):
    assert geo.area(side) == 9


def test_square_from_file():
    with open(os.path.join(HERE, "square.json")) as f:
        d = json.load(f)
    assert approx(Square(d["side"]).area(), d["area"])


def test_patched():
    with mock.patch("geo.shapes.area", return_value=7):
        assert Square(1).area() == 7


def test_same():
    box = types.SimpleNamespace(geo="attribute")  # a keyword and an attribute: kept
    assert Square(2).same(Square(2))
    assert box.geo == "attribute"
