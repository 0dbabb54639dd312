def test_metres(metre):
    assert metre == 1.0
