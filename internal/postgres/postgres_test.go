package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/postgres"
	"github.com/ctxkeep/ctxkeep/internal/postgres/pgtest"
	"github.com/ctxkeep/ctxkeep/internal/realdata"
)

var ctx = context.Background()

func turn(n int, prompt, body string, files ...string) ctxkeep.Chunk {
	return ctxkeep.Chunk{Key: fmt.Sprintf("k%011d", n), SessionID: "s1", Project: "p", Kind: ctxkeep.KindTurn, Turn: n,
		Prompt: prompt, Summary: prompt, Body: body, Meta: ctxkeep.Meta{FilesModified: files}}
}

// A path or an identifier in the query finds the chunks that touched the
// file (trigram index), even by a fragment of the path, and ranks them
// above the chunks that only say its words.
func TestPathsRankFirst(t *testing.T) {
	db := pgtest.Open(t)
	if _, err := db.SaveChunks(ctx, "s1", []ctxkeep.Chunk{
		turn(1, "fix the window", "window go internal ratelimiter, all the words"),
		turn(2, "edit", "edited it", "/p/internal/ratelimiter/window.go"),
		turn(3, "other", "nothing to see"),
	}, ctxkeep.ArchiveCursor{}); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"internal/ratelimiter/window.go", "ratelimiter/window", "window.go"} {
		hits, err := db.SearchChunks(ctx, ctxkeep.ChunkQuery{Text: q})
		if err != nil || len(hits) != 2 || hits[0].Turn != 2 {
			t.Errorf("%q: %d hits, %v; want turn 2 (which touched the file) first, then turn 1", q, len(hits), err)
		}
	}
	// Wildcards of LIKE in a query are taken literally.
	if hits, err := db.SearchChunks(ctx, ctxkeep.ChunkQuery{Text: "%_%.%"}); err == nil && len(hits) > 0 {
		t.Errorf("a query of LIKE wildcards matched %d chunks", len(hits))
	}
}

// A step holding the rare word asked for (a test's name, deep in a long
// output) ranks above steps that say the query's common words more
// densely: the words weigh by their rarity, as in the local index's BM25.
func TestRareWordsRankFirst(t *testing.T) {
	db := pgtest.Open(t)
	var long strings.Builder
	for i := range 300 {
		fmt.Fprintf(&long, "ok   \texample.com/pkg%03d\t0.%03ds\n", i, i)
	}
	long.WriteString("--- FAIL: TestCheckoutTotals (0.02s) checkout_test.go:1500: expected 42, got 41\n")
	chunks := []ctxkeep.Chunk{turn(1, "run the tests", long.String())}
	for n := 2; n <= 30; n++ {
		chunks = append(chunks, turn(n, "edit", fmt.Sprintf("Expected: line 41 and 42 got the edit %d", n)))
	}
	if _, err := db.SaveChunks(ctx, "s1", chunks, ctxkeep.ArchiveCursor{}); err != nil {
		t.Fatal(err)
	}
	search := func(how string) {
		hits, err := db.SearchChunks(ctx, ctxkeep.ChunkQuery{Text: "TestCheckoutTotals expected 42 got 41", Limit: 10})
		if err != nil || len(hits) != 10 || hits[0].Turn != 1 {
			t.Fatalf("%s: %d hits, %v; want 10, turn 1 (the rare word) first", how, len(hits), err)
		}
	}
	search("words counted (a small archive)")
	restore, err := postgres.EstimateRarity(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer restore()
	search("words estimated by the planner (a large archive)")
}

// An identifier whose words are all common (error_content, in thousands
// of chunks) is looked for in the files chunks touched first; when no
// chunk touched such a file, its words find the chunks, as for any query.
func TestCommonIdentifierFindsChunks(t *testing.T) {
	db := pgtest.Open(t)
	var chunks []ctxkeep.Chunk
	for n := 1; n <= 2100; n++ { // over rankCap: every word is common
		chunks = append(chunks, turn(n, "check", fmt.Sprintf("assert error_content == expected, case %d", n)))
	}
	if _, err := db.SaveChunks(ctx, "s1", chunks, ctxkeep.ArchiveCursor{}); err != nil {
		t.Fatal(err)
	}
	if err := postgres.Analyze(ctx, db); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"error_content: error_content", "- error_content ="} {
		if hits, err := db.SearchChunks(ctx, ctxkeep.ChunkQuery{Text: q, Limit: 50}); err != nil || len(hits) != 50 {
			t.Errorf("%q: %d hits, %v; want 50", q, len(hits), err)
		}
	}
}

