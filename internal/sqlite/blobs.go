package sqlite

import (
	"context"
	"database/sql"
	"time"

	"github.com/ctxkeep/ctxkeep/internal/blob"
)

// AddBlob records a blob that is already durable on disk. Adding it again
// is harmless.
func (db *DB) AddBlob(ctx context.Context, b blob.Info, now time.Time) error {
	return db.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx,
			`INSERT INTO blobs (hash, size, stored_size, created_at) VALUES (?, ?, ?, ?)
			 ON CONFLICT (hash) DO UPDATE SET stored_size = excluded.stored_size`,
			string(b.Hash), b.Size, b.Stored, now.UnixMilli())
		return err
	})
}

// Blob returns the row of blob h; ok is false when there is none.
func (db *DB) Blob(ctx context.Context, h blob.Hash) (b blob.Info, ok bool, err error) {
	err = db.sql.QueryRowContext(ctx, `SELECT size, stored_size FROM blobs WHERE hash = ?`, string(h)).Scan(&b.Size, &b.Stored)
	if err == sql.ErrNoRows {
		return b, false, nil
	}
	b.Hash = h
	return b, err == nil, err
}

// RemoveBlobRow deletes the row of blob h. The caller unlinks the file only
// after this commits (rows removed before blobs).
func (db *DB) RemoveBlobRow(ctx context.Context, h blob.Hash) error {
	return db.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM blobs WHERE hash = ?`, string(h))
		return err
	})
}

// BlobHashes lists every blob row's hash.
func (db *DB) BlobHashes(ctx context.Context) ([]blob.Hash, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT hash FROM blobs ORDER BY hash`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var hs []blob.Hash
	for rows.Next() {
		var h string
		if err := rows.Scan(&h); err != nil {
			return nil, err
		}
		hs = append(hs, blob.Hash(h))
	}
	return hs, rows.Err()
}
