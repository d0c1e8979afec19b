package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ctxkeep/ctxkeep"
)

const entryColumns = `id, session_id, tool_use_id, agent_id, tool, input, hash, chars, lines, view_chars,
	exit_code, failures, summary, copy_path, cwd, created_at, last_access, access_count, pin_level, pin_reason`

// upsertEntry writes an entry of a project; the same id again replaces it
// (a row that is the same is not rewritten). The id is the connected
// role's: another role's row under it is another row.
const upsertEntry = `INSERT INTO entries (project, ` + entryColumns + `)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21)
	ON CONFLICT (id, owner) DO UPDATE SET project = EXCLUDED.project, session_id = EXCLUDED.session_id,
		tool_use_id = EXCLUDED.tool_use_id, agent_id = EXCLUDED.agent_id, tool = EXCLUDED.tool, input = EXCLUDED.input,
		hash = EXCLUDED.hash, chars = EXCLUDED.chars, lines = EXCLUDED.lines, view_chars = EXCLUDED.view_chars,
		exit_code = EXCLUDED.exit_code, failures = EXCLUDED.failures, summary = EXCLUDED.summary,
		copy_path = EXCLUDED.copy_path, cwd = EXCLUDED.cwd, created_at = EXCLUDED.created_at,
		last_access = EXCLUDED.last_access, access_count = EXCLUDED.access_count,
		pin_level = EXCLUDED.pin_level, pin_reason = EXCLUDED.pin_reason
	WHERE (entries.project, entries.session_id, entries.tool_use_id, entries.agent_id, entries.tool, entries.input,
		entries.hash, entries.chars, entries.lines, entries.view_chars, entries.exit_code, entries.failures,
		entries.summary, entries.copy_path, entries.cwd, entries.created_at, entries.last_access,
		entries.access_count, entries.pin_level, entries.pin_reason)
	IS DISTINCT FROM (EXCLUDED.project, EXCLUDED.session_id, EXCLUDED.tool_use_id, EXCLUDED.agent_id, EXCLUDED.tool,
		EXCLUDED.input, EXCLUDED.hash, EXCLUDED.chars, EXCLUDED.lines, EXCLUDED.view_chars, EXCLUDED.exit_code,
		EXCLUDED.failures, EXCLUDED.summary, EXCLUDED.copy_path, EXCLUDED.cwd, EXCLUDED.created_at,
		EXCLUDED.last_access, EXCLUDED.access_count, EXCLUDED.pin_level, EXCLUDED.pin_reason)`

func queueEntry(b *pgx.Batch, project string, e ctxkeep.Entry) {
	b.Queue(upsertEntry, project, e.ID, e.SessionID, e.ToolUseID, e.AgentID, e.Tool, clean(e.Input), string(e.Hash),
		e.Chars, e.Lines, e.ViewChars, e.ExitCode, e.Failures, clean(e.Summary), clean(e.CopyPath), clean(e.Cwd),
		e.CreatedAt, nullTime(e.LastAccess), e.AccessCount, e.PinLevel.String(), clean(e.PinReason))
}

// Blob is content pushed under its hash; Data nil leaves the text on its
// author's machine (the entry is there, Open says where its text is).
type Blob = ctxkeep.TeamBlob

// queueBlob stores a blob through put_blob (see the migration): the row is
// locked, a blob stored without its text gets it when it comes.
func queueBlob(b *pgx.Batch, bl Blob) {
	b.Queue(`SELECT put_blob($1, $2, $3)`, string(bl.Hash), bl.Size, bl.Data)
}

// PutEntry stores data and commits e, in one transaction.
func (db *DB) PutEntry(ctx context.Context, e ctxkeep.Entry, data []byte) (ctxkeep.Entry, error) {
	e.Hash = ctxkeep.Sum(data)
	if e.CreatedAt.IsZero() {
		e.CreatedAt = db.now()
	}
	err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		b := &pgx.Batch{}
		queueBlob(b, Blob{Hash: e.Hash, Size: int64(len(data)), Data: data})
		queueEntry(b, "", e)
		return describe(tx.SendBatch(ctx, b).Close())
	})
	if err != nil {
		return e, fmt.Errorf("team database: put entry %s: %w", e.ID, err)
	}
	return e, nil
}

