package store

import (
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxkeep/ctxkeep"
)

// putEntry stores content as entry id, with a readable copy.
func putEntry(t *testing.T, s *Store, id, content string) ctxkeep.Entry {
	t.Helper()
	copyPath := filepath.Join(t.TempDir(), "ctxkeep-"+id+".txt")
	os.WriteFile(copyPath, []byte(content), 0o600)
	e, err := s.PutEntry(ctx, ctxkeep.Entry{ID: id, SessionID: "s", Tool: "Bash", CopyPath: copyPath}, []byte(content))
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// The race the write ordering must survive: a writer finds its content
// already stored (blob.Put writes nothing), a prune removes the last entry
// that used it and unlinks the blob, then the writer commits. The writer's
// commit must be refused rather than leave a row without its blob.
func TestAddEntryRefusedWhenItsBlobWasRemoved(t *testing.T) {
	s := open(t, t.TempDir())
	old := putEntry(t, s, "aaaaaaaaaaaa", "the same output")
	info, created, err := s.blobs.Put([]byte("the same output")) // the writer: finds it stored
	if err != nil || created {
		t.Fatalf("put: created %t, %v", created, err)
	}
	if _, err := s.Remove(ctx, []ctxkeep.Entry{old}); err != nil { // the prune
		t.Fatal(err)
	}
	e := ctxkeep.Entry{ID: "bbbbbbbbbbbb", SessionID: "s", Tool: "Bash", Hash: info.Hash, CreatedAt: time.Now()}
	if err := s.DB.AddEntry(ctx, e, info, s.present(info.Hash)); !errors.Is(err, ctxkeep.ErrNotFound) {
		t.Fatalf("AddEntry after the blob went: %v", err)
	}
	if rep, _ := s.Check(ctx, false); !rep.OK() || rep.Rows != 0 {
		t.Fatalf("check: %+v", rep)
	}
	// Stored again, it commits.
	if _, err := s.PutEntry(ctx, e, []byte("the same output")); err != nil {
		t.Fatal(err)
	}
}

// The other order: the writer commits first, and the prune, which planned
// on the old entry only, leaves the blob the new entry uses.
func TestRemoveKeepsABlobStoredAgain(t *testing.T) {
	s := open(t, t.TempDir())
	old := putEntry(t, s, "aaaaaaaaaaaa", "the same output")
	fresh := putEntry(t, s, "bbbbbbbbbbbb", "the same output")
	rm, err := s.Remove(ctx, []ctxkeep.Entry{old})
	if err != nil || len(rm.Entries) != 1 || len(rm.Freed) != 0 {
		t.Fatalf("removed %+v, %v", rm, err)
	}
	if data, err := s.Open(ctx, fresh.Hash); err != nil || string(data) != "the same output" {
		t.Fatalf("get: %q, %v", data, err)
	}
}

// rawDB opens the index with foreign keys off, to make the damage ctxkeep
// itself never makes.
func rawDB(t *testing.T, s *Store) *sql.DB {
	db, err := sql.Open("sqlite3", "file:"+s.DB.Path()+"?_pragma=foreign_keys(0)&_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestCheckAndRepair(t *testing.T) {
	s := open(t, t.TempDir())
	missing := putEntry(t, s, "aaaaaaaaaaaa", "its blob file is deleted, its copy is intact")
	corrupt := putEntry(t, s, "bbbbbbbbbbbb", "its blob is damaged, its copy too")
	dangling := putEntry(t, s, "cccccccccccc", "its blob row is deleted, the file is intact")
	lost := putEntry(t, s, "dddddddddddd", "its blob and its copy are gone")
	os.Remove(s.blobs.Path(missing.Hash))
	os.WriteFile(s.blobs.Path(corrupt.Hash), []byte("bad"), 0o600)
	os.WriteFile(corrupt.CopyPath, []byte("also bad"), 0o600)
	os.Remove(s.blobs.Path(lost.Hash))
	os.Remove(lost.CopyPath)
	if _, err := rawDB(t, s).Exec(`DELETE FROM blobs WHERE hash = ?`, string(dangling.Hash)); err != nil {
		t.Fatal(err)
	}

	rep, err := s.Check(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	if rep.OK() || len(rep.Missing) != 2 || !equal(rep.Corrupt, corrupt.Hash) ||
		len(rep.Dangling) != 1 || rep.Dangling[0] != dangling.ID || len(rep.Unreferenced) != 1 {
		t.Fatalf("report = %+v", rep)
	}
	fixed, err := s.Repair(ctx, rep)
	if err != nil {
		t.Fatal(err)
	}
	if len(fixed.Fixed) != 2 || len(fixed.Unfixed) != 2 {
		t.Fatalf("repair = %+v", fixed)
	}
	for _, e := range []ctxkeep.Entry{missing, dangling} {
		if _, err := s.Open(ctx, e.Hash); err != nil {
			t.Errorf("%s not repaired: %v", e.ID, err)
		}
	}
	after, _ := s.Check(ctx, true)
	if !equal(after.Corrupt, corrupt.Hash) || !equal(after.Missing, lost.Hash) || len(after.Dangling) != 0 {
		t.Fatalf("after repair = %+v", after)
	}
	if !strings.Contains(strings.Join(fixed.Unfixed, "\n"), "content is lost") {
		t.Errorf("unfixed: %v", fixed.Unfixed)
	}
}

// Every FTS5 table is checked, whatever migration made it: a table whose
// index disagrees with its content fails, and --repair rebuilds it.
func TestCheckFindsABrokenFTSTable(t *testing.T) {
	s := open(t, t.TempDir())
	db := rawDB(t, s)
	for _, q := range []string{
		`CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)`,
		`CREATE VIRTUAL TABLE notes_fts USING fts5(body, content='notes', content_rowid='id')`,
		`INSERT INTO notes (id, body) VALUES (1, 'the failing test')`,
		`INSERT INTO notes_fts (rowid, body) VALUES (1, 'the failing test')`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if rep, err := s.Check(ctx, true); err != nil || !rep.OK() {
		t.Fatalf("healthy: %+v, %v", rep, err)
	}
	if _, err := db.Exec(`UPDATE notes SET body = 'something else' WHERE id = 1`); err != nil { // the index is now stale
		t.Fatal(err)
	}
	rep, err := s.Check(ctx, true)
	if err != nil || len(rep.FTSProblems) != 1 || !strings.HasPrefix(rep.FTSProblems[0], "notes_fts") {
		t.Fatalf("stale: %+v, %v", rep, err)
	}
	if fixed, err := s.Repair(ctx, rep); err != nil || len(fixed.Fixed) != 1 {
		t.Fatalf("repair: %+v, %v", fixed, err)
	}
	if rep, _ := s.Check(ctx, true); !rep.OK() {
		t.Fatalf("after rebuild: %+v", rep)
	}
}

func TestGarbageIsRemovedOnlyWhenOld(t *testing.T) {
	st := open(t, t.TempDir())
	orphan, _, _ := st.blobs.Put([]byte("a blob whose row never committed"))
	kept := put(t, st, []byte("indexed"))
	tmp := filepath.Join(filepath.Dir(st.blobs.Path(orphan.Hash)), ".x.zst.tmp-123")
	os.WriteFile(tmp, []byte("partial"), 0o600)

	g, err := st.FindGarbage(ctx, time.Now().Add(-time.Hour))
	if err != nil || len(g.Temps)+len(g.Orphans) != 0 {
		t.Fatalf("fresh garbage found: %+v, %v", g, err)
	}
	past := time.Now().Add(-2 * time.Hour)
	os.Chtimes(tmp, past, past)
	os.Chtimes(st.blobs.Path(orphan.Hash), past, past)
	os.Chtimes(st.blobs.Path(kept.Hash), past, past)
	g, err = st.FindGarbage(ctx, time.Now().Add(-time.Hour))
	if err != nil || len(g.Temps) != 1 || len(g.Orphans) != 1 || g.Orphans[0].Hash != orphan.Hash {
		t.Fatalf("garbage = %+v, %v", g, err)
	}
	done, err := st.RemoveGarbage(ctx, g)
	if err != nil || len(done.Temps) != 1 || len(done.Orphans) != 1 {
		t.Fatalf("removed %+v, %v", done, err)
	}
	if _, err := st.Open(ctx, kept.Hash); err != nil {
		t.Fatalf("an indexed blob went: %v", err)
	}
}
