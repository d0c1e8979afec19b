// Package archive turns a Claude Code conversation into chunks — one per
// step (an action of the assistant inside its prompt's turn), with the
// exact text and what the step did (tools, files, commands and how they
// went, failures and their causes, decisions, corrections, tasks) — and
// folds those into the session's working state. It is what survives
// compaction: the archive is searched, and the state restored, after the
// client has summarised the conversation away.
//
// Everything here is pure: the hook reads the transcript and the store,
// this package computes.
package archive

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/claudecode"
	"github.com/ctxkeep/ctxkeep/internal/redact"
	"github.com/ctxkeep/ctxkeep/internal/text"
	"github.com/ctxkeep/ctxkeep/internal/transcript"
)

// ChunkKey names a session's whole turn (or summary) for people and the
// model. The 'k' keeps it apart from the hex ids of swapped outputs.
func ChunkKey(session, kind string, turn int) string {
	return key(fmt.Sprintf("%s\x00%s\x00%d", session, kind, turn))
}

// StepKey names step n of a session's turn.
func StepKey(session string, turn, n int) string {
	return key(fmt.Sprintf("%s\x00%s\x00%d\x00%d", session, ctxkeep.KindStep, turn, n))
}

func key(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "k" + hex.EncodeToString(sum[:])[:11]
}

// Swapped is a tool output ctxkeep kept out of the context, found by the
// tool call that produced it.
type Swapped struct {
	ID   string // the entry id
	Text string // the original output
}

// Lookup finds the swapped output of a tool call, if there is one.
type Lookup func(toolUseID string) (Swapped, bool)

// FromStep archives step n of a session's turn. Secrets in it (what the
// user and the model wrote, the calls' inputs and results, the swapped
// outputs) are replaced by markers first: the chunk is indexed, searched
// and restored.
func FromStep(session, project string, turn, n int, st transcript.Step, lookup Lookup) ctxkeep.Chunk {
	st = redactStep(st)
	c := ctxkeep.Chunk{
		Key: StepKey(session, turn, n), SessionID: session, Project: project, Kind: ctxkeep.KindStep, Turn: turn, Step: n,
		Start: st.Start, End: st.End, Prompt: short(st.UserText, 500),
	}
	swapped := map[string]Swapped{}
	if lookup != nil {
		for _, call := range st.Calls {
			if s, ok := lookup(call.ID); ok {
				s.Text = redact.String(s.Text)
				swapped[call.ID] = s
			}
		}
	}
	var body strings.Builder
	if st.UserText != "" {
		fmt.Fprintf(&body, "user: %s\n", st.UserText)
	}
	c.Meta = extract(st, swapped)
	for _, it := range st.Items {
		if it.Call < 0 {
			fmt.Fprintf(&body, "assistant: %s\n", it.Text)
			continue
		}
		renderCall(&c, &body, st.Calls[it.Call], swapped)
	}
	if st.Interrupted {
		body.WriteString("(interrupted by the user)\n")
	}
	c.Body = body.String()
	c.Summary = summarize(st, c.Meta)
	return c
}

// renderCall writes a tool call and its result. A result ctxkeep swapped
// out is written as a reference to the stored original, which `ctxkeep
// recall` expands.
func renderCall(c *ctxkeep.Chunk, b *strings.Builder, call transcript.ToolCall, swapped map[string]Swapped) {
	if call.Use == nil && call.Name == "" {
		fmt.Fprintf(b, "(the result of %s, a call of the step before)\n", call.ID)
	} else {
		in := claudecode.ParseInput(call.Input)
		fmt.Fprintf(b, "→ %s: %s\n", call.Name, short(in.Describe(call.Name, call.Input), 2000))
	}
	if call.Result == nil {
		b.WriteString("← (no result)\n")
		return
	}
	status := "result"
	if call.Result.IsError {
		status = "error"
	}
	if s, ok := swapped[call.ID]; ok {
		fmt.Fprintf(b, "← %s: %s%s]]\n", status, RefPrefix, s.ID)
		c.Meta.Entries = append(c.Meta.Entries, s.ID)
		c.Outputs = append(c.Outputs, s.Text)
		return
	}
	fmt.Fprintf(b, "← %s: %s\n", status, call.Result.Text())
}

// RefPrefix starts a reference to a swapped output in a chunk's body:
// [[ctxkeep:ID]].
const RefPrefix = "[[ctxkeep:"

// FromSummary archives a compaction summary the client wrote, text at
// time at, in step n of turn.
func FromSummary(session, project string, turn, n int, text string, at time.Time) ctxkeep.Chunk {
	return ctxkeep.Chunk{
		Key: SummaryKey(session, turn, n), SessionID: session, Project: project, Kind: ctxkeep.KindSummary, Turn: turn, Step: n,
		Start: at, End: at, Summary: "the client's compaction summary in turn " + fmt.Sprint(turn),
		Body: redact.String(text),
	}
}

// SummaryKey names the compaction summary written in step n of a turn.
func SummaryKey(session string, turn, n int) string {
	return key(fmt.Sprintf("%s\x00%s\x00%d\x00%d", session, ctxkeep.KindSummary, turn, n))
}

// redactStep returns t with secrets replaced by markers in the user's and
// the model's text and in the calls' inputs and results (a result that
// changes is kept as its text). t's slices are shared when nothing changes.
func redactStep(t transcript.Step) transcript.Step {
	t.UserText, t.AssistantText = redact.String(t.UserText), redact.String(t.AssistantText)
	var items []transcript.StepItem // a copy, once a text changes
	for i, it := range t.Items {
		if it.Call >= 0 {
			continue
		}
		if red := redact.String(it.Text); red != it.Text {
			if items == nil {
				items = slices.Clone(t.Items)
			}
			items[i].Text = red
		}
	}
	if items != nil {
		t.Items = items
	}
	var calls []transcript.ToolCall // a copy, once a call changes
	for i, call := range t.Calls {
		in := redact.JSON(call.Input)
		var res *transcript.ToolResult
		if call.Result != nil {
			text := call.Result.Text()
			if red := redact.String(text); red != text {
				r := *call.Result
				r.Content = transcript.Content{String: red}
				res = &r
			}
		}
		if res == nil && bytes.Equal(in, call.Input) {
			continue
		}
		if calls == nil {
			calls = slices.Clone(t.Calls)
		}
		calls[i].Input = in
		if res != nil {
			calls[i].Result = res
		}
	}
	if calls != nil {
		t.Calls = calls
	}
	return t
}

// summarize is the chunk's one line: what was asked, what was used and
// touched, and how the answer began.
func summarize(t transcript.Step, m ctxkeep.Meta) string {
	var parts []string
	if t.UserText != "" {
		parts = append(parts, firstLine(t.UserText))
	}
	if len(m.Tools) > 0 {
		parts = append(parts, "tools: "+strings.Join(m.Tools, ", "))
	}
	if files := append(append([]string{}, m.FilesModified...), m.FilesRead...); len(files) > 0 {
		parts = append(parts, "files: "+strings.Join(files[:min(len(files), 5)], ", "))
	}
	if t.AssistantText != "" {
		parts = append(parts, firstLine(t.AssistantText))
	}
	return short(strings.Join(parts, " | "), 300)
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// short is s as a terminal shows it (text.Printable: the working state,
// the summaries and the prompts kept in the index are restored and shown,
// and no escape sequence may reach the model or a person's terminal),
// trimmed, cut to n bytes. The chunk's body stays exact.
func short(s string, n int) string { return text.Cut(strings.TrimSpace(printable(s)), n) }

func printable(s string) string { return text.Printable(s) }
