package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/journal"
)

// IngestResult counts what IngestJournals moved into the index.
type IngestResult = ctxkeep.Ingested

// IngestJournals moves new journal lines into the events table, for one
// session (when session is not empty) or for all. Each journal is read from
// its cursor inside the same write transaction that stores its events and
// moves the cursor, so two ingesters running at once never index a line
// twice.
func (db *DB) IngestJournals(ctx context.Context, dir, session string) (IngestResult, error) {
	ids := []string{session}
	if session == "" {
		var err error
		if ids, err = journal.Sessions(dir); err != nil {
			return IngestResult{}, err
		}
	}
	var total IngestResult
	for _, id := range ids {
		r, err := db.ingest(ctx, dir, id)
		total.Events += r.Events
		total.BadLines += r.BadLines
		total.Large = append(total.Large, r.Large...)
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

func (db *DB) ingest(ctx context.Context, dir, session string) (res IngestResult, err error) {
	path, err := journal.Path(dir, session)
	if err != nil {
		return res, err
	}
	err = db.write(ctx, func(tx *sql.Tx) error {
		var offset int64
		err := tx.QueryRowContext(ctx, `SELECT offset FROM journal_cursors WHERE session_id = ?`, session).Scan(&offset)
		if err != nil && err != sql.ErrNoRows {
			return err
		}
		ins, err := tx.PrepareContext(ctx, `INSERT INTO events
			(session_id, ts, event, tool, agent_id, payload_bytes, duration_us, outcome) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer ins.Close()
		res = IngestResult{}
		var seen []ctxkeep.Event
		next, bad, err := journal.Read(path, offset, func(r ctxkeep.Event) error {
			res.Events++
			seen = append(seen, r)
			if r.Large != nil {
				res.Large = append(res.Large, *r.Large)
			}
			_, err := ins.ExecContext(ctx, session, r.Time.UnixMilli(), r.Event, r.Tool, r.Agent, r.Bytes, r.Micros, r.Outcome)
			return err
		})
		res.BadLines = bad
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil || next == offset {
			return err
		}
		if err := touchSession(ctx, tx, session, seen); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO journal_cursors (session_id, offset) VALUES (?, ?)
			ON CONFLICT (session_id) DO UPDATE SET offset = excluded.offset`, session, next)
		return err
	})
	if err != nil {
		res = IngestResult{}
	}
	return res, err
}

// touchSession keeps the session row's time span and latest details.
func touchSession(ctx context.Context, tx *sql.Tx, session string, recs []ctxkeep.Event) error {
	if len(recs) == 0 {
		return nil
	}
	first, last := recs[0].Time.UnixMilli(), recs[0].Time.UnixMilli()
	var cwd, transcript, client string
	for _, r := range recs {
		first, last = min(first, r.Time.UnixMilli()), max(last, r.Time.UnixMilli())
		cwd, transcript, client = orElse(r.Cwd, cwd), orElse(r.Transcript, transcript), orElse(r.Client, client)
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO sessions (id, first_seen, last_seen, cwd, transcript_path, client_version)
		VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET
			first_seen = min(first_seen, excluded.first_seen),
			last_seen = max(last_seen, excluded.last_seen),
			cwd = CASE WHEN excluded.cwd <> '' THEN excluded.cwd ELSE cwd END,
			transcript_path = CASE WHEN excluded.transcript_path <> '' THEN excluded.transcript_path ELSE transcript_path END,
			client_version = CASE WHEN excluded.client_version <> '' THEN excluded.client_version ELSE client_version END`,
		session, first, last, cwd, transcript, client)
	return err
}

func orElse(s, fallback string) string {
	if s != "" {
		return s
	}
	return fallback
}
