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

// Mode is how Open treats the index.
type Mode int

const (
	// Existing opens an index that exists and has this binary's schema,
	// and never migrates: the hook path.
	Existing Mode = iota
	// Migrate creates the index and applies pending migrations: install
	// and the CLI.
	Migrate
	// ReadOnly opens an existing index for reading only (dry runs): no
	// write, no checkpoint.
	ReadOnly
)

// Store is the blob folder plus its index.
type Store struct {
	blobs *blob.Store
	index *sqlite.DB
	now   func() time.Time
}

var _ ctxkeep.Store = (*Store)(nil)

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
	return &Store{blobs: blob.New(blobDir), index: db, now: now}, nil
}

// Close closes the index (and checkpoints its WAL when this is the last
// connection).
func (s *Store) Close() error { return s.index.Close() }

// Dir is the folder of the index.
func (s *Store) Dir() string { return filepath.Dir(s.index.Path()) }

// SchemaVersion is the index's schema version.
func (s *Store) SchemaVersion(ctx context.Context) (int, error) { return s.index.SchemaVersion(ctx) }

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
func (s *Store) Stage(data []byte) (Staged, error) {
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
	if err := p.s.index.AddEntry(ctx, e, p.blob, p.s.present(p.blob.Hash)); err != nil {
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

// Entry returns the entry with id, or the only one whose id starts with it.
func (s *Store) Entry(ctx context.Context, id string) (ctxkeep.Entry, error) {
	return s.index.Entry(ctx, id)
}

// ProjectEntry is Entry among project's entries (ctxkeep.ProjectIndex).
func (s *Store) ProjectEntry(ctx context.Context, project, id string) (ctxkeep.Entry, error) {
	return s.index.ProjectEntry(ctx, project, id)
}

// ProjectChunk is Chunk among project's chunks.
func (s *Store) ProjectChunk(ctx context.Context, project, key string) (ctxkeep.Chunk, error) {
	return s.index.ProjectChunk(ctx, project, key)
}

// ProjectSessions is ChunkSessions among project's sessions.
func (s *Store) ProjectSessions(ctx context.Context, project string) ([]string, error) {
	return s.index.ProjectSessions(ctx, project)
}

// Entries lists the entries f selects.
func (s *Store) Entries(ctx context.Context, f ctxkeep.EntryFilter) ([]ctxkeep.Entry, error) {
	return s.index.Entries(ctx, f)
}

// Touch counts one retrieval of an entry.
func (s *Store) Touch(ctx context.Context, id string, now time.Time) error {
	return s.index.Touch(ctx, id, now)
}

// SetPin sets an entry's pin level and reason.
func (s *Store) SetPin(ctx context.Context, id string, level ctxkeep.PinLevel, reason string) (ctxkeep.Entry, error) {
	return s.index.SetPin(ctx, id, level, reason)
}

// Remove deletes entries in the order that makes a crash harmless: their
// rows and the rows of the blobs nothing refers to any more, in one
// transaction, then those blobs' files (under the write lock, and only if
// no writer has stored the same content again meanwhile). A crash between
// the two leaves blobs without rows: garbage for RemoveGarbage. Readable
// copies are the caller's.
func (s *Store) Remove(ctx context.Context, es []ctxkeep.Entry) (ctxkeep.Removed, error) {
	rm, err := s.index.RemoveEntries(ctx, es)
	if err != nil || len(rm.Freed) == 0 {
		return rm, err
	}
	hashes := make([]ctxkeep.Hash, len(rm.Freed))
	for i, b := range rm.Freed {
		hashes[i] = b.Hash
	}
	_, err = s.index.UnlinkUnreferenced(ctx, hashes, s.blobs.Remove)
	return rm, err
}

// The archive is the index's.

func (s *Store) Cursor(ctx context.Context, session string) (ctxkeep.ArchiveCursor, bool, error) {
	return s.index.Cursor(ctx, session)
}

func (s *Store) SaveChunks(ctx context.Context, session string, chunks []ctxkeep.Chunk, cur ctxkeep.ArchiveCursor) (int, error) {
	return s.index.SaveChunks(ctx, session, chunks, cur)
}

func (s *Store) Chunks(ctx context.Context, session string) ([]ctxkeep.Chunk, error) {
	return s.index.Chunks(ctx, session)
}

func (s *Store) Chunk(ctx context.Context, key string) (ctxkeep.Chunk, error) {
	return s.index.Chunk(ctx, key)
}

// ChunkHeads returns a session's chunks without their bodies.
func (s *Store) ChunkHeads(ctx context.Context, session string) ([]ctxkeep.Chunk, error) {
	return s.index.ChunkHeads(ctx, session)
}

func (s *Store) TurnRange(ctx context.Context, session string, from, to int) ([]ctxkeep.Chunk, error) {
	return s.index.TurnRange(ctx, session, from, to)
}

func (s *Store) SearchChunks(ctx context.Context, q ctxkeep.ChunkQuery) ([]ctxkeep.ChunkHit, error) {
	return s.index.SearchChunks(ctx, q)
}

func (s *Store) ChunkSessions(ctx context.Context) ([]string, error) {
	return s.index.ChunkSessions(ctx)
}

func (s *Store) ColdTasks(ctx context.Context, session string) ([]ctxkeep.ColdTask, error) {
	return s.index.ColdTasks(ctx, session)
}

func (s *Store) AddColdTasks(ctx context.Context, session string, tasks []ctxkeep.ColdTask, now time.Time) error {
	return s.index.AddColdTasks(ctx, session, tasks, now)
}

// What the hooks saw, for stats and prune.

// Ingested counts what IngestJournals moved into the index.
type Ingested struct {
	Events   int // new events indexed
	BadLines int // journal lines that did not decode (skipped)
	// Large are the outputs of commands the new events swapped out, to
	// learn from (internal/app does).
	Large []ctxkeep.LargeOutput
}

// IngestJournals moves new journal lines (all sessions' when session is "")
// into the index, each line exactly once; see sqlite.IngestJournals.
func (s *Store) IngestJournals(ctx context.Context, dir, session string) (Ingested, error) {
	r, err := s.index.IngestJournals(ctx, dir, session)
	return Ingested{Events: r.Events, BadLines: r.BadLines, Large: r.Large}, err
}

// Stats returns per-session summaries of the hook calls, most recent first.
func (s *Store) Stats(ctx context.Context, session string) ([]ctxkeep.SessionStats, error) {
	return s.index.Stats(ctx, session)
}

// Swaps returns what was swapped out of sessions (all when session is "").
func (s *Store) Swaps(ctx context.Context, session string) (map[string]*ctxkeep.SwapStats, error) {
	return s.index.Swaps(ctx, session)
}

// LastClientVersion is the client version the most recent session reported.
func (s *Store) LastClientVersion(ctx context.Context) (string, time.Time, error) {
	return s.index.LastClientVersion(ctx)
}

// EntrySessions lists the sessions that have entries, latest first.
func (s *Store) EntrySessions(ctx context.Context) ([]string, error) {
	return s.index.EntrySessions(ctx)
}

// Sessions returns when the hooks last saw each session.
func (s *Store) Sessions(ctx context.Context) (map[string]ctxkeep.Session, error) {
	return s.index.SessionsSeen(ctx)
}

// BlobSizes returns the stored size of every blob, and their sum.
func (s *Store) BlobSizes(ctx context.Context) (map[ctxkeep.Hash]int64, int64, error) {
	return s.index.BlobSizes(ctx)
}

// StoredBytes is the size of the store as prune counts it: one aggregate.
func (s *Store) StoredBytes(ctx context.Context) (int64, error) { return s.index.StoredBytes(ctx) }

// PruneDue reports cheaply whether a prune could have anything to do.
func (s *Store) PruneDue(ctx context.Context, olderThan time.Time, perSession int, totalBytes int64) (bool, error) {
	return s.index.PruneDue(ctx, olderThan, perSession, totalBytes)
}

// Optimize merges the full-text indexes, checkpoints and vacuums the index.
func (s *Store) Optimize(ctx context.Context) (sqlite.Optimized, error) { return s.index.Optimize(ctx) }

// The proof of effect (internal/proof) is the index's.

func (s *Store) Unproven(ctx context.Context, session string) ([]ctxkeep.Entry, error) {
	return s.index.Unproven(ctx, session)
}

func (s *Store) ProofCursor(ctx context.Context, session, transcript string) (offset int64, line int, err error) {
	return s.index.ProofCursor(ctx, session, transcript)
}

func (s *Store) SaveProof(ctx context.Context, session, transcript string, offset int64, line int, vs []ctxkeep.Verdict) error {
	return s.index.SaveProof(ctx, session, transcript, offset, line, vs)
}

func (s *Store) NotApplied(ctx context.Context, limit int) ([]ctxkeep.Entry, error) {
	return s.index.NotApplied(ctx, limit)
}
