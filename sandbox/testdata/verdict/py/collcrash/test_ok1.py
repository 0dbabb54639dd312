def test_ok1():
    pass
