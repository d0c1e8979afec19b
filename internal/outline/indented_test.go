package outline

import "testing"

func TestPython(t *testing.T) {
	runLangTests(t, []langTest{{
		name: "classes, decorators, async, nesting",
		path: "app/handlers.py",
		src: `"""Handlers.

def not_a_function():
    pass
"""
import functools


def retry(times=3):
    def wrap(fn):
        @functools.wraps(fn)
        async def inner(*args, **kwargs):
            return await fn(*args, **kwargs)
        return inner
    return wrap


class Handler(Base, metaclass=Meta):
    '''A handler.

    class NotAClass: the docstring says so
    '''

    class Config:
        strict = True

    @property
    def name(self) -> str:
        return f"handler-{self.id!r}"

    @retry(times=5)
    async def handle(
        self,
        request,  # def not_here()
    ) -> None:
        query = """
def also_not_here():
"""
        if request:
            def local():
                pass


async def main():
    pass
`,
		want: []string{
			"9 func retry", "10 func wrap", "12 func inner", "18 class Handler", "24 class Config",
			"28 method name", "32 method handle", "40 func local", "44 func main",
		},
	}, {
		name: "line continuation in a string, comments at the margin",
		path: "x.py",
		src: `def f():
    s = "a \
b (still the string"
# a comment at the margin does not end f
    def g():
        pass
class C: pass
`,
		want: []string{"1 func f", "5 func g", "7 class C"},
	}})
}

