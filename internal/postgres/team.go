package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ctxkeep/ctxkeep"
)

// Push is what one sync transaction brings to the team archive: chunks of
// one project, the sessions they belong to, and the outputs they refer to
// (each blob with or without its text). Everything in it has been
// redacted by the caller.
type Push = ctxkeep.TeamPush

// Session is a session as the team sees it: whose (the role that pushed
// it), which project, when.
type Session = ctxkeep.TeamSession

// Pushed counts what a push wrote: rows new or changed, not those that
// were there already.
type Pushed = ctxkeep.TeamPushed

// Push writes p in one transaction, as the connected role: its rows are
// that role's, in p.Project, which the role must be granted (row-level
// security refuses the rest, and nothing of the transaction is kept).
// Pushing the same thing again writes nothing new: chunks are keyed by
// their stable key and rewritten only when changed, entries by their id,
// blobs by their content's hash. Keys are the role's own: what another
// role wrote under the same keys is theirs and changes nothing here. Rows are written in key order, so that
// concurrent pushes sharing outputs take their locks in the same order and
// cannot deadlock.
func (db *DB) Push(ctx context.Context, p Push) (Pushed, error) {
	var out Pushed
	err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		out = Pushed{}
		b := &pgx.Batch{}
		sessions := append([]Session(nil), p.Sessions...)
		sortBy(sessions, func(s Session) string { return s.ID })
		for _, s := range sessions {
			b.Queue(`INSERT INTO sessions (id, project, first_seen, last_seen) VALUES ($1, $2, $3, $4)
				ON CONFLICT (id, owner) DO UPDATE SET project = EXCLUDED.project,
					first_seen = least(sessions.first_seen, EXCLUDED.first_seen),
					last_seen = greatest(sessions.last_seen, EXCLUDED.last_seen)
				WHERE (sessions.project, sessions.first_seen, sessions.last_seen) IS DISTINCT FROM
					(EXCLUDED.project, least(sessions.first_seen, EXCLUDED.first_seen), greatest(sessions.last_seen, EXCLUDED.last_seen))`,
				s.ID, p.Project, nullTime(s.FirstSeen), nullTime(s.LastSeen))
		}
		blobs := append([]Blob(nil), p.Blobs...)
		sortBy(blobs, func(bl Blob) string { return string(bl.Hash) })
		for _, bl := range blobs {
			queueBlob(b, bl)
		}
		entries := append([]ctxkeep.Entry(nil), p.Entries...)
		sortBy(entries, func(e ctxkeep.Entry) string { return e.ID })
		for _, e := range entries {
			queueEntry(b, p.Project, e)
		}
		res := tx.SendBatch(ctx, b)
		for i := range len(sessions) + len(blobs) + len(entries) {
			tag, err := res.Exec()
			if err != nil {
				res.Close()
				return describe(err)
			}
			if i >= len(sessions)+len(blobs) {
				out.Entries += int(tag.RowsAffected())
			}
		}
		if err := res.Close(); err != nil {
			return describe(err)
		}
		chunks := make([]ctxkeep.Chunk, len(p.Chunks))
		for i, c := range p.Chunks {
			c.Project = p.Project
			chunks[i] = c
		}
		n, err := saveChunks(ctx, tx, chunks)
		if err != nil {
			return err
		}
		out.Chunks = n
		ids := make([]string, len(sessions))
		for i, s := range sessions {
			ids[i] = s.ID
		}
		_, err = tx.Exec(ctx, `UPDATE sessions s SET chunks = n.count
			FROM (SELECT session_id, count(*) AS count FROM chunks WHERE session_id = ANY($1) AND owner = current_user
				GROUP BY session_id) n
			WHERE s.id = n.session_id AND s.owner = current_user AND s.chunks <> n.count`, ids)
		return describe(err)
	})
	return out, err
}

// Identity names the server, database, role and schema a DB is connected
// to, for a cursor that belongs to one team archive: the server says who
// and where, whatever host name or environment the DSN used.
func (db *DB) Identity(ctx context.Context) (string, error) {
	var who string
	err := db.pool.QueryRow(ctx, `SELECT current_user || '@' || coalesce(host(inet_server_addr()), 'local') || ':' ||
		coalesce(inet_server_port(), 0) || '/' || current_database()`).Scan(&who)
	if err != nil {
		return "", describe(err)
	}
	return who + "/" + db.schema, nil
}

// TLS reports whether the connection is encrypted (sslmode and the server
// decide).
func (db *DB) TLS(ctx context.Context) (bool, error) {
	var on bool
	err := db.pool.QueryRow(ctx, `SELECT coalesce((SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()), false)`).Scan(&on)
	return on, describe(err)
}

// Role is the role connected.
func (db *DB) Role(ctx context.Context) (string, error) {
	var r string
	err := db.pool.QueryRow(ctx, `SELECT current_user`).Scan(&r)
	return r, describe(err)
}

// TeamChunk returns the chunk with key (or a unique prefix) and whose it
// is, among those the role may read.
func (db *DB) TeamChunk(ctx context.Context, key string) (Owned, error) {
	return db.ownedChunk(ctx, key)
}

// Session returns a session the role may read: its own, else the one
// pushed first under that id.
func (db *DB) Session(ctx context.Context, id string) (Session, error) {
	var s Session
	var first, last *time.Time
	err := db.pool.QueryRow(ctx, `SELECT id, owner, project, first_seen, last_seen, chunks FROM sessions WHERE id = $1
		ORDER BY owner = current_user DESC, pushed_at, owner LIMIT 1`, id).
		Scan(&s.ID, &s.Owner, &s.Project, &first, &last, &s.Chunks)
	if errors.Is(err, pgx.ErrNoRows) {
		return s, ctxkeep.Errorf(ctxkeep.ErrNotFound, "no session %s in the team archive", id)
	}
	if first != nil {
		s.FirstSeen = first.UTC()
	}
	if last != nil {
		s.LastSeen = last.UTC()
	}
	return s, describe(err)
}

// Projects lists the projects the role may read: all of them for the
// tables' owner.
func (db *DB) Projects(ctx context.Context) ([]string, error) {
	rows, err := db.pool.Query(ctx, `SELECT name FROM projects ORDER BY name`)
	if err != nil {
		return nil, describe(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	return out, describe(err)
}

// Count is how many rows of each kind the role can read, for status.
type Count = ctxkeep.TeamCount

// Counts counts the rows the role can read in project (all when "").
func (db *DB) Counts(ctx context.Context, project string) (Count, error) {
	var c Count
	err := db.pool.QueryRow(ctx, `SELECT
			(SELECT count(*) FROM sessions WHERE $1 = '' OR project = $1),
			(SELECT count(*) FROM chunks WHERE $1 = '' OR project = $1),
			(SELECT count(*) FROM entries WHERE $1 = '' OR project = $1),
			(SELECT count(*) FROM entries e JOIN blobs b ON b.hash = e.hash WHERE ($1 = '' OR e.project = $1) AND b.data IS NOT NULL)`,
		project).Scan(&c.Sessions, &c.Chunks, &c.Entries, &c.Texts)
	if err != nil {
		return c, fmt.Errorf("team database: %w", describe(err))
	}
	return c, nil
}
