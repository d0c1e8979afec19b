package prune

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ctxkeep/ctxkeep/internal/blob"
	"github.com/ctxkeep/ctxkeep/internal/sqlite"
	"github.com/ctxkeep/ctxkeep/internal/store"
	"github.com/ctxkeep/ctxkeep/internal/swap"
)

var ctx = context.Background()

func openStore(t *testing.T) *store.Store {
	dir := t.TempDir()
	db, err := sqlite.OpenMigrate(ctx, filepath.Join(dir, "index.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return store.New(blob.New(filepath.Join(dir, "blobs")), db)
}

// add stores content as entry id, with a readable copy in a tool-results
// folder, as the PostToolUse hook does.
func add(t *testing.T, st *store.Store, id, content, level string, created time.Time) sqlite.Entry {
	t.Helper()
	info, _, err := st.Blobs.Put([]byte(content))
	if err != nil {
		t.Fatal(err)
	}
	copyPath := filepath.Join(st.Blobs.Dir(), "..", "proj", "sess", "tool-results", swap.CopyPrefix+id+".txt")
	os.MkdirAll(filepath.Dir(copyPath), 0o700)
	os.WriteFile(copyPath, []byte(content), 0o600)
	e := sqlite.Entry{ID: id, SessionID: "s", Tool: "Bash", Hash: info.Hash, CreatedAt: created, PinLevel: level,
		CopyPath: filepath.Clean(copyPath)}
	if err := st.AddEntry(ctx, e, info); err != nil {
		t.Fatal(err)
	}
	return e
}

// Run removes rows, then the blobs nothing refers to any more, then the
// readable copies; a blob another output still uses stays, and so do the
// outputs the plan does not name.
func TestRunRemovesRowsBlobsAndCopies(t *testing.T) {
	st := openStore(t)
	old := time.Now().Add(-400 * 24 * time.Hour)
	a := add(t, st, "aaaaaaaaaaaa", "shared output", "none", old)
	b := add(t, st, "bbbbbbbbbbbb", "shared output", "hard", time.Now())
	c := add(t, st, "cccccccccccc", "own output", "none", old)
	state, err := Read(ctx, st.Index)
	if err != nil {
		t.Fatal(err)
	}
	plan := Make(state, defaults(t), Options{Now: time.Now()})
	if got := ids(plan); len(got) != 2 {
		t.Fatalf("plan = %v", got)
	}
	res, err := Run(ctx, st, plan)
	if err != nil {
		t.Fatal(err)
	}
	if res.Entries != 2 || res.Blobs != 1 || res.Copies != 2 || res.Bytes != plan.Frees() {
		t.Fatalf("result = %+v (plan frees %d)", res, plan.Frees())
	}
	for _, gone := range []sqlite.Entry{a, c} {
		if _, err := st.Index.Entry(ctx, gone.ID); !errors.Is(err, sqlite.ErrNoEntry) {
			t.Errorf("%s still indexed: %v", gone.ID, err)
		}
		if _, err := os.Stat(gone.CopyPath); !os.IsNotExist(err) {
			t.Errorf("copy of %s still there", gone.ID)
		}
	}
	if _, err := st.Blobs.Stat(c.Hash); !errors.Is(err, blob.ErrNotFound) {
		t.Errorf("blob of %s still on disk", c.ID)
	}
	if data, err := st.Get(ctx, b.Hash); err != nil || string(data) != "shared output" {
		t.Errorf("the hard pin's shared blob: %q, %v", data, err)
	}
	if rep, err := st.Check(ctx, true); err != nil || !rep.OK() || len(rep.Unreferenced) != 0 {
		t.Errorf("check after prune: %+v, %v", rep, err)
	}
	// An entry replaced since the plan was made (a retried hook) is left alone.
	d := add(t, st, "dddddddddddd", "v1", "none", old)
	plan = &Plan{Items: []Item{{Entry: d}}}
	add(t, st, "dddddddddddd", "v2", "none", time.Now())
	if res, err := Run(ctx, st, plan); err != nil || res.Entries != 0 {
		t.Fatalf("removed a replaced entry: %+v, %v", res, err)
	}
}

// A copy path that is not one of ctxkeep's copies is never deleted.
func TestRemoveCopyOnlyRemovesCtxkeepCopies(t *testing.T) {
	dir := t.TempDir()
	mine := filepath.Join(dir, "tool-results", "notes.txt")
	os.MkdirAll(filepath.Dir(mine), 0o700)
	os.WriteFile(mine, []byte("x"), 0o600)
	for _, e := range []sqlite.Entry{
		{ID: "abc", CopyPath: mine},
		{ID: "abc", CopyPath: filepath.Join(dir, "tool-results", "ctxkeep-xyz.txt")},
		{ID: "abc", CopyPath: "tool-results/ctxkeep-abc.txt"},
	} {
		if removeCopy(e) {
			t.Errorf("removed %s", e.CopyPath)
		}
	}
	if _, err := os.Stat(mine); err != nil {
		t.Fatal(err)
	}
}

func TestGarbageIsRemovedOnlyWhenOld(t *testing.T) {
	st := openStore(t)
	orphan, _, _ := st.Blobs.Put([]byte("a blob whose row never committed"))
	kept := add(t, st, "eeeeeeeeeeee", "indexed", "none", time.Now())
	tmp := filepath.Join(filepath.Dir(st.Blobs.Path(orphan.Hash)), ".x.zst.tmp-123")
	os.WriteFile(tmp, []byte("partial"), 0o600)

	g, err := st.FindGarbage(ctx, time.Now().Add(-Grace))
	if err != nil || len(g.Temps)+len(g.Orphans) != 0 {
		t.Fatalf("fresh garbage found: %+v, %v", g, err)
	}
	past := time.Now().Add(-2 * Grace)
	os.Chtimes(tmp, past, past)
	os.Chtimes(st.Blobs.Path(orphan.Hash), past, past)
	os.Chtimes(st.Blobs.Path(kept.Hash), past, past)
	g, err = st.FindGarbage(ctx, time.Now().Add(-Grace))
	if err != nil || len(g.Temps) != 1 || len(g.Orphans) != 1 || g.Orphans[0].Hash != orphan.Hash {
		t.Fatalf("garbage = %+v, %v", g, err)
	}
	done, err := st.RemoveGarbage(ctx, g)
	if err != nil || len(done.Temps) != 1 || len(done.Orphans) != 1 {
		t.Fatalf("removed %+v, %v", done, err)
	}
	if _, err := st.Get(ctx, kept.Hash); err != nil {
		t.Fatalf("an indexed blob went: %v", err)
	}
}