func TestPythonDepth(t *testing.T) {
	src := []byte("class A:\n    class B:\n        def m(self):\n            def inner():\n                pass\n    def n(self):\n        pass\ndef f():\n    pass\n")
	var got []int
	for _, s := range Outline("x.py", src, 0) {
		got = append(got, s.Depth)
	}
	if want := []int{0, 1, 2, 3, 1, 0}; !equalInts(got, want) {
		t.Errorf("depths %v, want %v", got, want)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestElixir(t *testing.T) {
	runLangTests(t, []langTest{{
		name: "phoenix live view",
		path: "lib/app_web/live/page_live.ex",
		src: `defmodule AppWeb.PageLive do
  @moduledoc """
  The page.

      def example, do: :not_a_def
  """
  use AppWeb, :live_view
  alias App.{Accounts, Repo}

  @impl true
  def mount(%{"id" => id}, _session, socket) do
    {:ok, assign(socket, id: id)}
  end

  @impl true
  def handle_event("save", %{"item" => item}, socket) when is_map(item) do
    {:noreply, socket}
  end

  def handle_event("delete", _params, socket), do: {:noreply, socket}

  defp format(nil), do: ""
  defp format(item) when is_binary(item), do: "#{item} #{"nested"}"
  defp valid?(x), do: x != ?" and x != ?#
  defp ok!(x), do: x

  def render(assigns) do
    ~H"""
    <div phx-click="save">
      def not_here
    </div>
    """
  end

  defmacro __using__(opts) do
    quote do
      def injected, do: unquote(opts)
    end
  end

  defmodule Nested do
    defstruct [:a, :b]
    defguard is_small(x) when x < 10
    defdelegate fetch(id), to: Repo
  end

  def unquote(name)(arg), do: arg
  def left ~> right, do: {left, right}
  def zero do
    :ok
  end
end

defprotocol Size do
  def size(data)
end

defimpl Size, for: Map do
  def size(map), do: map_size(map)
end
`,
		want: []string{
			"1 module AppWeb.PageLive", "11 func mount", "16 func handle_event", "20 func handle_event",
			"22 func format", "23 func format", "24 func valid?", "25 func ok!", "27 func render",
			"35 macro __using__", "37 func injected", "41 module Nested", "42 struct Nested",
			"43 macro is_small", "44 func fetch", "49 func zero", "54 protocol Size", "55 func size",
			"58 impl Size", "59 func size",
		},
	}, {
		name: "exunit",
		path: "test/app/accounts_test.exs",
		src: `defmodule App.AccountsTest do
  use App.DataCase, async: true

  describe "users" do
    setup do
      {:ok, user: insert(:user)}
    end

    test "list_users/0 returns all users", %{user: user} do
      assert Accounts.list_users() == [user]
    end

    test "get_user!/1 raises" do
      assert_raise Ecto.NoResultsError, fn -> Accounts.get_user!(-1) end
    end
  end

  defp insert(kind), do: kind
end
`,
		want: []string{
			"1 module App.AccountsTest", "4 test users", "9 test list_users/0 returns all users",
			"13 test get_user!/1 raises", "18 func insert",
		},
	}, {
		name: "sigils",
		path: "x.ex",
		src:  "defmodule X do\n  @re ~r/\"(def)\"/\n  @w ~w(a \" b)\n  @s ~S\"\"\"\n  def no\n  \"\"\"\n  def yes, do: ~s[\"]\nend\n",
		want: []string{"1 module X", "7 func yes"},
	}})
}

func TestElixirDepth(t *testing.T) {
	src := []byte("defmodule A do\n  def f, do: 1\n  defmodule B do\n    def g, do: 2\n  end\n  def h, do: 3\nend\n")
	var got []int
	for _, s := range Outline("a.ex", src, 0) {
		got = append(got, s.Depth)
	}
	if want := []int{0, 1, 1, 2, 1}; !equalInts(got, want) {
		t.Errorf("depths %v, want %v", got, want)
	}
}

func TestRuby(t *testing.T) {
	runLangTests(t, []langTest{{
		name: "classes and modules",
		path: "app/models/user.rb",
		src: `# frozen_string_literal: true

module Accounts
  class User < ApplicationRecord
    SQL = <<~SQL
      def not_a_method
    SQL

    def self.find_by_email(email)
      where(email: email).first
    end

    def admin?
      role == "admin" # def comment
    end

    def name=(value)
      super(value.strip)
    end

    def ==(other)
      id == other.id
    end

    class << self
      def build; new; end
    end

    private def secret; end

=begin
    def commented_out
    end
=end
  end
end
`,
		want: []string{
			"3 module Accounts", "4 class User", "9 method self.find_by_email", "13 method admin?",
			"17 method name=", "21 method ==", "26 method build", "29 method secret",
		},
	}, {
		name: "rspec",
		path: "spec/user_spec.rb",
		src:  "RSpec.describe User, type: :model do\n  describe \"#admin?\" do\n    it \"is true for admins\" do\n      expect(user).to be_admin\n    end\n    it { is_expected.to be_valid }\n  end\nend\n",
		want: []string{"1 test User", "2 test #admin?", "3 test is true for admins"},
	}})
}

func TestLua(t *testing.T) {
	runLangTests(t, []langTest{{
		name: "module",
		path: "lua/plugin/init.lua",
		src: `local M = {}

--[[
function M.commented() end
]]

local s = [==[
function M.in_string() end
]==]

function M.setup(opts)
  opts = opts or {}
end

function M:method() end

local function helper(x) return x end

M.handler = function(ev) end
local cb = function() end
`,
		want: []string{"11 func M.setup", "15 method M:method", "17 func helper", "19 func M.handler", "20 func cb"},
	}})
}

func TestShell(t *testing.T) {
	runLangTests(t, []langTest{{
		name: "functions",
		path: "scripts/build.sh",
		src: `#!/usr/bin/env bash
set -euo pipefail

usage() {
  echo "usage: $0 [-v]  # not() {"
}

function log {
  echo "$@" >&2
}

function die() {
  log "$1"; exit 1
}

cat <<EOF
fake() {
EOF

echo "${#ARGS[@]}" # count
build-all () {
  for d in */; do make -C "$d"; done
}
`,
		want: []string{"4 func usage", "8 func log", "12 func die", "21 func build-all"},
	}})
}

func TestScala(t *testing.T) {
	runLangTests(t, []langTest{{
		name: "scala 2 and 3",
		path: "src/main/scala/Shapes.scala",
		src: `package shapes

sealed trait Shape {
  def area: Double
}

final case class Circle(r: Double) extends Shape {
  override def area: Double = math.Pi * r * r
}

object Shape {
  def unit: Shape = Circle(1)
  private[shapes] def +(a: Shape, b: Shape): Double = a.area + b.area
}

enum Color:
  case Red, Green

  def hex: String = "#fff"

type Area = Double
`,
		want: []string{
			"3 trait Shape", "4 method area", "7 class Circle", "8 method area", "11 object Shape",
			"12 method unit", "13 method +", "16 enum Color", "19 method hex", "21 type Area",
		},
	}})
}

func TestSQL(t *testing.T) {
	runLangTests(t, []langTest{{
		name: "schema",
		path: "db/schema.sql",
		src: `-- CREATE TABLE commented (id int);
CREATE TABLE IF NOT EXISTS users (
  id bigserial PRIMARY KEY,
  note text DEFAULT 'CREATE TABLE not_this'
);

create unique index concurrently users_email_idx on users (lower(email));
CREATE OR REPLACE FUNCTION public.touch() RETURNS trigger AS $$
BEGIN
  CREATE TEMP TABLE not_this_either (x int);
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE MATERIALIZED VIEW "stats"."daily" AS SELECT 1;
CREATE TRIGGER users_touch BEFORE UPDATE ON users FOR EACH ROW EXECUTE FUNCTION touch();
/* CREATE VIEW v AS SELECT 1; */
CREATE INDEX ON users (id);
`,
		want: []string{
			"2 table users", "7 index users_email_idx", "8 function public.touch", "15 view stats.daily",
			"16 trigger users_touch",
		},
	}})
}
