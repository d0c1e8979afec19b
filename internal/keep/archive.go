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
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
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
	// Agent is the client the session runs in (ctxkeep.AgentClaudeCode
	// when empty): every chunk archived says so.
	Agent string
	// Read reads the transcript; nil reads Claude Code's (ReadClaude).
	// Another agent's transcripts (Codex rollouts, through ReadTurns) plug
	// in here.
	Read Reader
	// Limits bound what one Archive call reads; zero fields take the
	// defaults.
	Limits Limits
}

// Limits bound the work of one Archive call on a transcript of any size.
type Limits struct {
	// ReadBytes is how much of the transcript one call reads at most
	// (config limits.transcript_read_bytes): a huge transcript is archived
	// over several calls, each saving the cursor as it goes.
	ReadBytes int64
	// LineBytes is the longest line read; longer lines are skipped and
	// counted (config limits.transcript_line_bytes).
	LineBytes int
}

// Defaults of Limits.
const (
	DefaultReadBytes = 64 << 20
	DefaultLineBytes = 8 << 20
	// batchBytes is how much is read between two saves of the cursor.
	batchBytes = 8 << 20
)

func (l Limits) orDefault() Limits {
	if l.ReadBytes <= 0 {
		l.ReadBytes = DefaultReadBytes
	}
	if l.LineBytes <= 0 {
		l.LineBytes = DefaultLineBytes
	}
	// A line must fit in what one call reads, or it could never be read.
	l.LineBytes = int(min(int64(l.LineBytes), l.ReadBytes))
	return l
}

// Reader reads a session's transcript from a cursor, at most limit bytes
// of whole lines, and cuts what it read into numbered steps. Next is the
// start of the last step read, which may still grow (or from, when nothing
// new was read), with the usage seen so far.
type Reader func(ctx context.Context, s Session, from ctxkeep.ArchiveCursor, limit int64) (*Batch, error)

// Batch is a stretch of a transcript, cut into steps.
type Batch struct {
	Steps     []Step    // in order; the last one may still grow
	Summaries []Summary // the client's compaction summaries
	Next      ctxkeep.ArchiveCursor
	// Cut is where to go on from when the last step cannot be read whole
	// (it is longer than a call may read): the end of what was read, as
	// the next step of the same turn.
	Cut      ctxkeep.ArchiveCursor
	Read     int64 // bytes consumed
	Problems int   // lines that could not be read
	Skipped  int   // lines over the length limit, skipped
	More     bool  // the read stopped at limit, not at the end of the transcript
}

// Step is a step of a turn, numbered.
type Step struct {
	Turn, N int
	transcript.Step
}

// Summary is a compaction summary the client wrote, in step N of a turn.
type Summary struct {
	Turn, N int
	Text    string
	Time    time.Time
}

// ErrRewritten is returned by a Reader when the transcript is shorter
// than the cursor: it was rewritten, and is read again from the start.
var ErrRewritten = transcript.ErrShrunk

// ArchiveResult says what an archive run did.
type ArchiveResult struct {
	Read     int64 // bytes of transcript read
	Written  int   // chunks written (new or changed)
	Turns    int   // turns in the session so far
	Problems int   // transcript lines that could not be read
	Skipped  int   // lines over limits.transcript_line_bytes, skipped
	More     bool  // limits.transcript_read_bytes stopped it before the end: run it again
	Usage    ctxkeep.Usage
}

