package keep

import (
	"context"
	"sort"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/transcript"
)

// ReadTurns is the Reader of a TurnReader. It reads at most limit bytes
// and leaves the cursor at the start of the last step read, which the next
// call reads again (it may still grow), as ReadClaude does; Cut, for a
// step longer than a call may read, is where the read stopped.
func ReadTurns(tr transcript.TurnReader) Reader {
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
func stepsOf(t transcript.TurnAt) []transcript.StepAt {
	if len(t.Steps) > 0 {
		return t.Steps
	}
	if len(t.Records) > 0 {
		var out []transcript.StepAt
		for _, st := range t.Turn.Steps() {
			off, line := st.Offset()
			out = append(out, transcript.StepAt{Step: st, At: transcript.Cursor{Offset: off, Line: line - 1}})
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
	return []transcript.StepAt{{Step: st, At: t.At}}
}
