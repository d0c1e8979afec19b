// Package project says which project a hook call or a command is about,
// one way for everything that is scoped by project: the project's config
// file, learned commands, permissions, the archive's project and the scope
// of search.
//
// The project is the root the client reports (Claude Code's
// CLAUDE_PROJECT_DIR: constant for the session, wherever its shell has
// cd'ed to), else the root of the git work tree holding the working
// directory, else the working directory itself.
package project

import (
	"os"
	"path/filepath"
)

// Root returns the project for clientRoot (what the client reports, or "")
// and the working directory cwd.
func Root(clientRoot, cwd string) string {
	if clientRoot != "" {
		return filepath.Clean(clientRoot)
	}
	if cwd == "" {
		return ""
	}
	cwd = filepath.Clean(cwd)
	if root := gitRoot(cwd); root != "" {
		return root
	}
	return cwd
}

// gitRoot is the nearest folder at or above dir holding a .git entry (a
// folder, or a file in a linked worktree or submodule), or "". It only
// looks at the file system: no git process on the hook path.
func gitRoot(dir string) string {
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}
