defmodule Shop.CartTest do
  use ExUnit.Case
  alias Shop.Cart

  describe "add" do
    test "adds items" do
      assert {:ok, cart} = Cart.add(Cart.new(%{"apple" => 3}), "apple", 2)
      assert cart.items == %{"apple" => 2}
    end

    test "refuses what is out of stock" do
      # Noise: the cart logs an [error] line, and the test prints the error.
      assert {:error, {:out_of_stock, "pear"}} = Cart.add(Cart.new(%{"pear" => 1}), "pear", 2)
      IO.puts("** (ArgumentError) cannot add pear (expected, not a failure)")
    end

    test "counts, with a deprecation warning" do
      cart = Cart.add!(Cart.new(%{"apple" => 1}), "apple")
      assert Cart.count(cart) == 1
    end
  end

  describe "parse_price" do
    test "parses cents" do
      assert Cart.parse_price("3.50") == 350
      assert Cart.parse_price(" 0.05 ") == 5
    end

    test "rejects garbage" do
      assert_raise ArgumentError, fn -> Cart.parse_price("abc") end
      IO.warn("FAIL-safe: garbage price rejected", [])
    end
  end

  @tag :skip
  test "checks out" do
  end
end
