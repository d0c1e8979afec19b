from shop.cart import Cart


def test_discount_total():
    cart = Cart({"apple": 5})
    cart.add("apple", 4)
    # Four apples at 50 with 10% off.
    assert cart.total({"apple": 50}) == 180
