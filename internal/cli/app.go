package cli

import (
	"context"
	"encoding/json"

	"github.com/ctxkeep/ctxkeep"
	ctxapp "github.com/ctxkeep/ctxkeep/internal/app"

	"github.com/ctxkeep/ctxkeep/internal/config"
	"github.com/ctxkeep/ctxkeep/internal/dirs"
)

// app is one CLI run: the process, and the composition root's view of it
// (folders, project, config, store), made on first use.
type app struct {
	Process
	root *ctxapp.App
	// jsonOut is set when the command line asks for --json: the result and
	// any error are JSON documents on stdout.
	jsonOut bool
}

// env is the composition root of this run.
func (a *app) env() (*ctxapp.App, error) {
	if a.root == nil {
		r, err := ctxapp.New(a.hookEnv())
		if err != nil {
			return nil, hint(err, "set HOME or CTXKEEP_HOME")
		}
		a.root = r
	}
	return a.root, nil
}

func (a *app) dirs() (dirs.Dirs, error) {
	r, err := a.env()
	if err != nil {
		return dirs.Dirs{}, err
	}
	return r.Dirs, nil
}

// projectDir is the project the command is about (internal/project): the
// client's CLAUDE_PROJECT_DIR when set (commands run from the agent), else
// the git root of the working directory, else the working directory.
func (a *app) projectDir() string {
	r, err := a.env()
	if err != nil {
		return ""
	}
	return r.Project
}

func (a *app) configFiles() config.Files {
	r, err := a.env()
	if err != nil {
		return config.Files{}
	}
	return r.ConfigFiles()
}

// config loads the effective configuration with where each value came from.
func (a *app) config() (*config.Config, []config.Value, error) {
	r, err := a.env()
	if err != nil {
		return nil, nil, err
	}
	cfg, values, err := r.ConfigValues()
	if err != nil {
		return nil, nil, hint(err, "edit the file named above, or unset the variable")
	}
	return cfg, values, nil
}

// openStore opens the blob store and the index, creating and migrating the
// index as needed: any CLI command prepares the store for the hooks.
func (a *app) openStore(ctx context.Context) (ctxkeep.Local, error) {
	r, err := a.env()
	if err != nil {
		return nil, err
	}
	return r.Store(ctx, ctxkeep.OpenMigrate)
}

func (a *app) close() {
	if a.root != nil {
		a.root.Close()
	}
}

// printJSON writes v as the command's --json document.
func (a *app) printJSON(v any) error {
	enc := json.NewEncoder(a.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
