package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/ctxkeep/ctxkeep/internal/blob"
	"github.com/ctxkeep/ctxkeep/internal/sqlite"
)

// AddEntry indexes an entry whose blob was put. The row is committed only
// if the blob is still on disk once the write lock is held: a prune that
// freed the same content meanwhile (blob.Put found it stored and wrote
// nothing) either sees the new row and keeps the file, or unlinked it
// first, and then AddEntry fails with an error wrapping blob.ErrNotFound
// rather than leave a row without its blob. A hook then fails open.
func (s *Store) AddEntry(ctx context.Context, e sqlite.Entry, b blob.Info) error {
	if err := s.Index.AddEntryChecked(ctx, e, b, s.present(b.Hash)); err != nil {
		return fmt.Errorf("index entry %s: %w", e.ID, err)
	}
	return nil
}

func (s *Store) present(h blob.Hash) func() error {
	return func() error {
		if _, err := s.Blobs.Stat(h); err != nil {
			return fmt.Errorf("blob removed meanwhile: %w", err)
		}
		return nil
	}
}

// RemoveEntries deletes entries in the order that makes a crash harmless:
// their rows and the rows of the blobs nothing refers to any more, in one
// transaction, then those blobs' files (under the write lock, and only if
// no writer has stored the same content again meanwhile). A crash between
// the two leaves blobs without rows: garbage for CollectGarbage. Readable
// copies are the caller's.
func (s *Store) RemoveEntries(ctx context.Context, es []sqlite.Entry) (sqlite.Removed, error) {
	rm, err := s.Index.RemoveEntries(ctx, es)
	if err != nil || len(rm.Freed) == 0 {
		return rm, err
	}
	hashes := make([]blob.Hash, len(rm.Freed))
	for i, b := range rm.Freed {
		hashes[i] = b.Hash
	}
	_, err = s.Index.UnlinkUnreferenced(ctx, hashes, s.Blobs.Remove)
	return rm, err
}

// Garbage is what an interrupted put or removal left behind: temporary
// files, and blob files without a row.
type Garbage struct {
	Temps   []blob.Temp `json:"temp_files,omitempty"`
	Orphans []Orphan    `json:"orphans,omitempty"`
}

// Orphan is a blob file without a row.
type Orphan struct {
	Hash    blob.Hash `json:"sha256"`
	Stored  int64     `json:"stored_bytes"`
	ModTime time.Time `json:"written_at"`
}

// Bytes is the disk space the garbage takes.
func (g Garbage) Bytes() int64 {
	var n int64
	for _, t := range g.Temps {
		n += t.Size
	}
	for _, o := range g.Orphans {
		n += o.Stored
	}
	return n
}

// FindGarbage lists the temporary files and the blobs without a row
// written before before. Younger ones may belong to a put in progress
// (written, its row not committed yet) and are left alone.
func (s *Store) FindGarbage(ctx context.Context, before time.Time) (Garbage, error) {
	var g Garbage
	err := s.Blobs.WalkTemps(func(t blob.Temp) error {
		if t.ModTime.Before(before) {
			g.Temps = append(g.Temps, t)
		}
		return nil
	})
	if err != nil {
		return g, err
	}
	rows, err := s.Index.BlobHashes(ctx)
	if err != nil {
		return g, err
	}
	indexed := make(map[blob.Hash]bool, len(rows))
	for _, h := range rows {
		indexed[h] = true
	}
	err = s.Blobs.Walk(func(h blob.Hash, stored int64) error {
		if indexed[h] {
			return nil
		}
		t, err := s.Blobs.ModTime(h)
		if err == nil && t.Before(before) {
			g.Orphans = append(g.Orphans, Orphan{Hash: h, Stored: stored, ModTime: t})
		}
		return nil
	})
	return g, err
}

// RemoveGarbage deletes what FindGarbage found and returns what it
// deleted: every temporary file, and every orphan blob that still has no
// row (checked under the write lock, as RemoveEntries does).
func (s *Store) RemoveGarbage(ctx context.Context, g Garbage) (Garbage, error) {
	var done Garbage
	var errs []error
	for _, t := range g.Temps {
		if err := os.Remove(t.Path); err == nil || errors.Is(err, fs.ErrNotExist) {
			done.Temps = append(done.Temps, t)
		} else {
			errs = append(errs, err)
		}
	}
	byHash := map[blob.Hash]Orphan{}
	hashes := make([]blob.Hash, len(g.Orphans))
	for i, o := range g.Orphans {
		hashes[i], byHash[o.Hash] = o.Hash, o
	}
	unlinked, err := s.Index.UnlinkUnreferenced(ctx, hashes, s.Blobs.Remove)
	for _, h := range unlinked {
		done.Orphans = append(done.Orphans, byHash[h])
	}
	return done, errors.Join(append(errs, err)...)
}
