package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/ctxkeep/ctxkeep"
)

// The functions here keep the write ordering of docs/STORE_FORMAT.md when
// writers and removers run at once. The hazard is a writer that finds its
// blob already on disk (blob.Put writes nothing then) while a remover,
// which has just deleted the last row pointing at that blob, unlinks it:
// the writer would then commit a row without a blob. Both sides therefore
// decide under SQLite's write lock: a remover unlinks a blob only when no
// row refers to it (UnlinkUnreferenced), a writer commits its row only when
// the blob is still there (AddEntry, AddBlob). Whichever
// takes the lock first wins; the other sees its result.

// RemoveEntries deletes the given entries, and the rows of the blobs that
// no row refers to afterwards, in one transaction. An entry that is gone,
// or was replaced since it was read (a retried hook stores its entry
// again), is left alone. The freed blobs' files are the caller's to unlink
// once this has returned, with UnlinkUnreferenced: rows go before files.
func (db *DB) RemoveEntries(ctx context.Context, es []ctxkeep.Entry) (ctxkeep.Removed, error) {
	var out ctxkeep.Removed
	err := db.write(ctx, func(tx *sql.Tx) error {
		out = ctxkeep.Removed{}
		hashes := map[ctxkeep.Hash]bool{}
		delEntry, err := tx.PrepareContext(ctx, `DELETE FROM entries WHERE id = ? AND created_at = ?`)
		if err != nil {
			return err
		}
		defer delEntry.Close()
		for _, e := range es {
			res, err := delEntry.ExecContext(ctx, e.ID, e.CreatedAt.UnixMilli())
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n > 0 {
				out.Entries = append(out.Entries, e)
				hashes[e.Hash] = true
			}
		}
		unreferenced, err := unreferencedClause(ctx, tx)
		if err != nil {
			return err
		}
		delBlob, err := tx.PrepareContext(ctx, `DELETE FROM blobs WHERE hash = ?1 AND `+unreferenced+` RETURNING size, stored_size`)
		if err != nil {
			return err
		}
		defer delBlob.Close()
		for h := range hashes {
			b := ctxkeep.Blob{Hash: h}
			err := delBlob.QueryRowContext(ctx, string(h)).Scan(&b.Size, &b.Stored)
			if err == sql.ErrNoRows {
				continue // still referred to
			}
			if err != nil {
				return err
			}
			out.Freed = append(out.Freed, b)
		}
		return nil
	})
	return out, err
}

