// Package config holds every tunable of ctxkeep, its default, and where the
// effective value came from: the built-in default, the user's config file,
// the project's file, or an environment variable (highest wins, in that
// order).
//
// Every setting is declared once in the table in settings.go; loading,
// validation, `ctxkeep config` and the docs all read that table.
package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Config is the effective configuration.
type Config struct {
	// Disable turns every hook into a silent pass-through.
	Disable bool

	// Threshold is the size in characters above which a tool's output is
	// swapped out of the context, by tool name; "default" covers the rest.
	Threshold map[string]int

	Retention Retention
	Limits    Limits
	View      View
	Restore   Restore
	Swap      Swap
	Wrapper   Wrapper
	Watch     Watch
	Keep      Keep
	Privacy   Privacy
	Team      Team
	MCP       MCP

	// Window is the context window in tokens by model id (a prefix);
	// "default" covers the rest.
	Window map[string]int64

	// Deadline bounds each hook event's handler, by event name; "default"
	// covers the rest. A handler past its deadline is abandoned (fail open).
	Deadline map[string]time.Duration
}

// Swap says which tool outputs are swapped out of the context.
type Swap struct {
	Enabled             bool
	Subagents           bool     // swap inside subagents too
	PassthroughFiles    []string // base-name patterns whose Read arrives whole
	PassthroughCommands []string // commands whose output arrives whole
	Condense            bool     // fold the noise of known commands' outputs (swap.Condenser)
	CondenseMinSaving   int      // percent an output below its threshold must shrink by to be condensed
	Rereads             bool     // answer an unchanged re-read of a file with a pointer to the earlier one
}

// Wrapper says which Bash commands run through ctxkeep, so that their
// output is captured whole even when they fail.
type Wrapper struct {
	Enabled  bool
	Learn    bool     // also wrap commands learned to be large
	Commands []string // first words of commands to wrap
}

// Keep shapes the archive and what survives compaction.
type Keep struct {
	Enabled        bool
	PreserveBudget int           // characters of the preservation notes
	Relevant       int           // earlier turns restored after compaction
	GitTimeout     time.Duration // for git diff --stat; 0 skips it
	RecallOnPrompt bool          // recall archived turns on each prompt
	RecallMinScore int           // the BM25 score a turn needs to be recalled
	RecallBudget   int           // characters recalled on a prompt
}

// Privacy says where secrets found in outputs and prompts are replaced by
// markers (internal/redact).
type Privacy struct {
	// Redact: in views, the full-text index, search snippets, restore
	// blocks and anything that leaves the machine.
	Redact bool
	// RedactStore: in the stored output and its readable copy too, which
	// then no longer hold the exact original.
	RedactStore bool
}

// MCP says what the MCP server (`ctxkeep mcp`) may read. Its key is the
// user's only: a project's file cannot widen what the agent of any session
// can reach.
type MCP struct {
	// Scope is MCPScopeProject (the default): the tools read the stored
	// outputs and the archive of the project of the session that started
	// the server, and nothing else; or MCPScopeAll: every project's.
	Scope string
}

// The values of mcp.scope.
const (
	MCPScopeProject = "project"
	MCPScopeAll     = "all"
)

// oneOf is the check of a text that takes one of a few words.
func oneOf(words ...string) func(string) error {
	return func(s string) error {
		for _, w := range words {
			if s == w {
				return nil
			}
		}
		return fmt.Errorf("want %s", strings.Join(quoteAll(words), " or "))
	}
}

func quoteAll(words []string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = strconv.Quote(w)
	}
	return out
}

// Team says where the team archive is and what is pushed to it
// (docs/TEAM.md). Its keys are the user's only: a project's file cannot
// point the user's archive at another server or widen what leaves the
// machine.
type Team struct {
	DSN              string        // the server, libpq style; no password (PGPASSWORD, ~/.pgpass)
	SyncAfterSession bool          // run `ctxkeep team sync` in the background after SessionEnd
	PushOutputs      bool          // push the text of stored outputs (redacted), not only their entries
	MaxOutputBytes   int64         // the largest output whose text is pushed
	SyncTimeout      time.Duration // how long a background sync may run
}

// Retention says how long unpinned stored outputs are kept.
type Retention struct {
	Default        time.Duration
	Retrieved      time.Duration // once retrieved at least once
	NeverRetrieved time.Duration // if never retrieved
}

// Limits bound what the store and the hook accept.
type Limits struct {
	EntriesPerSession int
	TotalBytes        int64         // the store's size limit; prune starts past it
	MaxOutputBytes    int64         // the largest single output stored
	HookInputBytes    int64         // the largest hook payload read from stdin
	HookInputWait     time.Duration // how long the hook waits for a whole payload
	// TranscriptReadBytes is the most of a transcript one call reads (a
	// hook, or the statusline); a huge one is read over several calls.
	TranscriptReadBytes int64
	// TranscriptLineBytes is the longest transcript line read; longer ones
	// are skipped and counted.
	TranscriptLineBytes int64
}

// View shapes what the model sees in place of a large output.
type View struct {
	Budget        int // characters
	SummaryLength int // characters
	KeyPatterns   int // lines
}

// Watch says when the context monitor warns. Levels are percentages of the
// client's auto-compaction threshold; 0 turns a level off.
type Watch struct {
	Enabled                       bool
	NoticeAt, WarningAt, UrgentAt int
}

// WindowFor returns the context window of a model: the entry of Window
// whose key is the longest prefix of model, else the default.
func (c *Config) WindowFor(model string) int64 {
	best, n := c.Window["default"], -1
	for key, w := range c.Window {
		if key != "default" && len(key) > n && strings.HasPrefix(model, key) {
			best, n = w, len(key)
		}
	}
	return best
}

// Restore shapes what is injected after compaction.
type Restore struct {
	Budget int // characters
}

// ThresholdFor returns the swap threshold of a tool.
func (c *Config) ThresholdFor(tool string) int {
	if n, ok := c.Threshold[tool]; ok {
		return n
	}
	return c.Threshold["default"]
}

// DeadlineFor returns the handler deadline of a hook event.
func (c *Config) DeadlineFor(event string) time.Duration {
	if d, ok := c.Deadline[event]; ok {
		return d
	}
	return c.Deadline["default"]
}
