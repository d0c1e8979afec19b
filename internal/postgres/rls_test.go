package postgres_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/postgres"
	"github.com/ctxkeep/ctxkeep/internal/postgres/pgtest"
)

// push is what a member's sync sends: one chunk of session, with one
// output whose text is pushed or not.
func push(project, session, key, body, output string, withText bool) postgres.Push {
	data := []byte(output)
	h := ctxkeep.Sum(data)
	bl := postgres.Blob{Hash: h, Size: int64(len(data))}
	var outputs []string
	if withText {
		bl.Data = data
		outputs = []string{output}
	}
	e := ctxkeep.Entry{ID: key[1:13], SessionID: session, Tool: "Bash", Input: "go test", Hash: h, Chars: len(output), CreatedAt: time.Unix(1e9, 0)}
	c := ctxkeep.Chunk{Key: key, SessionID: session, Kind: ctxkeep.KindTurn, Turn: 1, Prompt: "run the tests",
		Body: body + " [[ctxkeep:" + e.ID + "]]", Outputs: outputs, Meta: ctxkeep.Meta{Entries: []string{e.ID}}}
	return postgres.Push{Project: project, Sessions: []postgres.Session{{ID: session}}, Blobs: []postgres.Blob{bl},
		Entries: []ctxkeep.Entry{e}, Chunks: []ctxkeep.Chunk{c}}
}

// Row-level security: a role reads the projects it is granted and nothing
// else, pushes only to them, and cannot overwrite or delete another's rows.
func TestWhoSeesWhat(t *testing.T) {
	admin := pgtest.OpenTeam(t)
	schema := admin.Schema()
	alice, bob, carol, dave := pgtest.Role(t, "pw-a"), pgtest.Role(t, "pw-b"), pgtest.Role(t, "pw-c"), pgtest.Role(t, "pw-d")
	pgtest.Passwords(t, map[string]string{alice: "pw-a", bob: "pw-b", carol: "pw-c", dave: "pw-d"})
	for _, g := range [][2]string{{alice, "acme/api"}, {bob, "acme/api"}, {carol, "acme/web"}} {
		if err := admin.Grant(ctx, g[0], g[1]); err != nil {
			t.Fatal(err)
		}
	}
	if err := admin.Grant(ctx, "nobody_such", "acme/api"); err == nil || !strings.Contains(err.Error(), "createuser") {
		t.Errorf("granting a role that does not exist = %v; want a message saying to create it", err)
	}
	a, b, c := pgtest.OpenAs(t, alice, schema), pgtest.OpenAs(t, bob, schema), pgtest.OpenAs(t, carol, schema)

	p := push("acme/api", "sess-a", "k0123456789ab", "alice ran the zanzibar suite", "FAIL zanzibar_test.go:12 want 3", true)
	if n, err := a.Push(ctx, p); err != nil || n.Chunks != 1 || n.Entries != 1 {
		t.Fatalf("alice pushes to a project she is granted: %+v, %v", n, err)
	}
	// Bob, granted the project, finds and reads it, output text included.
	hits, err := b.Search(ctx, ctxkeep.ChunkQuery{Text: "zanzibar want"})
	if err != nil || len(hits) != 1 || hits[0].Owner != alice || hits[0].Project != "acme/api" {
		t.Fatalf("bob's search = %+v, %v; want alice's chunk", hits, err)
	}
	if got, err := b.Open(ctx, p.Blobs[0].Hash); err != nil || string(got) != "FAIL zanzibar_test.go:12 want 3" {
		t.Fatalf("bob opens alice's output: %q, %v", got, err)
	}
	// Carol, granted another project, sees nothing of it.
	if hits, err := c.Search(ctx, ctxkeep.ChunkQuery{Text: "zanzibar"}); err != nil || len(hits) != 0 {
		t.Errorf("carol's search = %d hits, %v; want none", len(hits), err)
	}
	if _, err := c.TeamChunk(ctx, "k0123456789ab"); !errors.Is(err, ctxkeep.ErrNotFound) {
		t.Errorf("carol reads alice's chunk by key: %v", err)
	}
	if _, err := c.Entry(ctx, p.Entries[0].ID); !errors.Is(err, ctxkeep.ErrNotFound) {
		t.Errorf("carol reads alice's entry: %v", err)
	}
	if _, err := c.Open(ctx, p.Blobs[0].Hash); !errors.Is(err, ctxkeep.ErrNotFound) {
		t.Errorf("carol opens alice's output: %v", err)
	}
	if ps, err := c.Projects(ctx); err != nil || len(ps) != 1 || ps[0] != "acme/web" {
		t.Errorf("carol's projects = %v, %v", ps, err)
	}
	// Nobody pushes to a project not granted; a refused push keeps nothing.
	if _, err := c.Push(ctx, push("acme/api", "sess-c", "kcccccccccccc", "carol intrudes", "x", true)); postgres.Code(err) != "42501" {
		t.Errorf("carol pushes to acme/api: %v; want a row-level security refusal", err)
	}
	if counts, err := admin.Counts(ctx, ""); err != nil || counts.Chunks != 1 || counts.Entries != 1 || counts.Sessions != 1 {
		t.Errorf("after a refused push the archive holds %+v, %v; want alice's rows only", counts, err)
	}
	// Nobody pushes over another's rows: a push under alice's keys writes
	// bob's own rows beside hers (keys are unique per owner); reading the
	// key gives alice's to anyone but bob (the session is hers: she pushed
	// it first), bob his own.
	if _, err := b.Push(ctx, push("acme/api", "sess-a", "k0123456789ab", "bob rewrites alice", "y", true)); err != nil {
		t.Errorf("bob's push under alice's keys: %v; want his own rows", err)
	}
	if got, err := b.TeamChunk(ctx, "k0123456789ab"); err != nil || got.Owner != bob {
		t.Errorf("bob reads the key: %q by %s, %v; want his own row", got.Body, got.Owner, err)
	}
	for who, db := range map[string]*postgres.DB{"alice": a, "admin": admin} {
		if got, err := db.TeamChunk(ctx, "k0123456789ab"); err != nil || !strings.Contains(got.Body, "alice ran") || got.Owner != alice {
			t.Errorf("%s reads alice's key after bob's push: %q by %s, %v", who, got.Body, got.Owner, err)
		}
	}
	if counts, err := admin.Counts(ctx, ""); err != nil || counts.Chunks != 2 || counts.Entries != 2 || counts.Sessions != 2 {
		t.Errorf("the archive holds %+v, %v; want alice's rows and bob's", counts, err)
	}
	if rm, err := b.Remove(ctx, p.Entries); err == nil || len(rm.Entries) != 0 {
		t.Errorf("bob removed alice's output: %+v, %v", rm, err)
	}
	// A role never granted anything is not a member: it cannot even read.
	if _, err := postgres.Open(ctx, postgres.Options{DSN: pgtest.As(t, dave), Schema: schema}); err == nil {
		t.Errorf("a role never granted opened the team archive")
	}
	// Revoked, bob reads nothing more.
	if err := admin.Revoke(ctx, bob, "acme/api"); err != nil {
		t.Fatal(err)
	}
	if hits, err := b.Search(ctx, ctxkeep.ChunkQuery{Text: "zanzibar"}); len(hits) != 0 {
		t.Errorf("after revoke, bob's search = %d hits, %v", len(hits), err)
	}
}
