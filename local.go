package ctxkeep

import (
	"context"
	"time"
)

// The local store as the hooks and the commands use it, in interfaces
// sized to their callers. One adapter (internal/store: blob files plus the
// SQLite index) implements them all; a caller takes the one it needs, so
// that it can be tested with an in-memory fake.

// OpenMode is how the local store is opened.
type OpenMode int

const (
	// OpenExisting opens a store that exists and has this binary's schema,
	// and never migrates: the hook path.
	OpenExisting OpenMode = iota
	// OpenMigrate creates the store and applies pending migrations: install
	// and the commands.
	OpenMigrate
	// OpenReadOnly opens an existing store for reading only (dry runs, the
	// statusline, the web UI): no write, no checkpoint.
	OpenReadOnly
)

// Stager is PutEntry in two steps, for a caller with work to do while the
// bytes are hashed, compressed and synced (the hook builds the view).
type Stager interface {
	// Stage stores data durably.
	Stage(data []byte) (Staged, error)
}

// Staged is bytes made durable, waiting for their entry.
type Staged interface {
	// Commit indexes e as the entry of the staged bytes (e.Hash is set to
	// theirs), as PutEntry does.
	Commit(ctx context.Context, e Entry) (Entry, error)
}

// EventIndex is what the hooks saw, for stats, proof and prune: the
// journals moved into the index, and figures read from them.
type EventIndex interface {
	// IngestJournals moves new journal lines of dir (one session's, all
	// when session is "") into the index, each line exactly once.
	IngestJournals(ctx context.Context, dir, session string) (Ingested, error)
	// Stats returns per-session summaries of the hook calls, most recent
	// first (one session's when session is set).
	Stats(ctx context.Context, session string) ([]SessionStats, error)
	// Swaps returns what was swapped out of sessions (all when session is "").
	Swaps(ctx context.Context, session string) (map[string]*SwapStats, error)
	// LastClientVersion is the client version the latest session reported.
	LastClientVersion(ctx context.Context) (string, time.Time, error)
	// EntrySessions lists the sessions that have entries, latest first.
	EntrySessions(ctx context.Context) ([]string, error)
	// Sessions returns when the hooks last saw each session.
	Sessions(ctx context.Context) (map[string]Session, error)
}

// Ingested counts what IngestJournals moved into the index.
type Ingested struct {
	Events   int // new events indexed
	BadLines int // journal lines that did not decode (skipped)
	// Large are the outputs of commands the new events swapped out, in
	// order, to learn from.
	Large []LargeOutput
}

// ProofIndex keeps the proof of effect: which replacements the transcript
// shows the client took (internal/proof).
type ProofIndex interface {
	// Unproven lists the entries of session whose replacement has no
	// verdict yet.
	Unproven(ctx context.Context, session string) ([]Entry, error)
	// ProofCursor is how far transcript has been read for session's proof.
	ProofCursor(ctx context.Context, session, transcript string) (offset int64, line int, err error)
	// SaveProof records verdicts and moves the cursor, atomically.
	SaveProof(ctx context.Context, session, transcript string, offset int64, line int, vs []Verdict) error
	// NotApplied lists the latest entries whose replacement the client did
	// not take.
	NotApplied(ctx context.Context, limit int) ([]Entry, error)
}

// Upkeep is the tending of the store: its size, integrity and garbage.
type Upkeep interface {
	// StoredBytes is the size of the store as prune counts it.
	StoredBytes(ctx context.Context) (int64, error)
	// PruneDue reports cheaply whether a prune could have anything to do.
	PruneDue(ctx context.Context, olderThan time.Time, perSession int, totalBytes int64) (bool, error)
	// BlobSizes returns the stored size of every blob, and their sum.
	BlobSizes(ctx context.Context) (map[Hash]int64, int64, error)
	// Check compares rows and blob files (with deep, hashing every blob).
	Check(ctx context.Context, deep bool) (CheckReport, error)
	// Repair fixes what Check found that can be fixed without losing data.
	Repair(ctx context.Context, r CheckReport) (Repaired, error)
	// FindGarbage lists what interrupted writes left, older than before.
	FindGarbage(ctx context.Context, before time.Time) (Garbage, error)
	// RemoveGarbage removes it, and returns what went.
	RemoveGarbage(ctx context.Context, g Garbage) (Garbage, error)
	// Optimize merges the full-text indexes, checkpoints and vacuums.
	Optimize(ctx context.Context) (Optimized, error)
	// SchemaVersion is the store's schema version.
	SchemaVersion(ctx context.Context) (int, error)
}

