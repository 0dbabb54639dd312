def test_ok2():
    assert "a" + "b" == "ba"
