// Package pgtest is test support for the team archive: it finds the
// throwaway PostgreSQL server scripts/test.sh starts (scripts/postgres.sh)
// through CTXKEEP_TEST_PG_DSN, a superuser's DSN, and gives each test a
// schema (and roles) of its own, dropped when the test ends. Without the
// variable a test is skipped on a laptop and fails under CI=true.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/ctxkeep/ctxkeep/internal/postgres"
	"github.com/ctxkeep/ctxkeep/internal/realdata"
)

// EnvDSN names the variable holding the test server's superuser DSN.
const EnvDSN = "CTXKEEP_TEST_PG_DSN"

// DSN is the superuser's DSN of the test server, or t is skipped (failed
// under CI=true).
func DSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv(EnvDSN)
	if dsn == "" {
		realdata.Missing(t, "no PostgreSQL test server: %s is not set (scripts/test.sh starts one with scripts/postgres.sh)", EnvDSN)
	}
	return dsn
}

// Name is a fresh lower-case name with prefix, for a schema or a role.
func Name(prefix string) string {
	b := make([]byte, 5)
	rand.Read(b)
	return prefix + "_" + hex.EncodeToString(b)
}

// connect connects as the superuser; the caller closes.
func connect(t testing.TB) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), DSN(t))
	if err != nil {
		t.Fatalf("connect to the test server: %v", err)
	}
	return conn
}

// Exec runs statements as the superuser.
func Exec(t testing.TB, sql ...string) {
	t.Helper()
	ctx := context.Background()
	conn := connect(t)
	defer conn.Close(ctx)
	for _, s := range sql {
		if _, err := conn.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// QueryRow runs a query of one row as the superuser.
func QueryRow(t testing.TB, sql string, args []any, dest ...any) {
	t.Helper()
	ctx := context.Background()
	conn := connect(t)
	defer conn.Close(ctx)
	if err := conn.QueryRow(ctx, sql, args...).Scan(dest...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// Schema returns a new schema name, dropped (with everything in it, and
// its member role) when the test ends.
func Schema(t testing.TB) string {
	t.Helper()
	s := Name("t")
	t.Cleanup(func() { Exec(t, "DROP ROLE IF EXISTS "+s+"_member") })
	t.Cleanup(func() { Exec(t, "DROP SCHEMA IF EXISTS "+s+" CASCADE") })
	return s
}

// OpenTeam opens a new team archive initialised as `ctxkeep team init`
// does, as the superuser (its administrator).
func OpenTeam(t testing.TB) *postgres.DB {
	t.Helper()
	db := Open(t)
	if err := db.Init(context.Background()); err != nil {
		t.Fatal(err)
	}
	return db
}

// OpenAs opens the team archive in schema as role, whose password comes
// from the pass file Passwords wrote.
func OpenAs(t testing.TB, role, schema string) *postgres.DB {
	t.Helper()
	db, err := postgres.Open(context.Background(), postgres.Options{DSN: As(t, role), Schema: schema})
	if err != nil {
		t.Fatalf("open as %s: %v", role, err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// Passwords writes a pgpass file with the roles' passwords for the test
// server and points PGPASSFILE at it, as a user's ~/.pgpass would be.
func Passwords(t *testing.T, rolePasswords map[string]string) string {
	t.Helper()
	u, err := url.Parse(DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for role, pw := range rolePasswords {
		fmt.Fprintf(&b, "%s:%s:*:%s:%s\n", u.Hostname(), u.Port(), role, pw)
	}
	path := filepath.Join(t.TempDir(), "pgpass")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PGPASSFILE", path)
	return path
}

// Open opens a new, migrated team archive in a schema of its own, as the
// superuser (the tables' owner: row-level security does not apply).
func Open(t testing.TB) *postgres.DB {
	t.Helper()
	db, err := postgres.Open(context.Background(), postgres.Options{DSN: DSN(t), Schema: Schema(t), Migrate: true, MaxConns: 8})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// Role creates a login role with a password, dropped when the test ends
// (after what it owns), and returns its name.
func Role(t testing.TB, password string) string {
	t.Helper()
	r := Name("u")
	Exec(t, "CREATE ROLE "+r+" LOGIN PASSWORD '"+strings.ReplaceAll(password, "'", "''")+"'")
	t.Cleanup(func() { Exec(t, "DROP OWNED BY "+r+" CASCADE", "DROP ROLE IF EXISTS "+r) })
	return r
}

// As is the test server's DSN for role, without a password (it comes from
// PGPASSWORD or a pgpass file, as for a user).
func As(t testing.TB, role string) string {
	t.Helper()
	return In(t, DSN(t), role)
}

// Database creates a database of its own for a test, dropped (its
// connections ended) when the test ends, and returns the superuser's DSN
// to it and its name.
func Database(t testing.TB) (dsn, name string) {
	t.Helper()
	name = Name("db")
	Exec(t, "CREATE DATABASE "+name)
	t.Cleanup(func() { Exec(t, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)") })
	u, err := url.Parse(DSN(t))
	if err != nil {
		t.Fatalf("bad %s: %v", EnvDSN, err)
	}
	u.Path = "/" + name
	return u.String(), name
}

// In is dsn with its user set to role (no password).
func In(t testing.TB, dsn, role string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.User(role)
	return u.String()
}
