// Package app is one run of ctxkeep — a hook call or a command: where
// ctxkeep's files are, which project the run is about, the effective
// configuration, and the store, opened on first use with the constructor
// the executable's composition root (cmd/) handed in. It knows no concrete
// backend: hook, cli and mcp get the root package's interfaces from here.
package app

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"time"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/config"
	"github.com/ctxkeep/ctxkeep/internal/dirs"
	"github.com/ctxkeep/ctxkeep/internal/learned"
	"github.com/ctxkeep/ctxkeep/internal/project"
)

// Env is what a run takes from its process, and from the composition
// root that started it.
type Env struct {
	Getenv   func(string) string
	Environ  []string
	Getwd    func() (string, error)
	Now      func() time.Time
	Backends Backends
}

// Backends build the concrete adapters: the composition root (cmd/) fills
// them in, the rest of ctxkeep sees only what they return.
type Backends struct {
	// OpenLocal opens the local store: the index at indexPath, the blobs
	// under blobDir, rows stamped by now.
	OpenLocal func(ctx context.Context, indexPath, blobDir string, mode ctxkeep.OpenMode, now func() time.Time) (ctxkeep.Local, error)
	// Journal is where hook calls are recorded (journal files under dir).
	Journal func(dir string) ctxkeep.EventSink
	// OpenTeam connects to the team archive named by dsn (libpq's form);
	// migrate creates or upgrades its schema (the administrator's init).
	// nil in an executable without one (the hook executable).
	OpenTeam func(ctx context.Context, dsn string, migrate bool) (ctxkeep.TeamAdmin, error)
}

// App is one run of ctxkeep.
type App struct {
	Env
	Dirs    dirs.Dirs
	Project string // see internal/project; "" when unknown

	cfg    *config.Config
	values []config.Value
	cfgErr error
	loaded bool

	// storeMu lets a hook open the store on one goroutine while another
	// builds what the model sees.
	storeMu sync.Mutex
	store   ctxkeep.Local
}

// New resolves the folders and the project of a run. Its error is for a
// process with nowhere to keep files (no HOME, no CTXKEEP_HOME).
func New(env Env) (*App, error) {
	d, err := dirs.Resolve(env.Getenv)
	if err != nil {
		return nil, err
	}
	wd, _ := env.Getwd()
	return &App{Env: env, Dirs: d, Project: project.Root(env.Getenv("CLAUDE_PROJECT_DIR"), wd)}, nil
}

// ForProject is the run for another project than the process's own: the
// wrapper's capture, run inside the agent's shell, stores for the project
// the hook recorded.
func (a *App) ForProject(root string) {
	a.Project, a.loaded = root, false
}

// ConfigFiles are the files the configuration is read from: the user's,
// then the project's.
func (a *App) ConfigFiles() config.Files {
	files := config.Files{User: a.Dirs.ConfigFile()}
	if a.Project != "" {
		files.Project = filepath.Join(a.Project, config.ProjectFileName)
	}
	return files
}

// Config is the effective configuration, read once per run.
func (a *App) Config() (*config.Config, error) {
	cfg, _, err := a.ConfigValues()
	return cfg, err
}

// ConfigValues is Config with where each value came from.
func (a *App) ConfigValues() (*config.Config, []config.Value, error) {
	if !a.loaded {
		a.cfg, a.values, a.cfgErr = config.Load(a.ConfigFiles(), a.Environ)
		a.loaded = true
	}
	return a.cfg, a.values, a.cfgErr
}

// Store opens the store on first use, in mode: the hook path opens an
// existing index and never migrates (ctxkeep.OpenExisting); commands
// create and migrate it (OpenMigrate), or, for dry runs, only read
// (OpenReadOnly). Safe for concurrent use: a second caller waits for the
// first's open.
func (a *App) Store(ctx context.Context, mode ctxkeep.OpenMode) (ctxkeep.Local, error) {
	a.storeMu.Lock()
	defer a.storeMu.Unlock()
	if a.store == nil {
		if a.Backends.OpenLocal == nil {
			return nil, errNoBackend
		}
		st, err := a.Backends.OpenLocal(ctx, a.Dirs.IndexDB(), a.Dirs.Blobs(), mode, a.Now)
		if err != nil {
			return nil, err
		}
		a.store = st
	}
	return a.store, nil
}

// Ingest moves the new lines of the journals (one session's, or all when
// session is "") into the index, and learns the commands whose output was
// large for the wrapper: the hook journals them rather than take the
// learned file's lock on the hot path. Whoever indexes a line learns from
// it, so a command is learned once, by a hook at the end of a turn or by a
// command run meanwhile.
func (a *App) Ingest(ctx context.Context, st ctxkeep.EventIndex, session string) (ctxkeep.Ingested, error) {
	res, err := st.IngestJournals(ctx, a.Dirs.Journals(), session)
	if len(res.Large) > 0 {
		if lerr := learned.RecordAll(a.Dirs.Learned(), res.Large, a.Now()); err == nil {
			err = lerr
		}
	}
	return res, err
}

// Opened is the store if it was opened (or is being opened), else nil.
func (a *App) Opened() ctxkeep.Local {
	a.storeMu.Lock()
	defer a.storeMu.Unlock()
	return a.store
}

// Close closes the store if it was opened.
func (a *App) Close() {
	a.storeMu.Lock()
	defer a.storeMu.Unlock()
	if a.store != nil {
		a.store.Close()
		a.store = nil
	}
}

// errNoBackend is what a run gets from a composition root that gave it no
// store: a bug of the executable, not of the user's files.
var errNoBackend = errors.New("this executable has no local store (a composition root gave none)")

// Journal is the sink hook calls are recorded in.
func (a *App) Journal() ctxkeep.EventSink {
	if a.Backends.Journal == nil {
		return discard{}
	}
	return a.Backends.Journal(a.Dirs.Journals())
}

// discard records nothing: for an executable without a journal.
type discard struct{}

func (discard) Append(string, ctxkeep.Event) error { return nil }