// Archive brings the session's archive up to date with its transcript. It
// reads only what is new since the last run, from the first line of the
// last step (which may have been open then): running it again costs
// little and stores nothing twice. It reads at most s.Limits.ReadBytes,
// saving the cursor every few megabytes, so that a huge transcript is
// archived over several calls rather than stalling each of them.
func Archive(ctx context.Context, st ctxkeep.Store, s Session) (ArchiveResult, error) {
	var res ArchiveResult
	lim := s.Limits.orDefault()
	read := s.Read
	if read == nil {
		read = ReadClaude
	}
	cur, ok, err := st.Cursor(ctx, s.ID)
	if err != nil {
		return res, err
	}
	if !ok || cur.Transcript != s.Transcript {
		cur = start(s)
	}
	swapped, err := swapLookup(ctx, st, s.ID)
	if err != nil {
		return res, err
	}
	restarted := false
	for budget, size := lim.ReadBytes, int64(batchBytes); budget > 0 && ctx.Err() == nil; {
		b, err := read(ctx, s, cur, min(budget, size))
		if errors.Is(err, ErrRewritten) && !restarted {
			// Rewritten under us (a purge): read it all again; steps are
			// replaced by number, nothing is duplicated.
			restarted, cur = true, start(s)
			continue
		}
		if err != nil {
			return res, fmt.Errorf("archive %s: %w", s.Transcript, err)
		}
		res.Read += b.Read
		if n := min(budget, size); b.More && b.Next.Offset == cur.Offset {
			// One step longer than the batch: read it whole if this call
			// may (the attempts are not counted: there are few); leave it
			// to the next call if this one has too little left; cut it
			// where the reading stopped only if no call could read it.
			if n < budget {
				size = 2 * n
				continue
			}
			if n < lim.ReadBytes || b.Cut.Offset <= cur.Offset {
				break // the next call goes on from here
			}
			b.Next = b.Cut
		}
		res.Problems, res.Skipped = res.Problems+b.Problems, res.Skipped+b.Skipped
		budget -= b.Read
		written, err := st.SaveChunks(ctx, s.ID, chunksOf(s, b, swapped), b.Next)
		if err != nil {
			return res, err
		}
		res.Written += written
		cur, res.More = b.Next, b.More
		if !b.More {
			break
		}
	}
	res.Turns, res.Usage = cur.Turn, cur.Usage
	return res, nil
}

// ArchiveAll runs Archive until it has read the transcript to its end,
// each call within s.Limits, calling progress (when not nil) after each:
// what `ctxkeep archive` does with a transcript too large for one hook.
func ArchiveAll(ctx context.Context, st ctxkeep.Store, s Session, progress func(sofar ArchiveResult)) (ArchiveResult, error) {
	var total ArchiveResult
	for {
		res, err := Archive(ctx, st, s)
		total.Read, total.Written = total.Read+res.Read, total.Written+res.Written
		total.Problems, total.Skipped = total.Problems+res.Problems, total.Skipped+res.Skipped
		total.Turns, total.Usage, total.More = res.Turns, res.Usage, res.More
		if err != nil || !res.More {
			return total, err
		}
		if progress != nil {
			progress(total)
		}
		if err := ctx.Err(); err != nil {
			return total, err
		}
	}
}

// start is the cursor of a transcript never read.
func start(s Session) ctxkeep.ArchiveCursor {
	return ctxkeep.ArchiveCursor{Transcript: s.Transcript, Turn: 1, Step: 1}
}

// chunksOf archives a batch's steps and summaries.
func chunksOf(s Session, b *Batch, swapped *swaps) []ctxkeep.Chunk {
	chunks := make([]ctxkeep.Chunk, 0, len(b.Steps)+len(b.Summaries))
	for _, st := range b.Steps {
		chunks = append(chunks, archive.FromStep(s.ID, s.Project, st.Turn, st.N, st.Step, swapped.lookup(st.Step, s.agent() == ctxkeep.AgentGemini)))
	}
	for _, sum := range b.Summaries {
		chunks = append(chunks, archive.FromSummary(s.ID, s.Project, sum.Turn, sum.N, sum.Text, sum.Time))
	}
	for i := range chunks {
		chunks[i].Agent = s.agent()
	}
	return chunks
}

func (s Session) agent() string {
	if s.Agent == "" {
		return ctxkeep.AgentClaudeCode
	}
	return s.Agent
}

