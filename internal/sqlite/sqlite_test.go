package sqlite

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/journal"
)

var ctx = context.Background()

func newDB(t *testing.T) *DB {
	t.Helper()
	db, err := OpenMigrate(ctx, filepath.Join(t.TempDir(), "data", "index.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestMigrateAndOpen(t *testing.T) {
	db := newDB(t)
	v, err := db.SchemaVersion(ctx)
	if err != nil || v != latestVersion() || v < 1 {
		t.Fatalf("version %d, %v", v, err)
	}
	st, _ := os.Stat(db.Path())
	dir, _ := os.Stat(filepath.Dir(db.Path()))
	if st.Mode().Perm() != 0o600 || dir.Mode().Perm() != 0o700 {
		t.Errorf("modes: db %v dir %v", st.Mode().Perm(), dir.Mode().Perm())
	}
	var mode string
	db.sql.QueryRow("PRAGMA journal_mode").Scan(&mode)
	if mode != "wal" {
		t.Errorf("journal_mode = %s", mode)
	}
	if err := db.QuickCheck(ctx); err != nil {
		t.Error(err)
	}
	// Migrating again is a no-op; Open accepts the file.
	db2, err := OpenMigrate(ctx, db.Path())
	if err != nil {
		t.Fatal(err)
	}
	db2.Close()
	db3, err := Open(db.Path())
	if err != nil {
		t.Fatal(err)
	}
	db3.Close()
}

func TestOpenNeverCreatesOrMigrates(t *testing.T) {
	path := filepath.Join(t.TempDir(), "index.db")
	if _, err := Open(path); !errors.Is(err, ErrSchema) {
		t.Fatalf("missing db: err = %v", err)
	}
	if _, err := os.Stat(path); err == nil {
		t.Fatal("Open created the database")
	}
	os.WriteFile(path, nil, 0o600) // an empty file is a database at version 0
	if _, err := Open(path); !errors.Is(err, ErrSchema) {
		t.Fatalf("unmigrated db: err = %v", err)
	}
}

func TestFTS5Available(t *testing.T) {
	db := newDB(t)
	if _, err := db.sql.Exec(`CREATE VIRTUAL TABLE t USING fts5(body); INSERT INTO t VALUES ('panic: runtime error'), ('all tests passed')`); err != nil {
		t.Fatal(err)
	}
	var body string
	if err := db.sql.QueryRow(`SELECT body FROM t WHERE t MATCH 'panic' ORDER BY bm25(t)`).Scan(&body); err != nil || body != "panic: runtime error" {
		t.Fatalf("fts5 match: %q %v", body, err)
	}
}

func TestBlobRows(t *testing.T) {
	db := newDB(t)
	info := ctxkeep.Blob{Hash: ctxkeep.Sum([]byte("x")), Size: 1, Stored: 10}
	for range 2 {
		if err := db.AddBlob(ctx, info, time.Now(), func() error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	got, ok, err := db.Blob(ctx, info.Hash)
	if err != nil || !ok || got != info {
		t.Fatalf("Blob = %+v %v %v", got, ok, err)
	}
	hs, _ := db.BlobHashes(ctx)
	if len(hs) != 1 {
		t.Fatalf("hashes = %v", hs)
	}
	gone, err := db.UnlinkUnreferenced(ctx, []ctxkeep.Hash{info.Hash}, func(ctxkeep.Hash) error { return nil })
	if err != nil || len(gone) != 0 {
		t.Fatalf("UnlinkUnreferenced of a blob with a row = %v, %v; want it kept", gone, err)
	}
}

func TestIngestExactlyOnceUnderConcurrency(t *testing.T) {
	db := newDB(t)
	jdir := filepath.Join(t.TempDir(), "journal")
	t0 := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	var wg sync.WaitGroup
	// Writers append while four ingesters race each other.
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 250 {
				journal.Append(jdir, fmt.Sprintf("s%d", w%2), ctxkeep.Event{
					Time: t0.Add(time.Duration(i) * time.Second), Event: "PostToolUse", Tool: "Bash",
					Bytes: 100, Micros: int64(i), Outcome: ctxkeep.OK, Client: "2.1.330", Cwd: "/p",
				})
			}
		}()
	}
	errs := make(chan error, 100)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 10 {
				if _, err := db.IngestJournals(ctx, jdir, ""); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if _, err := db.IngestJournals(ctx, jdir, ""); err != nil {
		t.Fatal(err)
	}
	var n int
	db.sql.QueryRow(`SELECT count(*) FROM events`).Scan(&n)
	if n != 1000 {
		t.Fatalf("events = %d, want 1000", n)
	}
	stats, err := db.Stats(ctx, "s0")
	if err != nil || len(stats) != 1 {
		t.Fatalf("stats: %v %v", stats, err)
	}
	s := stats[0]
	if s.Events != 500 || s.Client != "2.1.330" || s.Cwd != "/p" || s.PayloadBytes != 50000 || !s.FirstSeen.Equal(t0) || !s.LastSeen.Equal(t0.Add(249*time.Second)) {
		t.Errorf("session stats = %+v", s)
	}
	if len(s.ByTool) != 1 || s.ByTool[0].Count != 500 || s.ByEvent[0].P50us != 124 || s.ByEvent[0].MaxUs != 249 {
		t.Errorf("breakdown = %+v %+v", s.ByTool, s.ByEvent)
	}
}

func TestIngestMissingSessionIsEmpty(t *testing.T) {
	db := newDB(t)
	res, err := db.IngestJournals(ctx, t.TempDir(), "nosuch")
	if err != nil || res.Events != 0 {
		t.Fatalf("%+v %v", res, err)
	}
	if _, err := db.IngestJournals(ctx, t.TempDir(), "../x"); err == nil {
		t.Fatal("accepted a traversal session id")
	}
}

func TestStatsFailuresAndPercentiles(t *testing.T) {
	db := newDB(t)
	jdir := t.TempDir()
	for i, out := range []string{ctxkeep.OK, ctxkeep.OK, ctxkeep.Panicked, ctxkeep.TimedOut} {
		journal.Append(jdir, "s", ctxkeep.Event{Time: time.Now(), Event: "Stop", Micros: int64(i * 10), Outcome: out})
	}
	db.IngestJournals(ctx, jdir, "s")
	stats, _ := db.Stats(ctx, "")
	if len(stats) != 1 || stats[0].Failures != 2 || stats[0].ByEvent[0].P95us != 30 || stats[0].ByEvent[0].P50us != 10 {
		t.Fatalf("%+v", stats)
	}
}

// The hook path waits for the write lock as long as its context lets it,
// and no longer: while another process holds the lock, a write whose
// context ends gives up with the context's error, not "database is
// locked" after a fixed wait (nor after the hook's deadline).
func TestHookWaitsForTheLockUntilItsContextEnds(t *testing.T) {
	path := newDB(t).Path()
	holder, err := OpenMigrate(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	tx, err := holder.sql.BeginTx(ctx, nil) // _txlock=immediate: takes the write lock
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()

	hook, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer hook.Close()
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	_, err = hook.SaveChunks(short, "s1", nil, ctxkeep.ArchiveCursor{Offset: 1})
	if err == nil || short.Err() == nil {
		t.Fatalf("a write under another's lock returned %v before its context ended", err)
	}
	if hookBusyTimeout < 10*time.Minute || cliBusyTimeout != 10*time.Second {
		t.Errorf("busy timeouts: hook %v (want at least the longest deadline, 10m), CLI %v", hookBusyTimeout, cliBusyTimeout)
	}
}

// Optimize never makes an empty index grow: the planner's statistics are
// written before the checkpoint, not left in the WAL after it (it printed
// 143.4 kB → 147.6 kB on an empty store; issue 25.9).
func TestOptimizeEmptyDoesNotGrow(t *testing.T) {
	first := newDB(t)
	first.Close() // as a command finds it: migrated, closed, the WAL gone
	db, err := Open(first.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for range 2 {
		o, err := db.Optimize(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if o.BytesAfter > o.BytesBefore {
			t.Errorf("optimize of an empty index: %d → %d bytes", o.BytesBefore, o.BytesAfter)
		}
	}
}
