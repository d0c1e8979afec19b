package postgres

// Every statement on the chunks table is in this file: the columns, the
// upsert with its full-text vector, the reads and the search (whose
// ranking half is search_chunks, in the migration). A new kind of chunk
// or a new field changes this file and a migration:
//
//   - a field of Chunk: a column (migration 000N_*.sql: ALTER TABLE chunks
//     ADD COLUMN …), chunkColumns and scanChunk, upsertChunk's column list
//     and its WHERE (what counts as changed), queueChunk's arguments;
//   - a kind ("step"): nothing for storage (kind is free text and the key,
//     the one unique index, comes from archive.ChunkKey); the orders of
//     Chunks and TurnRange ("turn, kind DESC") if steps sort within a
//     turn by a new column; whether steps are indexed with the same
//     weights (indexText's parts in queueChunk);
//   - sync (internal/team) carries new fields as they are: it redacts a
//     chunk through its JSON.

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/text"
)

// chunkColumns are the columns a chunk is read from, in scanChunk's order;
// owner comes last, for team search.
const chunkColumns = `key, session_id, project, kind, agent, turn, step, ts_start, ts_end, prompt, summary, body, meta, owner`

// headColumns are chunkColumns with an empty body.
const headColumns = `key, session_id, project, kind, agent, turn, step, ts_start, ts_end, prompt, summary, '', meta, owner`

// The weights of the vector's parts, as the local index weighs its columns:
// prompt 4 (A), files 3 (B), summary 2 (C), body and outputs 1 (D).
// ts_rank takes them in the order D, C, B, A.
const rankWeights = `'{0.1, 0.2, 0.3, 0.4}'`

// upsertChunk writes a chunk: a new key is inserted; a key already there
// is rewritten only when what it holds or indexes changed (a turn that
// grew, outputs whose text is now pushed), so that pushing or saving the
// same chunk twice writes nothing. Its vector is made by the server from
// the parts indexText prepared. A key is the connected role's (owner's
// default): another role's row under the same key is another row.
const upsertChunk = `INSERT INTO chunks (key, session_id, project, kind, agent, turn, step, ts_start, ts_end,
		prompt, summary, body, body_hash, meta, files, tsv)
	VALUES ($1, $2, $3, $4, $5, $6, $19, $7, $8, $9, $10, $11, $12, $13, $14,
		setweight(to_tsvector('english', $15), 'A') || setweight(to_tsvector('english', $16), 'B') ||
		setweight(to_tsvector('english', $17), 'C') || setweight(to_tsvector('english', $18), 'D'))
	ON CONFLICT (key, owner) DO UPDATE SET session_id = EXCLUDED.session_id, project = EXCLUDED.project,
		kind = EXCLUDED.kind, agent = EXCLUDED.agent, turn = EXCLUDED.turn, step = EXCLUDED.step,
		ts_start = EXCLUDED.ts_start, ts_end = EXCLUDED.ts_end,
		prompt = EXCLUDED.prompt, summary = EXCLUDED.summary, body = EXCLUDED.body,
		body_hash = EXCLUDED.body_hash, meta = EXCLUDED.meta, files = EXCLUDED.files, tsv = EXCLUDED.tsv,
		pushed_at = now()
	WHERE chunks.body_hash <> EXCLUDED.body_hash OR chunks.project <> EXCLUDED.project OR chunks.agent <> EXCLUDED.agent
		OR chunks.step <> EXCLUDED.step OR chunks.tsv <> EXCLUDED.tsv`

// queueChunk adds the upsert of c to b.
func queueChunk(b *pgx.Batch, c ctxkeep.Chunk) *pgx.QueuedQuery {
	meta := jsonb(c.Meta)
	files := c.Meta.Files()
	body := c.Body
	if len(c.Outputs) > 0 {
		body += "\n" + strings.Join(c.Outputs, "\n")
	}
	return b.Queue(upsertChunk, c.Key, c.SessionID, c.Project, c.Kind, c.Agent, c.Turn, nullTime(c.Start), nullTime(c.End),
		clean(c.Prompt), clean(c.Summary), clean(c.Body), c.BodyHash(), meta, clean(strings.Join(files, "\n")),
		indexText(c.Prompt, maxIndexed), indexText(strings.Join(files, " "), maxIndexed),
		indexText(c.Summary+"\n"+c.DateWords(), maxIndexed), indexText(body, maxIndexed), c.Step)
}

