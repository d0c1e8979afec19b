package sqlite

import (
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ctxkeep/ctxkeep"
)

// An index from before entries named their project (schema 7) gives each
// entry its session's archived project; an entry whose session was never
// archived keeps none, and is found in a project once its session is
// archived there.
func TestMigrationGivesEntriesTheirProject(t *testing.T) {
	path := filepath.Join(t.TempDir(), "index.db")
	db, err := open(path, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range migrations() {
		if m.Version <= 7 {
			if err := db.apply(ctx, m); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, q := range []string{
		`INSERT INTO blobs (hash, size, stored_size, created_at) VALUES ('h', 1, 1, 0)`,
		`INSERT INTO entries (id, session_id, tool, hash, chars, lines, view_chars, created_at) VALUES
			('aaaa00000001', 'sa', 'Bash', 'h', 1, 1, 1, 0), ('bbbb00000001', 'sb', 'Bash', 'h', 1, 1, 1, 0),
			('cccc00000001', 'sc', 'Bash', 'h', 1, 1, 1, 0)`,
		`INSERT INTO chunks (key, session_id, project, kind, turn, step, body, body_hash) VALUES
			('ka', 'sa', '/a', 'step', 1, 1, '', ''), ('kb', 'sb', '/b', 'step', 1, 1, '', '')`,
	} {
		if _, err := db.sql.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	if db, err = OpenMigrate(ctx, path); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for id, want := range map[string]string{"aaaa00000001": "/a", "bbbb00000001": "/b", "cccc00000001": ""} {
		if e, err := db.Entry(ctx, id); err != nil || e.Project != want {
			t.Errorf("%s after the migration: project %q, %v; want %q", id, e.Project, err, want)
		}
	}
	if _, err := db.ProjectEntry(ctx, "/a", "cccc"); !errors.Is(err, ctxkeep.ErrNotFound) {
		t.Errorf("an entry of a session never archived, in /a: %v", err)
	}
	if _, err := db.SaveChunks(ctx, "sc", []ctxkeep.Chunk{{Key: "kc", SessionID: "sc", Project: "/a", Kind: ctxkeep.KindStep, Turn: 1, Step: 1}}, ctxkeep.ArchiveCursor{}); err != nil {
		t.Fatal(err)
	}
	if e, err := db.ProjectEntry(ctx, "/a", "cccc"); err != nil || e.ID != "cccc00000001" {
		t.Errorf("once its session is archived in /a: %+v, %v", e, err)
	}
}

// Lookups within a project: a prefix resolves among the project's items
// only, and another project's are not found.
func TestProjectLookups(t *testing.T) {
	db, err := OpenMigrate(ctx, filepath.Join(t.TempDir(), "index.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	present := func() error { return nil }
	for _, e := range []ctxkeep.Entry{{ID: "d4a300000001", SessionID: "sa", Project: "/a"}, {ID: "d4a300000002", SessionID: "sb", Project: "/b"}} {
		e.Tool, e.Hash = "Bash", ctxkeep.Hash("h")
		if err := db.AddEntry(ctx, e, ctxkeep.Blob{Hash: "h", Size: 1, Stored: 1}, present); err != nil {
			t.Fatal(err)
		}
	}
	for session, project := range map[string]string{"sa": "/a", "sb": "/b"} {
		c := ctxkeep.Chunk{Key: "k77" + session, SessionID: session, Project: project, Kind: ctxkeep.KindStep, Turn: 1, Step: 1}
		if _, err := db.SaveChunks(ctx, session, []ctxkeep.Chunk{c}, ctxkeep.ArchiveCursor{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Entry(ctx, "d4a3"); !errors.Is(err, ctxkeep.ErrAmbiguous) {
		t.Errorf("d4a3 in every project: %v", err)
	}
	if e, err := db.ProjectEntry(ctx, "/a", "d4a3"); err != nil || e.ID != "d4a300000001" || e.Project != "/a" {
		t.Errorf("d4a3 in /a: %+v, %v", e, err)
	}
	if _, err := db.ProjectEntry(ctx, "/a", "d4a300000002"); !errors.Is(err, ctxkeep.ErrNotFound) {
		t.Errorf("/b's entry from /a: %v", err)
	}
	if c, err := db.ProjectChunk(ctx, "/b", "k77"); err != nil || c.SessionID != "sb" {
		t.Errorf("k77 in /b: %+v, %v", c, err)
	}
	if _, err := db.ProjectChunk(ctx, "/a", "k77sb"); !errors.Is(err, ctxkeep.ErrNotFound) {
		t.Errorf("/b's chunk from /a: %v", err)
	}
	if s, err := db.ProjectSessions(ctx, "/a"); err != nil || !slices.Equal(s, []string{"sa"}) {
		t.Errorf("sessions of /a: %v, %v", s, err)
	}
}
