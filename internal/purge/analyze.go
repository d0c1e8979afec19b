package purge

import (
	"cmp"
	"slices"

	"github.com/ctxkeep/ctxkeep/internal/claudecode"
	"github.com/ctxkeep/ctxkeep/internal/transcript"
)

// Analysis is where a transcript's bytes are.
type Analysis struct {
	Path            string       `json:"path"`
	SessionID       string       `json:"session_id"`
	Bytes           int64        `json:"bytes"`
	Lines           int          `json:"lines"`
	ByType          []TypeSize   `json:"by_type"`
	ToolResults     int          `json:"tool_results"`
	ToolResultBytes int64        `json:"tool_result_bytes"` // of their text
	Biggest         []ResultSize `json:"biggest_results"`
	Thinking        int          `json:"thinking_blocks"`
	ThinkingBytes   int64        `json:"thinking_bytes"`
	Compactions     int          `json:"compactions"`
}

// TypeSize is the lines of one record type ("invalid" for lines that are
// not JSON objects).
type TypeSize struct {
	Type  string `json:"type"`
	Lines int    `json:"lines"`
	Bytes int64  `json:"bytes"`
}

// ResultSize is one tool result.
type ResultSize struct {
	Line      int    `json:"line"`
	ToolUseID string `json:"tool_use_id"`
	Tool      string `json:"tool"`
	Input     string `json:"input,omitempty"`
	Bytes     int    `json:"bytes"`
	IsError   bool   `json:"is_error,omitempty"`
}

// Biggest is how many of the largest tool results an Analysis lists.
const Biggest = 10

// Analyze measures t.
func (t *Transcript) Analyze() Analysis {
	recs := t.records()
	a := Analysis{Path: t.Path, SessionID: t.SessionID, Bytes: int64(len(t.Data)), Lines: len(t.Lines),
		Compactions: len(transcript.Compactions(recs))}
	byType := map[string]*TypeSize{}
	calls, _ := transcript.ToolCalls(recs)
	names := map[string]*transcript.ToolCall{}
	for i := range calls {
		names[calls[i].ID] = &calls[i]
	}
	var results []ResultSize
	for _, l := range t.Lines {
		kind := "invalid"
		switch {
		case l.Valid:
			kind = l.Rec.Type
		case l.Blank():
			kind = "blank"
		}
		ts := byType[kind]
		if ts == nil {
			ts = &TypeSize{Type: kind}
			byType[kind] = ts
		}
		ts.Lines++
		ts.Bytes += int64(len(l.Raw)) + 1
		if !l.Valid || l.Rec.Message == nil {
			continue
		}
		for _, b := range l.Rec.Message.Content.Blocks {
			switch {
			case isThinking(b):
				a.Thinking++
				a.ThinkingBytes += int64(len(b.Thinking))
			case b.Type == transcript.BlockToolResult:
				r := ResultSize{Line: l.Rec.Line, ToolUseID: b.ToolUseID, Tool: "unknown", Bytes: len(b.Content.Text()), IsError: b.IsError}
				if c := names[b.ToolUseID]; c != nil {
					r.Tool, r.Input = c.Name, claudecode.ParseInput(c.Input).Describe(c.Name, c.Input)
				}
				a.ToolResults++
				a.ToolResultBytes += int64(r.Bytes)
				results = append(results, r)
			}
		}
	}
	for _, ts := range byType {
		a.ByType = append(a.ByType, *ts)
	}
	slices.SortFunc(a.ByType, func(x, y TypeSize) int { return cmp.Or(cmp.Compare(y.Bytes, x.Bytes), cmp.Compare(x.Type, y.Type)) })
	slices.SortStableFunc(results, func(x, y ResultSize) int { return cmp.Compare(y.Bytes, x.Bytes) })
	a.Biggest = results[:min(Biggest, len(results))]
	return a
}