// Entry returns the entry with id, or the only one whose id starts with it.
func (db *DB) Entry(ctx context.Context, id string) (ctxkeep.Entry, error) {
	id, err := ctxkeep.EntryLookup.Clean(id)
	if err != nil {
		return ctxkeep.Entry{}, err
	}
	// One row per id: the session's (sessionOwner), when several roles
	// pushed the id.
	es, err := db.queryEntriesAs(ctx, "DISTINCT ON (id) ", `WHERE id LIKE $1
		ORDER BY id, owner = `+sessionOwner("entries")+` DESC, owner LIMIT 2`, id+"%")
	if err != nil {
		return ctxkeep.Entry{}, err
	}
	return ctxkeep.Pick(ctxkeep.EntryLookup, id, es, func(e ctxkeep.Entry) string { return e.ID })
}

// Entries lists the entries f selects.
func (db *DB) Entries(ctx context.Context, f ctxkeep.EntryFilter) ([]ctxkeep.Entry, error) {
	var conds []string
	var args []any
	add := func(cond string, v any) {
		args = append(args, v)
		conds = append(conds, fmt.Sprintf(cond, len(args)))
	}
	if f.Session != "" {
		add("session_id = $%d", f.Session)
	}
	if f.Pinned {
		conds = append(conds, "pin_level <> 'none'")
	}
	if f.Hash != "" {
		add("hash = $%d", string(f.Hash))
	}
	if !f.Since.IsZero() {
		add("created_at >= $%d", f.Since)
	}
	where := ""
	if len(conds) > 0 {
		where = "WHERE " + strings.Join(conds, " AND ")
	}
	order := " ORDER BY created_at, id"
	if f.Latest {
		order = " ORDER BY created_at DESC, id DESC"
	}
	if f.Limit > 0 {
		order += fmt.Sprintf(" LIMIT %d", f.Limit)
	}
	return db.queryEntries(ctx, where+order, args...)
}

func (db *DB) queryEntries(ctx context.Context, where string, args ...any) ([]ctxkeep.Entry, error) {
	return db.queryEntriesAs(ctx, "", where, args...)
}

// queryEntriesAs is queryEntries with a modifier of the SELECT (DISTINCT
// ON).
func (db *DB) queryEntriesAs(ctx context.Context, modifier, where string, args ...any) ([]ctxkeep.Entry, error) {
	rows, err := db.pool.Query(ctx, `SELECT `+modifier+entryColumns+` FROM entries `+where, args...)
	if err != nil {
		return nil, describe(err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (ctxkeep.Entry, error) {
		var e ctxkeep.Entry
		var hash, level string
		var last *time.Time
		if err := r.Scan(&e.ID, &e.SessionID, &e.ToolUseID, &e.AgentID, &e.Tool, &e.Input, &hash, &e.Chars, &e.Lines,
			&e.ViewChars, &e.ExitCode, &e.Failures, &e.Summary, &e.CopyPath, &e.Cwd, &e.CreatedAt, &last,
			&e.AccessCount, &level, &e.PinReason); err != nil {
			return e, err
		}
		e.Hash = ctxkeep.Hash(hash)
		e.CreatedAt = e.CreatedAt.UTC()
		if last != nil {
			e.LastAccess = last.UTC()
		}
		e.PinLevel, _ = ctxkeep.ParsePinLevel(level) // anything unknown counts as unpinned
		return e, nil
	})
	return out, describe(err)
}

// Open returns the exact bytes of blob h, verified against h. A blob whose
// text was not pushed (team.push_outputs off, or too large) is not found,
// and the error says so.
func (db *DB) Open(ctx context.Context, h ctxkeep.Hash) ([]byte, error) {
	var data []byte
	var size int64
	err := db.pool.QueryRow(ctx, `SELECT data, size FROM blobs WHERE hash = $1`, string(h)).Scan(&data, &size)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return nil, ctxkeep.Errorf(ctxkeep.ErrNotFound, "output %s is not in the team database", h.Short())
	case err != nil:
		return nil, describe(err)
	case data == nil:
		return nil, ctxkeep.Errorf(ctxkeep.ErrNotFound,
			"the text of output %s (%d bytes) was not pushed: it stays on its author's machine (team.push_outputs, team.max_output_bytes)", h.Short(), size)
	case ctxkeep.Sum(data) != h:
		return nil, ctxkeep.Errorf(ctxkeep.ErrCorrupt, "output %s: the stored bytes do not hash to their name", h.Short())
	}
	return data, nil
}

