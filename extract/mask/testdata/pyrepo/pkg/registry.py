def make():
    return 1


def other():
    return 2


REGISTRY = {"make": make}
