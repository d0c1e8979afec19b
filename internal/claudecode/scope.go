package claudecode

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Scope names one of the settings files Claude Code merges; hooks from all
// of them run.
type Scope int

const (
	User    Scope = iota // every project of this user
	Project              // this project, for everyone who clones it
	Local                // this project, this user only (not committed)
)

var scopeNames = [...]string{User: "user", Project: "project", Local: "local"}

func (s Scope) String() string {
	if s < 0 || int(s) >= len(scopeNames) {
		return fmt.Sprintf("Scope(%d)", int(s))
	}
	return scopeNames[s]
}

// SettingsPath returns the settings file of scope. User settings live in
// claudeConfigDir (the CLAUDE_CONFIG_DIR environment variable) when it is
// set, else in home/.claude; the other scopes live in projectDir/.claude.
// An unknown scope is a bug in the caller, and panics.
func SettingsPath(scope Scope, home, projectDir, claudeConfigDir string) string {
	switch scope {
	case User:
		if claudeConfigDir != "" {
			return filepath.Join(claudeConfigDir, "settings.json")
		}
		return filepath.Join(home, ".claude", "settings.json")
	case Project:
		return filepath.Join(projectDir, ".claude", "settings.json")
	case Local:
		return filepath.Join(projectDir, ".claude", "settings.local.json")
	}
	panic(fmt.Sprintf("claudecode: SettingsPath of unknown %v", scope))
}

// ConfigDir is the client's own folder: claudeConfigDir (the
// CLAUDE_CONFIG_DIR environment variable) when set, else home/.claude.
func ConfigDir(home, claudeConfigDir string) string {
	if claudeConfigDir != "" {
		return claudeConfigDir
	}
	return filepath.Join(home, ".claude")
}

// TranscriptDir is the folder of a project's session transcripts:
// <config dir>/projects/<the folder the session started in, every
// character but ASCII letters and digits turned into '-'>
// (claude-code-hooks.md §8.1).
func TranscriptDir(configDir, project string) string {
	key := strings.Map(func(r rune) rune {
		if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' {
			return r
		}
		return '-'
	}, project)
	return filepath.Join(configDir, "projects", key)
}
