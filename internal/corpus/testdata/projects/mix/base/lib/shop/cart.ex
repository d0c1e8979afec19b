defmodule Shop.Cart do
  @moduledoc "A shopping cart."
  require Logger

  defstruct stock: %{}, items: %{}

  def new(stock), do: %__MODULE__{stock: stock}

  def add(%__MODULE__{} = cart, item, n \\ 1) do
    left = Map.get(cart.stock, item, 0)

    if left < n do
      Logger.error("cannot add #{n} #{item}: out of stock")
      {:error, {:out_of_stock, item}}
    else
      {:ok,
       %{cart | stock: Map.put(cart.stock, item, left - n), items: Map.update(cart.items, item, n, &(&1 + n))}}
    end
  end

  def add!(cart, item, n \\ 1) do
    case add(cart, item, n) do
      {:ok, cart} -> cart
      {:error, reason} -> raise ArgumentError, "cannot add #{item}: #{inspect(reason)}"
    end
  end

  def total(cart, prices) do
    Enum.reduce(cart.items, 0, fn {item, n}, sum -> sum + Map.fetch!(prices, item) * n end)
  end

  @deprecated "Use map_size(cart.items) instead"
  def count(cart), do: cart.items |> Map.values() |> Enum.sum()

  @doc "Parses \"3.50\" into cents."
  def parse_price(s) do
    [whole | rest] = s |> String.trim() |> String.split(".")
    cents = (Enum.join(rest) <> "00") |> String.slice(0, 2)
    String.to_integer(whole) * 100 + String.to_integer(cents)
  end
end