// ChangeFeed gives what the team sync pushes: chunks in the order they
// were written.
type ChangeFeed interface {
	// ChunksAfter returns up to limit chunks of the project root (the
	// folder or anything under it) written after change number after,
	// oldest change first.
	ChunksAfter(ctx context.Context, root string, after int64, limit int) ([]Change, error)
}

// Change is a chunk with its change number: every chunk written (new, or
// replaced because its turn grew) gets a higher one.
type Change struct {
	Seq int64
	Chunk
}

// SessionList sums up the archived sessions for a list of them (the web
// UI's Sessions page): all at once, or only those whose archive cursor
// moved since the list was read.
type SessionList interface {
	// ArchivedSessions sums up the sessions ids names (every archived one
	// when none), latest first.
	ArchivedSessions(ctx context.Context, ids ...string) ([]ArchivedSession, error)
	// ArchiveCursors returns every archived session's cursor, without its
	// usage.
	ArchiveCursors(ctx context.Context) (map[string]ArchiveCursor, error)
}

// Local is the whole local store, as the composition root hands it on.
type Local interface {
	Store
	ProjectIndex
	SessionList
	Stager
	EventIndex
	ProofIndex
	Upkeep
	ChangeFeed
	// Dir is the folder of the index.
	Dir() string
	Close() error
}

// CheckReport is what Check found.
type CheckReport struct {
	Rows          int      `json:"rows"`
	Blobs         int      `json:"blobs"`
	Missing       []Hash   `json:"missing,omitempty"`    // rows without a blob: a bug
	Corrupt       []Hash   `json:"corrupt,omitempty"`    // blobs whose bytes do not hash to their name
	Dangling      []string `json:"dangling,omitempty"`   // entries (ids) whose blob has no row: a bug
	Unreferenced  []Hash   `json:"orphans,omitempty"`    // blobs without a row: garbage
	Temps         int      `json:"temp_files,omitempty"` // temp files of interrupted puts: garbage
	IndexProblems []string `json:"index,omitempty"`      // SQLite integrity findings
	FTSProblems   []string `json:"fts,omitempty"`        // full-text indexes that fail their integrity check
	Verified      bool     `json:"verified,omitempty"`   // blob contents were hashed (deep)
}

// OK reports whether nothing is wrong (garbage is not wrong).
func (r CheckReport) OK() bool {
	return len(r.Missing) == 0 && len(r.Corrupt) == 0 && len(r.Dangling) == 0 &&
		len(r.IndexProblems) == 0 && len(r.FTSProblems) == 0
}

// Repaired is what Repair did with the problems of a CheckReport.
type Repaired struct {
	Fixed   []string `json:"fixed"`
	Unfixed []string `json:"unfixed"`
}

// Garbage is what an interrupted put or removal left behind: temporary
// files, and blob files without a row.
type Garbage struct {
	Temps   []TempFile `json:"temp_files,omitempty"`
	Orphans []Orphan   `json:"orphans,omitempty"`
}

// TempFile is a temporary file an interrupted put left.
type TempFile struct {
	Path    string    `json:"path"`
	Size    int64     `json:"bytes"`
	ModTime time.Time `json:"written_at"`
}

// Orphan is a blob file without a row.
type Orphan struct {
	Hash    Hash      `json:"sha256"`
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

// Optimized is what Optimize did.
type Optimized struct {
	FTSTables    []string `json:"fts_tables"`
	BytesBefore  int64    `json:"bytes_before"` // the index plus its WAL
	BytesAfter   int64    `json:"bytes_after"`
	Checkpointed bool     `json:"checkpointed"` // the whole WAL went into the database
}