// Text PostgreSQL cannot store as it is (NUL bytes, invalid UTF-8) is
// stored readable rather than refused; an output keeps its exact bytes.
func TestAwkwardText(t *testing.T) {
	db := pgtest.Open(t)
	c := turn(1, "nul\x00here", "bad \xff utf8 and nul \x00 zanzibar")
	c.Meta.Errors = []string{"a\x00b"}
	if _, err := db.SaveChunks(ctx, "s1", []ctxkeep.Chunk{c}, ctxkeep.ArchiveCursor{}); err != nil {
		t.Fatalf("SaveChunks with NUL bytes and invalid UTF-8: %v", err)
	}
	if hits, err := db.SearchChunks(ctx, ctxkeep.ChunkQuery{Text: "zanzibar"}); err != nil || len(hits) != 1 {
		t.Fatalf("search after awkward text: %d hits, %v", len(hits), err)
	}
	data := "\x00\xff\xfe exact"
	e, err := db.PutEntry(ctx, ctxkeep.Entry{ID: "aaaaaaaaaaaa", SessionID: "s1", Tool: "Bash", Input: "x\x00y"}, []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := db.Open(ctx, e.Hash); err != nil || string(got) != data {
		t.Fatalf("Open = %q, %v", got, err)
	}
}

// A very long output is indexed by its head and its tail, within what
// PostgreSQL accepts in a tsvector, and its last line is found.
func TestLongOutputIndexed(t *testing.T) {
	db := pgtest.Open(t)
	c := turn(1, "run it", "← result: [[ctxkeep:0123456789ab]]")
	var b strings.Builder
	for i := range 200_000 {
		fmt.Fprintf(&b, "line%d token%x\n", i, i*7919)
	}
	b.WriteString("FAIL checkout_test.go:1500 expected 42 got 41\n")
	c.Outputs = []string{b.String()}
	if _, err := db.SaveChunks(ctx, "s1", []ctxkeep.Chunk{c}, ctxkeep.ArchiveCursor{}); err != nil {
		t.Fatalf("a %d MB output: %v", b.Len()>>20, err)
	}
	if hits, err := db.SearchChunks(ctx, ctxkeep.ChunkQuery{Text: "checkout_test expected"}); err != nil || len(hits) != 1 {
		t.Fatalf("the last line of a long output: %d hits, %v", len(hits), err)
	}
}

// A schema newer than the binary is refused with a clear message, and so
// is a missing one, unless migrating.
func TestSchemaVersions(t *testing.T) {
	dsn := pgtest.DSN(t)
	schema := pgtest.Schema(t)
	_, err := postgres.Open(ctx, postgres.Options{DSN: dsn, Schema: schema})
	if !errors.Is(err, postgres.ErrSchema) || !strings.Contains(err.Error(), "team init") {
		t.Fatalf("opening a schema never initialised = %v; want ErrSchema naming `ctxkeep team init`", err)
	}
	db, err := postgres.Open(ctx, postgres.Options{DSN: dsn, Schema: schema, Migrate: true})
	if err != nil {
		t.Fatal(err)
	}
	if v, err := db.SchemaVersion(ctx); err != nil || v != postgres.LatestVersion() {
		t.Fatalf("version after migrating = %d, %v; want %d", v, err, postgres.LatestVersion())
	}
	db.Close()
	// Migrating again changes nothing.
	db, err = postgres.Open(ctx, postgres.Options{DSN: dsn, Schema: schema, Migrate: true})
	if err != nil {
		t.Fatalf("migrating an up-to-date schema: %v", err)
	}
	db.Close()
	newer := postgres.LatestVersion() + 1
	pgtest.Exec(t, fmt.Sprintf("INSERT INTO %s.schema_version (version) VALUES (%d)", schema, newer))
	for _, migrate := range []bool{false, true} {
		_, err := postgres.Open(ctx, postgres.Options{DSN: dsn, Schema: schema, Migrate: migrate})
		if !errors.Is(err, postgres.ErrSchema) || !strings.Contains(err.Error(), "newer") || !strings.Contains(err.Error(), "upgrade ctxkeep") {
			t.Errorf("a schema of version %d (migrate %t) = %v; want a refusal saying to upgrade ctxkeep", newer, migrate, err)
		}
	}
}

// sslmode in the DSN is honoured: require encrypts, verify-full checks the
// server's certificate (the test server's is self-signed: refused),
// disable does not encrypt.
func TestSSLMode(t *testing.T) {
	admin := pgtest.Open(t)
	var ssl string
	pgtest.QueryRow(t, "SHOW ssl", nil, &ssl)
	if ssl != "on" {
		realdata.Missing(t, "the test server has no TLS (scripts/postgres.sh turns it on when openssl is there)")
	}
	base := strings.Replace(pgtest.DSN(t), "sslmode=disable", "", 1)
	for mode, want := range map[string]bool{"require": true, "disable": false} {
		db, err := postgres.Open(ctx, postgres.Options{DSN: base + "sslmode=" + mode, Schema: admin.Schema()})
		if err != nil {
			t.Fatalf("sslmode=%s: %v", mode, err)
		}
		on, err := db.TLS(ctx)
		db.Close()
		if err != nil || on != want {
			t.Errorf("sslmode=%s: TLS %t, %v; want %t", mode, on, err, want)
		}
	}
	if _, err := postgres.Open(ctx, postgres.Options{DSN: base + "sslmode=verify-full", Schema: admin.Schema()}); err == nil {
		t.Error("sslmode=verify-full accepted a self-signed certificate")
	}
}

// A server that is not there is told apart from other errors: the sync
// says it is unreachable, and that the next one catches up.
func TestUnreachable(t *testing.T) {
	dsn := pgtest.DSN(t)
	down := regexp.MustCompile(`:\d+/`).ReplaceAllString(dsn, ":1/")
	_, err := postgres.Open(ctx, postgres.Options{DSN: down})
	if err == nil || !postgres.Unreachable(err) {
		t.Fatalf("Open of a port nobody listens on = %v; want an error Unreachable says is one", err)
	}
	admin := pgtest.OpenTeam(t)
	role := pgtest.Role(t, "pw")
	pgtest.Passwords(t, map[string]string{role: "pw"})
	if err := admin.Grant(ctx, role, "p"); err != nil {
		t.Fatal(err)
	}
	db := pgtest.OpenAs(t, role, admin.Schema())
	if _, err := db.Chunk(ctx, "%"); postgres.Unreachable(err) {
		t.Errorf("a not-found error counts as unreachable: %v", err)
	}
	if _, err := db.Chunks(ctx, "s"); err != nil {
		t.Fatal(err)
	}
	pgtest.Exec(t, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '"+role+"'")
	if _, err := db.ChunkSessions(ctx); err != nil && !postgres.Unreachable(err) {
		t.Errorf("a query on a connection the server ended = %v; want Unreachable", err)
	}
}

// Every field of a chunk comes back as saved, the client it ran in too.
func TestChunkFieldsKept(t *testing.T) {
	db := pgtest.Open(t)
	c := turn(1, "p", "b", "/p/x.go")
	c.Agent, c.Start, c.End = ctxkeep.AgentCodex, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), time.Date(2026, 1, 2, 3, 5, 0, 0, time.UTC)
	c.Meta.Commands = []ctxkeep.Command{{Run: "go test", Exit: 1, Errors: []string{"FAIL"}}}
	if _, err := db.SaveChunks(ctx, "s1", []ctxkeep.Chunk{c}, ctxkeep.ArchiveCursor{}); err != nil {
		t.Fatal(err)
	}
	got, err := db.Chunk(ctx, c.Key)
	if err != nil || !reflect.DeepEqual(got, c) {
		t.Fatalf("Chunk = %+v, %v; want %+v", got, err, c)
	}
}
