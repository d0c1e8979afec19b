package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// SetPin sets the pin level ("none", "soft" or "hard") and reason of the
// entry with id, or the only one whose id starts with it, and returns the
// entry as it is now.
func (db *DB) SetPin(ctx context.Context, id, level, reason string) (Entry, error) {
	e, err := db.Entry(ctx, id)
	if err != nil {
		return e, err
	}
	err = db.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE entries SET pin_level = ?, pin_reason = ? WHERE id = ?`, level, reason, e.ID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("%w: %q (removed meanwhile)", ErrNoEntry, e.ID)
		}
		return nil
	})
	e.PinLevel, e.PinReason = level, reason
	return e, err
}

// LatestEntry returns the entry stored last in session, or in any session
// when session is "". It is ErrNoEntry when there is none.
func (db *DB) LatestEntry(ctx context.Context, session string) (Entry, error) {
	var es []Entry
	var err error
	if session == "" {
		es, err = db.queryEntries(ctx, `ORDER BY created_at DESC, rowid DESC LIMIT 1`)
	} else {
		es, err = db.queryEntries(ctx, `WHERE session_id = ? ORDER BY created_at DESC, rowid DESC LIMIT 1`, session)
	}
	if err != nil {
		return Entry{}, err
	}
	if len(es) == 0 {
		return Entry{}, fmt.Errorf("%w: nothing stored yet", ErrNoEntry)
	}
	return es[0], nil
}

// PinnedEntries lists the pinned entries (soft and hard), newest first.
func (db *DB) PinnedEntries(ctx context.Context) ([]Entry, error) {
	return db.queryEntries(ctx, `WHERE pin_level != 'none' ORDER BY created_at DESC, id`)
}

// CountPinned counts the pinned entries of session stored since since.
func (db *DB) CountPinned(ctx context.Context, session string, since time.Time) (int, error) {
	var n int
	err := db.sql.QueryRowContext(ctx, `SELECT count(*) FROM entries WHERE session_id = ? AND created_at >= ? AND pin_level != 'none'`,
		session, since.UnixMilli()).Scan(&n)
	return n, err
}
