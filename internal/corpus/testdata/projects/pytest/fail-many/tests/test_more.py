import pytest

from shop.cart import Cart, parse_price


@pytest.mark.parametrize("s,want", [("1.5", 150), ("1,50", 150), ("-2.25", -225)])
def test_parse_price_formats(s, want):
    assert parse_price(s) == want


def test_add_unknown_item():
    cart = Cart({"apple": 1})
    print("adding a kiwi")
    cart.add("kiwi")
    assert "kiwi" in cart.items


@pytest.fixture
def warehouse():
    raise ConnectionError("warehouse database is down")


def test_restock(warehouse):
    assert warehouse


class TestTotals:
    def test_empty_total(self):
        assert Cart({}).total({}) == 0

    def test_total_of_two(self):
        cart = Cart({"pear": 2})
        cart.add("pear", 2)
        assert cart.total({"pear": 70}) == {"pear": 140}
