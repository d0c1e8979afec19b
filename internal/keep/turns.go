package keep

import (
	"context"
	"sort"
	"time"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/transcript"
)

// A TurnReader reads one client's session transcript from a cursor at the
// start of a turn or of a step: the lines from there on, within limits, cut
// into turns and steps. Agents whose transcripts hold no whole responses
// (Codex rollouts) implement it; ReadTurns makes it a Reader.
type TurnReader interface {
	// Read reads the transcript at path from the line at from, which starts
	// a turn, a step (the first turn read then continues the turn, with no
	// prompt) or the file, within lim, and takes every line read into
	// usage. A file shorter than the cursor is an error wrapping
	// transcript.ErrShrunk.
	Read(path string, from transcript.Cursor, usage ctxkeep.Usage, lim transcript.ReadLimits) (*Turns, error)
}

// Turns is what a TurnReader found from the cursor on.
type Turns struct {
	Turns     []Turn        // in order; the last may still grow
	Summaries []TurnSummary // the compaction summaries the client wrote, in order
	Usage     ctxkeep.Usage
	Next      transcript.Cursor // the end of the last whole line read
	Problems  int               // lines that could not be read
	More      bool              // the read stopped at the limit, not at the end
}

// Turn is one turn of the conversation and where its first line is.
type Turn struct {
	transcript.Turn // texts, calls, times
	// At is the cursor of the turn's first line; zero for records before
	// the first prompt that have no line (nothing to resume from).
	At transcript.Cursor
	// Steps is the turn cut into steps by a reader that keeps no records
	// (Codex's), which alone knows the order of the model's words and
	// calls; nil: the turn is cut by its records, or is one step.
	Steps []TurnStep
}

// TurnStep is a step a TurnReader cut, and the cursor of its first line.
type TurnStep struct {
	transcript.Step
	At transcript.Cursor
}

// TurnSummary is a compaction summary and where it is.
type TurnSummary struct {
	Text   string
	Time   time.Time
	Offset int64
}

// ReadTurns is the Reader of a TurnReader. It reads at most limit bytes
// and leaves the cursor at the start of the last step read, which the next
// call reads again (it may still grow), as ReadClaude does; Cut, for a
// step longer than a call may read, is where the read stopped.
func ReadTurns(tr TurnReader) Reader {
	return func(_ context.Context, s Session, from ctxkeep.ArchiveCursor, limit int64) (*Batch, error) {
		lim := transcript.ReadLimits{Bytes: limit, Line: s.Limits.orDefault().LineBytes}
		f, err := tr.Read(s.Transcript, transcript.Cursor{Offset: from.Offset, Line: from.Line}, from.Usage, lim)
		if err != nil {
			return nil, err
		}
		b := &Batch{Next: from, Read: f.Next.Offset - from.Offset, Problems: f.Problems, More: f.More}
		b.Next.Transcript, b.Next.Usage = s.Transcript, f.Usage
		type stepAt struct {
			turn, n int
			at      transcript.Cursor
		}
		var starts []stepAt
		for i, t := range f.Turns {
			turn, first := from.Turn+i, 1
			if i == 0 {
				first = max(from.Step, 1) // the cursor's step, or the turn it starts
			}
			for k, st := range stepsOf(t) {
				b.Steps = append(b.Steps, Step{Turn: turn, N: first + k, Step: st.Step})
				starts = append(starts, stepAt{turn, first + k, st.At})
			}
		}
		for _, sum := range f.Summaries {
			at := stepAt{turn: from.Turn, n: max(from.Step, 1)}
			if k := sort.Search(len(starts), func(k int) bool { return starts[k].at.Offset > sum.Offset }) - 1; k >= 0 {
				at = starts[k]
			}
			b.Summaries = append(b.Summaries, Summary{Turn: at.turn, N: at.n, Text: sum.Text, Time: sum.Time})
		}
		b.Cut = b.Next
		if len(starts) == 0 {
			if f.Next.Offset > from.Offset && !f.More {
				// Lines outside the conversation only: move past them.
				b.Next.Offset, b.Next.Line = f.Next.Offset, f.Next.Line
			}
			return b, nil
		}
		last := starts[len(starts)-1]
		b.Next.Turn, b.Next.Step = last.turn, last.n
		if last.at.Offset >= from.Offset { // a first turn without lines keeps the old cursor
			b.Next.Offset, b.Next.Line = last.at.Offset, last.at.Line
		}
		b.Cut = b.Next
		b.Cut.Offset, b.Cut.Line, b.Cut.Step = f.Next.Offset, f.Next.Line, last.n+1
		return b, nil
	}
}

// stepsOf cuts a turn into steps: as its reader cut it, else by its
// records when the reader kept them, else as one step, its calls then the
// model's text.
func stepsOf(t Turn) []TurnStep {
	if len(t.Steps) > 0 {
		return t.Steps
	}
	if len(t.Records) > 0 {
		var out []TurnStep
		for _, st := range t.Turn.Steps() {
			off, line := st.Offset()
			out = append(out, TurnStep{Step: st, At: transcript.Cursor{Offset: off, Line: line - 1}})
		}
		return out
	}
	if t.UserText == "" && t.AssistantText == "" && len(t.Calls) == 0 {
		return nil // nothing of the conversation: outputs of calls read before
	}
	st := transcript.Step{UserText: t.UserText, AssistantText: t.AssistantText, Calls: t.Calls,
		Start: t.Start, End: t.End, Interrupted: t.Interrupted}
	for i := range t.Calls {
		st.Items = append(st.Items, transcript.StepItem{Call: i})
	}
	if t.AssistantText != "" {
		st.Items = append(st.Items, transcript.StepItem{Text: t.AssistantText, Call: -1})
	}
	return []TurnStep{{Step: st, At: t.At}}
}
