// Package postgres is the team archive: a ctxkeep.Store on PostgreSQL that
// several people's ctxkeep push to (internal/team) and search together.
// The local SQLite store stays the fast path; nothing on the hook path ever
// opens a connection to it.
//
// Full-text search is a weighted tsvector (prompt 4, files 3, summary 2,
// body 1, as the local FTS5 index weighs them) under a GIN index, plus a
// trigram index (pg_trgm) on the files a chunk touched, so that a path or
// an identifier fragment ("internal/ratelimiter", "window.go") finds its
// chunks and ranks them up. Rows carry their owner and project; row-level
// security restricts each role to the projects it is granted (team.go).
//
// Migrations are embedded and versioned in the table schema_version. Open
// refuses a schema newer than the binary, and, unless asked to migrate
// (the administrator's `ctxkeep team init`, the tests), an older one.
package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/migration"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// ErrSchema means the database's schema is not the one this binary was
// built for: newer (upgrade ctxkeep), older or missing (the administrator
// runs `ctxkeep team init`).
var ErrSchema = ctxkeep.ErrTeamSchema

// DefaultSchema is the schema the team archive lives in.
const DefaultSchema = "ctxkeep"

// Options say which database and schema to open, and how.
type Options struct {
	// DSN names the server, as libpq does: a URL or key=value pairs.
	// Passwords come from PGPASSWORD or ~/.pgpass (PGPASSFILE), never from
	// ctxkeep's files; sslmode is honoured.
	DSN string
	// Schema holds the tables (default DefaultSchema).
	Schema string
	// Migrate creates the schema and applies pending migrations; without
	// it, a schema older than the binary is refused.
	Migrate bool
	// MaxConns bounds the pool (default 4).
	MaxConns int32
}

// DB is an open team archive.
type DB struct {
	pool   *pgxpool.Pool
	schema string
	now    func() time.Time
}

var _ ctxkeep.TeamAdmin = (*DB)(nil)

// Open connects and checks (or, with o.Migrate, brings up to date) the
// schema.
func Open(ctx context.Context, o Options) (*DB, error) {
	if o.Schema == "" {
		o.Schema = DefaultSchema
	}
	cfg, err := pgxpool.ParseConfig(o.DSN)
	if err != nil {
		return nil, fmt.Errorf("team database: bad DSN: %w", err)
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		// A server that does not answer (a dropped route, a firewall)
		// fails a sync in seconds rather than the system's minutes.
		cfg.ConnConfig.ConnectTimeout = 10 * time.Second
	}
	cfg.MaxConns = 4
	if o.MaxConns > 0 {
		cfg.MaxConns = o.MaxConns
	}
	cfg.ConnConfig.RuntimeParams["search_path"] = pgx.Identifier{o.Schema}.Sanitize() + ", public"
	cfg.ConnConfig.RuntimeParams["application_name"] = "ctxkeep"
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("team database: %w", err)
	}
	db := &DB{pool: pool, schema: o.Schema, now: time.Now}
	if o.Migrate {
		err = db.migrate(ctx)
	} else {
		err = db.checkVersion(ctx)
	}
	if err != nil {
		pool.Close()
		return nil, err
	}
	return db, nil
}

// Close closes the connections.
func (db *DB) Close() error {
	db.pool.Close()
	return nil
}

// Schema is the schema the archive lives in.
func (db *DB) Schema() string { return db.schema }

func migrations() []migration.File { return migration.List(migrationFiles, "migrations") }

// LatestVersion is the schema version this binary was built for.
func LatestVersion() int { return migration.Latest(migrations()) }

