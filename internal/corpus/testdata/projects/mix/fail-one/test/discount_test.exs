defmodule Shop.DiscountTest do
  use ExUnit.Case
  alias Shop.Cart

  test "discounted total" do
    cart = Cart.add!(Cart.new(%{"apple" => 5}), "apple", 4)
    # Four apples at 50 with 10% off.
    assert Cart.total(cart, %{"apple" => 50}) == 180
  end
end