// saveChunks upserts chunks in key order (concurrent writers then take
// their row locks in the same order and cannot deadlock) and returns how
// many were written.
func saveChunks(ctx context.Context, tx pgx.Tx, chunks []ctxkeep.Chunk) (int, error) {
	sorted := append([]ctxkeep.Chunk(nil), chunks...)
	sortBy(sorted, func(c ctxkeep.Chunk) string { return c.Key })
	b := &pgx.Batch{}
	for _, c := range sorted {
		queueChunk(b, c)
	}
	res := tx.SendBatch(ctx, b)
	written := 0
	for range sorted {
		tag, err := res.Exec()
		if err != nil {
			res.Close()
			return 0, describe(err)
		}
		written += int(tag.RowsAffected())
	}
	return written, describe(res.Close())
}

// SaveChunks stores chunks and moves the session's cursor, atomically.
func (db *DB) SaveChunks(ctx context.Context, session string, chunks []ctxkeep.Chunk, cur ctxkeep.ArchiveCursor) (int, error) {
	written := 0
	err := pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		if err := replaceTurns(ctx, tx, chunks); err != nil {
			return err
		}
		n, err := saveChunks(ctx, tx, chunks)
		if err != nil {
			return err
		}
		written = n
		usage, _ := json.Marshal(cur.Usage)
		_, err = tx.Exec(ctx, `INSERT INTO archive_cursors (session_id, transcript, "offset", line, turn, step, usage)
			VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (session_id) DO UPDATE SET transcript = EXCLUDED.transcript,
			"offset" = EXCLUDED."offset", line = EXCLUDED.line, turn = EXCLUDED.turn, step = EXCLUDED.step, usage = EXCLUDED.usage`,
			session, cur.Transcript, cur.Offset, cur.Line, cur.Turn, cur.Step, usage)
		return describe(err)
	})
	return written, err
}

// replaceTurns deletes what was archived of the turns chunks holds steps
// of (ctxkeep.SteppedTurns).
func replaceTurns(ctx context.Context, tx pgx.Tx, chunks []ctxkeep.Chunk) error {
	for _, t := range ctxkeep.SteppedTurns(chunks) {
		if _, err := tx.Exec(ctx, `DELETE FROM chunks WHERE session_id = $1 AND turn = $2 AND step = 0 AND kind IN ('turn', 'summary')
			AND owner = current_user`,
			t.SessionID, t.Turn); err != nil {
			return describe(err)
		}
	}
	return nil
}

// Cursor returns the session's archive cursor.
func (db *DB) Cursor(ctx context.Context, session string) (c ctxkeep.ArchiveCursor, ok bool, err error) {
	var usage []byte
	err = db.pool.QueryRow(ctx, `SELECT transcript, "offset", line, turn, step, usage FROM archive_cursors WHERE session_id = $1`, session).
		Scan(&c.Transcript, &c.Offset, &c.Line, &c.Turn, &c.Step, &usage)
	if errors.Is(err, pgx.ErrNoRows) {
		return c, false, nil
	}
	if err != nil {
		return c, false, describe(err)
	}
	json.Unmarshal(usage, &c.Usage)
	return c, true, nil
}

// sessionOwner is, in a statement on chunks or entries, the role whose
// rows are the session's: the reader's own, else the one that pushed the
// session first (migration 0003: another role may have written rows under
// the same session id and keys; they are theirs, not the session's).
// Without a session row (the store used as a local one), every owner.
func sessionOwner(table string) string {
	return `coalesce((SELECT s.owner FROM sessions s WHERE s.id = ` + table + `.session_id
		ORDER BY s.owner = current_user DESC, s.pushed_at, s.owner LIMIT 1), ` + table + `.owner)`
}

// Chunks returns a session's chunks by turn and step, a turn's summary
// after its steps.
func (db *DB) Chunks(ctx context.Context, session string) ([]ctxkeep.Chunk, error) {
	return chunksOnly(db.queryChunks(ctx, `WHERE session_id = $1 AND owner = `+sessionOwner("chunks")+`
		ORDER BY turn, kind = 'summary', step`, session))
}