// ReadClaude is the Reader of Claude Code's transcripts.
func ReadClaude(_ context.Context, s Session, from ctxkeep.ArchiveCursor, limit int64) (*Batch, error) {
	lim := s.Limits.orDefault()
	f, err := transcript.ReadFileLimited(s.Transcript, transcript.Cursor{Offset: from.Offset, Line: from.Line},
		transcript.ReadLimits{Bytes: limit, Line: lim.LineBytes})
	if err != nil {
		return nil, err
	}
	b := &Batch{Next: from, Cut: from, Read: f.Next.Offset - from.Offset, More: f.More}
	for _, p := range f.Problems {
		switch p.Kind {
		case transcript.TooLong:
			b.Skipped++
		case transcript.Invalid, transcript.BadField:
			b.Problems++
		}
	}
	b.Next.Transcript = s.Transcript
	for i := range f.Records {
		transcript.UpdateUsage(&b.Next.Usage, &f.Records[i])
	}
	stepOf := map[*transcript.Record][2]int{}
	for i, t := range transcript.Turns(f.Records) {
		turn, first := from.Turn+i, 1
		if i == 0 {
			first = max(from.Step, 1)
		}
		for k, st := range t.Steps() {
			b.Steps = append(b.Steps, Step{Turn: turn, N: first + k, Step: st})
			for _, r := range st.Records {
				stepOf[r] = [2]int{turn, first + k}
			}
		}
	}
	for i := range f.Records {
		r := &f.Records[i]
		if at, ok := stepOf[r]; ok && r.IsCompactSummary && r.MainThread() {
			text := ""
			if r.Message != nil {
				text = r.Message.Content.Text()
			}
			b.Summaries = append(b.Summaries, Summary{Turn: at[0], N: at[1], Text: text, Time: r.Timestamp})
		}
	}
	switch {
	case len(b.Steps) > 0:
		last := b.Steps[len(b.Steps)-1]
		off, line := last.Offset()
		b.Next.Offset, b.Next.Line, b.Next.Turn, b.Next.Step = off, line-1, last.Turn, last.N
		b.Cut = b.Next
		b.Cut.Offset, b.Cut.Line, b.Cut.Step = f.Next.Offset, f.Next.Line, last.N+1
	case f.Next.Offset > from.Offset:
		// Nothing but lines outside the conversation (progress, snapshots):
		// no step to reopen, so move past them.
		b.Next.Offset, b.Next.Line = f.Next.Offset, f.Next.Line
	}
	return b, nil
}

// swaps are the outputs ctxkeep swapped out of a session, by the tool call
// that produced them and by the view that stood in for them.
type swaps struct {
	ctx    context.Context
	st     ctxkeep.Store
	byCall map[string]ctxkeep.Entry
	byView map[string]ctxkeep.Entry // the view's hash (Entry.Replacement)
}

// viewSum is a view's hash as an entry records it (Entry.Replacement,
// proof.Sum's sha256). keep does not import proof: proof imports the
// agents, whose tests import keep.
func viewSum(view string) string {
	h := sha256.Sum256([]byte(view))
	return hex.EncodeToString(h[:])
}

// swapLookup reads the outputs ctxkeep swapped out of the session.
func swapLookup(ctx context.Context, st ctxkeep.Store, session string) (*swaps, error) {
	es, err := st.Entries(ctx, ctxkeep.EntryFilter{Session: session})
	if err != nil {
		return nil, err
	}
	w := &swaps{ctx: ctx, st: st, byCall: make(map[string]ctxkeep.Entry, len(es)), byView: map[string]ctxkeep.Entry{}}
	for _, e := range es {
		if e.ToolUseID != "" {
			w.byCall[e.ToolUseID] = e
		}
		if e.Replacement != "" {
			w.byView[e.Replacement] = e
		}
	}
	return w, nil
}

// lookup finds the swapped output of a call of step, reading its original
// only when asked. A Gemini CLI hook names no call (ctxkeep's entry has an
// id of its own), so a Gemini call's output is also found by its result:
// the view, by its exact text, as the proof of effect finds it.
func (w *swaps) lookup(step transcript.Step, byView bool) archive.Lookup {
	return func(toolUseID string) (archive.Swapped, bool) {
		e, ok := w.byCall[toolUseID]
		if !ok && byView {
			for _, c := range step.Calls {
				if c.ID == toolUseID && c.Result != nil {
					e, ok = w.byView[viewSum(c.Result.Text())]
					break
				}
			}
		}
		if !ok {
			return archive.Swapped{}, false
		}
		data, err := w.st.Open(w.ctx, e.Hash)
		if err != nil {
			return archive.Swapped{ID: e.ID}, true // referenced, not indexed: recall reports the problem
		}
		return archive.Swapped{ID: e.ID, Text: string(data)}, true
	}
}
