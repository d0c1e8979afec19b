package config

import (
	"time"
)

// kind is how a setting's text is read. Every value is held as an int64:
// bool as 0/1, sizes in characters or bytes, durations in nanoseconds.
type kind int

const (
	boolKind     kind = iota
	countKind         // a whole number: characters, lines, entries
	bytesKind         // a size: 1048576, "250MB", "16MiB"
	durationKind      // "24h", "500ms"
)

// setting is one named scalar key, e.g. "retention.default".
type setting struct {
	key      string
	kind     kind
	def      string
	min, max int64
	doc      string
	apply    func(c *Config, v int64)
}

// list is a key holding a list of strings: file patterns, commands. In a
// file it is a TOML array; in the environment, comma-separated.
type list struct {
	key   string
	def   []string
	doc   string
	apply func(c *Config, v []string)
}

// section is a table whose keys the user names: tools, hook events.
type section struct {
	name     string
	kind     kind
	defaults [][2]string
	min, max int64
	keys     []string // when set, the only keys allowed (typo guard)
	doc      string
	apply    func(c *Config, key string, v int64)
}

const (
	kb = 1000
	mb = 1000 * kb
	gb = 1000 * mb
)

var settings = []setting{
	{key: "disable", kind: boolKind, def: "false", max: 1,
		doc:   "turn every hook into a silent pass-through (also CTXKEEP_DISABLE=1)",
		apply: func(c *Config, v int64) { c.Disable = v != 0 }},

	{key: "retention.default", kind: durationKind, def: "24h", min: int64(time.Minute), max: int64(10 * 365 * 24 * time.Hour),
		doc:   "how long an unpinned stored output is kept after its session was last active",
		apply: func(c *Config, v int64) { c.Retention.Default = time.Duration(v) }},
	{key: "retention.retrieved", kind: durationKind, def: "48h", min: int64(time.Minute), max: int64(10 * 365 * 24 * time.Hour),
		doc:   "… and, once retrieved, after its last retrieval",
		apply: func(c *Config, v int64) { c.Retention.Retrieved = time.Duration(v) }},
	{key: "retention.never_retrieved", kind: durationKind, def: "6h", min: int64(time.Minute), max: int64(10 * 365 * 24 * time.Hour),
		doc:   "… or, never retrieved, after it was stored (it goes when all that apply have passed)",
		apply: func(c *Config, v int64) { c.Retention.NeverRetrieved = time.Duration(v) }},

	{key: "limits.entries_per_session", kind: countKind, def: "2000", min: 1, max: 1 << 30,
		doc:   "stored outputs per session before the oldest unpinned ones go",
		apply: func(c *Config, v int64) { c.Limits.EntriesPerSession = int(v) }},
	{key: "limits.total_bytes", kind: bytesKind, def: "250MB", min: 1 * mb, max: 1 << 50,
		doc:   "size of the store past which prune runs by itself (at the end of a turn or a session), down to 90% of it",
		apply: func(c *Config, v int64) { c.Limits.TotalBytes = v }},
	{key: "limits.max_output_bytes", kind: bytesKind, def: "64MB", min: 1 * kb, max: 1 << 40,
		doc:   "largest single output stored; larger ones pass through untouched",
		apply: func(c *Config, v int64) { c.Limits.MaxOutputBytes = v }},
	{key: "limits.hook_input_bytes", kind: bytesKind, def: "16MiB", min: 64 * kb, max: 1 << 34,
		doc:   "largest hook payload read from stdin; larger ones pass through",
		apply: func(c *Config, v int64) { c.Limits.HookInputBytes = v }},
	{key: "limits.hook_input_wait", kind: durationKind, def: "4s", min: int64(10 * time.Millisecond), max: int64(10 * time.Minute),
		doc:   "how long the hook waits for a whole payload on stdin before passing through (the client's timeout is a deadline + 5s)",
		apply: func(c *Config, v int64) { c.Limits.HookInputWait = time.Duration(v) }},
	{key: "limits.transcript_read_bytes", kind: bytesKind, def: "64MiB", min: 64 * kb, max: 1 << 40,
		doc:   "most of a transcript one hook call (or statusline) reads; a larger backlog is archived over several calls, the cursor saved as it goes (`ctxkeep archive` reads it all, with progress)",
		apply: func(c *Config, v int64) { c.Limits.TranscriptReadBytes = v }},
	{key: "limits.transcript_line_bytes", kind: bytesKind, def: "8MiB", min: 64 * kb, max: 1 << 34,
		doc:   "longest transcript line read; longer lines are skipped and counted (never held in memory)",
		apply: func(c *Config, v int64) { c.Limits.TranscriptLineBytes = v }},

	{key: "view.budget", kind: countKind, def: "2500", min: 1000, max: 100_000,
		doc:   "characters of the view the model sees in place of a large output",
		apply: func(c *Config, v int64) { c.View.Budget = int(v) }},
	{key: "view.summary_length", kind: countKind, def: "500", min: 0, max: 100_000,
		doc:   "characters of the summary inside a view",
		apply: func(c *Config, v int64) { c.View.SummaryLength = int(v) }},
	{key: "view.key_patterns", kind: countKind, def: "20", min: 0, max: 1000,
		doc:   "failure lines (markers and their causes) a view lists before counting the rest",
		apply: func(c *Config, v int64) { c.View.KeyPatterns = int(v) }},

	{key: "swap.enabled", kind: boolKind, def: "true", max: 1,
		doc:   "swap large tool outputs out of the context",
		apply: func(c *Config, v int64) { c.Swap.Enabled = v != 0 }},
	{key: "swap.subagents", kind: boolKind, def: "false", max: 1,
		doc:   "swap outputs of tool calls made inside subagents too (by default they pass through)",
		apply: func(c *Config, v int64) { c.Swap.Subagents = v != 0 }},
	{key: "swap.condense", kind: boolKind, def: "true", max: 1,
		doc:   "fold the noise of known commands (test runners, package managers, builds, git log/diff/status, listings), below the threshold too; failures and their causes always stay",
		apply: func(c *Config, v int64) { c.Swap.Condense = v != 0 }},
	{key: "swap.condense_min_saving", kind: countKind, def: "30", min: 0, max: 100,
		doc:   "percent an output below its threshold must shrink by to be condensed (it stays whole otherwise)",
		apply: func(c *Config, v int64) { c.Swap.CondenseMinSaving = int(v) }},
	{key: "swap.rereads", kind: boolKind, def: "true", max: 1,
		doc:   "answer a second Read of an unchanged file (same lines, same content) with a pointer to the earlier one",
		apply: func(c *Config, v int64) { c.Swap.Rereads = v != 0 }},
	{key: "wrapper.enabled", kind: boolKind, def: "true", max: 1,
		doc:   "run likely-large commands through ctxkeep so that failing output is captured whole",
		apply: func(c *Config, v int64) { c.Wrapper.Enabled = v != 0 }},
	{key: "wrapper.learn", kind: boolKind, def: "true", max: 1,
		doc:   "remember commands whose output was large and wrap them next time",
		apply: func(c *Config, v int64) { c.Wrapper.Learn = v != 0 }},

	{key: "keep.enabled", kind: boolKind, def: "true", max: 1,
		doc:   "archive the conversation and restore its working state across compaction",
		apply: func(c *Config, v int64) { c.Keep.Enabled = v != 0 }},
	{key: "keep.preserve_budget", kind: countKind, def: "9000", min: 2000, max: 10_000,
		doc:   "characters of the preservation notes given to the summariser (the client cuts at 10000)",
		apply: func(c *Config, v int64) { c.Keep.PreserveBudget = int(v) }},
	{key: "keep.relevant", kind: countKind, def: "5", min: 0, max: 50,
		doc:   "earlier steps, most relevant to the latest requests, restored after compaction",
		apply: func(c *Config, v int64) { c.Keep.Relevant = int(v) }},
	{key: "keep.git_timeout", kind: durationKind, def: "1s", min: 0, max: int64(time.Minute),
		doc:   "how long `git diff --stat` may take for the preservation notes (0: skip it)",
		apply: func(c *Config, v int64) { c.Keep.GitTimeout = time.Duration(v) }},
	{key: "keep.recall_on_prompt", kind: boolKind, def: "false", max: 1,
		doc:   "add archived steps relevant to each new prompt to the model's context",
		apply: func(c *Config, v int64) { c.Keep.RecallOnPrompt = v != 0 }},
	{key: "keep.recall_min_score", kind: countKind, def: "8", min: 0, max: 1000,
		doc:   "BM25 score an archived step needs to be recalled on a prompt",
		apply: func(c *Config, v int64) { c.Keep.RecallMinScore = int(v) }},
	{key: "keep.recall_budget", kind: countKind, def: "2000", min: 200, max: 10_000,
		doc:   "characters of archived steps recalled on a prompt",
		apply: func(c *Config, v int64) { c.Keep.RecallBudget = int(v) }},

	{key: "restore.budget", kind: countKind, def: "9500", min: 2000, max: 1_000_000,
		doc:   "characters injected after compaction (the client inlines up to 10000)",
		apply: func(c *Config, v int64) { c.Restore.Budget = int(v) }},

	{key: "privacy.redact", kind: boolKind, def: "true", max: 1,
		doc:   "replace secrets (API keys, tokens, private keys, URL passwords) by [redacted:KIND] in what the model sees, what is indexed and searched, and what is restored",
		apply: func(c *Config, v int64) { c.Privacy.Redact = v != 0 }},
	{key: "privacy.redact_store", kind: boolKind, def: "false", max: 1,
		doc:   "also store the redacted text: the stored output and its readable copy lose the secrets (and so are no longer exact)",
		apply: func(c *Config, v int64) { c.Privacy.RedactStore = v != 0 }},

	{key: "watch.enabled", kind: boolKind, def: "true", max: 1,
		doc:   "warn the model and the user as the context nears auto-compaction",
		apply: func(c *Config, v int64) { c.Watch.Enabled = v != 0 }},
	{key: "watch.notice_at", kind: countKind, def: "70", min: 0, max: 100,
		doc:   "first warning, in percent of the auto-compaction threshold (0: none)",
		apply: func(c *Config, v int64) { c.Watch.NoticeAt = int(v) }},
	{key: "watch.warning_at", kind: countKind, def: "80", min: 0, max: 100,
		doc:   "second warning, in percent of the auto-compaction threshold (0: none)",
		apply: func(c *Config, v int64) { c.Watch.WarningAt = int(v) }},
	{key: "watch.urgent_at", kind: countKind, def: "90", min: 0, max: 100,
		doc:   "last warning, in percent of the auto-compaction threshold (0: none)",
		apply: func(c *Config, v int64) { c.Watch.UrgentAt = int(v) }},

	{key: "team.sync_after_session", kind: boolKind, def: "false", max: 1,
		doc:   "after each session ends, push what is new to the team archive in the background (the hook only starts `ctxkeep team sync`)",
		apply: func(c *Config, v int64) { c.Team.SyncAfterSession = v != 0 }},
	{key: "team.push_outputs", kind: boolKind, def: "false", max: 1,
		doc:   "push the whole text of stored outputs (redacted) to the team archive, so that teammates can search and read it; off: what the model saw of each (its view, redacted) goes with the step",
		apply: func(c *Config, v int64) { c.Team.PushOutputs = v != 0 }},
	{key: "team.max_output_bytes", kind: bytesKind, def: "1MB", min: 0, max: 1 << 30,
		doc:   "largest stored output whose text is pushed to the team archive (larger ones: the entry only)",
		apply: func(c *Config, v int64) { c.Team.MaxOutputBytes = v }},
	{key: "team.sync_timeout", kind: durationKind, def: "5m", min: int64(time.Second), max: int64(24 * time.Hour),
		doc:   "how long a background team sync may run before it gives up (the next one resumes)",
		apply: func(c *Config, v int64) { c.Team.SyncTimeout = time.Duration(v) }},
}

