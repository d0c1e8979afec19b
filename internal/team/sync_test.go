package team

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/postgres"
	"github.com/ctxkeep/ctxkeep/internal/postgres/pgtest"
	"github.com/ctxkeep/ctxkeep/internal/redact/redacttest"
	"github.com/ctxkeep/ctxkeep/internal/store"
	"github.com/ctxkeep/ctxkeep/internal/storetest"
)

var ctx = context.Background()

var t0 = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

// member is one user of the team: a role, a connection as that role, and
// a local store of their own.
type member struct {
	role   string
	remote *postgres.DB
	local  *store.Store
	dir    string
}

func newMember(t *testing.T, admin *postgres.DB, projects ...string) member {
	t.Helper()
	role := pgtest.Role(t, "pw")
	for _, p := range projects {
		if err := admin.Grant(ctx, role, p); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	return member{role: role, remote: pgtest.OpenAs(t, role, admin.Schema()), local: storetest.Local(t, dir), dir: dir}
}

// openTeam opens a team archive as its administrator, with a pass file
// giving every member's password ("pw"), as their ~/.pgpass would.
func openTeam(t *testing.T) *postgres.DB {
	t.Helper()
	admin := pgtest.OpenTeam(t)
	pgtest.Passwords(t, map[string]string{"*": "pw"})
	return admin
}

// archive stores n turns of a session of project root in the member's
// local store, each with one output (shared names the output's text, so
// that members can store the same bytes).
func (m member) archive(t *testing.T, root, session string, n int, shared bool) []ctxkeep.Chunk {
	t.Helper()
	var cs []ctxkeep.Chunk
	for i := 1; i <= n; i++ {
		out := fmt.Sprintf("output %d of %s by %s\nFAIL checkout_test.go:%d expected %d", i, session, m.role, 1000+i, i)
		if shared {
			out = fmt.Sprintf("shared output %d\nFAIL checkout_test.go:%d", i%5, 1000+i%5)
		}
		id := fmt.Sprintf("%012x", sha256.Sum256([]byte(session+fmt.Sprint(i))))[:12]
		if _, err := m.local.PutEntry(ctx, ctxkeep.Entry{ID: id, SessionID: session, Tool: "Bash", Input: "go test ./...",
			Chars: len(out), Lines: 2, Cwd: root + "/internal", CopyPath: "/home/x/.claude/tool-results/" + id + ".txt",
			CreatedAt: t0.Add(time.Duration(i) * time.Minute)}, []byte(out)); err != nil {
			t.Fatal(err)
		}
		cs = append(cs, ctxkeep.Chunk{Key: fmt.Sprintf("k%011x", sha256.Sum256([]byte(session+fmt.Sprint(i))))[:12],
			SessionID: session, Project: root, Kind: ctxkeep.KindTurn, Turn: i,
			Start: t0.Add(time.Duration(i) * time.Minute), End: t0.Add(time.Duration(i)*time.Minute + 30*time.Second),
			Prompt: fmt.Sprintf("turn %d of %s", i, session), Summary: "ran the tests",
			Body: fmt.Sprintf("user: turn %d\nassistant: ran them\n← result: [[ctxkeep:%s]]", i, id),
			Meta: ctxkeep.Meta{Tools: []string{"Bash"}, Entries: []string{id}, FilesModified: []string{root + "/internal/x.go"}}})
	}
	if _, err := m.local.SaveChunks(ctx, session, cs, ctxkeep.ArchiveCursor{Transcript: session, Turn: n}); err != nil {
		t.Fatal(err)
	}
	return cs
}

func (m member) sync(t *testing.T, o Options) (Result, error) {
	t.Helper()
	if o.Cursor == "" {
		o.Cursor = filepath.Join(m.dir, "team", "cursor.json")
	}
	if o.MaxOutputBytes == 0 {
		o.MaxOutputBytes = 1 << 20
	}
	return Sync(ctx, m.local, m.remote, o)
}

// snapshot is what the team archive holds, as its administrator sees it:
// per table, the rows' keys with a hash of their content.
type snapshot map[string]map[string]string

func snap(t *testing.T, admin *postgres.DB) snapshot {
	t.Helper()
	conn, err := pgx.Connect(ctx, pgtest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	s := snapshot{}
	for table, q := range map[string]string{
		"chunks":   `SELECT key, md5(owner || project || session_id || body || meta::text || tsv::text) FROM %s.chunks`,
		"entries":  `SELECT id, md5(owner || project || hash || input || cwd || copy_path) FROM %s.entries`,
		"blobs":    `SELECT hash, coalesce(md5(data), 'no text') FROM %s.blobs`,
		"sessions": `SELECT id, md5(owner || project || chunks) FROM %s.sessions`,
	} {
		rows, err := conn.Query(ctx, fmt.Sprintf(q, admin.Schema()))
		if err != nil {
			t.Fatal(err)
		}
		s[table] = map[string]string{}
		for rows.Next() {
			var k, v string
			if err := rows.Scan(&k, &v); err != nil {
				t.Fatal(err)
			}
			if _, dup := s[table][k]; dup {
				t.Fatalf("%s: key %s twice", table, k)
			}
			s[table][k] = v
		}
		if rows.Err() != nil {
			t.Fatal(rows.Err())
		}
	}
	return s
}

func (s snapshot) counts() string {
	return fmt.Sprintf("%d chunks, %d entries, %d blobs, %d sessions", len(s["chunks"]), len(s["entries"]), len(s["blobs"]), len(s["sessions"]))
}

func (s snapshot) equal(o snapshot) bool {
	for table, rows := range s {
		if len(rows) != len(o[table]) {
			return false
		}
		for k, v := range rows {
			if o[table][k] != v {
				return false
			}
		}
	}
	return len(s) == len(o)
}

// Sync pushes the projects opted in, and only them, under their team name;
// a second sync pushes nothing; a sync from scratch (cursor lost) writes
// nothing new; a turn that grew is pushed again and replaces the old.
func TestSyncScopeAndIdempotence(t *testing.T) {
	admin := openTeam(t)
	alice := newMember(t, admin, "acme/api")
	alice.archive(t, "/src/api", "sess-api", 12, false)
	alice.archive(t, "/src/api/sub", "sess-sub", 3, false) // a session started in a subfolder
	alice.archive(t, "/src/apix", "sess-apix", 4, false)   // a sibling folder: not the project
	alice.archive(t, "/src/private", "sess-private", 5, false)
	o := Options{Projects: []Project{{Root: "/src/api", Name: "acme/api"}}, PushOutputs: true, Batch: 5}
	res, err := alice.sync(t, o)
	if err != nil || res.Chunks != 15 || res.Written != 15 || res.Outputs != 15 || res.Texts != 15 || res.Batches != 3 {
		t.Fatalf("first sync = %+v, %v; want the 15 chunks of /src/api and under, in 3 batches", res, err)
	}
	first := snap(t, admin)
	if first.counts() != "15 chunks, 15 entries, 15 blobs, 2 sessions" {
		t.Fatalf("team archive holds %s", first.counts())
	}
	var projects []string
	if err := superQuery(t, admin, `SELECT array_agg(DISTINCT project) FROM chunks`, &projects); err != nil || !slices.Equal(projects, []string{"acme/api"}) {
		t.Fatalf("projects in the team archive = %v, %v; want acme/api only", projects, err)
	}
	if res, err := alice.sync(t, o); err != nil || res.Chunks != 0 {
		t.Fatalf("a second sync = %+v, %v; want nothing to push", res, err)
	}
	// The cursor lost: everything is pushed again, and stored once.
	o.Cursor = filepath.Join(t.TempDir(), "fresh.json")
	if res, err := alice.sync(t, o); err != nil || res.Chunks != 15 || res.Written != 0 {
		t.Fatalf("a sync from scratch = %+v, %v; want 15 pushed, none written", res, err)
	}
	if again := snap(t, admin); !again.equal(first) {
		t.Fatalf("pushing everything twice changed the archive: %s", again.counts())
	}
	// A turn that grew comes again and replaces the old one.
	cs := alice.archive(t, "/src/api", "sess-api", 12, false)
	cs[11].Body += "\nassistant: and then zanzibar"
	if _, err := alice.local.SaveChunks(ctx, "sess-api", cs[11:], ctxkeep.ArchiveCursor{Transcript: "x", Turn: 12}); err != nil {
		t.Fatal(err)
	}
	if res, err := alice.sync(t, o); err != nil || res.Chunks != 1 || res.Written != 1 {
		t.Fatalf("after a turn grew: %+v, %v; want that one chunk", res, err)
	}
	if hits, err := alice.remote.Search(ctx, ctxkeep.ChunkQuery{Text: "zanzibar"}); err != nil || len(hits) != 1 || hits[0].Key != cs[11].Key {
		t.Fatalf("the grown turn in the team archive: %+v, %v", hits, err)
	}
	if grown := snap(t, admin); len(grown["chunks"]) != 15 {
		t.Fatalf("after the grown turn: %s", grown.counts())
	}
}

// What leaves the machine is redacted: prompts, bodies, every field of
// Meta, the outputs' inputs and text. Checked in the database with SQL.
func TestSyncRedacts(t *testing.T) {
	admin := openTeam(t)
	alice := newMember(t, admin, "acme/api")
	secrets := []string{redacttest.GitHubToken, redacttest.AWSKeyID, redacttest.AnthropicKey, redacttest.PEMBody, redacttest.StripeKey}
	out := "deploying with " + redacttest.GitHubToken + "\n" + redacttest.PEM + "\nFAIL zanzibar_test.go:7"
	e, err := alice.local.PutEntry(ctx, ctxkeep.Entry{ID: "abcabcabcabc", SessionID: "s1", Tool: "Bash",
		Input: "curl -H 'Authorization: Bearer " + redacttest.AnthropicKey + "'", CreatedAt: t0}, []byte(out))
	if err != nil {
		t.Fatal(err)
	}
	c := ctxkeep.Chunk{Key: "k00000000001", SessionID: "s1", Project: "/src/api", Kind: ctxkeep.KindTurn, Turn: 1, End: t0,
		Prompt: "use " + redacttest.AWSKeyID, Body: "the key is " + redacttest.StripeKey + " [[ctxkeep:abcabcabcabc]]",
		Meta: ctxkeep.Meta{Entries: []string{e.ID}, Commands: []ctxkeep.Command{{Run: "export T=" + redacttest.GitHubToken, Exit: 1,
			Errors: []string{"bad token " + redacttest.AnthropicKey}}}, Decisions: []string{"rotate " + redacttest.AWSKeyID}}}
	if _, err := alice.local.SaveChunks(ctx, "s1", []ctxkeep.Chunk{c}, ctxkeep.ArchiveCursor{}); err != nil {
		t.Fatal(err)
	}
	if _, err := alice.sync(t, Options{Projects: []Project{{Root: "/src/api", Name: "acme/api"}}, PushOutputs: true}); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, pgtest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	s := admin.Schema()
	for _, secret := range secrets {
		var n int
		err := conn.QueryRow(ctx, fmt.Sprintf(`SELECT
			(SELECT count(*) FROM %[1]s.chunks WHERE strpos(prompt || summary || body || meta::text || files || tsv::text, $1) > 0) +
			(SELECT count(*) FROM %[1]s.entries WHERE strpos(input || summary || cwd || copy_path || pin_reason, $1) > 0) +
			(SELECT count(*) FROM %[1]s.blobs WHERE strpos(convert_from(data, 'UTF8'), $1) > 0)`, s), secret).Scan(&n)
		if err != nil || n != 0 {
			t.Errorf("secret %s…: in %d rows of the team archive (%v)", secret[:8], n, err)
		}
	}
	var markers int
	conn.QueryRow(ctx, fmt.Sprintf(`SELECT count(*) FROM %s.blobs WHERE strpos(convert_from(data, 'UTF8'), '[redacted:github-token]') > 0`, s)).Scan(&markers)
	if markers != 1 {
		t.Errorf("the pushed output has %d github-token markers, want 1 (redacted, not dropped)", markers)
	}
	if hits, err := alice.remote.Search(ctx, ctxkeep.ChunkQuery{Text: "zanzibar_test"}); err != nil || len(hits) != 1 {
		t.Errorf("the redacted output is not searchable: %d hits, %v", len(hits), err)
	}
}

// Without team.push_outputs the entries go, their text stays: the blob
// has no data, Open says where the text is, and its words are not
// indexed. Over team.max_output_bytes, the same.
func TestSyncOutputsText(t *testing.T) {
	admin := openTeam(t)
	alice := newMember(t, admin, "acme/api")
	alice.archive(t, "/src/api", "s1", 3, false)
	p := []Project{{Root: "/src/api", Name: "acme/api"}}
	res, err := alice.sync(t, Options{Projects: p})
	if err != nil || res.Outputs != 3 || res.Texts != 0 {
		t.Fatalf("sync without push_outputs = %+v, %v; want 3 entries, no text", res, err)
	}
	es, err := alice.remote.Entries(ctx, ctxkeep.EntryFilter{})
	if err != nil || len(es) != 3 {
		t.Fatalf("entries = %d, %v", len(es), err)
	}
	if _, err := alice.remote.Open(ctx, es[0].Hash); !errors.Is(err, ctxkeep.ErrNotFound) || !strings.Contains(err.Error(), "push_outputs") {
		t.Errorf("Open of an output whose text was not pushed = %v; want ErrNotFound naming team.push_outputs", err)
	}
	if hits, _ := alice.remote.Search(ctx, ctxkeep.ChunkQuery{Text: "checkout"}); len(hits) != 0 {
		t.Errorf("the words of an output whose text stayed home are indexed: %d hits", len(hits))
	}
	if es[0].CopyPath != "" || es[0].Cwd != "internal" {
		t.Errorf("entry pushed with copy_path %q, cwd %q; want no local path, the folder relative to the project", es[0].CopyPath, es[0].Cwd)
	}
	// Turned on later, with a size limit: the text comes for the outputs
	// under it when their turns are pushed again.
	alice.archive(t, "/src/api", "s2", 2, false)
	res, err = alice.sync(t, Options{Projects: p, PushOutputs: true, MaxOutputBytes: 10})
	if err != nil || res.Texts != 0 {
		t.Fatalf("sync with max_output_bytes 10 = %+v, %v; want no text", res, err)
	}
	alice.archive(t, "/src/api", "s3", 1, false)
	if res, err = alice.sync(t, Options{Projects: p, PushOutputs: true}); err != nil || res.Texts != 1 {
		t.Fatalf("sync with push_outputs = %+v, %v; want the text of the new output", res, err)
	}
}

// faulty fails the push after ok pushes, as a server that went away.
type faulty struct {
	Remote
	ok   int
	kill func()
}

func (f *faulty) Push(ctx context.Context, p postgres.Push) (postgres.Pushed, error) {
	if f.ok == 0 {
		f.kill()
	}
	f.ok--
	return f.Remote.Push(ctx, p)
}

// The server going away in the middle of a sync (its connections
// terminated) fails the sync with the server's error; what was committed
// stays, the cursor stays at the last committed batch, and the next sync
// pushes the rest: nothing lost, nothing twice.
func TestSyncServerLostMidway(t *testing.T) {
	admin := openTeam(t)
	alice := newMember(t, admin, "acme/api")
	alice.archive(t, "/src/api", "s1", 40, false)
	o := Options{Projects: []Project{{Root: "/src/api", Name: "acme/api"}}, PushOutputs: true, Batch: 10,
		Cursor: filepath.Join(alice.dir, "cursor.json"), MaxOutputBytes: 1 << 20}
	kill := func() {
		pgtest.Exec(t, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '"+alice.role+"'")
	}
	res, err := Sync(ctx, alice.local, &faulty{Remote: alice.remote, ok: 2, kill: kill}, o)
	if err == nil || res.Chunks != 20 {
		t.Fatalf("sync with the server lost after 2 batches = %+v, %v; want an error after 20 chunks", res, err)
	}
	if got := snap(t, admin); len(got["chunks"]) != 20 {
		t.Fatalf("after the loss the archive holds %s; want the 2 committed batches", got.counts())
	}
	cur, _ := LoadCursor(o.Cursor)
	if cur.Projects[o.Projects[0].CursorKey()] == 0 {
		t.Fatalf("cursor did not keep the committed batches: %+v", cur)
	}
	res, err = Sync(ctx, alice.local, alice.remote, o)
	if err != nil || res.Chunks != 20 {
		t.Fatalf("the next sync = %+v, %v; want the 20 chunks left", res, err)
	}
	want := snap(t, admin)
	if want.counts() != "40 chunks, 40 entries, 40 blobs, 1 sessions" {
		t.Fatalf("after catching up: %s", want.counts())
	}
	// A fresh sync of everything finds it all there, identical.
	o.Cursor = filepath.Join(t.TempDir(), "fresh.json")
	if _, err := Sync(ctx, alice.local, alice.remote, o); err != nil {
		t.Fatal(err)
	}
	if again := snap(t, admin); !again.equal(want) {
		t.Fatalf("catching up duplicated or changed rows: %s", again.counts())
	}
}

// Eight users syncing at once into one project, sharing outputs (the same
// bytes, one blob): no error, no deadlock, every row once.
func TestEightUsersAtOnce(t *testing.T) {
	admin := openTeam(t)
	var ms []member
	for range 8 {
		ms = append(ms, newMember(t, admin, "acme/api"))
	}
	for i, m := range ms {
		m.archive(t, "/src/api", fmt.Sprintf("sess-%d", i), 30, true)
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute) // a deadlock fails the test rather than hanging it
	defer cancel()
	var wg sync.WaitGroup
	errs := make([]error, len(ms))
	for i, m := range ms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 2 { // each pushes twice over: the second finds its rows there
				_, errs[i] = Sync(ctx, m.local, m.remote, Options{Projects: []Project{{Root: "/src/api", Name: "acme/api"}},
					PushOutputs: true, MaxOutputBytes: 1 << 20, Batch: 7, Cursor: filepath.Join(t.TempDir(), "c.json")})
				if errs[i] != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("user %d: %v", i, err)
		}
	}
	got := snap(t, admin)
	if got.counts() != "240 chunks, 240 entries, 5 blobs, 8 sessions" {
		t.Fatalf("after 8 users synced at once: %s; want 240 chunks, 240 entries, the 5 shared outputs once, 8 sessions", got.counts())
	}
	// Each pushing everything again, one after the other, changes nothing.
	for _, m := range ms {
		if _, err := m.sync(t, Options{Projects: []Project{{Root: "/src/api", Name: "acme/api"}}, PushOutputs: true,
			Cursor: filepath.Join(t.TempDir(), "again.json")}); err != nil {
			t.Fatal(err)
		}
	}
	if again := snap(t, admin); !again.equal(got) {
		t.Fatalf("pushing everything again after the concurrent syncs changed the archive: %s", again.counts())
	}
	for i, m := range ms {
		var n int
		var owner string
		if err := superQuery(t, admin, `SELECT count(*), min(owner) FROM chunks WHERE session_id = $1`, &n, &owner, fmt.Sprintf("sess-%d", i)); err != nil || n != 30 || owner != m.role {
			t.Errorf("session %d: %d chunks owned by %s, %v; want 30 of %s", i, n, owner, err, m.role)
		}
	}
}

// superQuery runs a query of one row as the administrator, in the team
// archive's schema; args after the destinations.
func superQuery(t *testing.T, admin *postgres.DB, q string, destAndArgs ...any) error {
	t.Helper()
	conn, err := pgx.Connect(ctx, pgtest.DSN(t))
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "SET search_path = "+admin.Schema()); err != nil {
		return err
	}
	var dest, args []any
	for _, x := range destAndArgs {
		if _, isPtr := x.(string); isPtr {
			args = append(args, x)
		} else {
			dest = append(dest, x)
		}
	}
	return conn.QueryRow(ctx, q, args...).Scan(dest...)
}

// Without team.push_outputs, what the model saw of each output (its view,
// which View reads from the transcript) goes with the step, redacted, so
// that a teammate's search finds it and recall prints it; the whole text
// stays home. With push_outputs, the text goes and no view is added
// (issue 25.8).
func TestSyncPushesTheView(t *testing.T) {
	admin := openTeam(t)
	alice := newMember(t, admin, "acme/api")
	alice.archive(t, "/src/api", "s1", 2, false)
	p := []Project{{Root: "/src/api", Name: "acme/api"}}
	secret := "ghp_" + strings.Repeat("a1B2", 9)
	view := func(_ context.Context, e ctxkeep.Entry) (string, bool) {
		return "[ctxkeep] go test output condensed, kept exactly as id " + e.ID + "\n--- FAIL: TestRefund (0.01s): the quokka ledger is off by one\ntoken " + secret +
			"\nGet any part back exactly: Read " + e.CopyPath + " with offset/limit\n", true
	}
	res, err := alice.sync(t, Options{Projects: p, View: view})
	if err != nil || res.Outputs != 2 || res.Texts != 0 || res.Views != 2 {
		t.Fatalf("sync = %+v, %v; want 2 entries with their views, no text", res, err)
	}
	hits, err := alice.remote.Search(ctx, ctxkeep.ChunkQuery{Text: "quokka ledger", Project: "acme/api"})
	if err != nil || len(hits) != 2 {
		t.Fatalf("a teammate's search of a word of the view: %d hits, %v; want 2", len(hits), err)
	}
	c := hits[0].Chunk
	if !strings.Contains(c.Body, ViewHeading+"[ctxkeep] go test output condensed") || strings.Contains(c.Body, secret) || !strings.Contains(c.Body, "[redacted:") {
		t.Errorf("pushed body:\n%s", c.Body)
	}
	// The readable copy's path, a file on Alice's machine, stays home.
	if strings.Contains(c.Body, "/home/x/") || !strings.Contains(c.Body, "Read "+CopyElsewhere+" with offset/limit") {
		t.Errorf("the view's path of the readable copy:\n%s", c.Body)
	}
	if hits, _ := alice.remote.Search(ctx, ctxkeep.ChunkQuery{Text: "checkout"}); len(hits) != 0 {
		t.Errorf("the words of the whole text, which stayed home, are indexed: %d hits", len(hits))
	}
	alice.archive(t, "/src/api", "s2", 1, false)
	if res, err = alice.sync(t, Options{Projects: p, View: view, PushOutputs: true}); err != nil || res.Texts != 1 || res.Views != 0 {
		t.Fatalf("sync with push_outputs = %+v, %v; want the text, no view", res, err)
	}
}
