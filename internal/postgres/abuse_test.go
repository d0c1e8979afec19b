package postgres_test

import (
	"encoding/hex"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/postgres"
	"github.com/ctxkeep/ctxkeep/internal/postgres/pgtest"
)

// connectAs opens a plain connection as role to schema: what a member can
// do by hand with psql, outside ctxkeep.
func connectAs(t *testing.T, role, schema string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(ctx, pgtest.As(t, role))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(ctx) })
	if _, err := conn.Exec(ctx, "SET search_path = "+pgx.Identifier{schema}.Sanitize()+", public"); err != nil {
		t.Fatal(err)
	}
	return conn
}

// No member can stop another's sync. Carol, granted only another project,
// stores a wrong size under the hash of an output everyone prints: put_blob
// refuses data it cannot verify, and the size of a blob stored without
// its text gives way to the verified one, so Alice's push of that output
// goes through. Bob, granted Alice's project, writes rows under the keys
// of her next step and her session (he can read her session id and
// compute them, archive.StepKey): they are his, beside hers, and her push
// goes through; reading her key gives hers.
func TestNoMemberBlocksAnother(t *testing.T) {
	admin := pgtest.OpenTeam(t)
	schema := admin.Schema()
	alice, bob, carol := pgtest.Role(t, "pw-a"), pgtest.Role(t, "pw-b"), pgtest.Role(t, "pw-c")
	pgtest.Passwords(t, map[string]string{alice: "pw-a", bob: "pw-b", carol: "pw-c"})
	for _, g := range [][2]string{{alice, "projA"}, {bob, "projA"}, {carol, "projC"}} {
		if err := admin.Grant(ctx, g[0], g[1]); err != nil {
			t.Fatal(err)
		}
	}
	a := pgtest.OpenAs(t, alice, schema)

	// Carol poisons the blob of a common output.
	common := "ok  \texample.com/shop\t0.012s\nPASS\n"
	h := string(ctxkeep.Sum([]byte(common)))
	carolSQL := connectAs(t, carol, schema)
	if _, err := carolSQL.Exec(ctx, `SELECT put_blob($1, 7, NULL)`, h); err != nil {
		t.Logf("put_blob of a size without data: %v", err)
	}
	// put_blob refuses what it cannot verify, and says why without the
	// bytes.
	secretBytes := "hunter2-do-not-log"
	for _, c := range []struct {
		hash string
		size int
		data []byte
		want string
	}{
		{h, 7, []byte(common), "is said to be 7 bytes"},
		{h, len(secretBytes), []byte(secretBytes), "does not hash to its name"},
		{"../../etc/passwd", 3, nil, "SHA-256 in hex"},
	} {
		_, err := carolSQL.Exec(ctx, `SELECT put_blob($1, $2, $3)`, c.hash, c.size, c.data)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("put_blob(%.20s…, %d, %d bytes) = %v; want an error saying %q", c.hash, c.size, len(c.data), err, c.want)
		}
		if err != nil && (strings.Contains(err.Error(), secretBytes) || strings.Contains(err.Error(), hex.EncodeToString([]byte(secretBytes)))) {
			t.Errorf("put_blob's error holds the data: %v", err)
		}
	}

	// Alice's push of the common output goes through, with its real size.
	p := push("projA", "sess-a", "ka00000000001", "alice ran the shop tests", common, true)
	if _, err := a.Push(ctx, p); err != nil {
		t.Fatalf("alice's push after carol's put_blob: %v", err)
	}
	var size int64
	pgtest.QueryRow(t, `SELECT size FROM `+schema+`.blobs WHERE hash = $1`, []any{h}, &size)
	if size != int64(len(common)) {
		t.Errorf("the blob's size is %d, want %d", size, len(common))
	}
	if got, err := a.Open(ctx, ctxkeep.Hash(h)); err != nil || string(got) != common {
		t.Errorf("alice opens the output: %q, %v", got, err)
	}

	// Bob squats the keys of alice's next step, its output's entry and a
	// session of hers, by hand.
	next := push("projA", "sess-a", "ka00000000002", "alice's second step", "FAIL second_test.go:3", true)
	bobSQL := connectAs(t, bob, schema)
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO chunks (key, session_id, project, kind, turn, step, body, body_hash, tsv)
			VALUES ($1, 'sess-a', 'projA', 'step', 1, 2, 'bob was here', 'x', to_tsvector('english', 'bob was here'))`, []any{next.Chunks[0].Key}},
		{`SELECT put_blob($1, 7, NULL)`, []any{strings.Repeat("ab", 32)}},
		{`INSERT INTO entries (id, session_id, project, tool, hash, chars, lines, view_chars, created_at)
			VALUES ($1, 'sess-a', 'projA', 'Bash', $2, 1, 1, 1, now())`, []any{next.Entries[0].ID, strings.Repeat("ab", 32)}},
		{`INSERT INTO sessions (id, project) VALUES ('sess-b', 'projA')`, nil},
	} {
		if _, err := bobSQL.Exec(ctx, q.sql, q.args...); err != nil {
			t.Fatalf("bob's squat: %v", err)
		}
	}
	if _, err := a.Push(ctx, next); err != nil {
		t.Fatalf("alice's push of her next step under bob's rows: %v", err)
	}
	if _, err := a.Push(ctx, push("projA", "sess-b", "kb00000000001", "alice's other session", "x", false)); err != nil {
		t.Fatalf("alice's push of a session id bob took first: %v", err)
	}
	for who, db := range map[string]*postgres.DB{"alice": a, "admin": admin} {
		c, err := db.TeamChunk(ctx, next.Chunks[0].Key)
		if err != nil || c.Owner != alice || !strings.Contains(c.Body, "second step") {
			t.Errorf("%s reads alice's key: %q by %s, %v", who, c.Body, c.Owner, err)
		}
		e, err := db.Entry(ctx, next.Entries[0].ID)
		if err != nil || e.Hash != next.Entries[0].Hash {
			t.Errorf("%s reads alice's entry: %+v, %v", who, e, err)
		}
		steps, err := db.TurnRange(ctx, "sess-a", 1, 1)
		if err != nil || len(steps) != 2 || strings.Contains(steps[0].Body+steps[1].Body, "bob") {
			t.Errorf("%s reads alice's session: %d steps, %v", who, len(steps), err)
		}
	}
	// Search finds both rows, each with its owner.
	hits, err := a.Search(ctx, ctxkeep.ChunkQuery{Text: "bob second step"})
	owners := map[string]bool{}
	for _, h := range hits {
		owners[h.Owner+" "+h.Key] = true
	}
	if err != nil || !owners[alice+" "+next.Chunks[0].Key] || !owners[bob+" "+next.Chunks[0].Key] {
		t.Errorf("search = %v, %v; want alice's row and bob's under the key", owners, err)
	}
}
