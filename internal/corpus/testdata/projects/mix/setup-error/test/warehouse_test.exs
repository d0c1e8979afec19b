defmodule Shop.WarehouseTest do
  use ExUnit.Case

  setup_all do
    raise "warehouse database is down"
  end

  test "restocks" do
    assert true
  end

  test "counts the shelves" do
    assert true
  end
end
