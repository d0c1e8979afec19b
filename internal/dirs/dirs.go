// Package dirs resolves where ctxkeep keeps its files: the XDG data, state
// and config folders, or one folder for everything when CTXKEEP_HOME is set
// (tests, portable installs).
package dirs

import (
	"errors"
	"path/filepath"
)

// Dirs are the folders ctxkeep owns. Nothing is created here: callers create
// what they write into, with fsx.MkdirPrivate.
type Dirs struct {
	Data   string // blobs and the index database: what must not be lost
	State  string // journals and the log: rebuildable, per machine
	Config string // config.toml
}

// Resolve computes the folders from the environment:
//
//	CTXKEEP_HOME                 → all three in that folder
//	XDG_DATA_HOME/ctxkeep        → Data   (default ~/.local/share/ctxkeep)
//	XDG_STATE_HOME/ctxkeep       → State  (default ~/.local/state/ctxkeep)
//	XDG_CONFIG_HOME/ctxkeep      → Config (default ~/.config/ctxkeep)
//
// Relative XDG values are ignored, as the XDG spec requires.
func Resolve(getenv func(string) string) (Dirs, error) {
	if h := getenv("CTXKEEP_HOME"); h != "" {
		if !filepath.IsAbs(h) {
			return Dirs{}, errors.New("CTXKEEP_HOME must be an absolute path")
		}
		return Dirs{Data: h, State: h, Config: h}, nil
	}
	home := getenv("HOME")
	xdg := func(name, fallback string) (string, error) {
		if v := getenv(name); filepath.IsAbs(v) {
			return filepath.Join(v, "ctxkeep"), nil
		}
		if !filepath.IsAbs(home) {
			return "", errors.New("HOME is not set to an absolute path; set CTXKEEP_HOME")
		}
		return filepath.Join(home, fallback, "ctxkeep"), nil
	}
	var d Dirs
	var err error
	if d.Data, err = xdg("XDG_DATA_HOME", ".local/share"); err != nil {
		return Dirs{}, err
	}
	if d.State, err = xdg("XDG_STATE_HOME", ".local/state"); err != nil {
		return Dirs{}, err
	}
	if d.Config, err = xdg("XDG_CONFIG_HOME", ".config"); err != nil {
		return Dirs{}, err
	}
	return d, nil
}

// Blobs is the content-addressed blob folder.
func (d Dirs) Blobs() string { return filepath.Join(d.Data, "blobs") }

// IndexDB is the SQLite index file.
func (d Dirs) IndexDB() string { return filepath.Join(d.Data, "index.db") }

// Journals is the folder of per-session event journals.
func (d Dirs) Journals() string { return filepath.Join(d.State, "journal") }

// Spool holds the output of wrapped commands until `ctxkeep capture`
// stores it.
func (d Dirs) Spool() string { return filepath.Join(d.State, "spool") }

// Learned is the list of learned large commands.
func (d Dirs) Learned() string { return filepath.Join(d.State, "learned.json") }

// Removals is the log of every stored output prune removed, and why.
func (d Dirs) Removals() string { return filepath.Join(d.State, "removed.log") }

// MCPRegistrations lists the client configuration files in which install
// registered ctxkeep's MCP server, one path a line: the hook reads it to
// know whether views may name the tools.
func (d Dirs) MCPRegistrations() string { return filepath.Join(d.State, "mcp-registered") }

// Log is ctxkeep's own log file: one line per problem.
func (d Dirs) Log() string { return filepath.Join(d.State, "ctxkeep.log") }

// ConfigFile is the user's config file.
func (d Dirs) ConfigFile() string { return filepath.Join(d.Config, "config.toml") }
