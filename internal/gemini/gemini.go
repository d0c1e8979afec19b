// Package gemini knows how ctxkeep plugs into Google's Gemini CLI (0.61.0;
// /work/shared/gemini-cli-hooks.md is the verified reference): what its
// hook payloads carry, how a tool's output is read, how its chat files
// (~/.gemini/tmp/<project>/chats/session-….jsonl) read as turns and as
// context usage, where it compresses, and how ctxkeep's hooks are
// registered in ~/.gemini/settings.json.
//
// It is the sibling of internal/claudecode and internal/codex. Gemini
// CLI's hooks have their own names (AfterTool, PreCompress, BeforeModel,
// AfterAgent…) and payloads, but the fields ctxkeep reads decode into the
// hook's one Event struct; what differs is here: a tool's result is
// {llmContent, returnDisplay}, the shell's wrapped in <untrusted_context>
// with its exit code on a line of its own, there is no call id, a chat
// file is a log of message records written again as they grow, and a
// compression rewrites the history as a <state_snapshot>. The policies
// (swap, archive, keep, watch) never see any of this.
package gemini

import (
	"path/filepath"
)

// Home is the folder Gemini CLI keeps its files in: $GEMINI_CLI_HOME/.gemini
// when set (the CLI's own override of the home folder), else ~/.gemini.
func Home(getenv func(string) string) string {
	home := getenv("GEMINI_CLI_HOME")
	if home == "" {
		home = getenv("HOME")
	}
	if home == "" {
		return ""
	}
	return filepath.Join(filepath.Clean(home), ".gemini")
}

// SettingsFile is the user's settings.json, where ctxkeep registers its
// hooks (the user layer: no trust step, gemini-cli-hooks.md).
func SettingsFile(home string) string { return filepath.Join(home, "settings.json") }

// ChatsGlob matches every chat file under home:
// tmp/<project>/chats/session-<time>-<id8>.jsonl.
func ChatsGlob(home string) string {
	return filepath.Join(home, "tmp", "*", "chats", "session-*.jsonl")
}

// Tool names of Gemini CLI 0.61.0 that ctxkeep reads.
const (
	Shell        = "run_shell_command"
	ReadFile     = "read_file"
	ReadMany     = "read_many_files"
	Grep         = "grep_search"
	SearchFiles  = "search_file_content" // grep's name before 0.61.0
	Glob         = "glob"
	WebFetch     = "web_fetch"
	WriteFile    = "write_file"
	Replace      = "replace"
	ListDir      = "list_directory"
	WriteTodos   = "write_todos"
	GoogleSearch = "google_web_search"
)

// ClaudeName is a Gemini tool's counterpart among Claude Code's tools,
// whose names ctxkeep's settings (thresholds, pass-through rules) and
// archive know; a tool without one (MCP tools, the rest) keeps its name.
func ClaudeName(tool string) string {
	switch tool {
	case Shell:
		return "Bash"
	case ReadFile, ReadMany:
		return "Read"
	case Grep, SearchFiles:
		return "Grep"
	case Glob:
		return "Glob"
	case WebFetch:
		return "WebFetch"
	case WriteFile:
		return "Write"
	case Replace:
		return "Edit"
	case ListDir:
		return "LS"
	case WriteTodos:
		return "TodoWrite"
	case GoogleSearch:
		return "WebSearch"
	}
	return tool
}

// Restored is the restore block ctxkeep's BeforeModel hook gave a
// compressed session, kept in ctxkeep's state folder: the CLI keeps no
// hook's edit of a request in its chat, so the block is given again with
// every request of the compressed history, and this file is the only
// record of what it put back (the UI shows it).
type Restored struct {
	Snapshot string `json:"snapshot"` // the hash of the <state_snapshot> it follows
	Block    string `json:"block"`
}

// RestoredFile is where the restore block given to session is kept, in
// ctxkeep's keep folder (<state>/keep).
func RestoredFile(keepDir, session string) string {
	return filepath.Join(keepDir, session+".gemini-restored.json")
}
