package ctxkeep

import (
	"context"
	"fmt"
	"time"
)

// Entry is a tool output swapped out of the context. Its exact bytes are
// the blob Hash names; several entries may share a blob (the same output
// twice).
type Entry struct {
	ID        string `json:"id"` // 12 hex digits, shown to the model
	SessionID string `json:"session_id"`
	ToolUseID string `json:"tool_use_id,omitempty"`
	AgentID   string `json:"agent_id,omitempty"`
	Tool      string `json:"tool"`
	Input     string `json:"input"` // the call, one line: command, path, pattern
	Hash      Hash   `json:"sha256"`
	Chars     int    `json:"chars"`
	Lines     int    `json:"lines"`
	ViewChars int    `json:"view_chars"` // characters the model saw instead
	ExitCode  *int   `json:"exit_code,omitempty"`
	Failures  int    `json:"failure_lines"`
	Summary   string `json:"summary,omitempty"`
	CopyPath  string `json:"copy_path,omitempty"` // the plain-text copy the agent can Read
	Cwd       string `json:"cwd,omitempty"`
	// Project is the project of the session that stored it
	// (internal/project), "" for outputs stored before entries named it
	// whose session was never archived.
	Project     string    `json:"project,omitempty"`
	CreatedAt   time.Time `json:"created_at"`
	LastAccess  time.Time `json:"last_access,omitzero"`
	AccessCount int       `json:"retrievals"`
	PinLevel    PinLevel  `json:"pin_level"`
	PinReason   string    `json:"pin_reason,omitempty"`
	Kind        string    `json:"kind"` // what the model saw instead: "view", "condensed", "pointer" (a re-read)
	// Replacement is the sha256 of the text a hook reply put in place of
	// the output, "" when there was none (the wrapper prints its own).
	Replacement string `json:"replacement_sha256,omitempty"`
	Applied     *bool  `json:"applied,omitempty"` // the transcript holds the replacement; nil until checked
	Verdict     string `json:"verdict,omitempty"` // when not applied: what the transcript holds instead, and why
}

// Verdict says whether the client took the replacement of an entry's
// output: whether the transcript holds it (internal/proof).
type Verdict struct {
	ID      string `json:"id"` // the entry
	Applied bool   `json:"applied"`
	Reason  string `json:"reason,omitempty"` // when not applied: the tool, the shape sent, what the transcript holds and why
}

// Blob describes stored bytes.
type Blob struct {
	Hash   Hash
	Size   int64 // bytes of content
	Stored int64 // bytes on disk, compressed
}

// Removed is what a removal deleted.
type Removed struct {
	Entries []Entry
	Freed   []Blob // blobs nothing refers to any more
}

// PinLevel is how strongly a stored output is kept. Levels order what
// prune may take: unpinned outputs go first, soft pins only once nothing
// unpinned is left, hard pins never.
type PinLevel int

const (
	PinNone PinLevel = iota // pruned by age and by size, first
	PinSoft                 // pruned by size only, once nothing unpinned is left
	PinHard                 // never pruned automatically
)

var pinNames = [...]string{PinNone: "none", PinSoft: "soft", PinHard: "hard"}

func (l PinLevel) String() string {
	if l < PinNone || l > PinHard {
		return fmt.Sprintf("PinLevel(%d)", int(l))
	}
	return pinNames[l]
}

// ParsePinLevel reads "none", "soft" or "hard".
func ParsePinLevel(s string) (PinLevel, error) {
	for l, name := range pinNames {
		if s == name {
			return PinLevel(l), nil
		}
	}
	return PinNone, fmt.Errorf("bad pin level %q: want none, soft or hard", s)
}

// MarshalText writes the level's name.
func (l PinLevel) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// UnmarshalText reads a level's name.
func (l *PinLevel) UnmarshalText(b []byte) error {
	v, err := ParsePinLevel(string(b))
	*l = v
	return err
}

// EntryFilter selects entries. The zero value selects every entry.
type EntryFilter struct {
	Session string    // only this session's, when set
	Pinned  bool      // only pinned ones (soft and hard)
	Hash    Hash      // only those sharing this blob, when set
	Latest  bool      // newest first (default: oldest first)
	Limit   int       // at most this many (0: all)
	Since   time.Time // only those stored at or after it, when set
}

// OutputStore keeps swapped outputs: their exact bytes and their entries.
// It is the one door to stored outputs; nothing else writes blobs or
// entry rows.
type OutputStore interface {
	// PutEntry stores data durably, then commits e (with e.Hash set to
	// data's hash), so that no entry ever points at missing bytes. Putting
	// the same id again (a retried hook) replaces the entry; the same bytes
	// under another id share the blob. Safe against concurrent puts of the
	// same bytes and concurrent removals.
	PutEntry(ctx context.Context, e Entry, data []byte) (Entry, error)
	// Entry returns the entry with id, or the only one whose id starts with
	// it: ErrNotFound when none does, ErrAmbiguous when several do.
	Entry(ctx context.Context, id string) (Entry, error)
	// Entries lists the entries f selects.
	Entries(ctx context.Context, f EntryFilter) ([]Entry, error)
	// Open returns the exact bytes of blob h, verified against h:
	// ErrNotFound when they are not stored, ErrCorrupt when they do not
	// hash to h (never served).
	Open(ctx context.Context, h Hash) ([]byte, error)
	// Touch counts one retrieval of the entry.
	Touch(ctx context.Context, id string, now time.Time) error
	// SetPin sets the entry's pin level and reason (id may be a prefix)
	// and returns the entry as it is now.
	SetPin(ctx context.Context, id string, level PinLevel, reason string) (Entry, error)
	// Remove deletes entries, then the blobs nothing refers to any more,
	// rows before files, deciding under the write lock. An entry replaced
	// since it was read is left alone. Removing is idempotent.
	Remove(ctx context.Context, es []Entry) (Removed, error)
}

// ProjectIndex looks up what one project holds: what the MCP server,
// which serves the project of the session that started it, may reach. A
// prefix resolves among that project's items only — one that also starts
// another project's id is not ambiguous, one that starts only another
// project's is not found — so the answer says nothing of other projects.
type ProjectIndex interface {
	// ProjectEntry is Entry among project's entries: those stored in it,
	// and those stored before entries named their project whose session is
	// archived in it.
	ProjectEntry(ctx context.Context, project, id string) (Entry, error)
	// ProjectChunk is Chunk among project's chunks.
	ProjectChunk(ctx context.Context, project, key string) (Chunk, error)
	// ProjectSessions is ChunkSessions among the sessions archived in
	// project.
	ProjectSessions(ctx context.Context, project string) ([]string, error)
}

// Store is a whole backend: the outputs swapped out of the context and the
// archive of conversations, in one place so that the archive can refer to
// outputs by entry id.
type Store interface {
	OutputStore
	ArchiveIndex
}
