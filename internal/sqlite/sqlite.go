// Package sqlite is ctxkeep's embedded index: a SQLite database (WAL,
// busy_timeout, BEGIN IMMEDIATE for every write transaction) holding the
// rows that describe blobs, sessions and hook events.
//
// The driver is github.com/ncruces/go-sqlite3: SQLite translated to pure Go
// (no cgo), with FTS5 as an extension registered on every connection. It
// was chosen over modernc.org/sqlite because linking it costs a fresh
// process about 0.6 ms less at start-up, which every hook call pays
// (docs/BENCHMARKS.md), while transactions cost the same.
//
// Migrations are embedded and applied by OpenMigrate (install and the CLI).
// The hook path uses Open, which never migrates: it checks the schema
// version in the file header and refuses a database it does not match.
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/ncruces/go-sqlite3"
	_ "github.com/ncruces/go-sqlite3/driver" // registers the "sqlite3" driver
	"github.com/ncruces/go-sqlite3/ext/fts5"

	"github.com/ctxkeep/ctxkeep/internal/fsx"
	"github.com/ctxkeep/ctxkeep/internal/migration"
)

func init() {
	sqlite3.AutoExtension(fts5.Register)
}

//go:embed migrations/*.sql
var migrationFiles embed.FS

// ErrSchema means the database is missing or its schema is not the one this
// binary was built for; `ctxkeep install` (or any CLI command) migrates it.
var ErrSchema = errors.New("index schema does not match this ctxkeep")

// DB is the index database.
type DB struct {
	sql  *sql.DB
	path string
}

// dsn opens path as a URI so that mode=rw can refuse to create a missing
// database on the hook path. Write transactions take the write lock at
// BEGIN (_txlock=immediate): with a deferred BEGIN, concurrent hook
// processes fail with SQLITE_BUSY instead of waiting (docs/DEPENDENCIES.md).
//
// How long a caller waits for the lock: the CLI 10 s, then "database is
// locked"; the hook path (an existing index, not created) as long as its
// context lets it, which is the hook's deadline (the driver's busy handler
// honours the context), so that a hook on a loaded machine waits its turn
// rather than failing open while it still has time.
func dsn(path string, create bool) string {
	mode, busy := "rw", hookBusyTimeout
	if create {
		mode, busy = "rwc", cliBusyTimeout
	}
	q := url.Values{}
	q.Set("mode", mode)
	q.Set("_txlock", "immediate")
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busy.Milliseconds()))
	q.Add("_pragma", "synchronous(FULL)")
	q.Add("_pragma", "foreign_keys(1)")
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
}

const (
	cliBusyTimeout  = 10 * time.Second
	hookBusyTimeout = 10 * time.Minute // the longest deadline config allows
)

// Open opens an existing, migrated index without changing its schema.
func Open(path string) (*DB, error) {
	db, err := open(path, false)
	if err != nil {
		return nil, err
	}
	v, err := db.SchemaVersion(context.Background())
	if err == nil && v != latestVersion() {
		err = fmt.Errorf("%w: %s has version %d, want %d", ErrSchema, path, v, latestVersion())
	}
	if err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// OpenMigrate opens the index, creating it and applying pending migrations.
func OpenMigrate(ctx context.Context, path string) (*DB, error) {
	if err := fsx.MkdirPrivate(filepath.Dir(path)); err != nil {
		return nil, err
	}
	db, err := open(path, true)
	if err != nil {
		return nil, err
	}
	if err := db.migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

func open(path string, create bool) (*DB, error) {
	if !create {
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s does not exist", ErrSchema, path)
		}
	}
	sqldb, err := sql.Open("sqlite3", dsn(path, create))
	if err != nil {
		return nil, err
	}
	// One connection: every caller is a short-lived process doing one thing
	// at a time, and a second connection would only contend for the lock.
	sqldb.SetMaxOpenConns(1)
	if create {
		// The file is created 0644 by SQLite; keep it private.
		if err := sqldb.Ping(); err != nil {
			sqldb.Close()
			return nil, fmt.Errorf("open index %s: %w", path, err)
		}
		for _, p := range []string{path, path + "-wal", path + "-shm"} {
			if err := os.Chmod(p, fsx.FilePerm); err != nil && !errors.Is(err, fs.ErrNotExist) {
				sqldb.Close()
				return nil, err
			}
		}
	}
	return &DB{sql: sqldb, path: path}, nil
}

// Close closes the database.
func (db *DB) Close() error { return db.sql.Close() }

// Path is the database file.
func (db *DB) Path() string { return db.path }

// SchemaVersion reads the schema version from the file header.
func (db *DB) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	err := db.sql.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v)
	return v, err
}

func migrations() []migration.File { return migration.List(migrationFiles, "migrations") }

func latestVersion() int { return migration.Latest(migrations()) }

// migrate applies, each in its own transaction, the migrations newer than
// the database. Concurrent migrators serialise on BEGIN IMMEDIATE and the
// version is re-read inside the transaction, so each runs once.
func (db *DB) migrate(ctx context.Context) error {
	if _, err := db.sql.ExecContext(ctx, "PRAGMA journal_mode=WAL"); err != nil {
		return fmt.Errorf("index %s: set WAL: %w", db.path, err)
	}
	for _, m := range migrations() {
		if err := db.apply(ctx, m); err != nil {
			return fmt.Errorf("index %s: migration %s: %w", db.path, m.Name, err)
		}
	}
	return nil
}

func (db *DB) apply(ctx context.Context, m migration.File) error {
	return db.write(ctx, func(tx *sql.Tx) error {
		var v int
		if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
			return err
		}
		if v >= m.Version {
			return nil
		}
		body, err := migrationFiles.ReadFile("migrations/" + m.Name)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, string(body)); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", m.Version))
		return err
	})
}

// write runs fn in one write transaction (BEGIN IMMEDIATE).
func (db *DB) write(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// QuickCheck runs SQLite's quick_check and reports the first problem found.
func (db *DB) QuickCheck(ctx context.Context) error {
	var res string
	if err := db.sql.QueryRowContext(ctx, "PRAGMA quick_check(1)").Scan(&res); err != nil {
		return err
	}
	if res != "ok" {
		return fmt.Errorf("index %s: quick_check: %s", db.path, res)
	}
	return nil
}

// strings runs a query of one text column and returns its values.
func (db *DB) strings(ctx context.Context, query string, args ...any) ([]string, error) {
	rows, err := db.sql.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}