// Touch counts one retrieval of the entry.
func (db *DB) Touch(ctx context.Context, id string, now time.Time) error {
	_, err := db.pool.Exec(ctx, `UPDATE entries SET access_count = access_count + 1, last_access = $2 WHERE id = $1`, id, now)
	return describe(err)
}

// SetPin sets the entry's pin level and reason (id may be a prefix).
func (db *DB) SetPin(ctx context.Context, id string, level ctxkeep.PinLevel, reason string) (ctxkeep.Entry, error) {
	e, err := db.Entry(ctx, id)
	if err != nil {
		return e, err
	}
	tag, err := db.pool.Exec(ctx, `UPDATE entries SET pin_level = $2, pin_reason = $3 WHERE id = $1`, e.ID, level.String(), reason)
	if err != nil {
		return e, describe(err)
	}
	if tag.RowsAffected() == 0 {
		return e, ctxkeep.Errorf(ctxkeep.ErrNotFound, "no such entry: %q (removed meanwhile)", e.ID)
	}
	e.PinLevel, e.PinReason = level, reason
	return e, nil
}

// Remove deletes entries, then the blobs nothing refers to any more, in
// one transaction. An entry replaced since it was read (another
// created_at) is left alone. Each blob is locked before it is looked at
// again (a statement of its own, which sees entries committed meanwhile),
// so that a concurrent put of the same bytes either waits for the removal
// and stores them anew, or keeps them.
func (db *DB) Remove(ctx context.Context, es []ctxkeep.Entry) (ctxkeep.Removed, error) {
	var out ctxkeep.Removed
	err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		out = ctxkeep.Removed{}
		seen := map[ctxkeep.Hash]bool{}
		var hashes []string
		for _, e := range es {
			tag, err := tx.Exec(ctx, `DELETE FROM entries WHERE id = $1 AND created_at = $2`, e.ID, e.CreatedAt)
			if err != nil {
				return describe(err)
			}
			if tag.RowsAffected() > 0 {
				out.Entries = append(out.Entries, e)
				if !seen[e.Hash] {
					seen[e.Hash] = true
					hashes = append(hashes, string(e.Hash))
				}
			}
		}
		sortBy(hashes, func(h string) string { return h })
		for _, h := range hashes {
			if _, err := tx.Exec(ctx, `SELECT 1 FROM blobs WHERE hash = $1 FOR UPDATE`, h); err != nil {
				return describe(err)
			}
			var size int64
			err := tx.QueryRow(ctx, `DELETE FROM blobs b WHERE hash = $1
				AND NOT EXISTS (SELECT 1 FROM entries e WHERE e.hash = b.hash) RETURNING size`, h).Scan(&size)
			if errors.Is(err, pgx.ErrNoRows) {
				continue // still referred to
			}
			if err != nil {
				return describe(err)
			}
			out.Freed = append(out.Freed, ctxkeep.Blob{Hash: ctxkeep.Hash(h), Size: size, Stored: size})
		}
		return nil
	})
	return out, err
}

// ColdTasks returns a session's cold-task summaries.
func (db *DB) ColdTasks(ctx context.Context, session string) ([]ctxkeep.ColdTask, error) {
	rows, err := db.pool.Query(ctx, `SELECT task_id, subject, turn_from, turn_to, summary FROM cold_tasks
		WHERE session_id = $1 ORDER BY turn_to, task_id`, session)
	if err != nil {
		return nil, describe(err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (ctxkeep.ColdTask, error) {
		var t ctxkeep.ColdTask
		err := r.Scan(&t.TaskID, &t.Subject, &t.From, &t.To, &t.Summary)
		return t, err
	})
	return out, describe(err)
}

// AddColdTasks stores cold-task summaries; a task summarised already keeps
// its first summary.
func (db *DB) AddColdTasks(ctx context.Context, session string, tasks []ctxkeep.ColdTask, now time.Time) error {
	return pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		for _, t := range tasks {
			if _, err := tx.Exec(ctx, `INSERT INTO cold_tasks (session_id, task_id, subject, turn_from, turn_to, summary, created_at)
				VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING`,
				session, t.TaskID, clean(t.Subject), t.From, t.To, clean(t.Summary), now); err != nil {
				return describe(err)
			}
		}
		return nil
	})
}
