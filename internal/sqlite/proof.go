package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/ctxkeep/ctxkeep"
)

// The proof of effect (internal/proof): each replacement a hook reply put
// in place of an output is checked in the transcript at the end of a turn.

// Unproven lists a session's replacements still waiting for their
// verdict: entries whose replacement went through a hook reply and is not
// checked yet, the main thread's and its subagents' (each checked in its
// own transcript).
func (db *DB) Unproven(ctx context.Context, session string) ([]ctxkeep.Entry, error) {
	return db.queryEntries(ctx, `WHERE session_id = ? AND replacement != '' AND applied IS NULL ORDER BY created_at, rowid`, session)
}

// ProofCursor is where the proof of effect resumes reading the session's
// transcript: the start when it has not read it yet, or read another file.
func (db *DB) ProofCursor(ctx context.Context, session, transcript string) (offset int64, line int, err error) {
	var path string
	err = db.sql.QueryRowContext(ctx, `SELECT transcript, offset, line FROM proof_cursors WHERE session_id = ?`, session).Scan(&path, &offset, &line)
	if errors.Is(err, sql.ErrNoRows) || err == nil && path != transcript {
		return 0, 0, nil
	}
	return offset, line, err
}

// SaveProof records verdicts and the new cursor in one transaction. An
// entry judged already keeps its verdict.
func (db *DB) SaveProof(ctx context.Context, session, transcript string, offset int64, line int, vs []ctxkeep.Verdict) error {
	return db.write(ctx, func(tx *sql.Tx) error {
		for _, v := range vs {
			if _, err := tx.ExecContext(ctx, `UPDATE entries SET applied = ?, verdict = ? WHERE id = ? AND applied IS NULL`, v.Applied, v.Reason, v.ID); err != nil {
				return err
			}
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO proof_cursors (session_id, transcript, offset, line) VALUES (?, ?, ?, ?)
			ON CONFLICT (session_id) DO UPDATE SET transcript = excluded.transcript, offset = excluded.offset, line = excluded.line`,
			session, transcript, offset, line)
		return err
	})
}

// NotApplied lists the latest replacements the client did not take, newest
// first, at most limit.
func (db *DB) NotApplied(ctx context.Context, limit int) ([]ctxkeep.Entry, error) {
	return db.queryEntries(ctx, `WHERE applied = 0 ORDER BY created_at DESC, rowid DESC LIMIT ?`, limit)
}
