import pytest

from shop.cart import parse_price


@pytest.mark.parametrize("s,want", [("3.50", 350), ("3", 300), (" 0.05 ", 5), ("12.3", 1230)])
def test_parse_price(s, want):
    assert parse_price(s) == want


def test_parse_price_garbage():
    with pytest.raises(ValueError, match="invalid literal"):
        parse_price("abc")
