package keep

import (
	"context"
	"sort"
	"time"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/transcript"
)

// A TurnReader reads one client's session transcript from a cursor at the
// start of a turn: every line from there on, cut into whole turns. Agents
// whose transcripts are read whole-turn (Codex rollouts) implement it;
// ReadTurns makes it a Reader of steps.
type TurnReader interface {
	// Read reads the transcript at path from the line at from, which starts
	// a turn (or the file), and takes every line read into usage. A file
	// shorter than the cursor is an error wrapping transcript.ErrShrunk.
	Read(path string, from transcript.Cursor, usage ctxkeep.Usage) (*Turns, error)
}

// Turns is what a TurnReader found from the cursor on.
type Turns struct {
	Turns     []Turn        // in order; the last may still grow
	Summaries []TurnSummary // the compaction summaries the client wrote, in order
	Usage     ctxkeep.Usage
	Next      transcript.Cursor // the end of the last whole line read
	Problems  int               // lines that could not be read
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

// TurnStep is a step a TurnReader cut, and the offset of its first line.
type TurnStep struct {
	transcript.Step
	Offset int64
}

// TurnSummary is a compaction summary and where it is.
type TurnSummary struct {
	Text   string
	Time   time.Time
	Offset int64
}

// ReadTurns is the Reader of a whole-turn reader: it cuts each turn into
// steps, and leaves the cursor at the start of the last turn, which the
// next call reads again whole (a turn reader cannot start inside one). It
// reads everything new in one call: the limit is not applied.
func ReadTurns(tr TurnReader) Reader {
	return func(_ context.Context, s Session, from ctxkeep.ArchiveCursor, _ int64) (*Batch, error) {
		f, err := tr.Read(s.Transcript, transcript.Cursor{Offset: from.Offset, Line: from.Line}, from.Usage)
		if err != nil {
			return nil, err
		}
		b := &Batch{Next: from, Cut: from, Read: f.Next.Offset - from.Offset, Problems: f.Problems}
		b.Next.Transcript, b.Next.Usage = s.Transcript, f.Usage
		if len(f.Turns) == 0 {
			return b, nil
		}
		type stepAt struct {
			turn, n int
			offset  int64
		}
		var starts []stepAt
		for i, t := range f.Turns {
			turn := from.Turn + i
			for k, st := range stepsOf(t) {
				b.Steps = append(b.Steps, Step{Turn: turn, N: k + 1, Step: st.Step})
				starts = append(starts, stepAt{turn, k + 1, st.Offset})
			}
		}
		for _, sum := range f.Summaries {
			at := stepAt{turn: from.Turn, n: 1}
			if k := sort.Search(len(starts), func(k int) bool { return starts[k].offset > sum.Offset }) - 1; k >= 0 {
				at = starts[k]
			}
			b.Summaries = append(b.Summaries, Summary{Turn: at.turn, N: at.n, Text: sum.Text, Time: sum.Time})
		}
		last := f.Turns[len(f.Turns)-1]
		b.Next.Turn, b.Next.Step = from.Turn+len(f.Turns)-1, 1
		b.Next.Offset, b.Next.Line = last.At.Offset, last.At.Line
		if b.Next.Offset < from.Offset { // a first turn without records: keep the old cursor
			b.Next.Offset, b.Next.Line = from.Offset, from.Line
		}
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
			off, _ := st.Offset()
			out = append(out, TurnStep{Step: st, Offset: off})
		}
		return out
	}
	st := transcript.Step{UserText: t.UserText, AssistantText: t.AssistantText, Calls: t.Calls,
		Start: t.Start, End: t.End, Interrupted: t.Interrupted}
	for i := range t.Calls {
		st.Items = append(st.Items, transcript.StepItem{Call: i})
	}
	if t.AssistantText != "" {
		st.Items = append(st.Items, transcript.StepItem{Text: t.AssistantText, Call: -1})
	}
	return []TurnStep{{Step: st, Offset: t.At.Offset}}
}
