// Package store is ctxkeep's local backend: the blob folder and the SQLite
// index, joined under the write ordering that makes crashes harmless
// (docs/STORE_FORMAT.md):
//
//   - put: the blob is durable (written, synced, renamed) before its row is
//     committed, so a row never points at a missing blob;
//   - remove: the row is deleted in a committed transaction before the blob
//     file is unlinked, and the unlink is decided under the write lock, so a
//     writer storing the same bytes meanwhile keeps them.
//
// A crash between the two steps leaves a blob without a row: garbage that
// Check reports and a later prune collects, never a dangling row.
//
// It is the one door to stored outputs: no other package reads or writes
// blob files or index rows (TestOneDoor).
package store

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/blob"
	"github.com/ctxkeep/ctxkeep/internal/sqlite"
)

// Mode is how Open treats the index (ctxkeep.OpenMode).
type Mode = ctxkeep.OpenMode

const (
	Existing = ctxkeep.OpenExisting
	Migrate  = ctxkeep.OpenMigrate
	ReadOnly = ctxkeep.OpenReadOnly
)

// Store is the blob folder plus its index. What the index answers alone
// (the archive, the events, the proof, lookups) it answers itself: the
// index is embedded, and Store's own methods are those that join the two
// under the write order.
type Store struct {
	*sqlite.DB
	blobs *blob.Store
	now   func() time.Time
}

var _ ctxkeep.Local = (*Store)(nil)

// Open opens the store whose index is indexPath and whose blobs live in
// blobDir. now is the clock rows are stamped with.
func Open(ctx context.Context, indexPath, blobDir string, mode Mode, now func() time.Time) (*Store, error) {
	var db *sqlite.DB
	var err error
	switch mode {
	case Migrate:
		db, err = sqlite.OpenMigrate(ctx, indexPath)
	case ReadOnly:
		db, err = sqlite.OpenReadOnly(indexPath)
	default:
		db, err = sqlite.Open(indexPath)
	}
	if err != nil {
		return nil, err
	}
	return &Store{DB: db, blobs: blob.New(blobDir), now: now}, nil
}

// Dir is the folder of the index.
func (s *Store) Dir() string { return filepath.Dir(s.DB.Path()) }

// PutEntry stores data durably, then commits e with e.Hash set to data's
// hash (see ctxkeep.OutputStore). Should a concurrent prune remove the blob
// between the two steps (it was already stored, unreferenced), the row is
// refused and the error wraps ctxkeep.ErrNotFound; putting again succeeds.
func (s *Store) PutEntry(ctx context.Context, e ctxkeep.Entry, data []byte) (ctxkeep.Entry, error) {
	p, err := s.Stage(data)
	if err != nil {
		return e, err
	}
	return p.Commit(ctx, e)
}

// Staged is bytes made durable, waiting for their entry: PutEntry in two
// steps, for a caller with work to do in between (the hook builds the view
// while the bytes are hashed, compressed and synced).
type Staged struct {
	s    *Store
	blob ctxkeep.Blob
}

// Stage stores data durably.
func (s *Store) Stage(data []byte) (ctxkeep.Staged, error) {
	b, _, err := s.blobs.Put(data)
	return Staged{s: s, blob: b}, err
}

// Commit indexes e as the entry of the staged bytes (e.Hash is set to
// theirs), as PutEntry does.
func (p Staged) Commit(ctx context.Context, e ctxkeep.Entry) (ctxkeep.Entry, error) {
	e.Hash = p.blob.Hash
	if e.CreatedAt.IsZero() {
		e.CreatedAt = p.s.now()
	}
	if err := p.s.DB.AddEntry(ctx, e, p.blob, p.s.present(p.blob.Hash)); err != nil {
		return e, fmt.Errorf("index entry %s: %w", e.ID, err)
	}
	return e, nil
}

// present is checked under the write lock before a row is committed.
func (s *Store) present(h ctxkeep.Hash) func() error {
	return func() error {
		if _, err := s.blobs.Stat(h); err != nil {
			return fmt.Errorf("blob removed meanwhile: %w", err)
		}
		return nil
	}
}

// Open returns the exact bytes of blob h, verified against h.
func (s *Store) Open(_ context.Context, h ctxkeep.Hash) ([]byte, error) { return s.blobs.Get(h) }

// Remove deletes entries in the order that makes a crash harmless: their
// rows and the rows of the blobs nothing refers to any more, in one
// transaction, then those blobs' files (under the write lock, and only if
// no writer has stored the same content again meanwhile). A crash between
// the two leaves blobs without rows: garbage for RemoveGarbage. Readable
// copies are the caller's.
func (s *Store) Remove(ctx context.Context, es []ctxkeep.Entry) (ctxkeep.Removed, error) {
	rm, err := s.DB.RemoveEntries(ctx, es)
	if err != nil || len(rm.Freed) == 0 {
		return rm, err
	}
	hashes := make([]ctxkeep.Hash, len(rm.Freed))
	for i, b := range rm.Freed {
		hashes[i] = b.Hash
	}
	_, err = s.DB.UnlinkUnreferenced(ctx, hashes, s.blobs.Remove)
	return rm, err
}
