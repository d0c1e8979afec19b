defmodule Shop.MoreTest do
  use ExUnit.Case
  alias Shop.Cart

  describe "parse_price formats" do
    test "1.5", do: assert(Cart.parse_price("1.5") == 150)
    test "1,50", do: assert(Cart.parse_price("1,50") == 150)
    test "-2.25", do: assert(Cart.parse_price("-2.25") == -225)
  end

  test "adds an unknown item" do
    Cart.add!(Cart.new(%{"apple" => 1}), "kiwi")
  end

  test "totals two pears" do
    cart = Cart.add!(Cart.new(%{"pear" => 2}), "pear", 2)
    assert %{total: Cart.total(cart, %{"pear" => 70})} == %{total: 150, currency: "EUR"}
  end

  test "prices a fig" do
    cart = Cart.add!(Cart.new(%{"fig" => 1}), "fig")
    Cart.total(cart, %{})
  end
end
