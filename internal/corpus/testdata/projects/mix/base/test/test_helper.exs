# seed: 0 runs the tests in the order they are written, the same on every run.
# CORPUS_EXUNIT_JSON (set only by the runner corpus's label run) adds a
# formatter that writes the results as JSON.
formatters =
  if System.get_env("CORPUS_EXUNIT_JSON") do
    Code.require_file("json_formatter.exs", __DIR__)
    [ExUnit.CLIFormatter, Shop.JSONFormatter]
  else
    [ExUnit.CLIFormatter]
  end

ExUnit.start(seed: 0, formatters: formatters)
