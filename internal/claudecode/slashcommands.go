package claudecode

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxkeep/ctxkeep/internal/fsx"
)

// SlashCommand is one of the client's custom commands: a Markdown file in a
// commands folder, named after the command, whose body becomes the prompt
// ($ARGUMENTS standing for what the user typed after the name). Hooks see
// the prompt as the user typed it ("/pin-last hard"), not the body.
type SlashCommand struct {
	Name         string // without the slash
	Description  string
	ArgumentHint string
	Body         string
}

// slashMarker is in every command file ctxkeep writes, so that uninstall
// removes those and never a command of the user's with the same name.
const slashMarker = "<!-- written by ctxkeep install; ctxkeep uninstall removes it -->"

// CommandsDir is where the client reads the custom commands of scope:
// <config dir>/commands for the user (every project), the project's
// .claude/commands otherwise. The client has no folder for local
// commands: Local gets the user's, which only the user sees.
func CommandsDir(scope Scope, home, projectDir, claudeConfigDir string) string {
	if scope == Project {
		return filepath.Join(projectDir, ".claude", "commands")
	}
	if claudeConfigDir != "" {
		return filepath.Join(claudeConfigDir, "commands")
	}
	return filepath.Join(home, ".claude", "commands")
}

func (c SlashCommand) file() []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "---\ndescription: %s\n", c.Description)
	if c.ArgumentHint != "" {
		fmt.Fprintf(&b, "argument-hint: %s\n", c.ArgumentHint)
	}
	fmt.Fprintf(&b, "---\n%s\n\n%s\n", strings.TrimSpace(c.Body), slashMarker)
	return []byte(b.String())
}

// SlashResult says what WriteSlashCommands or RemoveSlashCommands did.
type SlashResult struct {
	Written []string // files written or rewritten
	Same    []string // already as they should be
	Kept    []string // the user's own files of the same name, left alone
	Removed []string
	// RemovedDir is the folder, when removing ctxkeep's commands left it
	// empty and it went too.
	RemovedDir string
}

// WriteSlashCommands writes cmds into dir, creating it. A file of the same
// name that ctxkeep did not write is the user's and is left alone.
func WriteSlashCommands(dir string, cmds []SlashCommand) (SlashResult, error) {
	var r SlashResult
	if err := os.MkdirAll(dir, settingsDirPerm); err != nil {
		return r, err
	}
	for _, c := range cmds {
		path := filepath.Join(dir, c.Name+".md")
		old, err := os.ReadFile(path)
		switch {
		case err == nil && string(old) == string(c.file()):
			r.Same = append(r.Same, path)
			continue
		case err == nil && !strings.Contains(string(old), slashMarker):
			r.Kept = append(r.Kept, path)
			continue
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			return r, err
		}
		if err := fsx.WriteFileAtomic(path, c.file(), 0o644); err != nil {
			return r, err
		}
		r.Written = append(r.Written, path)
	}
	return r, nil
}

// RemoveSlashCommands removes from dir the command files named names that
// ctxkeep wrote, and dir itself when that left it empty (a folder that
// was empty before is the user's business); with dryRun it only says
// which.
func RemoveSlashCommands(dir string, names []string, dryRun bool) (SlashResult, error) {
	var r SlashResult
	for _, name := range names {
		path := filepath.Join(dir, name+".md")
		data, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return r, err
		}
		if !strings.Contains(string(data), slashMarker) {
			r.Kept = append(r.Kept, path)
			continue
		}
		if !dryRun {
			if err := os.Remove(path); err != nil {
				return r, err
			}
		}
		r.Removed = append(r.Removed, path)
	}
	if len(r.Removed) > 0 && emptyAfter(dir, r.Removed, dryRun) {
		if !dryRun {
			if err := os.Remove(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return r, err
			}
		}
		r.RemovedDir = dir
	}
	return r, nil
}

// emptyAfter reports whether dir holds nothing but the files removed (in
// a dry run, those that would be).
func emptyAfter(dir string, removed []string, dryRun bool) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	left := len(entries)
	if dryRun {
		left -= len(removed)
	}
	return left == 0
}