// ChunkHeads returns a session's chunks as Chunks does, without their
// bodies.
func (db *DB) ChunkHeads(ctx context.Context, session string) ([]ctxkeep.Chunk, error) {
	return chunksOnly(db.queryColumns(ctx, headColumns, `WHERE session_id = $1 AND owner = `+sessionOwner("chunks")+`
		ORDER BY turn, kind = 'summary', step`, session))
}

// Chunk returns the chunk with key, or the only one whose key starts with it.
func (db *DB) Chunk(ctx context.Context, key string) (ctxkeep.Chunk, error) {
	c, err := db.ownedChunk(ctx, key)
	return c.Chunk, err
}

// Owned is a chunk with the role that pushed it.
type Owned = ctxkeep.TeamOwned

func (db *DB) ownedChunk(ctx context.Context, key string) (Owned, error) {
	key, err := ctxkeep.ChunkLookup.Clean(key)
	if err != nil {
		return Owned{}, err
	}
	// One row per key: the session's (sessionOwner), when several roles
	// pushed the key.
	cs, err := db.queryColumns(ctx, "DISTINCT ON (key) "+chunkColumns, `WHERE key LIKE $1
		ORDER BY key, owner = `+sessionOwner("chunks")+` DESC, owner LIMIT 2`, key+"%")
	if err != nil {
		return Owned{}, err
	}
	return ctxkeep.Pick(ctxkeep.ChunkLookup, key, cs, func(c Owned) string { return c.Key })
}

// TurnRange returns the steps (or whole turns archived before steps) of a
// session from turn from to turn to, in order; not its summaries.
func (db *DB) TurnRange(ctx context.Context, session string, from, to int) ([]ctxkeep.Chunk, error) {
	return chunksOnly(db.queryChunks(ctx, `WHERE session_id = $1 AND kind <> 'summary' AND turn BETWEEN $2 AND $3
		AND owner = `+sessionOwner("chunks")+` ORDER BY turn, step`, session, from, to))
}

