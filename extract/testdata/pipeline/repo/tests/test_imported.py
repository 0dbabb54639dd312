from pkg.imported import feature


def test_feature():
    assert feature(1) == 2


def test_feature_again():
    assert feature(2) == 3
