from pkg import text


def test_wrong():
    assert text.shout("a") == "a"
