// Package backends builds ctxkeep's concrete adapters — the local store
// (blob files and the SQLite index), the journal, the team archive on
// PostgreSQL — for the executables' composition roots (cmd/ctxkeep,
// cmd/ctxkeep-hook), which hand them on as the root package's interfaces.
// Nothing outside cmd/ constructs an adapter (TestArchitecture).
package backends

import (
	"context"
	"time"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/app"
	"github.com/ctxkeep/ctxkeep/internal/journal"
	"github.com/ctxkeep/ctxkeep/internal/postgres"
	"github.com/ctxkeep/ctxkeep/internal/store"
)

// Local are the backends every executable has: the local store and the
// journal.
func Local() app.Backends {
	return app.Backends{OpenLocal: openLocal, Journal: openJournal}
}

// All are Local and the team archive on PostgreSQL: ctxkeep's.
func All() app.Backends {
	b := Local()
	b.OpenTeam = openTeam
	return b
}

func openTeam(ctx context.Context, dsn string, migrate bool) (ctxkeep.TeamAdmin, error) {
	db, err := postgres.Open(ctx, postgres.Options{DSN: dsn, Migrate: migrate})
	if err != nil {
		return nil, err
	}
	return db, nil
}

func openLocal(ctx context.Context, indexPath, blobDir string, mode ctxkeep.OpenMode, now func() time.Time) (ctxkeep.Local, error) {
	st, err := store.Open(ctx, indexPath, blobDir, mode, now)
	if err != nil {
		return nil, err // not a nil *store.Store in a non-nil interface
	}
	return st, nil
}

func openJournal(dir string) ctxkeep.EventSink { return journal.Sink{Dir: dir} }
