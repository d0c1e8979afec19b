package e2e

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ctxkeep/ctxkeep/internal/postgres"
	"github.com/ctxkeep/ctxkeep/internal/postgres/pgtest"
	"github.com/ctxkeep/ctxkeep/internal/realdata"
	"github.com/ctxkeep/ctxkeep/internal/store"
)

// faultTeam is a team archive in a database of its own, its administrator,
// and one member, alice, who archived the five long real sessions in
// project p.
type faultTeam struct {
	dsn   string
	adm   *teamUser
	alice *teamUser
	role  string
	p     string
}

func newFaultTeam(t *testing.T) *faultTeam {
	t.Helper()
	pgtest.DSN(t)
	sessions := realdata.Spotter(t)
	dsn, _ := pgtest.Database(t)
	role := pgtest.Role(t, "pw")
	f := &faultTeam{dsn: dsn, role: role, adm: newTeamUser(t, dsn, "postgres", "", ""), p: filepath.Join(t.TempDir(), "spotter")}
	f.adm.run("", "team", "init")
	f.adm.run("", "team", "grant", role, "acme/spotter")
	f.alice = newTeamUser(t, dsn, role, "pw", "push_outputs = true\n")
	write(t, filepath.Join(f.p, ".git", "config"), "[core]\n\tbare = false\n", 0o644)
	var paths []string
	for _, s := range sessions {
		data, err := os.ReadFile(s)
		if err != nil {
			t.Fatal(err)
		}
		data = regexp.MustCompile(`"cwd":"[^"]*"`).ReplaceAll(data, []byte(`"cwd":"`+f.p+`"`))
		path := filepath.Join(f.alice.home, "transcripts", filepath.Base(s))
		write(t, path, string(data), 0o600)
		paths = append(paths, path)
	}
	f.alice.run("", append([]string{"archive"}, paths...)...)
	f.alice.run(f.p, "team", "add-project", "acme/spotter")
	return f
}

// local is every chunk alice's store holds for p: key → session.
func (f *faultTeam) local(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, c := range f.changes(t) {
		out[c.Key] = c.SessionID
	}
	return out
}