// ChunkSessions lists the sessions with chunks, latest first.
func (db *DB) ChunkSessions(ctx context.Context) ([]string, error) {
	rows, err := db.pool.Query(ctx, `SELECT session_id FROM chunks GROUP BY session_id ORDER BY max(ts_end) DESC NULLS LAST, session_id`)
	if err != nil {
		return nil, describe(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	return out, describe(err)
}

func (db *DB) queryChunks(ctx context.Context, where string, args ...any) ([]Owned, error) {
	return db.queryColumns(ctx, chunkColumns, where, args...)
}

func (db *DB) queryColumns(ctx context.Context, columns, where string, args ...any) ([]Owned, error) {
	rows, err := db.pool.Query(ctx, `SELECT `+columns+` FROM chunks `+where, args...)
	if err != nil {
		return nil, describe(err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Owned, error) { return scanChunk(r) })
	return out, describe(err)
}

func chunksOnly(os []Owned, err error) ([]ctxkeep.Chunk, error) {
	out := make([]ctxkeep.Chunk, len(os))
	for i, o := range os {
		out[i] = o.Chunk
	}
	return out, err
}

func scanChunk(r pgx.Row, extra ...any) (Owned, error) {
	var c Owned
	var start, end *time.Time
	var meta []byte
	dest := append([]any{&c.Key, &c.SessionID, &c.Project, &c.Kind, &c.Agent, &c.Turn, &c.Step, &start, &end, &c.Prompt, &c.Summary,
		&c.Body, &meta, &c.Owner}, extra...)
	if err := r.Scan(dest...); err != nil {
		return c, err
	}
	if start != nil {
		c.Start = start.UTC()
	}
	if end != nil {
		c.End = end.UTC()
	}
	json.Unmarshal(meta, &c.Meta)
	return c, nil
}

// Hit is a chunk that matched a team search, with whose it is.
type Hit = ctxkeep.TeamHit

// SearchChunks returns the chunks matching any word of q.Text, best first.
func (db *DB) SearchChunks(ctx context.Context, q ctxkeep.ChunkQuery) ([]ctxkeep.ChunkHit, error) {
	hits, err := db.Search(ctx, q)
	out := make([]ctxkeep.ChunkHit, len(hits))
	for i, h := range hits {
		out[i] = h.ChunkHit
	}
	return out, err
}

// pathBoost is what each path or identifier of the query found in a
// chunk's files adds to its rank: about what a match of the files' words
// weighs in ts_rank, so that "internal/ratelimiter/window.go" ranks the
// chunk that touched that file above those that only say its words.
const pathBoost = 0.1

// rankCap bounds the chunks one search ranks. Ranking reads each
// candidate's vector (a few kB, often out of line): a word in a third of a
// million chunks would cost seconds. So the words that bring candidates
// are the rarest ones whose matches, as the planner estimates them, add up
// to at most rankCap; common words still count in the rank of every
// candidate, as in a ranking that weighs words by rarity, where they weigh
// next to nothing. When even the rarest word is that common, candidates
// are the chunks with every word, and past rankCap of those, the newest.
const rankCap = 2000

// maxPhrase is the longest query also searched for as a phrase, as the
// local index does.
const maxPhrase = 12

// Search is SearchChunks with the owner of each chunk; a chunk holding the
// query's words as a phrase (an exact line, an identifier) comes first,
// Phrase set, as in the local index.
//
// The chunks matching the words are ranked in the database (search_chunks,
// keys and ranks only) over a pool wider than the limit, then weighed by
// the rarity of the words each holds and by the phrase, and only the best
// are read.
func (db *DB) Search(ctx context.Context, q ctxkeep.ChunkQuery) ([]Hit, error) {
	words, err := db.searchWords(ctx, queryWords(q.Text))
	if err != nil {
		return nil, err
	}
	if len(words) == 0 {
		return nil, ctxkeep.ErrEmptyQuery // no word, or only stop words
	}
	limit := q.Limit
	if limit <= 0 {
		limit = 20
	}
	tokens := text.Tokens(q.Text)
	phrase := len(tokens) >= 2 && len(tokens) <= maxPhrase
	pool := limit
	if len(words) > 1 || phrase {
		pool = max(4*limit, 50) // the rare word, or the phrase, may be in a chunk ts_rank puts low
	}
	hits, err := db.match(ctx, q, words, pool)
	if err != nil || len(hits) == 0 {
		return nil, err
	}
	if err := db.weighByRarity(ctx, hits, words); err != nil {
		return nil, err
	}
	if phrase {
		if hits, err = db.phraseFirst(ctx, hits, tokens); err != nil {
			return nil, err
		}
	}
	return db.readHits(ctx, hits[:min(limit, len(hits))])
}

// phraseFirst moves the hits holding tokens as a phrase first, Phrase set.
func (db *DB) phraseFirst(ctx context.Context, hits []Hit, tokens []string) ([]Hit, error) {
	keys, owners := hitKeys(hits)
	rows, err := db.pool.Query(ctx, `SELECT key || ' ' || owner FROM chunks
		WHERE (key, owner) IN (SELECT * FROM unnest($1::text[], $2::name[])) AND tsv @@ phraseto_tsquery('english', $3)`,
		keys, owners, strings.Join(tokens, " "))
	if err != nil {
		return nil, describe(err)
	}
	phrased, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, describe(err)
	}
	out := make([]Hit, 0, len(hits))
	for i := range hits {
		if hits[i].Phrase = slices.Contains(phrased, hits[i].Key+" "+hits[i].Owner); hits[i].Phrase {
			out = append(out, hits[i])
		}
	}
	for _, h := range hits {
		if !h.Phrase {
			out = append(out, h)
		}
	}
	return out, nil
}

// readHits reads the chunks of hits (which hold only keys and ranks), as
// the role, through row-level security again, keeping their order.
func (db *DB) readHits(ctx context.Context, hits []Hit) ([]Hit, error) {
	keys, owners := hitKeys(hits)
	rows, err := db.pool.Query(ctx, `SELECT `+chunkColumns+` FROM chunks
		WHERE (key, owner) IN (SELECT * FROM unnest($1::text[], $2::name[]))`, keys, owners)
	if err != nil {
		return nil, describe(err)
	}
	read, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Owned, error) { return scanChunk(r) })
	if err != nil {
		return nil, describe(err)
	}
	out := make([]Hit, 0, len(hits))
	for _, h := range hits {
		if i := slices.IndexFunc(read, func(c Owned) bool { return c.Key == h.Key && c.Owner == h.Owner }); i >= 0 {
			h.Chunk, h.Owner = read[i].Chunk, read[i].Owner
			out = append(out, h)
		}
	}
	return out, nil
}

