package sqlite

import (
	"path/filepath"
	"testing"

	"github.com/ctxkeep/ctxkeep"
)

// An index archived at turn grain (schema 3) keeps its turns through the
// migration to steps: they are found and read as before, the cursor sits
// at its turn's step 1, and archiving that turn again as steps replaces
// its whole-turn chunk.
func TestMigrationToStepsKeepsTurns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "index.db")
	db, err := open(path, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.sql.ExecContext(ctx, "PRAGMA journal_mode=WAL"); err != nil {
		t.Fatal(err)
	}
	for _, m := range migrations() {
		if m.Version <= 3 {
			if err := db.apply(ctx, m); err != nil {
				t.Fatal(err)
			}
		}
	}
	for turn, body := range []string{"", "quokka one", "quokka two"} {
		if turn == 0 {
			continue
		}
		res, err := db.sql.ExecContext(ctx, `INSERT INTO chunks (key, session_id, kind, turn, body, body_hash) VALUES (?, 's1', 'turn', ?, ?, '')`,
			"kold"+body[len(body)-3:], turn, body)
		if err != nil {
			t.Fatal(err)
		}
		id, _ := res.LastInsertId()
		if _, err := db.sql.ExecContext(ctx, `INSERT INTO chunks_fts (rowid, prompt, summary, body, files) VALUES (?, '', '', ?, '')`, id, body); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.sql.ExecContext(ctx, `INSERT INTO archive_cursors (session_id, transcript, offset, line, turn, summaries) VALUES ('s1', '/t.jsonl', 700, 7, 2, 0)`); err != nil {
		t.Fatal(err)
	}
	db.Close()

	db, err = OpenMigrate(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	hits, err := db.SearchChunks(ctx, ctxkeep.ChunkQuery{Text: "quokka"})
	if err != nil || len(hits) != 2 || hits[0].Kind != ctxkeep.KindTurn || hits[0].Step != 0 {
		t.Fatalf("old turns after the migration: %+v, %v", hits, err)
	}
	cur, ok, err := db.Cursor(ctx, "s1")
	if err != nil || !ok || cur.Turn != 2 || cur.Step != 1 || cur.Offset != 700 {
		t.Fatalf("cursor after the migration = %+v, %t, %v; want turn 2, step 1", cur, ok, err)
	}
	var cols int
	db.sql.QueryRowContext(ctx, `SELECT count(*) FROM pragma_table_info('archive_cursors') WHERE name = 'summaries'`).Scan(&cols)
	if cols != 0 {
		t.Error("archive_cursors still has the unused summaries column")
	}
	step := ctxkeep.Chunk{Key: "knew", SessionID: "s1", Kind: ctxkeep.KindStep, Turn: 2, Step: 1, Body: "quokka two, as a step"}
	if _, err := db.SaveChunks(ctx, "s1", []ctxkeep.Chunk{step}, cur); err != nil {
		t.Fatal(err)
	}
	cs, _ := db.Chunks(ctx, "s1")
	if len(cs) != 2 || cs[0].Kind != ctxkeep.KindTurn || cs[0].Turn != 1 || cs[1].Key != "knew" {
		t.Fatalf("after turn 2 came again as a step: %+v", cs)
	}
}
