// Package codex knows how ctxkeep plugs into OpenAI's Codex CLI (0.169.0;
// /work/shared/codex-hooks.md is the verified reference): what its hook
// payloads carry, how a tool's output is read and replaced, how its
// rollout files (the session transcripts) read, and how ctxkeep's hooks
// are registered in $CODEX_HOME/hooks.json and trusted.
//
// It is internal/claudecode's sibling. Codex took Claude Code's hook
// protocol as its model, so the event payloads decode into the hook's one
// Event struct; what differs is here: a shell output arrives as a plain
// string without its exit status, a replacement is the reason of a
// "block" decision, hook text is cut above 2,500 tokens, and the rollout
// is a stream of typed items, not of API messages. The policies (swap,
// archive, keep, watch) never see any of this: the rollout reader yields
// the turns and the usage they already read.
package codex

import (
	"path/filepath"
)

// Home is Codex's folder: $CODEX_HOME, else ~/.codex. home is $HOME.
func Home(getenv func(string) string) string {
	if h := getenv("CODEX_HOME"); h != "" {
		return filepath.Clean(h)
	}
	if home := getenv("HOME"); home != "" {
		return filepath.Join(home, ".codex")
	}
	return ""
}

// HooksFile is the user layer's hooks file (codex-hooks.md §4).
func HooksFile(home string) string { return filepath.Join(home, "hooks.json") }

// ConfigFile is the user's config.toml: where hook trust is recorded.
func ConfigFile(home string) string { return filepath.Join(home, "config.toml") }

// SessionsDir holds the rollout files, by date:
// sessions/YYYY/MM/DD/rollout-<time>-<session id>.jsonl.
func SessionsDir(home string) string { return filepath.Join(home, "sessions") }

// HookTextTokens is the most hook text Codex passes to the model as is:
// longer additional context and replacement text is cut to its head and
// tail, the whole written to a file (codex-hooks.md §6). Codex counts a
// token per four bytes, so this is 10,000 bytes.
const HookTextTokens = 2500

// MaxHookText is HookTextTokens in bytes, less a margin for the lines
// Codex itself may add around a text.
const MaxHookText = HookTextTokens*4 - 500
