// Package keep is what makes a session survive compaction: it keeps the
// archive of the session's transcript up to date (incrementally, from a
// cursor), folds the working state from it, and writes the two texts that
// carry the session across a compaction — the preservation block the
// summariser reads, and the restore block the model gets afterwards.
//
// The hook calls it at the end of each turn (Stop), before compaction
// (PreCompact) and after it (SessionStart with source "compact"); the CLI
// calls it for search and recall.
package keep

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/archive"
	"github.com/ctxkeep/ctxkeep/internal/transcript"
)

// Session names what is archived.
type Session struct {
	ID         string
	Project    string
	Transcript string
	// Agent is the client the session runs in (ctxkeep.AgentClaudeCode when
	// empty), and Reader reads its transcript (Claude Code's when nil).
	Agent  string
	Reader Reader
}

// A Reader reads one client's session transcript from a cursor: every
// line from there on, cut into turns. The agents' adapters implement it;
// the archive and the working state only see its turns.
type Reader interface {
	// Read reads the transcript at path from the line at from, which starts
	// a turn (or the file), and takes every line read into usage. A file
	// shorter than the cursor is an error wrapping transcript.ErrShrunk.
	Read(path string, from transcript.Cursor, usage ctxkeep.Usage) (*Read, error)
}

// Read is what a Reader found from the cursor on.
type Read struct {
	Turns     []Turn    // in order; the last may still grow
	Summaries []Summary // the compaction summaries the client wrote, in order
	Usage     ctxkeep.Usage
	Next      transcript.Cursor // the end of the last whole line read
	Problems  int               // lines that could not be read
}

// Turn is one turn of the conversation and where its first line is.
type Turn struct {
	transcript.Turn // what archive.FromTurn reads: texts, calls, times
	// At is the cursor of the turn's first line; zero for records before
	// the first prompt that have no line (nothing to resume from).
	At transcript.Cursor
}

// Summary is a compaction summary and where it is.
type Summary struct {
	Text   string
	Time   time.Time
	Offset int64
}

func (s Session) reader() Reader {
	if s.Reader == nil {
		return claudeReader{}
	}
	return s.Reader
}

func (s Session) agent() string {
	if s.Agent == "" {
		return ctxkeep.AgentClaudeCode
	}
	return s.Agent
}

// ArchiveResult says what an archive run did.
type ArchiveResult struct {
	Read     int64 // bytes of transcript read
	Written  int   // chunks written (new or changed)
	Turns    int   // turns in the session so far
	Problems int   // transcript lines that could not be read
	Usage    ctxkeep.Usage
}

// Archive brings the session's archive up to date with its transcript. It
// reads only what is new since the last run, from the first line of the
// last turn (which may have been open then): running it again costs
// little and stores nothing twice.
func Archive(ctx context.Context, st ctxkeep.Store, s Session) (ArchiveResult, error) {
	var res ArchiveResult
	cur, ok, err := st.Cursor(ctx, s.ID)
	if err != nil {
		return res, err
	}
	if !ok || cur.Transcript != s.Transcript {
		cur = ctxkeep.ArchiveCursor{Transcript: s.Transcript, Turn: 1}
	}
	r := s.reader()
	f, err := r.Read(s.Transcript, transcript.Cursor{Offset: cur.Offset, Line: cur.Line}, cur.Usage)
	if errors.Is(err, transcript.ErrShrunk) {
		// Rewritten under us (a purge): read it all again; turns are
		// replaced by index, nothing is duplicated.
		cur = ctxkeep.ArchiveCursor{Transcript: s.Transcript, Turn: 1}
		f, err = r.Read(s.Transcript, transcript.Cursor{}, ctxkeep.Usage{})
	}
	if err != nil {
		return res, fmt.Errorf("archive %s: %w", s.Transcript, err)
	}
	res.Read, res.Problems = f.Next.Offset-cur.Offset, f.Problems
	chunks, next, err := chunksOf(ctx, st, s, f, cur)
	if err != nil {
		return res, err
	}
	next.Usage = f.Usage
	if res.Written, err = st.SaveChunks(ctx, s.ID, chunks, next); err != nil {
		return res, err
	}
	res.Turns, res.Usage = next.Turn, next.Usage
	return res, nil
}

// chunksOf cuts what was read into turn chunks (and compaction summary
// chunks), numbering turns from the cursor's, and returns the cursor for
// next time: the start of the last turn.
func chunksOf(ctx context.Context, st ctxkeep.Store, s Session, f *Read, cur ctxkeep.ArchiveCursor) ([]ctxkeep.Chunk, ctxkeep.ArchiveCursor, error) {
	next := cur
	next.Transcript = s.Transcript
	if len(f.Turns) == 0 {
		return nil, next, nil
	}
	lookup, err := swapLookup(ctx, st, s.ID)
	if err != nil {
		return nil, next, err
	}
	var chunks []ctxkeep.Chunk
	starts := make([]int64, len(f.Turns))
	for i, t := range f.Turns {
		c := archive.FromTurn(s.ID, s.Project, cur.Turn+i, t.Turn, lookup)
		c.Agent = s.agent()
		chunks = append(chunks, c)
		starts[i] = t.At.Offset
	}
	for _, sum := range f.Summaries {
		turn := sort.Search(len(starts), func(k int) bool { return starts[k] > sum.Offset }) - 1
		c := archive.FromSummary(s.ID, s.Project, cur.Turn+max(turn, 0), sum.Text, sum.Time)
		c.Agent = s.agent()
		chunks = append(chunks, c)
	}
	last := f.Turns[len(f.Turns)-1]
	next.Turn = cur.Turn + len(f.Turns) - 1
	next.Offset, next.Line = last.At.Offset, last.At.Line
	if next.Offset < cur.Offset { // a first turn without records: keep the old cursor
		next.Offset, next.Line = cur.Offset, cur.Line
	}
	return chunks, next, nil
}

// swapLookup finds the outputs ctxkeep swapped out of the session, by the
// tool call that produced them, reading each original only when asked.
func swapLookup(ctx context.Context, st ctxkeep.Store, session string) (archive.Lookup, error) {
	es, err := st.Entries(ctx, ctxkeep.EntryFilter{Session: session})
	if err != nil {
		return nil, err
	}
	byCall := make(map[string]ctxkeep.Entry, len(es))
	for _, e := range es {
		if e.ToolUseID != "" {
			byCall[e.ToolUseID] = e
		}
	}
	return func(toolUseID string) (archive.Swapped, bool) {
		e, ok := byCall[toolUseID]
		if !ok {
			return archive.Swapped{}, false
		}
		data, err := st.Open(ctx, e.Hash)
		if err != nil {
			return archive.Swapped{ID: e.ID}, true // referenced, not indexed: recall reports the problem
		}
		return archive.Swapped{ID: e.ID, Text: string(data)}, true
	}, nil
}
