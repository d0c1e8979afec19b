import logging
import traceback

import pytest

from shop.cart import Cart, OutOfStock


@pytest.fixture
def cart():
    return Cart({"apple": 3, "pear": 1})


class TestCart:
    def test_add(self, cart):
        cart.add("apple", 2)
        assert cart.items == {"apple": 2}

    def test_out_of_stock(self, cart, caplog):
        with pytest.raises(OutOfStock):
            cart.add("pear", 2)
        assert "out of stock" in caplog.text

    def test_total(self, cart):
        cart.add("apple")
        cart.add("pear")
        assert cart.total({"apple": 50, "pear": 70}) == 120

    def test_count_deprecated(self, cart):
        cart.add("apple")
        assert cart.count() == 1


def test_expected_error_is_printed():
    # Noise: a handled exception printed with its traceback.
    try:
        Cart({}).add("fig")
    except OutOfStock:
        traceback.print_exc()
        print("FAILED to add fig (this is expected)")
    logging.getLogger("shop").warning("Error: retry budget exhausted (expected in this test)")


@pytest.mark.skip(reason="needs the payment sandbox")
def test_checkout():
    pass


@pytest.mark.xfail(reason="rounding is not implemented yet")
def test_rounding():
    assert Cart({}).total({}) == 1
