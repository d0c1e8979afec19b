// Package store joins the blob files and the index rows under the write
// ordering that makes crashes harmless (docs/STORE_FORMAT.md):
//
//   - put: the blob is durable (written, synced, renamed) before its row is
//     committed, so a row never points at a missing blob;
//   - remove: the row is deleted in a committed transaction before the blob
//     file is unlinked, for the same reason.
//
// A crash between the two steps leaves a blob without a row: garbage that
// Check reports and a later prune collects, never a dangling row.
package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/ctxkeep/ctxkeep/internal/blob"
	"github.com/ctxkeep/ctxkeep/internal/sqlite"
)

// Store is the blob folder plus its index.
type Store struct {
	Blobs *blob.Store
	Index *sqlite.DB
	Now   func() time.Time
}

// New joins a blob store and an index.
func New(blobs *blob.Store, index *sqlite.DB) *Store {
	return &Store{Blobs: blobs, Index: index, Now: time.Now}
}

// Put stores data durably and indexes it. Should a concurrent prune remove
// the blob between the two steps (it was already stored, unreferenced), the
// row is refused and the error wraps blob.ErrNotFound; putting again
// succeeds.
func (s *Store) Put(ctx context.Context, data []byte) (blob.Info, error) {
	info, _, err := s.Blobs.Put(data)
	if err != nil {
		return info, err
	}
	if err := s.Index.AddBlobChecked(ctx, info, s.Now(), s.present(info.Hash)); err != nil {
		return info, fmt.Errorf("index blob %s: %w", info.Hash, err)
	}
	return info, nil
}

// Get returns the exact bytes of an indexed blob, hash-verified.
func (s *Store) Get(ctx context.Context, h blob.Hash) ([]byte, error) {
	if _, ok, err := s.Index.Blob(ctx, h); err != nil {
		return nil, err
	} else if !ok {
		return nil, fmt.Errorf("%w: %s", blob.ErrNotFound, h)
	}
	return s.Blobs.Get(h)
}

// Remove deletes an indexed blob: row first, then file.
func (s *Store) Remove(ctx context.Context, h blob.Hash) error {
	if err := s.Index.RemoveBlobRow(ctx, h); err != nil {
		return err
	}
	return s.Blobs.Remove(h)
}

// Report is what Check found.
type Report struct {
	Rows          int         `json:"rows"`
	Blobs         int         `json:"blobs"`
	Missing       []blob.Hash `json:"missing,omitempty"`    // rows without a blob: a bug
	Corrupt       []blob.Hash `json:"corrupt,omitempty"`    // blobs whose bytes do not hash to their name
	Dangling      []string    `json:"dangling,omitempty"`   // entries (ids) whose blob has no row: a bug
	Unreferenced  []blob.Hash `json:"orphans,omitempty"`    // blobs without a row: garbage
	Temps         int         `json:"temp_files,omitempty"` // temp files of interrupted puts: garbage
	IndexProblems []string    `json:"index,omitempty"`      // SQLite integrity findings
	FTSProblems   []string    `json:"fts,omitempty"`        // full-text indexes that fail their integrity check
	Verified      bool        `json:"verified,omitempty"`   // blob contents were hashed (deep)
}

// OK reports whether nothing is wrong (garbage is not wrong).
func (r Report) OK() bool {
	return len(r.Missing) == 0 && len(r.Corrupt) == 0 && len(r.Dangling) == 0 &&
		len(r.IndexProblems) == 0 && len(r.FTSProblems) == 0
}

// Check compares rows and blob files, and looks for entries whose blob has
// no row. With deep, every blob is read and its hash verified, SQLite runs
// its full integrity_check instead of quick_check, and every FTS5 table
// its own integrity check; otherwise only presence is checked (fast
// enough for doctor).
//
// Check may run while hooks store and prune removes: a blob that looks
// missing is confirmed under the write lock before it is reported (see
// sqlite.ConfirmMissing), and one stored meanwhile is not called garbage.
func (s *Store) Check(ctx context.Context, deep bool) (Report, error) {
	var r Report
	if err := s.checkIndex(ctx, deep, &r); err != nil {
		return r, err
	}
	rows, err := s.Index.BlobHashes(ctx)
	if err != nil {
		return r, err
	}
	r.Rows = len(rows)
	onDisk := map[blob.Hash]bool{}
	if err := s.Blobs.Walk(func(h blob.Hash, _ int64) error { onDisk[h] = true; return nil }); err != nil {
		return r, err
	}
	if err := s.Blobs.WalkTemps(func(blob.Temp) error { r.Temps++; return nil }); err != nil {
		return r, err
	}
	r.Blobs = len(onDisk)
	var suspects []blob.Hash
	for _, h := range rows {
		if !onDisk[h] {
			suspects = append(suspects, h)
			continue
		}
		delete(onDisk, h)
		if !deep {
			continue
		}
		switch _, err := s.Blobs.Get(h); {
		case errors.Is(err, blob.ErrCorrupt):
			r.Corrupt = append(r.Corrupt, h)
		case errors.Is(err, blob.ErrNotFound):
			suspects = append(suspects, h)
		case err != nil:
			return r, err
		}
	}
	if r.Missing, err = s.Index.ConfirmMissing(ctx, suspects, s.absent); err != nil {
		return r, err
	}
	for h := range onDisk {
		if _, ok, err := s.Index.Blob(ctx, h); err != nil {
			return r, err
		} else if !ok {
			r.Unreferenced = append(r.Unreferenced, h)
		}
	}
	slices.Sort(r.Unreferenced)
	dangling, err := s.Index.DanglingEntries(ctx)
	if err != nil {
		return r, err
	}
	for _, e := range dangling {
		r.Dangling = append(r.Dangling, e.ID)
	}
	r.Verified = deep
	return r, nil
}

// checkIndex runs SQLite's own checks: quick_check, or with deep the full
// integrity_check and every FTS5 table's integrity check.
func (s *Store) checkIndex(ctx context.Context, deep bool, r *Report) error {
	if !deep {
		if err := s.Index.QuickCheck(ctx); err != nil {
			r.IndexProblems = append(r.IndexProblems, err.Error())
		}
		return nil
	}
	problems, err := s.Index.IntegrityCheck(ctx)
	if err != nil {
		return err
	}
	r.IndexProblems = problems
	tables, err := s.Index.FTSTables(ctx)
	if err != nil {
		return err
	}
	for _, t := range tables {
		if err := s.Index.FTSCommand(ctx, t, "integrity-check"); err != nil {
			r.FTSProblems = append(r.FTSProblems, err.Error())
		}
	}
	return nil
}

// absent reports whether blob h's file is gone.
func (s *Store) absent(h blob.Hash) bool {
	_, err := s.Blobs.Stat(h)
	return errors.Is(err, blob.ErrNotFound)
}