// unreferencedClause is an SQL condition true when no row of any table
// whose foreign key points at blobs refers to the blob ?1: entries today,
// and whatever later migrations add, without this code knowing them.
func unreferencedClause(ctx context.Context, tx *sql.Tx) (string, error) {
	rows, err := tx.QueryContext(ctx, `SELECT m.name, f."from" FROM sqlite_master m, pragma_foreign_key_list(m.name) f
		WHERE m.type = 'table' AND f."table" = 'blobs' ORDER BY m.name`)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	conds := []string{"1"}
	for rows.Next() {
		var table, column string
		if err := rows.Scan(&table, &column); err != nil {
			return "", err
		}
		conds = append(conds, fmt.Sprintf(`NOT EXISTS (SELECT 1 FROM %s WHERE %s = ?1)`, quoteIdent(table), quoteIdent(column)))
	}
	return "(" + strings.Join(conds, " AND ") + ")", rows.Err()
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// UnlinkUnreferenced calls unlink for each of hashes that has no blob row,
// holding the write lock meanwhile, so that no writer commits a row for it
// in between (see AddEntry). It returns the hashes it unlinked.
func (db *DB) UnlinkUnreferenced(ctx context.Context, hashes []ctxkeep.Hash, unlink func(ctxkeep.Hash) error) ([]ctxkeep.Hash, error) {
	var done []ctxkeep.Hash
	err := db.write(ctx, func(tx *sql.Tx) error {
		done = done[:0]
		row, err := tx.PrepareContext(ctx, `SELECT 1 FROM blobs WHERE hash = ?`)
		if err != nil {
			return err
		}
		defer row.Close()
		for _, h := range hashes {
			var one int
			err := row.QueryRowContext(ctx, string(h)).Scan(&one)
			if err == nil {
				continue // a writer stored it again
			}
			if err != sql.ErrNoRows {
				return err
			}
			if err := unlink(h); err != nil {
				return err
			}
			done = append(done, h)
		}
		return nil
	})
	return done, err
}

// ConfirmMissing returns those of hashes that have a blob row while absent
// reports their file missing, both looked at under the write lock: no
// writer or remover is between its two steps then, so a row without its
// file is a real problem, not a put or a removal in progress.
func (db *DB) ConfirmMissing(ctx context.Context, hashes []ctxkeep.Hash, absent func(ctxkeep.Hash) bool) ([]ctxkeep.Hash, error) {
	var missing []ctxkeep.Hash
	err := db.write(ctx, func(tx *sql.Tx) error {
		missing = missing[:0]
		for _, h := range hashes {
			var one int
			err := tx.QueryRowContext(ctx, `SELECT 1 FROM blobs WHERE hash = ?`, string(h)).Scan(&one)
			if err == sql.ErrNoRows {
				continue // removed meanwhile
			}
			if err != nil {
				return err
			}
			if absent(h) {
				missing = append(missing, h)
			}
		}
		return nil
	})
	return missing, err
}

// BlobSizes returns the stored (compressed) size of every blob row, and
// their sum: the size of the store as prune counts it.
func (db *DB) BlobSizes(ctx context.Context) (map[ctxkeep.Hash]int64, int64, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT hash, stored_size FROM blobs`)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	sizes := map[ctxkeep.Hash]int64{}
	var total int64
	for rows.Next() {
		var h string
		var n int64
		if err := rows.Scan(&h, &n); err != nil {
			return nil, 0, err
		}
		sizes[ctxkeep.Hash(h)] = n
		total += n
	}
	return sizes, total, rows.Err()
}

// StoredBytes is the sum of the stored sizes of all blobs: one aggregate,
// cheap enough for a hook.
func (db *DB) StoredBytes(ctx context.Context) (int64, error) {
	var n int64
	err := db.sql.QueryRowContext(ctx, `SELECT coalesce(sum(stored_size), 0) FROM blobs`).Scan(&n)
	return n, err
}

// Sessions returns when the hooks last saw each session, and its
// transcript.
func (db *DB) Sessions(ctx context.Context) (map[string]ctxkeep.Session, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT id, last_seen, transcript_path FROM sessions`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]ctxkeep.Session{}
	for rows.Next() {
		var id, path string
		var ms int64
		if err := rows.Scan(&id, &ms, &path); err != nil {
			return nil, err
		}
		out[id] = ctxkeep.Session{ID: id, LastSeen: time.UnixMilli(ms).UTC(), Transcript: path}
	}
	return out, rows.Err()
}

// DanglingEntries lists the entries whose blob has no row. The foreign key
// forbids them; an index written with foreign keys off could still have
// some.
func (db *DB) DanglingEntries(ctx context.Context) ([]ctxkeep.Entry, error) {
	return db.queryEntries(ctx, `WHERE hash NOT IN (SELECT hash FROM blobs) ORDER BY created_at, id`)
}

// PruneDue reports cheaply whether a prune could have anything to do: an
// unpinned entry stored before olderThan, a session with more than
// perSession entries, or blobs over totalBytes. Aggregates only, no row
// decoded: the SessionEnd hook asks it before reading every entry.
func (db *DB) PruneDue(ctx context.Context, olderThan time.Time, perSession int, totalBytes int64) (bool, error) {
	var old, most, size int64
	err := db.sql.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM entries WHERE pin_level = 'none' AND created_at < ?),
		(SELECT coalesce(max(n), 0) FROM (SELECT count(*) AS n FROM entries GROUP BY session_id)),
		(SELECT coalesce(sum(stored_size), 0) FROM blobs)`, olderThan.UnixMilli()).Scan(&old, &most, &size)
	return old > 0 || most > int64(perSession) || size > totalBytes, err
}
