import os


def test_nothing_from_the_repository():
    assert os.sep
