package sqlite

import (
	"context"
	"database/sql"
	"time"

	"github.com/ctxkeep/ctxkeep"
)

// AddBlob records a blob that is durable on disk; present is checked
// inside the write transaction as in AddEntry. Adding it again is
// harmless.
func (db *DB) AddBlob(ctx context.Context, b ctxkeep.Blob, now time.Time, present func() error) error {
	return db.write(ctx, func(tx *sql.Tx) error {
		if err := present(); err != nil {
			return err
		}
		return upsertBlob(ctx, tx, b, now)
	})
}

func upsertBlob(ctx context.Context, tx *sql.Tx, b ctxkeep.Blob, now time.Time) error {
	_, err := tx.ExecContext(ctx,
		`INSERT INTO blobs (hash, size, stored_size, created_at) VALUES (?, ?, ?, ?)
		 ON CONFLICT (hash) DO UPDATE SET stored_size = excluded.stored_size`,
		string(b.Hash), b.Size, b.Stored, now.UnixMilli())
	return err
}

// Blob returns the row of blob h; ok is false when there is none.
func (db *DB) Blob(ctx context.Context, h ctxkeep.Hash) (b ctxkeep.Blob, ok bool, err error) {
	err = db.sql.QueryRowContext(ctx, `SELECT size, stored_size FROM blobs WHERE hash = ?`, string(h)).Scan(&b.Size, &b.Stored)
	if err == sql.ErrNoRows {
		return b, false, nil
	}
	b.Hash = h
	return b, err == nil, err
}

// BlobHashes lists every blob row's hash.
func (db *DB) BlobHashes(ctx context.Context) ([]ctxkeep.Hash, error) {
	hs, err := db.strings(ctx, `SELECT hash FROM blobs ORDER BY hash`)
	out := make([]ctxkeep.Hash, len(hs))
	for i, h := range hs {
		out[i] = ctxkeep.Hash(h)
	}
	return out, err
}
