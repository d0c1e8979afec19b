// Package teamarchive opens the team archive on PostgreSQL for ctxkeep's
// composition root. It is apart from backends so that ctxkeep-hook, which
// never talks to the team archive, links neither pgx nor the TLS stack
// nor runs their package initialisers on every hook call.
package teamarchive

import (
	"context"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/postgres"
)

// Open connects to the team archive at dsn, migrating its schema first
// when migrate is set.
func Open(ctx context.Context, dsn string, migrate bool) (ctxkeep.TeamAdmin, error) {
	db, err := postgres.Open(ctx, postgres.Options{DSN: dsn, Migrate: migrate})
	if err != nil {
		return nil, err // not a nil *postgres.DB in a non-nil interface
	}
	return db, nil
}
