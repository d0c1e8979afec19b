// Package ctxkeep is the glossary of ctxkeep: the nouns every part shares
// and the interfaces sized to their callers, each with its error contract.
// It imports nothing of ctxkeep's own. Adapters (internal/blob, sqlite,
// store, journal, postgres) implement its interfaces; the composition roots
// (cmd/ctxkeep, cmd/ctxkeep-hook) build them and hand them on as these
// interfaces; policies (swap, archive, keep, watch, prune, purge, team…)
// and entry points (hook, cli, mcp) use nothing else of storage. Agents
// (claudecode, codex, transcript) are the shapes of one client each and
// decide nothing. docs/ARCHITECTURE.md draws the rows.
//
// One word, one meaning:
//
//   - A Session is one conversation of an agent, named by the client's id,
//     with its transcript (Claude Code) or rollout (Codex) file.
//   - A Project is the folder a session works in, and only that: the root
//     the client reports, else the git root of the working directory, else
//     the working directory (internal/project resolves it, for the hooks,
//     the commands, `ctxkeep archive` and the MCP server alike). Config,
//     learned commands, permissions, the archive's scope and search's scope
//     all use it. A team project is a project opted into the team archive,
//     named after its git remote (internal/team).
//   - Swap is the feature that takes a large tool output out of the
//     context. An Entry is one such output: its exact bytes are a blob named
//     by their Hash; the entry says which call produced it, what the model
//     saw instead (a view, a condensed output, a cleaned one, a pointer),
//     and how strongly it is pinned. Kept out is what swap saved, counted
//     only where the transcript shows the replacement applied (a Verdict).
//   - The archive is the searchable record of sessions: a Chunk is one
//     step of a turn (or a turn, or a compaction summary the client wrote)
//     rendered as text with what it did (Meta). Archiving is writing chunks
//     (`ctxkeep archive`, the hooks); the team archive is the same record on
//     a server (TeamArchive). Recall prints a chunk exactly, with its
//     outputs put back (internal/recall, the one place).
//   - Keep is the feature that carries a session across compaction: it
//     keeps the archive up to date, folds the working state from it, and
//     writes the preservation notes (for the summariser), the restore block
//     (after compaction) and the supplement (what the client's summary
//     lacks).
//   - Watch is the feature that reads the context's size and warns; Tend
//     the one that pins, prunes, checks and purges.
//   - An Event is one hook call as ctxkeep saw it, recorded by an
//     EventSink (the journal) and ingested into an EventIndex for stats.
//   - A Run (internal/swap) is what a test runner, a compiler or a linter
//     reported of its own run: its counts and what failed, by name.
package ctxkeep

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// Errors shared by every backend. Implementations wrap them (fmt.Errorf
// with %w) so that callers test with errors.Is.
var (
	// ErrNotFound means nothing has that id, key, prefix or hash.
	ErrNotFound = errors.New("not found")
	// ErrAmbiguous means a prefix matches more than one id or key.
	ErrAmbiguous = errors.New("matches more than one")
	// ErrCorrupt means stored bytes do not hash to their name.
	ErrCorrupt = errors.New("corrupt")
	// ErrEmptyQuery means a search had no word to search for.
	ErrEmptyQuery = errors.New("nothing to search for: the query has no words")
)

// Errorf returns an error that reads as format and args say (a %w in
// format wraps as fmt.Errorf does) and that errors.Is matches with kind,
// one of the errors above: a message for people, a kind for programs.
func Errorf(kind error, format string, args ...any) error {
	return &kindError{kind: kind, err: fmt.Errorf(format, args...)}
}

type kindError struct {
	kind error
	err  error
}

func (e *kindError) Error() string        { return e.err.Error() }
func (e *kindError) Unwrap() error        { return errors.Unwrap(e.err) }
func (e *kindError) Is(target error) bool { return target == e.kind }

// Hash is the hex SHA-256 of exact content.
type Hash string

// Sum returns the Hash of data.
func Sum(data []byte) Hash {
	s := sha256.Sum256(data)
	return Hash(hex.EncodeToString(s[:]))
}

// ParseHash validates a hex SHA-256 (an optional "sha256:" prefix is allowed).
func ParseHash(s string) (Hash, error) {
	s = strings.TrimPrefix(strings.ToLower(s), "sha256:")
	if _, err := hex.DecodeString(s); err != nil || len(s) != 64 {
		return "", fmt.Errorf("bad hash %q: want 64 hex digits", s)
	}
	return Hash(s), nil
}

// Short is the first 12 digits, for messages.
func (h Hash) Short() string { return string(h[:min(12, len(h))]) }
