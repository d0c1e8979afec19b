defmodule Shop.JSONFormatter do
  @moduledoc """
  An ExUnit formatter that writes each test's state to the file named by
  $CORPUS_EXUNIT_JSON when the suite finishes: {"tests": [{"name", "module",
  "state"}]}, the name as ExUnit prints it ("test NAME (Module)"), the state
  one of passed, failed, skipped, excluded, invalid (its module's setup_all
  failed).
  """
  use GenServer

  @impl true
  def init(_opts), do: {:ok, []}

  @impl true
  def handle_cast({:test_finished, %ExUnit.Test{} = test}, tests) do
    test = %{name: "#{test.name} (#{inspect(test.module)})", module: inspect(test.module), state: state(test.state)}
    {:noreply, [test | tests]}
  end

  def handle_cast({:suite_finished, _}, tests) do
    File.write!(System.fetch_env!("CORPUS_EXUNIT_JSON"), encode(%{tests: Enum.reverse(tests)}))
    {:noreply, tests}
  end

  def handle_cast(_event, tests), do: {:noreply, tests}

  defp state(nil), do: "passed"
  defp state({kind, _}), do: Atom.to_string(kind)

  # Enough JSON for maps, lists and strings (Elixir 1.14 has no JSON module).
  defp encode(map) when is_map(map),
    do: "{" <> Enum.map_join(map, ",", fn {k, v} -> encode(to_string(k)) <> ":" <> encode(v) end) <> "}"

  defp encode(list) when is_list(list), do: "[" <> Enum.map_join(list, ",\n", &encode/1) <> "]"

  defp encode(s) when is_binary(s) do
    escaped =
      for <<c::utf8 <- s>>, into: "" do
        case c do
          ?" -> "\\\""
          ?\\ -> "\\\\"
          c when c < 0x20 -> "\\u" <> String.pad_leading(Integer.to_string(c, 16), 4, "0")
          c -> <<c::utf8>>
        end
      end

    "\"" <> escaped <> "\""
  end
end
