import Config

# No timestamps in the log lines: the corpus's outputs must not depend on the
# time they were made.
config :logger, :console, format: "[$level] $message\n"