// hitKeys are the keys of hits and their owners: a row is known by both.
func hitKeys(hits []Hit) (keys, owners []string) {
	keys, owners = make([]string, len(hits)), make([]string, len(hits))
	for i, h := range hits {
		keys[i], owners[i] = h.Key, h.Owner
	}
	return keys, owners
}

// match ranks up to limit chunks holding words (Search): their keys and
// ranks. A chunk matches when any word of q.Text matches (through the
// vector), or any path or identifier of it is found in the files it
// touched (through the trigram index). Lexical is ts_rank with the
// columns' weights, normalised by the log of the chunk's length, plus
// pathBoost per path found: positive, higher is better.
func (db *DB) match(ctx context.Context, q ctxkeep.ChunkQuery, words []searchWord, limit int) ([]Hit, error) {
	all := make([]string, len(words))
	for i, w := range words {
		all[i] = w.word
	}
	var paths []string
	for _, p := range pathTerms(q.Text) {
		paths = append(paths, "%"+likeEscape(p)+"%")
	}
	cand := candidates(words)
	if len(paths) > 0 && words[0].rows > rankCap {
		// Every word is common (the words of a path: internal, go…): the
		// paths alone find the chunks that touched those files.
		cand = ""
	}
	hits, err := db.rank(ctx, q, strings.Join(all, " | "), cand, paths, limit)
	if err == nil && len(hits) == 0 && cand == "" {
		// No chunk touched such a file: the words find the chunks, as for
		// any query (an identifier of common words, error_content).
		hits, err = db.rank(ctx, q, strings.Join(all, " | "), candidates(words), nil, limit)
	}
	if err != nil || len(hits) >= limit || len(words) < 2 || words[0].rows <= rankCap {
		return hits, err
	}
	// Every word was common, and few chunks have them all: the newest
	// chunks with the rarest word fill the list.
	more, err := db.rank(ctx, q, strings.Join(all, " | "), words[0].word, nil, limit)
	for _, h := range more {
		if len(hits) < limit && !slices.ContainsFunc(hits, func(x Hit) bool { return x.Key == h.Key && x.Owner == h.Owner }) {
			hits = append(hits, h)
		}
	}
	slices.SortStableFunc(hits, func(a, b Hit) int { return cmp.Compare(b.Lexical, a.Lexical) })
	return hits, err
}

// weighByRarity scales each hit's rank by the share of the query's rarity
// it holds, and sorts the hits again. ts_rank counts how much of a chunk
// the query's words are, not how rare they are: a step saying three
// common words of the query ("expected", "42") would outrank the one
// holding the single rare word asked for (a test's name), where the local
// index's BM25 weighs each word by its rarity. A word weighs BM25's
// inverse document frequency, from the planner's estimates (searchWords);
// in an archive of at most exactCount chunks, which autovacuum may not
// have analysed yet (the estimates are then all alike), from exact counts.
// One round trip, two for a small archive.
func (db *DB) weighByRarity(ctx context.Context, hits []Hit, words []searchWord) error {
	if len(hits) < 2 || len(words) < 2 {
		return nil
	}
	list := make([]string, len(words))
	for i, w := range words {
		list[i] = w.word
	}
	b := &pgx.Batch{}
	b.Queue(`EXPLAIN (FORMAT JSON) SELECT 1 FROM chunks`)
	keys, owners := hitKeys(hits)
	b.Queue(`SELECT c.key || ' ' || c.owner, w.i::int FROM chunks c, unnest($3::text[]) WITH ORDINALITY AS w(word, i)
		WHERE (c.key, c.owner) IN (SELECT * FROM unnest($1::text[], $2::name[])) AND c.tsv @@ to_tsquery('english', w.word)`,
		keys, owners, list)
	res := db.pool.SendBatch(ctx, b)
	var plan []struct {
		Plan struct {
			Rows float64 `json:"Plan Rows"`
		}
	}
	if err := res.QueryRow().Scan(&plan); err != nil || len(plan) != 1 {
		res.Close()
		return describe(err)
	}
	held := map[string][]int{}
	rows, err := res.Query()
	if err != nil {
		res.Close()
		return describe(err)
	}
	for rows.Next() {
		var key string
		var i int
		if err := rows.Scan(&key, &i); err != nil {
			res.Close()
			return describe(err)
		}
		held[key] = append(held[key], i-1)
	}
	if err := errors.Join(rows.Err(), res.Close()); err != nil {
		return describe(err)
	}
	all, df := plan[0].Plan.Rows, make([]float64, len(words))
	for i, w := range words {
		df[i] = w.rows
	}
	if all <= exactCount {
		if all, df, err = db.countWords(ctx, list); err != nil {
			return err
		}
	}
	idf, total := make([]float64, len(words)), 0.0
	for i := range words {
		n := min(df[i], all)
		idf[i] = math.Log(1 + (all-n+0.5)/(n+0.5)) // BM25's, as FTS5: a word in every chunk weighs almost nothing
		total += idf[i]
	}
	if total == 0 {
		return nil
	}
	for i := range hits {
		sum := 0.0
		for _, w := range held[hits[i].Key+" "+hits[i].Owner] {
			sum += idf[w]
		}
		hits[i].Lexical *= 0.25 + 0.75*sum/total // a hit holds a word at least: never zero
	}
	slices.SortStableFunc(hits, func(a, b Hit) int { return cmp.Compare(b.Lexical, a.Lexical) })
	return nil
}

