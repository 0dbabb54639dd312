from pkg import registry


def test_registry():
    assert registry.REGISTRY["make"]() == 1
