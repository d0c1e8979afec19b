import unittest

from shop.cart import Discount


class DiscountTest(unittest.TestCase):
    def test_discount(self):
        self.assertEqual(Discount(10).percent, 10)
