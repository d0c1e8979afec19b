package store

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"time"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/blob"
)

// Garbage is what an interrupted put or removal left behind (ctxkeep.Garbage).
type Garbage = ctxkeep.Garbage

// Orphan is a blob file without a row.
type Orphan = ctxkeep.Orphan

// FindGarbage lists the temporary files and the blobs without a row
// written before before. Younger ones may belong to a put in progress
// (written, its row not committed yet) and are left alone.
func (s *Store) FindGarbage(ctx context.Context, before time.Time) (Garbage, error) {
	var g Garbage
	err := s.blobs.WalkTemps(func(t blob.Temp) error {
		if t.ModTime.Before(before) {
			g.Temps = append(g.Temps, t)
		}
		return nil
	})
	if err != nil {
		return g, err
	}
	rows, err := s.DB.BlobHashes(ctx)
	if err != nil {
		return g, err
	}
	indexed := make(map[ctxkeep.Hash]bool, len(rows))
	for _, h := range rows {
		indexed[h] = true
	}
	err = s.blobs.Walk(func(h ctxkeep.Hash, stored int64) error {
		if indexed[h] {
			return nil
		}
		t, err := s.blobs.ModTime(h)
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
	byHash := map[ctxkeep.Hash]Orphan{}
	hashes := make([]ctxkeep.Hash, len(g.Orphans))
	for i, o := range g.Orphans {
		hashes[i], byHash[o.Hash] = o.Hash, o
	}
	unlinked, err := s.DB.UnlinkUnreferenced(ctx, hashes, s.blobs.Remove)
	for _, h := range unlinked {
		done.Orphans = append(done.Orphans, byHash[h])
	}
	return done, errors.Join(append(errs, err)...)
}
