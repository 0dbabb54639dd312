"""Plane geometry."""


def _square(x):
    return x * x


def area(w, h):
    """Area of a w × h rectangle."""
    return w * h


def circle_area(r):
    return 3 * _square(r)


def perimeter(w, h):
    return 2 * (w + h)


class Box:
    def __init__(self, w, h):
        self.w, self.h = w, h

    def area(self):
        return area(self.w, self.h)

    def scale(self, k):
        return Box(self.w * k, self.h * k)
