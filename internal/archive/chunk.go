// Package archive turns a Claude Code conversation into chunks — one per
// turn, with the exact text and what the turn did (tools, files, commands
// and how they went, errors, decisions, corrections, tasks) — and folds
// those into the session's working state. It is what survives compaction:
// the archive is searched, and the state restored, after the client has
// summarised the conversation away.
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

// ChunkKey names a session's turn (or summary) for people and the model.
// The 'k' keeps it apart from the hex ids of swapped outputs.
func ChunkKey(session, kind string, turn int) string {
	s := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%s\x00%d", session, kind, turn)))
	return "k" + hex.EncodeToString(s[:])[:11]
}

// Swapped is a tool output ctxkeep kept out of the context, found by the
// tool call that produced it.
type Swapped struct {
	ID   string // the entry id
	Text string // the original output
}

// Lookup finds the swapped output of a tool call, if there is one.
type Lookup func(toolUseID string) (Swapped, bool)

// FromTurn archives one turn. Secrets in it (what the user and the model
// wrote, the calls' inputs and results, the swapped outputs) are replaced
// by markers first: the chunk is indexed, searched and restored.
func FromTurn(session, project string, index int, t transcript.Turn, lookup Lookup) ctxkeep.Chunk {
	t = redactTurn(t)
	c := ctxkeep.Chunk{
		Key: ChunkKey(session, ctxkeep.KindTurn, index), SessionID: session, Project: project, Kind: ctxkeep.KindTurn, Turn: index,
		Start: t.Start, End: t.End, Prompt: short(t.UserText, 500),
	}
	var body strings.Builder
	if t.UserText != "" {
		fmt.Fprintf(&body, "user: %s\n", t.UserText)
	}
	c.Meta = extract(t)
	for _, call := range t.Calls {
		renderCall(&c, &body, call, lookup)
	}
	if t.AssistantText != "" {
		fmt.Fprintf(&body, "assistant: %s\n", t.AssistantText)
	}
	if t.Interrupted {
		body.WriteString("(interrupted by the user)\n")
	}
	c.Body = body.String()
	c.Summary = summarize(t, c.Meta)
	return c
}

// renderCall writes a tool call and its result. A result ctxkeep swapped
// out is written as a reference to the stored original, which `ctxkeep
// recall` expands.
func renderCall(c *ctxkeep.Chunk, b *strings.Builder, call transcript.ToolCall, lookup Lookup) {
	in := claudecode.ParseInput(call.Input)
	fmt.Fprintf(b, "→ %s: %s\n", call.Name, short(in.Describe(call.Name, call.Input), 2000))
	if call.Result == nil {
		b.WriteString("← (no result)\n")
		return
	}
	status := "result"
	if call.Result.IsError {
		status = "error"
	}
	if lookup != nil {
		if s, ok := lookup(call.ID); ok {
			fmt.Fprintf(b, "← %s: %s%s]]\n", status, RefPrefix, s.ID)
			c.Meta.Entries = append(c.Meta.Entries, s.ID)
			c.Outputs = append(c.Outputs, redact.String(s.Text))
			return
		}
	}
	fmt.Fprintf(b, "← %s: %s\n", status, call.Result.Text())
}

// RefPrefix starts a reference to a swapped output in a chunk's body:
// [[ctxkeep:ID]].
const RefPrefix = "[[ctxkeep:"

// FromSummary archives a compaction summary the client wrote at at.
func FromSummary(session, project string, index int, text string, at time.Time) ctxkeep.Chunk {
	return ctxkeep.Chunk{
		Key: ChunkKey(session, ctxkeep.KindSummary, index), SessionID: session, Project: project, Kind: ctxkeep.KindSummary, Turn: index,
		Start: at, End: at, Summary: "the client's compaction summary #" + fmt.Sprint(index),
		Body: redact.String(text),
	}
}

// redactTurn returns t with secrets replaced by markers in the user's and
// the model's text and in the calls' inputs and results (a result that
// changes is kept as its text). t's slices are shared when nothing changes.
func redactTurn(t transcript.Turn) transcript.Turn {
	t.UserText, t.AssistantText = redact.String(t.UserText), redact.String(t.AssistantText)
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
func summarize(t transcript.Turn, m ctxkeep.Meta) string {
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

// short cuts s, trimmed, to n bytes.
func short(s string, n int) string { return text.Cut(strings.TrimSpace(s), n) }
