from pkg import geometry


def test_area():
    assert geometry.area(2, 3) == 6


def test_circle():
    assert geometry.circle_area(2) == 12


def test_perimeter():
    assert geometry.perimeter(2, 3) == 10


def test_box():
    assert geometry.Box(2, 2).area() == 4
    assert geometry.Box(1, 2).scale(2).area() == 8
