package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
)

// OpenReadOnly opens an existing index for reading only, for commands that
// promise to change nothing (`prune --dry-run`): it never migrates or
// writes, and closing it does not checkpoint the WAL into the database.
// When there is no WAL (the last process checkpointed it), the database is
// opened immutable, so that SQLite creates no WAL or shared-memory file
// beside it either: index.db and its WAL stay byte for byte what they
// were. (A write made meanwhile by a hook is then not seen: a dry run
// reports on the index as it was when it started.)
func OpenReadOnly(path string) (*DB, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSchema, err)
	}
	q := url.Values{}
	q.Set("mode", "ro")
	if _, err := os.Stat(path + "-wal"); errors.Is(err, fs.ErrNotExist) {
		q.Set("immutable", "1")
	}
	q.Add("_pragma", "busy_timeout(10000)")
	sqldb, err := sql.Open("sqlite3", "file:"+(&url.URL{Path: path}).EscapedPath()+"?"+q.Encode())
	if err != nil {
		return nil, err
	}
	sqldb.SetMaxOpenConns(1)
	db := &DB{sql: sqldb, path: path}
	v, err := db.SchemaVersion(context.Background())
	if err == nil && v != latestVersion() {
		err = fmt.Errorf("%w: %s has version %d, want %d", ErrSchema, path, v, latestVersion())
	}
	if err != nil {
		sqldb.Close()
		return nil, err
	}
	return db, nil
}
