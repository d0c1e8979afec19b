package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"
	"time"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/text"
)

// Cursor returns the session's archive cursor; ok is false before the
// first archive.
func (db *DB) Cursor(ctx context.Context, session string) (c ctxkeep.ArchiveCursor, ok bool, err error) {
	var usage string
	err = db.sql.QueryRowContext(ctx, `SELECT transcript, offset, line, turn, step, usage FROM archive_cursors WHERE session_id = ?`, session).
		Scan(&c.Transcript, &c.Offset, &c.Line, &c.Turn, &c.Step, &usage)
	if err == sql.ErrNoRows {
		return c, false, nil
	}
	if err != nil {
		return c, false, err
	}
	json.Unmarshal([]byte(usage), &c.Usage)
	return c, true, nil
}

// SaveChunks stores a session's newly archived chunks and moves its cursor,
// in one transaction. A chunk whose body is unchanged is left as it is; a
// changed one (a step that was still open) is replaced, in the full-text
// index too; a step replaces the whole-turn chunk of its turn. It returns
// how many chunks were written.
func (db *DB) SaveChunks(ctx context.Context, session string, chunks []ctxkeep.Chunk, cur ctxkeep.ArchiveCursor) (written int, err error) {
	usage, _ := json.Marshal(cur.Usage)
	err = db.write(ctx, func(tx *sql.Tx) error {
		written = 0
		if err := replaceTurns(ctx, tx, chunks); err != nil {
			return err
		}
		for _, c := range chunks {
			changed, err := saveChunk(ctx, tx, c)
			if err != nil {
				return err
			}
			if changed {
				written++
			}
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO archive_cursors (session_id, transcript, offset, line, turn, step, usage)
			VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (session_id) DO UPDATE SET transcript = excluded.transcript,
			offset = excluded.offset, line = excluded.line, turn = excluded.turn, step = excluded.step, usage = excluded.usage`,
			session, cur.Transcript, cur.Offset, cur.Line, cur.Turn, cur.Step, string(usage))
		return err
	})
	return written, err
}

// replaceTurns deletes what was archived of the turns chunks holds steps
// of (ctxkeep.SteppedTurns).
func replaceTurns(ctx context.Context, tx *sql.Tx, chunks []ctxkeep.Chunk) error {
	for _, t := range ctxkeep.SteppedTurns(chunks) {
		ids, err := ints(ctx, tx, `SELECT id FROM chunks WHERE session_id = ? AND turn = ? AND step = 0 AND kind IN ('turn', 'summary')`, t.SessionID, t.Turn)
		if err != nil {
			return err
		}
		for _, id := range ids {
			if err := deleteChunk(ctx, tx, id); err != nil {
				return err
			}
		}
	}
	return nil
}

func deleteChunk(ctx context.Context, tx *sql.Tx, id int64) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM chunks_fts WHERE rowid = ?`, id); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `DELETE FROM chunks WHERE id = ?`, id)
	return err
}

func saveChunk(ctx context.Context, tx *sql.Tx, c ctxkeep.Chunk) (bool, error) {
	hash := c.BodyHash()
	var id int64
	var old string
	err := tx.QueryRowContext(ctx, `SELECT id, body_hash FROM chunks WHERE session_id = ? AND kind = ? AND turn = ? AND step = ?`,
		c.SessionID, c.Kind, c.Turn, c.Step).Scan(&id, &old)
	switch {
	case err == nil && old == hash:
		return false, nil
	case err == nil:
		if err := deleteChunk(ctx, tx, id); err != nil {
			return false, err
		}
	case err != sql.ErrNoRows:
		return false, err
	}
	meta, _ := json.Marshal(c.Meta)
	res, err := tx.ExecContext(ctx, `INSERT INTO chunks (key, session_id, project, kind, agent, turn, step, ts_start, ts_end, prompt, summary, body, body_hash, meta)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		c.Key, c.SessionID, c.Project, c.Kind, agentOf(c), c.Turn, c.Step, c.Start.UnixMilli(), c.End.UnixMilli(), c.Prompt, c.Summary, c.Body, hash, string(meta))
	if err != nil {
		return false, err
	}
	rowid, _ := res.LastInsertId()
	files := strings.Join(c.Meta.Files(), "\n")
	_, err = tx.ExecContext(ctx, `INSERT INTO chunks_fts (rowid, prompt, summary, body, files) VALUES (?, ?, ?, ?, ?)`,
		rowid, c.Prompt, c.Summary+"\n"+c.DateWords(), c.Body+"\n"+strings.Join(c.Outputs, "\n"), files)
	return true, err
}

const chunkColumns = `key, session_id, project, kind, agent, turn, step, ts_start, ts_end, prompt, summary, body, meta`

// agentOf is the chunk's agent; chunks from before agents were named are
// Claude Code's, the only client then.
func agentOf(c ctxkeep.Chunk) string {
	if c.Agent == "" {
		return ctxkeep.AgentClaudeCode
	}
	return c.Agent
}

// Chunks returns a session's chunks by turn and step, a turn's summary
// after its steps.
func (db *DB) Chunks(ctx context.Context, session string) ([]ctxkeep.Chunk, error) {
	return db.queryChunks(ctx, `WHERE session_id = ? ORDER BY turn, kind = 'summary', step`, session)
}

// ChunkHeads returns a session's chunks as Chunks does, without their
// bodies.
func (db *DB) ChunkHeads(ctx context.Context, session string) ([]ctxkeep.Chunk, error) {
	return db.queryChunksAs(ctx, headColumns, `WHERE session_id = ? ORDER BY turn, kind = 'summary', step`, session)
}

// headColumns are chunkColumns with an empty body.
const headColumns = `key, session_id, project, kind, agent, turn, step, ts_start, ts_end, prompt, summary, '', meta`

// Chunk returns the chunk with key, or the only one whose key starts with it.
func (db *DB) Chunk(ctx context.Context, key string) (ctxkeep.Chunk, error) {
	key, err := ctxkeep.ChunkLookup.Clean(key)
	if err != nil {
		return ctxkeep.Chunk{}, err
	}
	cs, err := db.queryChunks(ctx, `WHERE key LIKE ? ORDER BY key LIMIT 2`, key+"%")
	if err != nil {
		return ctxkeep.Chunk{}, err
	}
	return ctxkeep.Pick(ctxkeep.ChunkLookup, key, cs, func(c ctxkeep.Chunk) string { return c.Key })
}

// ProjectChunk returns project's chunk with key, or the only one of
// project's whose key starts with it.
func (db *DB) ProjectChunk(ctx context.Context, project, key string) (ctxkeep.Chunk, error) {
	key, err := ctxkeep.ChunkLookup.Clean(key)
	if err != nil {
		return ctxkeep.Chunk{}, err
	}
	cs, err := db.queryChunks(ctx, `WHERE key LIKE ? AND project = ? ORDER BY key LIMIT 2`, key+"%", project)
	if err != nil {
		return ctxkeep.Chunk{}, err
	}
	return ctxkeep.Pick(ctxkeep.ChunkLookup, key, cs, func(c ctxkeep.Chunk) string { return c.Key })
}

// TurnRange returns the steps (and whole-turn chunks) of a session's turns
// from to to, by turn and step.
func (db *DB) TurnRange(ctx context.Context, session string, from, to int) ([]ctxkeep.Chunk, error) {
	return db.queryChunks(ctx, `WHERE session_id = ? AND kind IN ('step', 'turn') AND turn BETWEEN ? AND ? ORDER BY turn, step`, session, from, to)
}

func (db *DB) queryChunks(ctx context.Context, where string, args ...any) ([]ctxkeep.Chunk, error) {
	return db.queryChunksAs(ctx, chunkColumns, where, args...)
}

func (db *DB) queryChunksAs(ctx context.Context, columns, where string, args ...any) ([]ctxkeep.Chunk, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT `+columns+` FROM chunks `+where, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ctxkeep.Chunk
	for rows.Next() {
		c, err := scanChunk(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

func scanChunk(rows interface{ Scan(...any) error }, extra ...any) (ctxkeep.Chunk, error) {
	var c ctxkeep.Chunk
	var start, end int64
	var meta string
	dest := append([]any{&c.Key, &c.SessionID, &c.Project, &c.Kind, &c.Agent, &c.Turn, &c.Step, &start, &end, &c.Prompt, &c.Summary, &c.Body, &meta}, extra...)
	if err := rows.Scan(dest...); err != nil {
		return c, err
	}
	c.Start, c.End = time.UnixMilli(start).UTC(), time.UnixMilli(end).UTC()
	json.Unmarshal([]byte(meta), &c.Meta)
	return c, nil
}

// ColdTasks returns the cold-task summaries of a session.
func (db *DB) ColdTasks(ctx context.Context, session string) ([]ctxkeep.ColdTask, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT task_id, subject, turn_from, turn_to, summary FROM cold_tasks
		WHERE session_id = ? ORDER BY turn_to`, session)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ctxkeep.ColdTask
	for rows.Next() {
		var t ctxkeep.ColdTask
		if err := rows.Scan(&t.TaskID, &t.Subject, &t.From, &t.To, &t.Summary); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// AddColdTasks stores cold-task summaries; a task summarised already keeps
// its first summary.
func (db *DB) AddColdTasks(ctx context.Context, session string, tasks []ctxkeep.ColdTask, now time.Time) error {
	return db.write(ctx, func(tx *sql.Tx) error {
		for _, t := range tasks {
			if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO cold_tasks (session_id, task_id, subject, turn_from, turn_to, summary, created_at)
				VALUES (?, ?, ?, ?, ?, ?, ?)`, session, t.TaskID, t.Subject, t.From, t.To, t.Summary, now.UnixMilli()); err != nil {
				return err
			}
		}
		return nil
	})
}

// SearchChunks finds chunks matching any of the words of q.Text, best
// first: prompts and file names weigh more than summaries, summaries more
// than bodies. When the words also occur as a phrase, the chunks holding
// the phrase come first.
func (db *DB) SearchChunks(ctx context.Context, q ctxkeep.ChunkQuery) ([]ctxkeep.ChunkHit, error) {
	match := ftsQuery(q.Text)
	if match == "" {
		return nil, ctxkeep.ErrEmptyQuery
	}
	from, where, args := "chunks_fts", "chunks_fts MATCH ?", []any{}
	for _, f := range []struct{ col, val string }{{"f.session_id", q.Session}, {"f.project", q.Project}, {"f.kind", q.Kind}} {
		if f.val != "" {
			from = "chunks_fts JOIN chunks f ON f.id = chunks_fts.rowid"
			where += " AND " + f.col + " = ?"
			args = append(args, f.val)
		}
	}
	limit := q.Limit
	if limit <= 0 {
		limit = 20
	}
	var phrased []int64
	if phrase := ftsPhrase(q.Text); phrase != "" {
		ids, err := ints(ctx, db.sql, `SELECT chunks_fts.rowid FROM `+from+` WHERE `+where+` ORDER BY rank LIMIT ?`,
			append(append([]any{phrase}, args...), limit)...)
		if err != nil {
			return nil, err
		}
		phrased = ids
	}
	// The best few are chosen on rowid and rank alone: sorting every match
	// with its text would read the bodies of all of them.
	hits, err := db.rankedChunks(ctx, `SELECT chunks_fts.rowid AS id, bm25(chunks_fts, 4.0, 2.0, 1.0, 3.0) AS rank
		FROM `+from+` WHERE `+where+` ORDER BY rank LIMIT ?`, append(append([]any{match}, args...), limit)...)
	if err != nil || len(phrased) == 0 {
		return hits, err
	}
	// The phrase matches, scored as the others are, first.
	in := strings.TrimSuffix(strings.Repeat("?, ", len(phrased)), ", ")
	args = []any{match}
	for _, id := range phrased {
		args = append(args, id)
	}
	first, err := db.rankedChunks(ctx, `SELECT chunks_fts.rowid AS id, bm25(chunks_fts, 4.0, 2.0, 1.0, 3.0) AS rank
		FROM chunks_fts WHERE chunks_fts MATCH ? AND chunks_fts.rowid IN (`+in+`) ORDER BY rank`, args...)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for i := range first {
		first[i].Phrase = true
		seen[first[i].Key] = true
	}
	for _, h := range hits {
		if !seen[h.Key] && len(first) < limit {
			first = append(first, h)
		}
	}
	return first, nil
}

// rankedChunks reads the chunks a query of (id, rank) rows selects, in its
// order.
func (db *DB) rankedChunks(ctx context.Context, best string, args ...any) ([]ctxkeep.ChunkHit, error) {
	rows, err := db.sql.QueryContext(ctx, `WITH best AS (`+best+`)
		SELECT c.key, c.session_id, c.project, c.kind, c.agent, c.turn, c.step, c.ts_start, c.ts_end,
			c.prompt, c.summary, c.body, c.meta, best.rank
		FROM best JOIN chunks c ON c.id = best.id ORDER BY best.rank`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ctxkeep.ChunkHit
	for rows.Next() {
		var h ctxkeep.ChunkHit
		var bm25 float64
		c, err := scanChunk(rows, &bm25)
		if err != nil {
			return nil, err
		}
		// SQLite's bm25() is lower for better matches, and negative.
		h.Chunk, h.Lexical = c, -bm25
		out = append(out, h)
	}
	return out, rows.Err()
}

// ints runs a query of one integer column and returns its values.
func ints(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, query string, args ...any) ([]int64, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var n int64
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

// maxPhrase is the longest query searched for as a phrase as well: a
// line or an identifier, not a paragraph.
const maxPhrase = 12

// ftsPhrase turns text into an FTS5 phrase of its tokens, as the
// unicode61 tokenizer cuts them (letters and digits; "refund_test.go:42" is
// refund test go 42), or "" for fewer than two tokens or more than
// maxPhrase.
func ftsPhrase(q string) string {
	tokens := text.Tokens(q)
	if len(tokens) < 2 || len(tokens) > maxPhrase {
		return ""
	}
	return `"` + strings.Join(tokens, " ") + `"`
}

// ftsQuery turns free text into an FTS5 query: its distinct words, each
// quoted (so that no word is read as an operator), joined by OR. BM25 then
// ranks chunks matching more, and rarer, words first.
func ftsQuery(q string) string {
	seen := map[string]bool{}
	var terms []string
	for _, w := range strings.FieldsFunc(strings.ToLower(q), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r > 127)
	}) {
		if len(w) < 2 || text.Stopword(w) || seen[w] {
			continue
		}
		seen[w] = true
		terms = append(terms, `"`+w+`"`)
	}
	return strings.Join(terms, " OR ")
}

// ChunkSessions lists the sessions with archived chunks, latest first.
func (db *DB) ChunkSessions(ctx context.Context) ([]string, error) {
	return db.strings(ctx, `SELECT session_id FROM chunks GROUP BY session_id ORDER BY max(ts_end) DESC`)
}

// ProjectSessions lists the sessions with chunks archived in project,
// latest first.
func (db *DB) ProjectSessions(ctx context.Context, project string) ([]string, error) {
	return db.strings(ctx, `SELECT session_id FROM chunks WHERE project = ? GROUP BY session_id ORDER BY max(ts_end) DESC`, project)
}

// ArchivedSessions sums up archived sessions, latest first: those ids
// names, or every one when none is named. Every session costs a pass over
// its chunks (by the index on session_id when ids are named, the whole
// table otherwise): a list that keeps its figures asks only for the
// sessions whose archive cursor moved (ArchiveCursors).
func (db *DB) ArchivedSessions(ctx context.Context, ids ...string) ([]ctxkeep.ArchivedSession, error) {
	where, args := "", []any{}
	if len(ids) > 0 {
		where = "WHERE c.session_id IN (" + strings.TrimSuffix(strings.Repeat("?,", len(ids)), ",") + ")"
		for _, id := range ids {
			args = append(args, id)
		}
	}
	rows, err := db.sql.QueryContext(ctx, `SELECT c.session_id, max(c.project), max(c.agent),
		sum(c.kind IN ('step', 'turn')), max(c.turn), sum(c.kind = 'summary'),
		min(CASE WHEN c.ts_start > 0 THEN c.ts_start END), max(c.ts_end),
		coalesce(a.transcript, ''), coalesce(a.usage, '{}'),
		coalesce((SELECT p.prompt FROM chunks p WHERE p.session_id = c.session_id AND p.prompt != '' ORDER BY p.turn, p.step LIMIT 1), '')
		FROM chunks c LEFT JOIN archive_cursors a ON a.session_id = c.session_id `+where+`
		GROUP BY c.session_id ORDER BY max(c.ts_end) DESC, c.session_id`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ctxkeep.ArchivedSession
	for rows.Next() {
		var s ctxkeep.ArchivedSession
		var start sql.NullInt64
		var end int64
		var usage string
		if err := rows.Scan(&s.ID, &s.Project, &s.Agent, &s.Steps, &s.Turns, &s.Compactions, &start, &end, &s.Transcript, &usage, &s.Prompt); err != nil {
			return nil, err
		}
		if start.Valid {
			s.Start = time.UnixMilli(start.Int64).UTC()
		}
		s.End = time.UnixMilli(end).UTC()
		json.Unmarshal([]byte(usage), &s.Usage)
		out = append(out, s)
	}
	return out, rows.Err()
}

// ArchiveCursors returns every archived session's cursor, without its
// usage: one small row per session, what tells which sessions were
// archived further since a list was made.
func (db *DB) ArchiveCursors(ctx context.Context) (map[string]ctxkeep.ArchiveCursor, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT session_id, transcript, offset, line, turn, step FROM archive_cursors`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]ctxkeep.ArchiveCursor{}
	for rows.Next() {
		var id string
		var c ctxkeep.ArchiveCursor
		if err := rows.Scan(&id, &c.Transcript, &c.Offset, &c.Line, &c.Turn, &c.Step); err != nil {
			return nil, err
		}
		out[id] = c
	}
	return out, rows.Err()
}
