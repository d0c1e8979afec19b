package purge

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/claudecode"
	"github.com/ctxkeep/ctxkeep/internal/progress"
	"github.com/ctxkeep/ctxkeep/internal/swap"
	"github.com/ctxkeep/ctxkeep/internal/text"
	"github.com/ctxkeep/ctxkeep/internal/transcript"
)

// stubMarker starts every stub; a result that starts with it is never
// stubbed again.
const stubMarker = "[ctxkeep] This tool result was moved out of the transcript"

// PinLevel is the level of the outputs purge stores: the transcript now
// depends on them, so prune takes them only after every unpinned output,
// and the user's /clear or /exit does not take them at all.
const PinLevel = ctxkeep.PinSoft

// Stub is a tool result stored in the store and replaced by a short text.
type Stub struct {
	ID        string           `json:"id"` // the entry id: `ctxkeep show ID`
	ToolUseID string           `json:"tool_use_id"`
	Tool      string           `json:"tool"`
	Input     string           `json:"input,omitempty"`
	Hash      ctxkeep.Hash     `json:"sha256"`
	Bytes     int              `json:"bytes"`
	Lines     int              `json:"lines"`
	Exit      int              `json:"exit_code"` // swap.NoExit when not known
	Failures  int              `json:"failure_lines"`
	Summary   string           `json:"summary"`
	PinLevel  ctxkeep.PinLevel `json:"pin_level"`
	Line      int              `json:"line"` // 1-based line of the transcript

	text string // the result's exact text
	cwd  string
}

// EntryID is the id of the entry purge makes for a tool result: distinct
// from the one the PostToolUse hook would give the same call, whose entry
// holds what the tool printed rather than what the transcript kept.
func EntryID(session, toolUseID string) string {
	return swap.EntryID(session, "purge:"+toolUseID)
}

func newStub(session string, rec *transcript.Record, b transcript.Block, call *transcript.ToolCall, text string) *Stub {
	s := &Stub{ToolUseID: b.ToolUseID, Tool: "unknown", Hash: ctxkeep.Sum([]byte(text)), Bytes: len(text),
		Exit: swap.NoExit, PinLevel: PinLevel, Line: rec.Line, text: text, cwd: rec.Cwd}
	s.ID = EntryID(session, b.ToolUseID)
	if call != nil {
		s.Tool = call.Name
		s.Input = claudecode.ParseInput(call.Input).Describe(call.Name, call.Input)
	}
	if s.Tool == "Bash" {
		s.Exit = bashExit(text, b.IsError)
	}
	_, stats := swap.View(swap.Item{ID: s.ID, Tool: s.Tool, Input: s.Input, Text: text, Exit: s.Exit}, swap.Budget{Chars: 1000, Summary: 200})
	s.Lines, s.Failures, s.Summary = stats.Lines, stats.Failures, stats.Brief
	return s
}

// bashExit reads a Bash result's exit status: the client starts a failed
// command's result with "Exit code N".
func bashExit(text string, isError bool) int {
	if !isError {
		return 0
	}
	rest, ok := strings.CutPrefix(text, "Exit code ")
	if !ok {
		return swap.NoExit
	}
	digits, _, _ := strings.Cut(rest, "\n")
	n, err := strconv.Atoi(strings.TrimSpace(digits))
	if err != nil {
		return swap.NoExit
	}
	return n
}

// Text is what the model and the transcript keep in place of the result.
func (s *Stub) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s by `ctxkeep purge` and is kept exactly.\n", stubMarker)
	fmt.Fprintf(&b, "id: %s (sha256 %s)\n", s.ID, s.Hash)
	if s.Input != "" {
		fmt.Fprintf(&b, "call: %s `%s`\n", s.Tool, text.Cut(text.FirstLine(s.Input), 200))
	} else {
		fmt.Fprintf(&b, "tool: %s\n", s.Tool)
	}
	exit := "unknown"
	if s.Exit != swap.NoExit {
		exit = strconv.Itoa(s.Exit)
	}
	fmt.Fprintf(&b, "size: %d bytes, %d lines; exit status: %s\n", s.Bytes, s.Lines, exit)
	fmt.Fprintf(&b, "pinned: %s\n", s.PinLevel)
	if s.Summary != "" {
		fmt.Fprintf(&b, "summary: %s\n", text.Cut(text.FirstLine(s.Summary), 300))
	}
	fmt.Fprintf(&b, "Get it back with `ctxkeep show %s` (or --lines A:B, --grep RE -C N, --failures, --head N, --tail N).", s.ID)
	return b.String()
}

// StoreStubs stores every stubbed result in st as an entry of the transcript's
// session, pinned soft, and returns once they are durable and indexed: the
// transcript may then refer to them. A result stored by an earlier purge
// (the same entry id and content) is not stored again and keeps its pin.
func (p *Plan) StoreStubs(ctx context.Context, st ctxkeep.OutputStore, now time.Time) error {
	bar := progress.From(ctx)
	bar.Start("storing the large tool results", int64(len(p.Stubs)))
	for _, s := range p.Stubs {
		bar.Add(1)
		if e, err := st.Entry(ctx, s.ID); err == nil && e.ID == s.ID && e.Hash == s.Hash {
			if _, err := st.Open(ctx, e.Hash); err == nil {
				s.PinLevel = e.PinLevel
				continue
			}
		} else if err != nil && !errors.Is(err, ctxkeep.ErrNotFound) {
			return err
		}
		e := ctxkeep.Entry{
			ID: s.ID, SessionID: p.t.SessionID, ToolUseID: s.ToolUseID, Tool: s.Tool, Input: s.Input,
			Chars: s.Bytes, Lines: s.Lines, ViewChars: len(s.Text()), Failures: s.Failures, Summary: s.Summary,
			Cwd: s.cwd, CreatedAt: now, PinLevel: s.PinLevel, PinReason: "purge: kept out of the transcript",
		}
		if s.Exit != swap.NoExit {
			code := s.Exit
			e.ExitCode = &code
		}
		if _, err := st.PutEntry(ctx, e, []byte(s.text)); err != nil {
			return err
		}
	}
	return nil
}
