import fakelib
from pkg.util import helper as h, twice


def keyfn(x):
    return -x


def order(xs):
    return sorted(xs, key=keyfn)


def via_third(xs):
    return fakelib.apply_all(twice, xs)


class Box:
    def get(self):
        return 1

    first_get = get

    def get(self):
        return h(2)


class Other:
    def __init__(self):
        self.v = keyfn(1)


class Another:
    def __init__(self):
        self.v = Other().v


def decorate(f):
    return f


@decorate
def decorated():
    return 3


def gen():
    yield keyfn(1)
    yield keyfn(2)


def comp(xs):
    return [keyfn(x) for x in xs]


def outer():
    def inner():
        return keyfn(3)

    return inner()


LOADED = twice(21)
