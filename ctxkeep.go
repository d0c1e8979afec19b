// Package ctxkeep is the glossary of ctxkeep: the nouns every part shares
// and the interfaces the policies need from storage, each with its error
// contract. It imports nothing of ctxkeep's own; adapters (internal/blob,
// internal/sqlite, internal/store, and later a PostgreSQL index) implement
// its interfaces, policies (swap, archive, keep, watch, prune, purge) use
// them, and entry points (hook, cli, mcp) wire the two together.
//
// The nouns:
//
//   - A Session is one conversation of an agent, named by the client's id,
//     with its transcript file.
//   - A Project is the folder a session works in: the project root the client
//     reports, else the git root of the working directory, else the working
//     directory itself (internal/project resolves it). Config, learned
//     commands, permissions, the archive's scope and search's scope all use
//     this one meaning.
//   - An Entry is a tool output swapped out of the context: its exact bytes
//     are a blob named by their Hash; the entry says which call produced it,
//     what the model saw instead, and how strongly it is pinned.
//   - A Chunk is a piece of the archive: a turn of the conversation (or a
//     compaction summary the client wrote), rendered as text with what it did
//     (Meta), searchable.
//   - An Event is one hook call as ctxkeep saw it, for stats.
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
