"""Core definitions."""
import functools

__all__ = ["public_fn"]


def public_fn():
    return 1


# helper computes things
# over two lines
@functools.lru_cache(maxsize=None)
def helper(x):
    return x + x


class Engine:
    """Engine."""

    @property
    def speed(self):
        return 3

    def run(self):
        def inner():
            return 2
        return inner()


class Empty:
    # the only method
    def only(self):
        return 0


if True:
    def cond():
        return 1
else:
    def cond():
        return 2

try:
    def risky():
        s = """a string with
def fake():
"""
        return s
except ImportError:
    pass


def outer():
    def nested():
        return 1
    return nested