// changes are alice's chunks of p in the order sync pushes them.
func (f *faultTeam) changes(t *testing.T) []store.Change {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(f.alice.home, ".local", "share", "ctxkeep", "index.db"),
		filepath.Join(f.alice.home, ".local", "share", "ctxkeep", "blobs"), store.ReadOnly, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	cs, err := st.ChunksAfter(context.Background(), f.p, 0, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// remote is every chunk of the team archive, key → session, and a digest
// of all its rows; duplicates fail the test.
func (f *faultTeam) remote(t *testing.T) (map[string]string, string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, f.dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT key, session_id, md5(body || meta::text || tsv::text) FROM ctxkeep.chunks ORDER BY key`)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	h := sha256.New()
	for rows.Next() {
		var k, s, sum string
		if err := rows.Scan(&k, &s, &sum); err != nil {
			t.Fatal(err)
		}
		if _, dup := out[k]; dup {
			t.Fatalf("chunk %s twice in the team archive", k)
		}
		out[k] = s
		fmt.Fprintln(h, k, s, sum)
	}
	for _, q := range []string{`SELECT id || hash FROM ctxkeep.entries ORDER BY id`, `SELECT hash || coalesce(md5(data), '-') FROM ctxkeep.blobs ORDER BY hash`,
		`SELECT id || chunks FROM ctxkeep.sessions ORDER BY id`} {
		rows, err := conn.Query(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		vals, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintln(h, vals)
	}
	return out, hex.EncodeToString(h.Sum(nil))
}

// complete checks that the team archive holds every local chunk, once,
// and that a sync from scratch (the cursor removed) changes nothing.
func (f *faultTeam) complete(t *testing.T) {
	t.Helper()
	local := f.local(t)
	remote, digest := f.remote(t)
	if len(remote) != len(local) {
		t.Fatalf("team archive holds %d chunks, alice's store %d", len(remote), len(local))
	}
	for k := range local {
		if _, ok := remote[k]; !ok {
			t.Fatalf("chunk %s lost", k)
		}
	}
	cursors, _ := filepath.Glob(filepath.Join(f.alice.home, ".local", "state", "ctxkeep", "team", "cursor-*.json"))
	for _, c := range cursors {
		os.Remove(c)
	}
	f.alice.run("", "team", "sync")
	if _, again := f.remote(t); again != digest {
		t.Fatal("pushing everything again changed the team archive")
	}
}

// A server down or unreachable fails the sync with a clear message and
// pushes nothing; the next sync, with the server back, pushes everything,
// once.
func TestTeamSyncServerDown(t *testing.T) {
	f := newFaultTeam(t)
	down := regexp.MustCompile(`:\d+/`).ReplaceAllString(pgtest.In(t, f.dsn, f.role), ":1/")
	f.alice.config(fmt.Sprintf("[team]\ndsn = %q\npush_outputs = true\n", down))
	out, stderr, err := f.alice.try("", "", "team", "sync")
	if code := exitCode(err); code != 1 || !strings.Contains(stderr, "team archive unreachable") || !strings.Contains(stderr, "the next sync catches up") {
		t.Fatalf("sync with the server down: exit %d\n%s%s", code, out, stderr)
	}
	if remote, _ := f.remote(t); len(remote) != 0 {
		t.Fatalf("%d chunks pushed with the server down", len(remote))
	}
	f.alice.config(fmt.Sprintf("[team]\ndsn = %q\npush_outputs = true\n", pgtest.In(t, f.dsn, f.role)))
	f.alice.run("", "team", "sync")
	f.complete(t)
}

// A sync killed (SIGKILL) in the middle — here, deterministically, while
// its transaction waits for a row lock the test holds — loses what that
// transaction held and keeps the batches committed before; the next sync
// resumes from the cursor: nothing lost, nothing twice.
func TestTeamSyncKilled(t *testing.T) {
	f := newFaultTeam(t)
	order := f.changes(t)
	total := len(order)
	last := order[total-1].SessionID
	if order[0].SessionID == last {
		t.Fatalf("the archive's first and last chunks are of one session: no batch to block")
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, f.dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	// The last session's row exists (as if pushed before) and is locked:
	// the batch that pushes its chunks waits.
	if _, err := conn.Exec(ctx, `INSERT INTO ctxkeep.sessions (id, owner, project) VALUES ($1, $2, 'acme/spotter')`, last, f.role); err != nil {
		t.Fatal(err)
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `SELECT 1 FROM ctxkeep.sessions WHERE id = $1 FOR UPDATE`, last); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(f.alice.bin, "team", "sync", "--batch", "1")
	cmd.Env = f.alice.env
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool {
		var n int
		pgtest.QueryRow(t, `SELECT count(*) FROM pg_stat_activity WHERE usename = $1 AND wait_event_type = 'Lock'`, []any{f.role}, &n)
		return n > 0
	}, "the sync to wait for the locked row")
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	tx.Rollback(ctx)
	pushed, _ := f.remote(t)
	if len(pushed) == 0 || len(pushed) >= total {
		t.Fatalf("killed in the middle, %d of %d chunks were pushed; want the batches before the blocked one", len(pushed), total)
	}
	if _, ok := pushed[order[total-1].Key]; ok {
		t.Fatal("the chunk of the killed transaction was kept")
	}
	var res struct{ Chunks int }
	if err := json.Unmarshal([]byte(f.alice.run("", "team", "sync", "--json")), &res); err != nil || res.Chunks != total-len(pushed) {
		t.Fatalf("the next sync pushed %d chunks (%v); want the %d left", res.Chunks, err, total-len(pushed))
	}
	f.complete(t)
}

// A schema newer than the binary is refused, with what to do, by sync and
// by init: nothing is written to it.
func TestTeamSchemaNewer(t *testing.T) {
	f := newFaultTeam(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, f.dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `INSERT INTO ctxkeep.schema_version (version) VALUES ($1)`, postgres.LatestVersion()+1); err != nil {
		t.Fatal(err)
	}
	for _, u := range []struct {
		who  *teamUser
		args []string
	}{{f.alice, []string{"team", "sync"}}, {f.adm, []string{"team", "init"}}, {f.alice, []string{"search", "--team", "anything"}}} {
		out, stderr, err := u.who.try("", "", u.args...)
		if exitCode(err) != 1 || !strings.Contains(stderr, "newer than this ctxkeep") || !strings.Contains(stderr, "upgrade ctxkeep") {
			t.Errorf("ctxkeep %v on a newer schema: exit %d\n%s%s", u.args, exitCode(err), out, stderr)
		}
	}
	if remote, _ := f.remote(t); len(remote) != 0 {
		t.Fatalf("%d chunks written to a newer schema", len(remote))
	}
}

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	return -1
}
