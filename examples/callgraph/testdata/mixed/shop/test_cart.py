from shop.cart import Cart, discount


def test_checkout():
    assert Cart([{"price": 4}]).checkout(0.5) == 2


def test_discount():
    assert discount(10, 0) == 10