// SchemaVersion is the database's schema version: 0 before the first
// migration.
func (db *DB) SchemaVersion(ctx context.Context) (int, error) {
	var exists bool
	if err := db.pool.QueryRow(ctx, `SELECT to_regclass('schema_version') IS NOT NULL`).Scan(&exists); err != nil {
		return 0, describe(err)
	}
	if !exists {
		return 0, nil
	}
	var v int
	err := db.pool.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM schema_version`).Scan(&v)
	return v, describe(err)
}

func (db *DB) checkVersion(ctx context.Context) error {
	v, err := db.SchemaVersion(ctx)
	if err != nil {
		return err
	}
	if v == 0 {
		// A schema the role may not use looks empty: say so rather than
		// ask for an init that was run.
		var exists, usable bool
		err := db.pool.QueryRow(ctx, `SELECT true, has_schema_privilege(oid, 'USAGE') FROM pg_namespace WHERE nspname = $1`,
			db.schema).Scan(&exists, &usable)
		if err == nil && exists && !usable {
			return fmt.Errorf("%w: your role may not use schema %q: it is not a member of the team archive (the administrator runs `ctxkeep team grant ROLE PROJECT`, which makes it one)",
				ErrNotMember, db.schema)
		}
	}
	return versionError(db.schema, v, false)
}

// ErrNotMember means the connected role is not a member of the team
// archive: it was never granted a project, or every grant was revoked.
var ErrNotMember = ctxkeep.ErrNotMember

// versionError explains a schema this binary cannot use.
func versionError(schema string, v int, migrating bool) error {
	switch want := LatestVersion(); {
	case v > want:
		return fmt.Errorf("%w: schema %q has version %d, newer than this ctxkeep knows (%d): upgrade ctxkeep; it will not write to a newer schema",
			ErrSchema, schema, v, want)
	case v < want && !migrating:
		if v == 0 {
			return fmt.Errorf("%w: schema %q has no ctxkeep tables: the administrator runs `ctxkeep team init` first", ErrSchema, schema)
		}
		return fmt.Errorf("%w: schema %q has version %d, older than this ctxkeep (%d): the administrator runs `ctxkeep team init` to upgrade it",
			ErrSchema, schema, v, want)
	}
	return nil
}

// migrate creates the schema and applies the migrations newer than the
// database, in one transaction under an advisory lock that every migrating
// ctxkeep takes (pg_trgm is one per database, whatever the schema).
func (db *DB) migrate(ctx context.Context) error {
	return pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('ctxkeep migrations'))`); err != nil {
			return describe(err)
		}
		if _, err := tx.Exec(ctx, `CREATE SCHEMA IF NOT EXISTS `+pgx.Identifier{db.schema}.Sanitize()); err != nil {
			return fmt.Errorf("team database: create schema %q: %w", db.schema, describe(err))
		}
		if _, err := tx.Exec(ctx, `CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public`); err != nil {
			return fmt.Errorf("team database: pg_trgm (Debian: postgresql-contrib; created by the database owner): %w", describe(err))
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_version (
				version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
			return describe(err)
		}
		var v int
		if err := tx.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM schema_version`).Scan(&v); err != nil {
			return describe(err)
		}
		if err := versionError(db.schema, v, true); err != nil {
			return err
		}
		for _, m := range migrations() {
			if m.Version <= v {
				continue
			}
			body, err := migrationFiles.ReadFile("migrations/" + m.Name)
			if err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, string(body)); err != nil {
				return fmt.Errorf("team database: migration %s: %w", m.Name, describe(err))
			}
			if _, err := tx.Exec(ctx, `INSERT INTO schema_version (version) VALUES ($1)`, m.Version); err != nil {
				return describe(err)
			}
		}
		return nil
	})
}

// describe makes a server's error readable: its message, detail and hint,
// and, for a connection that failed, which server. It never includes the
// password (pgconn's messages do not), nor the values of a row: the detail
// of a constraint violated ("Failing row contains (…)", "Key (…)=(…)")
// quotes the row, which holds pushed text and an output's bytes, so it
// gives way to the constraint's name (the message names the table).
func describe(err error) error {
	if err == nil {
		return nil
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		msg := pe.Message
		switch {
		case strings.HasPrefix(pe.Code, "23"): // integrity constraint violation
			if pe.ConstraintName != "" {
				msg += " (constraint " + pe.ConstraintName + ")"
			}
		case pe.Detail != "":
			msg += " (" + pe.Detail + ")"
		}
		if pe.Hint != "" {
			msg += "; hint: " + pe.Hint
		}
		return &serverError{msg: msg, code: pe.Code, err: err}
	}
	if addr, waited, ok := Silent(err); ok {
		return &silentError{addr: addr, waited: waited, err: err}
	}
	if Unreachable(err) {
		return fmt.Errorf("%w: %w", ctxkeep.ErrUnreachable, err)
	}
	return err
}

// silentError is a server that accepted the connection and never
// answered: the message says where and how long it was waited on.
type silentError struct {
	addr   string
	waited time.Duration
	err    error
}

func (e *silentError) Error() string {
	return fmt.Sprintf("the team archive at %s accepted the connection but did not answer within %s", e.addr, e.waited)
}
func (e *silentError) Is(target error) bool { return target == ctxkeep.ErrUnreachable }
func (e *silentError) Unwrap() error        { return e.err }

type serverError struct {
	msg  string
	code string
	err  error
}

func (e *serverError) Error() string { return e.msg }

// SQLState is the server's code for the error (ctxkeep.SQLState).
func (e *serverError) SQLState() string { return e.code }
func (e *serverError) Unwrap() error    { return e.err }

// Unreachable reports whether err means the server could not be reached
// or went away: no connection, a connection dropped or timed out, the
// server shutting down or ending the session (SQLSTATE classes 08 and
// 57). A retry later may succeed; nothing of a transaction it ended was
// kept.
func Unreachable(err error) bool {
	var ce *pgconn.ConnectError
	var ne net.Error
	code := Code(err)
	return errors.As(err, &ce) || errors.As(err, &ne) || pgconn.Timeout(err) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		strings.HasPrefix(code, "08") || strings.HasPrefix(code, "57")
}

// Silent reports whether err is a connection that was made but never
// answered within the connect timeout (something listens there, not a
// PostgreSQL server that is up), and says where and how long it waited.
func Silent(err error) (addr string, waited time.Duration, ok bool) {
	var ce *pgconn.ConnectError
	if !errors.As(err, &ce) || ce.Config == nil || !pgconn.Timeout(err) || !strings.Contains(err.Error(), "failed to receive message") {
		return "", 0, false
	}
	return net.JoinHostPort(ce.Config.Host, strconv.Itoa(int(ce.Config.Port))), ce.Config.ConnectTimeout, true
}

// Code is the SQLSTATE of a server's error, or "".
func Code(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}
