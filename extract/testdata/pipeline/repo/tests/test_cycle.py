from pkg import cyc_a


def test_ping():
    assert cyc_a.ping(4) == 4


def test_ping_zero():
    assert cyc_a.ping(0) == 0
