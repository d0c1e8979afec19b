package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ctxkeep/ctxkeep/internal/blob"
)

// Entry is a tool output swapped out of the context.
type Entry struct {
	ID          string    `json:"id"`
	SessionID   string    `json:"session_id"`
	ToolUseID   string    `json:"tool_use_id,omitempty"`
	AgentID     string    `json:"agent_id,omitempty"`
	Tool        string    `json:"tool"`
	Input       string    `json:"input"`
	Hash        blob.Hash `json:"sha256"`
	Chars       int       `json:"chars"`
	Lines       int       `json:"lines"`
	ViewChars   int       `json:"view_chars"`
	ExitCode    *int      `json:"exit_code,omitempty"`
	Failures    int       `json:"failure_lines"`
	Summary     string    `json:"summary,omitempty"`
	CopyPath    string    `json:"copy_path,omitempty"`
	Cwd         string    `json:"cwd,omitempty"`
	CreatedAt   time.Time `json:"created_at"`
	LastAccess  time.Time `json:"last_access,omitzero"`
	AccessCount int       `json:"retrievals"`
	PinLevel    string    `json:"pin_level"`
	PinReason   string    `json:"pin_reason,omitempty"`
}

// ErrNoEntry means no entry has that id (or prefix).
var ErrNoEntry = errors.New("no such entry")

const entryColumns = `id, session_id, tool_use_id, agent_id, tool, input, hash, chars, lines, view_chars,
	exit_code, failures, summary, copy_path, cwd, created_at, last_access, access_count, pin_level, pin_reason`

// AddEntry records an entry and the row of its blob, which must already be
// durable on disk, in one transaction. Adding an entry again (the same id:
// a hook retried) replaces it.
func (db *DB) AddEntry(ctx context.Context, e Entry, b blob.Info) error {
	return db.addEntry(ctx, e, b, nil)
}

// addEntry is AddEntry; present, when not nil, is checked inside the write
// transaction and its error aborts it (see AddEntryChecked).
func (db *DB) addEntry(ctx context.Context, e Entry, b blob.Info, present func() error) error {
	return db.write(ctx, func(tx *sql.Tx) error {
		if present != nil {
			if err := present(); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx,
			`INSERT INTO blobs (hash, size, stored_size, created_at) VALUES (?, ?, ?, ?)
			 ON CONFLICT (hash) DO UPDATE SET stored_size = excluded.stored_size`,
			string(b.Hash), b.Size, b.Stored, e.CreatedAt.UnixMilli()); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO entries (`+entryColumns+`)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			e.ID, e.SessionID, e.ToolUseID, e.AgentID, e.Tool, e.Input, string(e.Hash), e.Chars, e.Lines, e.ViewChars,
			e.ExitCode, e.Failures, e.Summary, e.CopyPath, e.Cwd, e.CreatedAt.UnixMilli(), nullTime(e.LastAccess),
			e.AccessCount, orElse(e.PinLevel, "none"), e.PinReason)
		return err
	})
}

// Entry returns the entry with id, or the only one whose id starts with it.
func (db *DB) Entry(ctx context.Context, id string) (Entry, error) {
	id = strings.ToLower(strings.TrimSpace(id))
	if id == "" || strings.ContainsAny(id, "%_") {
		return Entry{}, fmt.Errorf("%w: %q", ErrNoEntry, id)
	}
	es, err := db.queryEntries(ctx, `WHERE id LIKE ? ORDER BY id LIMIT 2`, id+"%")
	switch {
	case err != nil:
		return Entry{}, err
	case len(es) == 0:
		return Entry{}, fmt.Errorf("%w: %q", ErrNoEntry, id)
	case len(es) > 1 && es[0].ID != id:
		return Entry{}, fmt.Errorf("%w: %q matches more than one entry; give more of the id", ErrNoEntry, id)
	}
	return es[0], nil
}

// Entries lists a session's entries (all sessions when session is ""),
// oldest first.
func (db *DB) Entries(ctx context.Context, session string) ([]Entry, error) {
	if session == "" {
		return db.queryEntries(ctx, `ORDER BY created_at, id`)
	}
	return db.queryEntries(ctx, `WHERE session_id = ? ORDER BY created_at, id`, session)
}

// Touch counts one retrieval of an entry.
func (db *DB) Touch(ctx context.Context, id string, now time.Time) error {
	return db.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE entries SET access_count = access_count + 1, last_access = ? WHERE id = ?`,
			now.UnixMilli(), id)
		return err
	})
}

func (db *DB) queryEntries(ctx context.Context, where string, args ...any) ([]Entry, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT `+entryColumns+` FROM entries `+where, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Entry
	for rows.Next() {
		var e Entry
		var hash string
		var created int64
		var last sql.NullInt64
		var exit sql.NullInt64
		if err := rows.Scan(&e.ID, &e.SessionID, &e.ToolUseID, &e.AgentID, &e.Tool, &e.Input, &hash, &e.Chars, &e.Lines,
			&e.ViewChars, &exit, &e.Failures, &e.Summary, &e.CopyPath, &e.Cwd, &created, &last, &e.AccessCount,
			&e.PinLevel, &e.PinReason); err != nil {
			return nil, err
		}
		e.Hash = blob.Hash(hash)
		e.CreatedAt = time.UnixMilli(created).UTC()
		if last.Valid {
			e.LastAccess = time.UnixMilli(last.Int64).UTC()
		}
		if exit.Valid {
			code := int(exit.Int64)
			e.ExitCode = &code
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

func nullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixMilli()
}

// EntrySessions lists the sessions that have entries, the one with the
// latest entry first.
func (db *DB) EntrySessions(ctx context.Context) ([]string, error) {
	return db.strings(ctx, `SELECT session_id FROM entries GROUP BY session_id ORDER BY max(created_at) DESC`)
}
