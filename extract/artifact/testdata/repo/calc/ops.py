"""Arithmetic operations."""


def add(a, b):
    """Return the sum of a and b.

    Both arguments must be numbers.
    """
    return a + b


def scale(x, k=2):
    return x * k


class Accumulator:
    """Accumulate a running total."""

    def __init__(self, start=0):
        self.total = start

    @staticmethod
    def zero():
        return Accumulator(0)

    def push(self, x):
        self.total = add(self.total, scale(x, 1))
        return self.total
