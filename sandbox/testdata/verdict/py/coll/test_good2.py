def test_two():
    pass
