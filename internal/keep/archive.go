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

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/archive"
	"github.com/ctxkeep/ctxkeep/internal/transcript"
)

// Session names what is archived.
type Session struct {
	ID         string
	Project    string
	Transcript string
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
	f, err := transcript.ReadFile(s.Transcript, transcript.Cursor{Offset: cur.Offset, Line: cur.Line})
	if errors.Is(err, transcript.ErrShrunk) {
		// Rewritten under us (a purge): read it all again; turns are
		// replaced by index, nothing is duplicated.
		cur = ctxkeep.ArchiveCursor{Transcript: s.Transcript, Turn: 1}
		f, err = transcript.ReadFile(s.Transcript, transcript.Cursor{})
	}
	if err != nil {
		return res, fmt.Errorf("archive %s: %w", s.Transcript, err)
	}
	res.Read, res.Problems = f.Next.Offset-cur.Offset, len(f.Problems)
	chunks, next, err := chunksOf(ctx, st, s, f, cur)
	if err != nil {
		return res, err
	}
	for i := range f.Records {
		transcript.UpdateUsage(&next.Usage, &f.Records[i])
	}
	if res.Written, err = st.SaveChunks(ctx, s.ID, chunks, next); err != nil {
		return res, err
	}
	res.Turns, res.Usage = next.Turn, next.Usage
	return res, nil
}

// chunksOf cuts the records read into turn chunks (and compaction summary
// chunks), numbering turns from the cursor's, and returns the cursor for
// next time: the start of the last turn.
func chunksOf(ctx context.Context, st ctxkeep.Store, s Session, f *transcript.File, cur ctxkeep.ArchiveCursor) ([]ctxkeep.Chunk, ctxkeep.ArchiveCursor, error) {
	next := cur
	next.Transcript = s.Transcript
	turns := transcript.Turns(f.Records)
	if len(turns) == 0 {
		return nil, next, nil
	}
	lookup, err := swapLookup(ctx, st, s.ID)
	if err != nil {
		return nil, next, err
	}
	var chunks []ctxkeep.Chunk
	starts := make([]int64, len(turns))
	for i, t := range turns {
		index := cur.Turn + i
		chunks = append(chunks, archive.FromTurn(s.ID, s.Project, index, t, lookup))
		starts[i] = start(t)
	}
	chunks = append(chunks, summaries(s, f.Records, starts, cur.Turn)...)
	last := turns[len(turns)-1]
	next.Turn = cur.Turn + len(turns) - 1
	next.Offset, next.Line = start(last), startLine(last)
	if next.Offset < cur.Offset { // a first turn without records: keep the old cursor
		next.Offset, next.Line = cur.Offset, cur.Line
	}
	return chunks, next, nil
}

// summaries archives the compaction summaries among the records, each under
// the index of the turn it happened in.
func summaries(s Session, recs []transcript.Record, starts []int64, first int) []ctxkeep.Chunk {
	var out []ctxkeep.Chunk
	for i := range recs {
		r := &recs[i]
		if !r.IsCompactSummary || !r.MainThread() {
			continue
		}
		turn := sort.Search(len(starts), func(k int) bool { return starts[k] > r.Offset }) - 1
		out = append(out, archive.FromSummary(s.ID, s.Project, first+max(turn, 0), r))
	}
	return out
}

// start is the byte offset of a turn's first line.
func start(t transcript.Turn) int64 {
	if t.Prompt != nil {
		return t.Prompt.Offset
	}
	if len(t.Records) > 0 {
		return t.Records[0].Offset
	}
	return 0
}

func startLine(t transcript.Turn) int {
	if t.Prompt != nil {
		return t.Prompt.Line - 1
	}
	if len(t.Records) > 0 {
		return t.Records[0].Line - 1
	}
	return 0
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
