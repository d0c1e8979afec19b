package outline_test

import (
	"fmt"

	"github.com/ctxkeep/ctxkeep/internal/outline"
)

func ExampleOutline() {
	src := []byte(`defmodule MyAppWeb.PageLive do
  @moduledoc """
  def not_a_function: this is documentation.
  """
  use MyAppWeb, :live_view

  def mount(_params, _session, socket), do: {:ok, socket}

  def handle_event("save", params, socket) do
    {:noreply, assign(socket, params: params)}
  end

  defp format(nil), do: ""
end
`)
	for _, s := range outline.Outline("lib/my_app_web/live/page_live.ex", src, 0) {
		fmt.Printf("L%d %*s%s\n", s.Line, 2*s.Depth, "", s.Text)
	}
	// Output:
	// L1 defmodule MyAppWeb.PageLive do
	// L7   def mount(_params, _session, socket), do: {:ok, socket}
	// L9   def handle_event("save", params, socket) do
	// L13   defp format(nil), do: ""
}

func ExampleLanguage() {
	fmt.Println(outline.Language("src/App.tsx", nil))
	fmt.Println(outline.Language("Dockerfile", nil))
	fmt.Println(outline.Language("bin/deploy", []byte("#!/usr/bin/env bash\nset -e\n")))
	// Output:
	// typescript
	// dockerfile
	// shell
}
