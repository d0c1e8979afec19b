"""A shopping cart."""

import logging
import warnings

log = logging.getLogger("shop.cart")


class OutOfStock(Exception):
    pass


class Cart:
    def __init__(self, stock):
        self.stock = dict(stock)
        self.items = {}

    def add(self, item, n=1):
        if self.stock.get(item, 0) < n:
            log.error("ERROR: cannot add %d %s: out of stock", n, item)
            raise OutOfStock(item)
        self.stock[item] -= n
        self.items[item] = self.items.get(item, 0) + n

    def total(self, prices):
        return sum(prices[i] * n for i, n in self.items.items())

    def count(self):
        warnings.warn("Cart.count() is deprecated, use len(cart.items)", DeprecationWarning, stacklevel=2)
        return sum(self.items.values())


def parse_price(s):
    """'3.50' -> 350 (cents)."""
    whole, _, cents = s.strip().partition(".")
    return int(whole) * 100 + int((cents + "00")[:2])
