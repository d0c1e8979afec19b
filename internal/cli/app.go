package cli

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"

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

// errNoStore is storeIfAny's answer on a machine where nothing was ever
// stored: the index does not exist.
var errNoStore = ctxkeep.Errorf(ctxkeep.ErrNotFound, "nothing is stored yet: there is no store on this machine")

// storeIfAny opens the store when there is one, errNoStore when the index
// was never made: the commands that only read (doctor, list, stats, pins,
// search, optimize) leave an empty HOME as they found it.
func (a *app) storeIfAny(ctx context.Context) (ctxkeep.Local, error) {
	if !a.hasStore() {
		return nil, hint(errNoStore, "`ctxkeep install` prepares it; the hooks store tool outputs and archive sessions from then on")
	}
	return a.openStore(ctx)
}

// hasStore reports whether the index exists (or cannot be looked at: the
// command that opens it says why), or there is something to put in it:
// journals the hooks wrote, which commands index first.
func (a *app) hasStore() bool {
	r, err := a.env()
	if err != nil {
		return true
	}
	if _, err = os.Stat(r.Dirs.IndexDB()); !errors.Is(err, fs.ErrNotExist) {
		return true
	}
	journals, _ := os.ReadDir(r.Dirs.Journals())
	return len(journals) > 0
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
	enc.SetEscapeHTML(false) // "2>&1", not "2\u003e\u00261": a document for programs and people, not a web page
	return enc.Encode(v)
}