// text is a key holding a string.
type text struct {
	key   string
	def   string
	doc   string
	check func(string) error
	apply func(c *Config, v string)
}

var texts = []text{
	{key: "mcp.scope", def: MCPScopeProject,
		doc:   `what the MCP server's tools may read: "project", the stored outputs and archive of the project of the session that started it; "all", every project's`,
		check: oneOf(MCPScopeProject, MCPScopeAll),
		apply: func(c *Config, v string) {
			if c.MCP.Scope = v; v == "" {
				c.MCP.Scope = MCPScopeProject
			}
		}},
	{key: "team.dsn",
		doc:   "the team archive's PostgreSQL server (URL or key=value, sslmode honoured); the password comes from PGPASSWORD or ~/.pgpass, never from here (also CTXKEEP_TEAM_DSN)",
		check: noPassword,
		apply: func(c *Config, v string) { c.Team.DSN = v }},
}

var lists = []list{
	{key: "swap.passthrough_files",
		def:   []string{"CLAUDE.md", "AGENTS.md", "README*", "*.json", "*.yaml", "*.yml", "*.toml", "*.lock", ".env*"},
		doc:   "files whose Read always arrives whole (patterns match the base name)",
		apply: func(c *Config, v []string) { c.Swap.PassthroughFiles = v }},
	{key: "swap.passthrough_commands",
		def: []string{"pwd", "whoami", "which", "type", "command -v", "echo", "printf", "true", "false", "exit",
			"cd", "pushd", "popd", "export", "set", "unset", "alias", "date", "hostname",
			"git branch", "git remote", "git config", "git rev-parse", "ctxkeep"},
		doc:   "commands whose output always arrives whole (matched on the command's first words)",
		apply: func(c *Config, v []string) { c.Swap.PassthroughCommands = v }},
	{key: "wrapper.commands",
		def: []string{"go test", "go build", "go vet", "go run", "make", "cmake --build", "ninja", "ctest",
			"npm test", "npm run", "npx jest", "npx vitest", "npx tsc", "npx eslint", "pnpm test", "pnpm run", "yarn test", "yarn run",
			"jest", "vitest", "tsc", "eslint", "pytest", "python -m pytest", "python3 -m pytest", "tox", "ruff", "mypy",
			"cargo test", "cargo build", "cargo check", "cargo clippy", "mvn", "gradle", "./gradlew",
			"mix test", "mix compile", "mix credo", "dotnet test", "dotnet build", "bundle exec rspec", "rspec", "rake",
			"golangci-lint", "bazel test", "bazel build", "phpunit", "swift test", "swift build"},
		doc:   "commands run through the wrapper (test, build and lint runners; matched on the first words)",
		apply: func(c *Config, v []string) { c.Wrapper.Commands = v }},
}

