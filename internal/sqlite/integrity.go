package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"github.com/ctxkeep/ctxkeep"
	"os"
	"slices"
)

// IntegrityCheck runs SQLite's full integrity_check (every page, every
// index entry) and returns what it found; nil means "ok".
func (db *DB) IntegrityCheck(ctx context.Context) ([]string, error) {
	found, err := db.strings(ctx, "PRAGMA integrity_check(100)")
	if err != nil {
		return nil, err
	}
	if found = slices.DeleteFunc(found, func(s string) bool { return s == "ok" }); len(found) == 0 {
		return nil, nil
	}
	return found, nil
}

// Reindex rebuilds every index from its table: the repair for index
// entries that integrity_check finds missing or wrong.
func (db *DB) Reindex(ctx context.Context) error {
	return db.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, "REINDEX")
		return err
	})
}

// FTSTables lists the FTS5 tables of the index, whatever migration made
// them, so that checks and optimisation need not know them by name.
func (db *DB) FTSTables(ctx context.Context) ([]string, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT name FROM sqlite_master
		WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%USING fts5%' ORDER BY name`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		names = append(names, n)
	}
	return names, rows.Err()
}

// FTSCommand runs one of FTS5's special commands on table: 'integrity-check'
// (an error means the full-text index disagrees with itself or, for an
// external content table, with its content: rank 1 asks FTS5 to compare
// them too), 'rebuild' (rebuilds it from its content; contentless tables
// cannot) or 'optimize' (merges its b-trees into one).
func (db *DB) FTSCommand(ctx context.Context, table, command string) error {
	rank := 0
	if command == "integrity-check" {
		rank = 1
	}
	return db.write(ctx, func(tx *sql.Tx) error {
		t := quoteIdent(table)
		_, err := tx.ExecContext(ctx, fmt.Sprintf(`INSERT INTO %s(%s, rank) VALUES (?, ?)`, t, t), command, rank)
		if err != nil {
			return fmt.Errorf("%s %s: %w", table, command, err)
		}
		return nil
	})
}

// Optimized is what Optimize did.
type Optimized = ctxkeep.Optimized

// Optimize merges every FTS5 index into one b-tree, checkpoints the WAL
// into the database and truncates it, vacuums the database (rewrites it
// without free pages) and refreshes the planner's statistics. Writers wait
// meanwhile (busy_timeout), so it is for the CLI, not for hooks.
func (db *DB) Optimize(ctx context.Context) (Optimized, error) {
	var o Optimized
	o.BytesBefore = db.fileBytes()
	tables, err := db.FTSTables(ctx)
	if err != nil {
		return o, err
	}
	for _, t := range tables {
		if err := db.FTSCommand(ctx, t, "optimize"); err != nil {
			return o, err
		}
		o.FTSTables = append(o.FTSTables, t)
	}
	// The planner's statistics first: written after the checkpoint, they
	// would leave pages in the WAL, and an empty store would "grow".
	if _, err := db.sql.ExecContext(ctx, "PRAGMA optimize"); err != nil {
		return o, err
	}
	if _, err := db.sql.ExecContext(ctx, "VACUUM"); err != nil {
		return o, fmt.Errorf("vacuum: %w", err)
	}
	var busy, logged, done int
	if err := db.sql.QueryRowContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &logged, &done); err != nil {
		return o, fmt.Errorf("checkpoint: %w", err)
	}
	o.Checkpointed = busy == 0 && logged == done
	o.BytesAfter = db.fileBytes()
	return o, nil
}

// fileBytes is the size of the database file and its WAL.
func (db *DB) fileBytes() int64 {
	var n int64
	for _, p := range []string{db.path, db.path + "-wal"} {
		if st, err := os.Stat(p); err == nil {
			n += st.Size()
		}
	}
	return n
}
