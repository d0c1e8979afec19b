package e2e

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/ctxkeep/ctxkeep/internal/archive"
	"github.com/ctxkeep/ctxkeep/internal/postgres/pgtest"
)

// TestTeamSyncNotBlocked: no member can block another's sync, and a sync
// that fails says why. Carol, granted another project, stores a wrong size
// under the hash of Alice's output; Bob, granted Alice's project, writes
// rows under the keys of Alice's next turn (her session's id is in what
// she pushed). Alice's `ctxkeep team sync` goes through all the same,
// sync.log holds none of her output's bytes, and another member reads her
// turn, not Bob's rows. Then the same archive synced as Carol (not granted
// the project) and as Dave (a member of nothing) fails with the cause
// named, each its own.
func TestTeamSyncNotBlocked(t *testing.T) {
	pgtest.DSN(t)
	dsn, _ := pgtest.Database(t)
	alice, bob, carol, dave := pgtest.Role(t, "pw-alice"), pgtest.Role(t, "pw-bob"), pgtest.Role(t, "pw-carol"), pgtest.Role(t, "pw-dave")
	adm := newTeamUser(t, dsn, "postgres", "", "")
	adm.run("", "team", "init")
	adm.run("", "team", "grant", alice, "github.com/acme/shop")
	adm.run("", "team", "grant", bob, "github.com/acme/shop")
	adm.run("", "team", "grant", carol, "github.com/acme/other")

	// Alice's session in project shop: one large output.
	u := newSecretsUser(t)
	write(t, filepath.Join(u.project, ".git", "config"), "[remote \"origin\"]\n\turl = git@github.com:acme/shop.git\n", 0o644)
	var out strings.Builder
	for i := range 600 {
		fmt.Fprintf(&out, "ok  \texample.com/shop/pkg%03d\t0.%03ds\n", i, i)
	}
	output := out.String()
	u.writeTranscript("run the tests", "go test ./...", output)
	u.run("install", "--plugin", t.TempDir()) // prepares the store (the hook never migrates, nor do commands that only read)
	if r := u.hook(u.event("PostToolUse", map[string]any{"tool_name": "Bash", "tool_use_id": "toolu_secrets_1",
		"tool_input":    map[string]any{"command": "go test ./..."},
		"tool_response": map[string]any{"stdout": output, "stderr": "", "interrupted": false, "isImage": false}})); !strings.Contains(r, "updatedToolOutput") {
		t.Fatalf("the output was not swapped out: %s", r)
	}
	u.run("archive", u.transcript)
	as := func(role, password string) {
		tu := newTeamUser(t, dsn, role, password, "push_outputs = true\n")
		u.config(readFile(filepath.Join(tu.home, ".config", "ctxkeep", "config.toml")))
		write(t, filepath.Join(u.home, ".pgpass"), readFile(filepath.Join(tu.home, ".pgpass")), 0o600)
	}
	as(alice, "pw-alice")
	u.runIn(u.project, "team", "add-project")

	// Carol poisons the blob of Alice's output, by hand: Alice's sync goes
	// through.
	sum := sha256.Sum256([]byte(output))
	sql(t, dsn, carol, "pw-carol", `SELECT put_blob($1, 7, NULL)`, hex.EncodeToString(sum[:]))
	var synced struct{ Chunks, Written, Texts int }
	if err := json.Unmarshal([]byte(u.run("team", "sync", "--json")), &synced); err != nil || synced.Written == 0 || synced.Texts != 1 {
		t.Fatalf("alice's sync = %+v, %v; want her chunks and her output's text pushed", synced, err)
	}
	// Bob, who now reads her session id, writes rows under the keys of her
	// next turn: her next sync goes through.
	for step := 0; step <= 3; step++ {
		key := archive.StepKey(u.session, 2, step)
		if step == 0 {
			key = archive.ChunkKey(u.session, "turn", 2)
		}
		sql(t, dsn, bob, "pw-bob", `INSERT INTO chunks (key, session_id, project, kind, turn, step, body, body_hash, tsv)
			VALUES ($1, $2, 'github.com/acme/shop', 'step', 2, $3, 'bob was here', 'x', to_tsvector('english', 'bob'))`,
			key, u.session, step)
	}
	sql(t, dsn, bob, "pw-bob", `INSERT INTO sessions (id, project) VALUES ($1, 'github.com/acme/shop')`, u.session)
	appendTurn(t, u.transcript, u.session, u.project, "and the quokka ledger?", "The quokka ledger balances.")
	u.run("archive", u.transcript)
	if err := json.Unmarshal([]byte(u.run("team", "sync", "--json")), &synced); err != nil || synced.Written == 0 {
		t.Fatalf("alice's sync after bob's rows = %+v, %v; want her new turn pushed", synced, err)
	}
	log := u.read(u.state("team/sync.log"))
	if strings.Contains(log, `\x`) || strings.Contains(log, hex.EncodeToString([]byte(output[:32]))) || strings.Contains(log, "failed") {
		t.Errorf("sync.log:\n%s", log)
	}
	// Another member reads her turn, not bob's rows under its keys.
	erin := pgtest.Role(t, "pw-erin")
	adm.run("", "team", "grant", erin, "github.com/acme/shop")
	e := newTeamUser(t, dsn, erin, "pw-erin", "")
	if recalled := e.run("", "recall", "--team", u.session+":2"); !strings.Contains(recalled, "quokka ledger balances") || strings.Contains(recalled, "bob was here") {
		t.Errorf("erin recalls alice's turn 2: %.1500s", recalled)
	}
	if recalled := e.run("", "recall", "--team", u.session+":1"); !strings.Contains(recalled, "example.com/shop/pkg599") {
		t.Errorf("erin recalls alice's turn 1 (its output's text put back): %.1500s", recalled)
	}

	// Carol, not granted the project, and Dave, a member of nothing.
	for _, c := range []struct{ role, password, want string }{
		{carol, "pw-carol", "not granted the project"},
		{dave, "pw-dave", "not a member of the team archive"},
	} {
		as(c.role, c.password)
		cmd := u.cmd("team", "sync")
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Run(); err == nil || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("sync as %s: %v; want an error saying %q:\n%s", c.role, err, c.want, stderr.String())
		}
	}
}

// sql runs a statement as role in the team archive's schema, as a member
// could with psql.
func sql(t *testing.T, dsn, role, password, query string, args ...any) {
	t.Helper()
	cfg, err := pgx.ParseConfig(pgtest.In(t, dsn, role))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Password = password
	conn, err := pgx.ConnectConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(context.Background(), "SET search_path = ctxkeep, public"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(context.Background(), query, args...); err != nil {
		t.Fatalf("%s as %s: %v", query, role, err)
	}
}
