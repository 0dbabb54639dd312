"""A small cart: prices, discounts and a checkout."""


def price(item):
    return item["price"] * item.get("qty", 1)


def discount(total, rate):
    if rate < 0 or rate > 1:
        raise ValueError(rate)
    return total * (1 - rate)


class Cart:
    def __init__(self, items=None):
        self.items = list(items or [])

    def total(self):
        # Sum of item prices.
        return sum(price(i) for i in self.items)

    def checkout(self, rate=0.0):
        t = self.total()
        return discount(t, rate)


def main():
    c = Cart([{"price": 2, "qty": 3}])
    print(c.checkout(0.5))


if __name__ == "__main__":
    main()
