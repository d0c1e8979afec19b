package storetest

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/app"
	"github.com/ctxkeep/ctxkeep/internal/journal"
	"github.com/ctxkeep/ctxkeep/internal/postgres"
	"github.com/ctxkeep/ctxkeep/internal/store"
)

// Local opens (creating and migrating) the local store in dir, as the CLI
// does, closed when the test ends.
func Local(t testing.TB, dir string) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(dir, "index.db"), filepath.Join(dir, "blobs"), store.Migrate, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// Backends are the backends the composition root gives a run, for tests
// that drive a run in-process (the hooks, the CLI) on the local store.
func Backends() app.Backends {
	return app.Backends{
		OpenLocal: func(ctx context.Context, indexPath, blobDir string, mode ctxkeep.OpenMode, now func() time.Time) (ctxkeep.Local, error) {
			st, err := store.Open(ctx, indexPath, blobDir, mode, now)
			if err != nil {
				return nil, err
			}
			return st, nil
		},
		Journal: func(dir string) ctxkeep.EventSink { return journal.Sink{Dir: dir} },
		OpenTeam: func(ctx context.Context, dsn string, migrate bool) (ctxkeep.TeamAdmin, error) {
			db, err := postgres.Open(ctx, postgres.Options{DSN: dsn, Migrate: migrate})
			if err != nil {
				return nil, err
			}
			return db, nil
		},
	}
}
