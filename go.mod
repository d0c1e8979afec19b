module github.com/ctxkeep/ctxkeep

go 1.26.8

require (
	github.com/charmbracelet/x/ansi v0.11.9 // only its parser package: the ECMA-48/DEC state table that strips control sequences (internal/text); 0.08 ms at init
	github.com/chromedp/chromedp v0.23.0 // tests only: drives Debian's headless chromium through the web UI (internal/ui's TestBrowser: pages, pins, live updates, refusals, the screenshots of docs/UI.md); pure Go over the DevTools protocol, no browser download, not linked into the binary
	github.com/go-json-experiment/json v0.0.0-20260820222146-c27c302e5fc3 // hook payloads of megabytes, ~3× encoding/json (internal/fastjson)
	github.com/jackc/pgx/v5 v5.12.0 // the team archive on PostgreSQL (internal/postgres): pure Go, TLS, ~/.pgpass, pooling
	github.com/klauspost/compress v1.20.3 // zstd for the blob store
	github.com/modelcontextprotocol/go-sdk v1.8.0 // the MCP server (`ctxkeep mcp`): the official SDK, +1.1 ms at start-up against mark3labs/mcp-go's +6.6 ms
	github.com/ncruces/go-sqlite3 v0.35.6 // SQLite with FTS5, pure Go (no cgo), cheapest start-up (docs/ARCHITECTURE.md)
	github.com/pelletier/go-toml/v2 v2.4.3 // config files; no work at init
	github.com/rogpeppe/go-internal v1.16.0 // testscript, for the CLI's script tests
	github.com/tiktoken-go/tokenizer v0.10.0 // token estimates for `ctxkeep context` before the client reports usage (CLI only)
	golang.org/x/sys v0.48.0 // renameat2 RENAME_EXCHANGE for settings.json edits (internal/fsx); golang.org/x/sys/unix was linked already, through other dependencies
	mvdan.cc/sh/v3 v3.14.1 // only its syntax package (the parser behind shfmt): Bash command lines for the wrapper, pass-through, condensers and learned commands (internal/shell); 0.05 ms at init (two regexps of its fileutil)
)

require (
	github.com/chromedp/cdproto v0.159.0 // indirect
	github.com/dlclark/regexp2/v2 v2.5.1 // indirect
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/jackc/pgpassfile v1.0.0 // indirect
	github.com/jackc/pgservicefile v0.0.0-20240606120523-5a60cdf6a761 // indirect
	github.com/jackc/puddle/v2 v2.2.3 // indirect
	github.com/ncruces/go-sqlite3-wasm/v6 v6.3.35304 // indirect
	github.com/ncruces/julianday v1.0.0 // indirect
	github.com/segmentio/asm v1.1.3 // indirect
	github.com/segmentio/encoding v0.5.4 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	golang.org/x/oauth2 v0.35.0 // indirect
	golang.org/x/sync v0.23.0 // indirect
	golang.org/x/text v0.42.0 // indirect
	golang.org/x/time v0.15.0 // indirect
	golang.org/x/tools v0.50.0 // indirect
)
