package prune

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/store"
	"github.com/ctxkeep/ctxkeep/internal/storetest"
	"github.com/ctxkeep/ctxkeep/internal/swap"
)

var ctx = context.Background()

func openStore(t *testing.T) *store.Store { return storetest.Local(t, t.TempDir()) }

// add stores content as entry id, with a readable copy in a tool-results
// folder, as the PostToolUse hook does.
func add(t *testing.T, st *store.Store, id, content string, level ctxkeep.PinLevel, created time.Time) ctxkeep.Entry {
	t.Helper()
	copyPath := filepath.Join(st.Dir(), "proj", "sess", "tool-results", swap.CopyPrefix+id+".txt")
	os.MkdirAll(filepath.Dir(copyPath), 0o700)
	os.WriteFile(copyPath, []byte(content), 0o600)
	e := ctxkeep.Entry{ID: id, SessionID: "s", Tool: "Bash", CreatedAt: created, PinLevel: level, CopyPath: copyPath}
	e, err := st.PutEntry(ctx, e, []byte(content))
	if err != nil {
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
	a := add(t, st, "aaaaaaaaaaaa", "shared output", ctxkeep.PinNone, old)
	b := add(t, st, "bbbbbbbbbbbb", "shared output", ctxkeep.PinHard, time.Now())
	c := add(t, st, "cccccccccccc", "own output", ctxkeep.PinNone, old)
	state, err := Read(ctx, st)
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
	for _, gone := range []ctxkeep.Entry{a, c} {
		if _, err := st.Entry(ctx, gone.ID); !errors.Is(err, ctxkeep.ErrNotFound) {
			t.Errorf("%s still indexed: %v", gone.ID, err)
		}
		if _, err := os.Stat(gone.CopyPath); !os.IsNotExist(err) {
			t.Errorf("copy of %s still there", gone.ID)
		}
	}
	if _, err := st.Open(ctx, c.Hash); !errors.Is(err, ctxkeep.ErrNotFound) {
		t.Errorf("blob of %s still on disk", c.ID)
	}
	if data, err := st.Open(ctx, b.Hash); err != nil || string(data) != "shared output" {
		t.Errorf("the hard pin's shared blob: %q, %v", data, err)
	}
	if rep, err := st.Check(ctx, true); err != nil || !rep.OK() || len(rep.Unreferenced) != 0 {
		t.Errorf("check after prune: %+v, %v", rep, err)
	}
	// An entry replaced since the plan was made (a retried hook) is left alone.
	d := add(t, st, "dddddddddddd", "v1", ctxkeep.PinNone, old)
	plan = &Plan{Items: []Item{{Entry: d}}}
	add(t, st, "dddddddddddd", "v2", ctxkeep.PinNone, time.Now())
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
	for _, e := range []ctxkeep.Entry{
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

// An interrupted write of a readable copy leaves ".ctxkeep-ID.txt.tmp-…"
// in the client's tool-results folder: prune finds those once old enough,
// and nothing else there.
func TestCopyLeftovers(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sess", "tool-results")
	os.MkdirAll(dir, 0o700)
	old := time.Now().Add(-2 * Grace)
	for name, when := range map[string]time.Time{
		".ctxkeep-0123456789ab.txt.tmp-4711": old,        // ours, interrupted: goes
		".ctxkeep-0123456789ab.txt.tmp-4712": time.Now(), // a write in progress: stays
		"ctxkeep-0123456789ab.txt":           old,        // a copy: stays
		"toolu_01.txt":                       old,        // the client's: stays
		".other.txt.tmp-1":                   old,        // not ours: stays
	} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte("x"), 0o600)
		os.Chtimes(p, when, when)
	}
	got, err := CopyLeftovers([]string{dir, dir, filepath.Join(t.TempDir(), "not-tool-results")}, time.Now().Add(-Grace))
	if err != nil || len(got) != 1 || filepath.Base(got[0].Path) != ".ctxkeep-0123456789ab.txt.tmp-4711" {
		t.Fatalf("leftovers = %+v, %v", got, err)
	}
	st := &State{Entries: []ctxkeep.Entry{{CopyPath: filepath.Join(dir, "ctxkeep-x.txt")}},
		Sessions: map[string]ctxkeep.Session{"s2": {Transcript: "/h/.claude/projects/-p/s2.jsonl"}}}
	if dirs := CopyDirs(st); !slices.Equal(dirs, []string{"/h/.claude/projects/-p/s2/tool-results", dir}) {
		t.Fatalf("CopyDirs = %v", dirs)
	}
}
