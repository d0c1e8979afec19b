package keep

import (
	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/transcript"
)

// claudeReader reads Claude Code transcripts (internal/transcript).
type claudeReader struct{}

func (claudeReader) Read(path string, from transcript.Cursor, usage ctxkeep.Usage) (*Read, error) {
	f, err := transcript.ReadFile(path, from)
	if err != nil {
		return nil, err
	}
	out := &Read{Next: f.Next, Problems: len(f.Problems), Usage: usage}
	for _, t := range transcript.Turns(f.Records) {
		out.Turns = append(out.Turns, Turn{Turn: t, At: start(t)})
	}
	for i := range f.Records {
		r := &f.Records[i]
		transcript.UpdateUsage(&out.Usage, r)
		if r.IsCompactSummary && r.MainThread() {
			text := ""
			if r.Message != nil {
				text = r.Message.Content.Text()
			}
			out.Summaries = append(out.Summaries, Summary{Text: text, Time: r.Timestamp, Offset: r.Offset})
		}
	}
	return out, nil
}

// start is the cursor of a turn's first line (records count lines from 1).
func start(t transcript.Turn) transcript.Cursor {
	first := t.Prompt
	if first == nil && len(t.Records) > 0 {
		first = t.Records[0]
	}
	if first == nil {
		return transcript.Cursor{}
	}
	return transcript.Cursor{Offset: first.Offset, Line: first.Line - 1}
}