// exactCount is the size of archive whose words weighByRarity counts
// rather than estimates: a scan of that many rows is quick even as a
// member, for whom row-level security keeps the GIN index unused.
var exactCount = 20000.0 // a variable for the tests of the estimates

// countWords counts the chunks (as the role sees them) and those holding
// each word.
func (db *DB) countWords(ctx context.Context, words []string) (all float64, df []float64, err error) {
	df = make([]float64, len(words))
	err = db.pool.QueryRow(ctx, `SELECT count(*), `+countColumns(len(words))+` FROM chunks`, anySlice(words)...).Scan(append([]any{&all}, ptrs(df)...)...)
	return all, df, describe(err)
}

func countColumns(n int) string {
	cols := make([]string, n)
	for i := range cols {
		cols[i] = fmt.Sprintf("count(*) FILTER (WHERE tsv @@ to_tsquery('english', $%d))", i+1)
	}
	return strings.Join(cols, ", ")
}

func anySlice(words []string) []any {
	out := make([]any, len(words))
	for i, w := range words {
		out[i] = w
	}
	return out
}

func ptrs(f []float64) []any {
	out := make([]any, len(f))
	for i := range f {
		out[i] = &f[i]
	}
	return out
}

// rank runs search_chunks (the migration), which finds and ranks the
// keys, as a security-definer function that applies the grants itself.
func (db *DB) rank(ctx context.Context, q ctxkeep.ChunkQuery, all, cand string, paths []string, limit int) ([]Hit, error) {
	rows, err := db.pool.Query(ctx, `SELECT s.key, s.owner, s.rank
		FROM search_chunks($1, $2, $3, $4, $5, $6, $7, $8, $9, `+rankWeights+`) s
		ORDER BY s.rank DESC, s.key, s.owner`,
		all, cand, paths, nullText(q.Session), nullText(q.Project), nullText(q.Kind), rankCap, limit, pathBoost)
	if err != nil {
		return nil, describe(err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Hit, error) {
		var h Hit
		err := r.Scan(&h.Key, &h.Owner, &h.Lexical)
		return h, err
	})
	return out, describe(err)
}

// searchWord is a word of a query with the planner's estimate of the
// chunks it matches.
type searchWord struct {
	word string
	rows float64
}

// searchWords keeps the words of a query that are not stop words, with
// how many chunks each matches by the planner's estimate (EXPLAIN, which
// sees only what row-level security lets the role see), rarest first.
// One round trip.
func (db *DB) searchWords(ctx context.Context, words []string) ([]searchWord, error) {
	if len(words) == 0 {
		return nil, nil
	}
	b := &pgx.Batch{}
	for _, w := range words {
		b.Queue(`SELECT numnode(to_tsquery('english', $1))`, w)
		b.Queue(`EXPLAIN (FORMAT JSON) SELECT 1 FROM chunks WHERE tsv @@ to_tsquery('english', $1)`, w)
	}
	res := db.pool.SendBatch(ctx, b)
	defer res.Close()
	var out []searchWord
	for _, w := range words {
		var nodes int
		var plan []struct {
			Plan struct {
				Rows float64 `json:"Plan Rows"`
			}
		}
		if err := res.QueryRow().Scan(&nodes); err != nil {
			return nil, describe(err)
		}
		if err := res.QueryRow().Scan(&plan); err != nil {
			return nil, describe(err)
		}
		if nodes > 0 && len(plan) == 1 {
			out = append(out, searchWord{word: w, rows: plan[0].Plan.Rows})
		}
	}
	slices.SortStableFunc(out, func(a, b searchWord) int { return cmp.Compare(a.rows, b.rows) })
	return out, nil
}

