from shop.cart import Cart, Discount


def test_discount():
    assert Discount(10).apply(Cart({})) == 0
