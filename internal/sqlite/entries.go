package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/ctxkeep/ctxkeep"
)

const entryColumns = `id, session_id, tool_use_id, agent_id, tool, input, hash, chars, lines, view_chars,
	exit_code, failures, summary, copy_path, cwd, created_at, last_access, access_count, pin_level, pin_reason,
	kind, replacement, applied, verdict, project`

// AddEntry records an entry and the row of its blob, which must already be
// durable on disk, in one transaction. Adding an entry again (the same id:
// a hook retried) replaces it.
//
// present must report whether the blob file is still on disk; it is called
// inside the write transaction, and its error aborts it: a prune that freed
// the same content meanwhile has either not unlinked it yet (and then sees
// the new row and keeps it) or has, and then no row points at nothing.
func (db *DB) AddEntry(ctx context.Context, e ctxkeep.Entry, b ctxkeep.Blob, present func() error) error {
	return db.write(ctx, func(tx *sql.Tx) error {
		if err := present(); err != nil {
			return err
		}
		if err := upsertBlob(ctx, tx, b, e.CreatedAt); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO entries (`+entryColumns+`)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			e.ID, e.SessionID, e.ToolUseID, e.AgentID, e.Tool, e.Input, string(e.Hash), e.Chars, e.Lines, e.ViewChars,
			e.ExitCode, e.Failures, e.Summary, e.CopyPath, e.Cwd, e.CreatedAt.UnixMilli(), nullTime(e.LastAccess),
			e.AccessCount, e.PinLevel.String(), e.PinReason, kindOr(e.Kind), e.Replacement, e.Applied, e.Verdict, e.Project)
		return err
	})
}

// Entry returns the entry with id, or the only one whose id starts with it.
func (db *DB) Entry(ctx context.Context, id string) (ctxkeep.Entry, error) {
	id, err := ctxkeep.EntryLookup.Clean(id)
	if err != nil {
		return ctxkeep.Entry{}, err
	}
	es, err := db.queryEntries(ctx, `WHERE id LIKE ? ORDER BY id LIMIT 2`, id+"%")
	if err != nil {
		return ctxkeep.Entry{}, err
	}
	return ctxkeep.Pick(ctxkeep.EntryLookup, id, es, func(e ctxkeep.Entry) string { return e.ID })
}

// ProjectEntry returns the entry of project with id, or the only one of
// project's whose id starts with it. An entry stored before entries named
// their project (an empty project) is project's when its session's chunks
// are.
func (db *DB) ProjectEntry(ctx context.Context, project, id string) (ctxkeep.Entry, error) {
	id, err := ctxkeep.EntryLookup.Clean(id)
	if err != nil {
		return ctxkeep.Entry{}, err
	}
	es, err := db.queryEntries(ctx, `WHERE id LIKE ? AND (project = ? OR project = '' AND EXISTS
		(SELECT 1 FROM chunks c WHERE c.session_id = entries.session_id AND c.project = ?)) ORDER BY id LIMIT 2`,
		id+"%", project, project)
	if err != nil {
		return ctxkeep.Entry{}, err
	}
	return ctxkeep.Pick(ctxkeep.EntryLookup, id, es, func(e ctxkeep.Entry) string { return e.ID })
}

// Entries lists the entries f selects.
func (db *DB) Entries(ctx context.Context, f ctxkeep.EntryFilter) ([]ctxkeep.Entry, error) {
	var conds []string
	var args []any
	if f.Session != "" {
		conds, args = append(conds, "session_id = ?"), append(args, f.Session)
	}
	if f.Pinned {
		conds = append(conds, "pin_level != 'none'")
	}
	if f.Hash != "" {
		conds, args = append(conds, "hash = ?"), append(args, string(f.Hash))
	}
	if !f.Since.IsZero() {
		conds, args = append(conds, "created_at >= ?"), append(args, f.Since.UnixMilli())
	}
	where := ""
	if len(conds) > 0 {
		where = "WHERE " + strings.Join(conds, " AND ")
	}
	order := " ORDER BY created_at, rowid"
	if f.Latest {
		order = " ORDER BY created_at DESC, rowid DESC"
	}
	if f.Limit > 0 {
		order += fmt.Sprintf(" LIMIT %d", f.Limit)
	}
	return db.queryEntries(ctx, where+order, args...)
}

// Touch counts one retrieval of an entry.
func (db *DB) Touch(ctx context.Context, id string, now time.Time) error {
	return db.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE entries SET access_count = access_count + 1, last_access = ? WHERE id = ?`,
			now.UnixMilli(), id)
		return err
	})
}

func (db *DB) queryEntries(ctx context.Context, where string, args ...any) ([]ctxkeep.Entry, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT `+entryColumns+` FROM entries `+where, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ctxkeep.Entry
	for rows.Next() {
		var e ctxkeep.Entry
		var hash string
		var created int64
		var last sql.NullInt64
		var exit sql.NullInt64
		var level string
		var applied sql.NullBool
		if err := rows.Scan(&e.ID, &e.SessionID, &e.ToolUseID, &e.AgentID, &e.Tool, &e.Input, &hash, &e.Chars, &e.Lines,
			&e.ViewChars, &exit, &e.Failures, &e.Summary, &e.CopyPath, &e.Cwd, &created, &last, &e.AccessCount,
			&level, &e.PinReason, &e.Kind, &e.Replacement, &applied, &e.Verdict, &e.Project); err != nil {
			return nil, err
		}
		if applied.Valid {
			e.Applied = &applied.Bool
		}
		e.PinLevel, _ = ctxkeep.ParsePinLevel(level) // anything unknown counts as unpinned
		e.Hash = ctxkeep.Hash(hash)
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

// kindOr is an entry's kind, a view when not said.
func kindOr(kind string) string {
	if kind == "" {
		return "view"
	}
	return kind
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