// candidates is the query whose matches are ranked: the rarest words
// while their matches add up to rankCap (the rarest always), else, when
// the rarest is that common, all the words together.
func candidates(words []searchWord) string {
	if words[0].rows > rankCap && len(words) > 1 {
		all := make([]string, len(words))
		for i, w := range words {
			all[i] = w.word
		}
		return strings.Join(all, " & ")
	}
	picked, sum := []string{words[0].word}, words[0].rows
	for _, w := range words[1:] {
		if sum+w.rows > rankCap {
			break
		}
		picked, sum = append(picked, w.word), sum+w.rows
	}
	return strings.Join(picked, " | ")
}

// maxIndexed bounds the text of one part of a chunk's vector: PostgreSQL
// refuses a tsvector over 1 MB. Longer text keeps its head and its tail
// (where a log's failures are), indexText says how.
const maxIndexed = 256 << 10

// indexText prepares text for to_tsvector as the local index's tokenizer
// (unicode61) sees it: runs of letters and digits, everything else a
// separator, so that checkout_test.go:1500 is the words checkout, test, go
// and 1500 in both indexes (PostgreSQL's parser would keep it as one file
// name). Past max bytes, the first three quarters and the last quarter
// are kept.
func indexText(s string, max int) string {
	if len(s) > max {
		head, tail := max*3/4, max/4
		s = strings.ToValidUTF8(s[:head], "") + " " + strings.ToValidUTF8(s[len(s)-tail:], "")
	}
	var b strings.Builder
	b.Grow(len(s))
	space := true
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsNumber(r) {
			b.WriteRune(r)
			space = false
		} else if !space {
			b.WriteByte(' ')
			space = true
		}
	}
	return b.String()
}

// queryWords are the distinct words of a query, split as the local index
// splits them (letters, digits and _), in lower case, two letters or more.
func queryWords(text string) []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r) && r != '_'
	}) {
		// An identifier (refund_test) is its parts together, as the
		// local index reads it: to_tsquery's "&".
		parts := strings.FieldsFunc(f, func(r rune) bool { return r == '_' })
		w := strings.Join(parts, " & ")
		if len(parts) == 0 || len(parts) == 1 && utf8.RuneCountInString(w) < 2 || seen[w] {
			continue
		}
		seen[w] = true
		out = append(out, w)
	}
	return out
}

// pathTerms are the words of a query that look like paths or identifiers
// (a '/', '.', '_' or '-' inside, three characters or more): they are
// looked for as they are written in the files a chunk touched.
func pathTerms(text string) []string {
	var out []string
	for _, f := range strings.Fields(text) {
		f = strings.Trim(f, `"'(),;:`)
		if utf8.RuneCountInString(f) >= 3 && strings.ContainsAny(strings.Trim(f, "/._-"), "/._-") {
			out = append(out, f)
		}
	}
	return out
}

// likeEscape quotes LIKE's wildcards (the escape character is \).
func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// clean makes text storable: PostgreSQL's text refuses NUL bytes and
// invalid UTF-8.
func clean(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if strings.IndexByte(s, 0) >= 0 {
		s = strings.ReplaceAll(s, "\x00", "\uFFFD")
	}
	return s
}

// jsonb encodes v for a jsonb column, which refuses the NUL character.
func jsonb(v any) []byte {
	data, _ := json.Marshal(v)
	return bytes.ReplaceAll(data, []byte(`\u0000`), []byte(`\ufffd`))
}

// sortBy sorts xs by the key of each.
func sortBy[T any](xs []T, key func(T) string) {
	sort.SliceStable(xs, func(i, j int) bool { return key(xs[i]) < key(xs[j]) })
}

func nullText(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func nullTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}
