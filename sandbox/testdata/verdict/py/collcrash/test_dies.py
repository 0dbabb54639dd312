import os

os._exit(4)


def test_never():
    pass
