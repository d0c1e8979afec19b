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

// Put stores data durably and indexes it.
func (s *Store) Put(ctx context.Context, data []byte) (blob.Info, error) {
	info, _, err := s.Blobs.Put(data)
	if err != nil {
		return info, err
	}
	if err := s.Index.AddBlob(ctx, info, s.Now()); err != nil {
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
	Missing       []blob.Hash `json:"missing,omitempty"`  // rows without a blob: a bug
	Corrupt       []blob.Hash `json:"corrupt,omitempty"`  // blobs whose bytes do not hash to their name
	Unreferenced  []blob.Hash `json:"orphans,omitempty"`  // blobs without a row: garbage
	IndexProblems []string    `json:"index,omitempty"`    // SQLite quick_check findings
	Verified      bool        `json:"verified,omitempty"` // blob contents were hashed (deep)
}

// OK reports whether nothing is wrong (garbage blobs are not wrong).
func (r Report) OK() bool {
	return len(r.Missing) == 0 && len(r.Corrupt) == 0 && len(r.IndexProblems) == 0
}

// Check compares rows and blob files. With deep, every blob is read and its
// hash verified; otherwise only presence is checked (fast enough for doctor).
func (s *Store) Check(ctx context.Context, deep bool) (Report, error) {
	var r Report
	if err := s.Index.QuickCheck(ctx); err != nil {
		r.IndexProblems = append(r.IndexProblems, err.Error())
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
	r.Blobs = len(onDisk)
	for _, h := range rows {
		if !onDisk[h] {
			r.Missing = append(r.Missing, h)
			continue
		}
		delete(onDisk, h)
		if !deep {
			continue
		}
		if _, err := s.Blobs.Get(h); errors.Is(err, blob.ErrCorrupt) {
			r.Corrupt = append(r.Corrupt, h)
		} else if err != nil {
			return r, err
		}
	}
	for h := range onDisk {
		r.Unreferenced = append(r.Unreferenced, h)
	}
	r.Verified = deep
	return r, nil
}
