import unittest

from shop.cart import Cart


class DiscountTest(unittest.TestCase):
    def test_discount_total(self):
        cart = Cart({"apple": 5})
        cart.add("apple", 4)
        self.assertEqual(cart.total({"apple": 50}), 180, "four apples at 50 with 10% off")
