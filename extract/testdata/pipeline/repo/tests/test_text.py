from pkg import text


def test_shout():
    assert text.shout("hi") == "HI!"


def test_whisper():
    assert text.whisper("HI") == "hi..."