// HookEvents are the Claude Code events ctxkeep handles.
var HookEvents = []string{
	"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse",
	"PostToolUseFailure", "PreCompact", "PostCompact", "Stop", "SubagentStop", "SessionEnd",
}

var sections = []section{
	{name: "threshold", kind: countKind, min: 1, max: 1 << 40,
		defaults: [][2]string{{"default", "4096"}, {"Read", "8192"}, {"Grep", "4096"}, {"Bash", "6144"}, {"Glob", "2048"}},
		doc:      "characters above which a tool's output is swapped out, by tool name",
		apply: func(c *Config, key string, v int64) {
			if c.Threshold == nil {
				c.Threshold = map[string]int{}
			}
			c.Threshold[key] = int(v)
		}},
	{name: "deadline", kind: durationKind, min: int64(10 * time.Millisecond), max: int64(10 * time.Minute),
		defaults: [][2]string{{"default", "2s"}, {"PostToolUse", "5s"}, {"SessionStart", "5s"}, {"Stop", "10s"}, {"PreCompact", "30s"}, {"SessionEnd", "1s"}},
		keys:     append([]string{"default"}, HookEvents...),
		doc:      "how long a hook event's handler may run before ctxkeep gives up (fail open)",
		apply: func(c *Config, key string, v int64) {
			if c.Deadline == nil {
				c.Deadline = map[string]time.Duration{}
			}
			c.Deadline[key] = time.Duration(v)
		}},
	{name: "window", kind: countKind, min: 1000, max: 100_000_000,
		defaults: [][2]string{{"default", "200000"}, {"claude-opus-5-5", "1000000"}},
		doc:      "context window in tokens, by model id (the longest matching prefix wins); the statusline's reported window takes precedence",
		apply: func(c *Config, key string, v int64) {
			if c.Window == nil {
				c.Window = map[string]int64{}
			}
			c.Window[key] = v
		}},
}
