package cli

import (
	"context"
	"encoding/json"
	"path/filepath"

	"github.com/ctxkeep/ctxkeep/internal/config"
	"github.com/ctxkeep/ctxkeep/internal/dirs"
	"github.com/ctxkeep/ctxkeep/internal/store"
)

// app is one CLI run: the process plus what commands open on demand.
type app struct {
	Process
	store *store.Store
}

func (a *app) dirs() (dirs.Dirs, error) {
	d, err := dirs.Resolve(a.Getenv)
	if err != nil {
		return d, hint(err, "set HOME or CTXKEEP_HOME")
	}
	return d, nil
}

// projectDir is the project the command is about: the client's
// CLAUDE_PROJECT_DIR when set (commands run from the agent), else the
// working directory.
func (a *app) projectDir() string {
	if p := a.Getenv("CLAUDE_PROJECT_DIR"); p != "" {
		return p
	}
	wd, _ := a.Getwd()
	return wd
}

func (a *app) configFiles(d dirs.Dirs) config.Files {
	files := config.Files{User: d.ConfigFile()}
	if p := a.projectDir(); p != "" {
		files.Project = filepath.Join(p, config.ProjectFileName)
	}
	return files
}

// config loads the effective configuration with where each value came from.
func (a *app) config() (*config.Config, []config.Value, error) {
	d, err := a.dirs()
	if err != nil {
		return nil, nil, err
	}
	return config.Load(a.configFiles(d), a.Environ)
}

// openStore opens the blob store and the index, creating and migrating the
// index as needed: any CLI command prepares the store for the hooks.
func (a *app) openStore(ctx context.Context) (*store.Store, error) {
	if a.store != nil {
		return a.store, nil
	}
	d, err := a.dirs()
	if err != nil {
		return nil, err
	}
	a.store, err = store.Open(ctx, d.IndexDB(), d.Blobs(), store.Migrate, a.Now)
	return a.store, err
}

func (a *app) close() {
	if a.store != nil {
		a.store.Close()
	}
}

// printJSON writes v as the command's --json document.
func (a *app) printJSON(v any) error {
	enc := json.NewEncoder(a.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
