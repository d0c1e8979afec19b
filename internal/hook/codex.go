package hook

import (
	"context"
	"fmt"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/claudecode"
	"github.com/ctxkeep/ctxkeep/internal/codex"
	"github.com/ctxkeep/ctxkeep/internal/gemini"
	"github.com/ctxkeep/ctxkeep/internal/swap"
	"github.com/ctxkeep/ctxkeep/internal/watch"
)

// codexHandlers routes the events ctxkeep registers with Codex
// (`ctxkeep hook --agent codex`, internal/codex.Events) to the same
// policies as Claude Code's, through the codex adapter where the two
// clients differ (docs/CODEX.md):
//   - a tool's output is replaced by the reason of a "block" decision, and
//     warnings also come with tool calls, since a Codex turn is often one
//     long run of them;
//   - PreCompact can add nothing to Codex's summary: it only archives, and
//     the restore block after compaction carries the working state;
//   - there is no PostToolUseFailure: failures come to PostToolUse too.
var codexHandlers = map[string]handler{
	"SessionStart":     all(sessionStart, restoreAfterCompact),
	"UserPromptSubmit": all(pinDirectives, usageWarnings, recallOnPrompt),
	"PreToolUse":       codexPreToolUse,
	"PostToolUse":      all(codexPostToolUse, usageWarnings),
	"PreCompact":       all(indexJournal, archiveTurn),
	"Stop":             all(indexJournal, proveReplacements, archiveTurn, pruneOverLimit),
	"SessionEnd":       all(indexJournal, proveReplacements, archiveTurn, tendAtSessionEnd),
}

// codexPostToolUse swaps a large output out of Codex's context: the exact
// output is stored, and the model gets the view in its place. A shell
// output comes without its exit status, which the rollout holds already.
func codexPostToolUse(ctx context.Context, c *Call) (*Reply, error) {
	ev := c.Event
	c.replies = true
	out, err := codex.ReadOutput(ev.ToolName, ev.ToolResponse)
	if err != nil {
		return nil, nil // not text
	}
	// Codex's tool_input has Claude Code's shape: {"command"} for the shell.
	in := claudecode.ParseInput(ev.ToolInput)
	call := swap.Call{Tool: ev.ToolName, Command: in.Command, Agent: ev.AgentID != ""}
	if swap.Decide(call, out.Text, c.Config) != "" {
		return nil, nil // below the threshold, Codex outputs stay whole (a block reason is all ctxkeep can return)
	}
	if int64(len(out.Text)) > c.Config.Limits.MaxOutputBytes {
		return nil, fmt.Errorf("%s output of %d bytes is over limits.max_output_bytes; left in the context", ev.ToolName, len(out.Text))
	}
	item := swap.Item{
		ID: swap.EntryID(ev.SessionID, ev.ToolUseID), Tool: ev.ToolName,
		Input: in.Describe(ev.ToolName, ev.ToolInput), Text: out.Text, Exit: swap.NoExit,
	}
	if ev.ToolName == codex.Shell && c.validRollout() == nil {
		if code, ok := codex.ExitCode(ev.TranscriptPath, ev.ToolUseID); ok {
			item.Exit = code
		}
	}
	view, err := c.putOutput(ctx, &item, "", c.renderer(swap.Condensing(call, out.Text, c.Config), true), false)
	if err != nil {
		return nil, err
	}
	// A large command is learned, for the wrapper to keep its whole
	// output next time: over about 40 KB Codex hands hooks only its head
	// and tail (out.Cut), and what ctxkeep stored is that.
	if ev.ToolName == codex.Shell && c.Config.Wrapper.Learn {
		c.large = &ctxkeep.LargeOutput{Project: c.Project, Command: swap.Unwrap(in.Command), Chars: len(out.Text)}
	}
	return &Reply{Decision: "block", Reason: view}, nil
}

// codexPreToolUse runs a shell command likely to print a lot through the
// wrapper (Codex applies a PreToolUse updatedInput granted with "allow"),
// so that ctxkeep keeps its whole output, which Codex would cut. Only in a
// session without a sandbox: the wrapper writes to ctxkeep's spool, out of
// the workspace, and a sandbox would refuse that before the command ran.
func codexPreToolUse(ctx context.Context, c *Call) (*Reply, error) {
	ev := c.Event
	if ev.ToolName != codex.Shell || !c.Config.Wrapper.Enabled || (ev.AgentID != "" && !c.Config.Swap.Subagents) {
		return nil, nil
	}
	in := claudecode.ParseInput(ev.ToolInput)
	if in.Command == "" || swap.IsWrapped(in.Command) || !c.likelyLarge(in.Command) || !swap.Wrappable(in.Command) {
		return nil, nil
	}
	if c.validRollout() != nil || !codex.Unsandboxed(ev.TranscriptPath) {
		return nil, nil
	}
	return c.wrap(in.Command, "ctxkeep keeps the whole output of this command")
}

// validRollout checks the transcript path before a Codex rollout is read
// at hook time: it comes from input.
func (c *Call) validRollout() error {
	return codex.ValidRollout(c.Event.TranscriptPath, c.Event.SessionID)
}

// sessionDir is the client's folder of the session's files, where the
// readable copies of swapped outputs go; "" for Codex, which has none.
func (c *Call) sessionDir() (string, error) {
	if c.Agent == ctxkeep.AgentCodex || c.Agent == ctxkeep.AgentGemini {
		return "", nil // neither has a folder its agent reads copies from
	}
	return claudecode.SessionDir(c.Event.TranscriptPath, c.Event.SessionID)
}

// limits are the session's context thresholds, as its client computes
// them: Codex's from the window it recorded with the usage and its
// configured limit, Claude Code's from its model and environment (and
// peak, the largest context seen: limitsFor).
func (c *Call) limits(u ctxkeep.Usage, peak int64) watch.Limits {
	switch c.Agent {
	case ctxkeep.AgentCodex:
		return watch.Fixed(codex.Thresholds(u.Window, codex.AutoCompactLimit(codex.Home(c.Env.Getenv))))
	case ctxkeep.AgentGemini:
		return c.geminiLimits(u)
	}
	return c.limitsFor(u.Model, peak)
}

// advance reads the lines of the session's transcript appended since p's
// cursor, in its client's dialect.
func (c *Call) advance(p *watch.Progress) error {
	switch c.Agent {
	case ctxkeep.AgentCodex:
		if err := c.validRollout(); err != nil {
			return err
		}
		return p.AdvanceIn(c.Event.TranscriptPath, codex.Usage{}, watch.TranscriptLimits(c.Config))
	case ctxkeep.AgentGemini:
		if err := c.validChat(); err != nil {
			return err
		}
		return p.AdvanceIn(c.Event.TranscriptPath, gemini.Usage{}, watch.TranscriptLimits(c.Config))
	}
	return p.AdvanceWithin(c.Event.TranscriptPath, watch.TranscriptLimits(c.Config))
}

// clientName is how warnings name the client.
func (c *Call) clientName() string {
	switch c.Agent {
	case ctxkeep.AgentCodex:
		return "Codex"
	case ctxkeep.AgentGemini:
		return "Gemini CLI"
	}
	return "Claude Code"
}
