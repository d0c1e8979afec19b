package hook

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/claudecode"
	"github.com/ctxkeep/ctxkeep/internal/fsx"
	"github.com/ctxkeep/ctxkeep/internal/gemini"
	"github.com/ctxkeep/ctxkeep/internal/keep"
	"github.com/ctxkeep/ctxkeep/internal/redact"
	"github.com/ctxkeep/ctxkeep/internal/swap"
	"github.com/ctxkeep/ctxkeep/internal/text"
	"github.com/ctxkeep/ctxkeep/internal/watch"
)

// geminiHandlers routes the events ctxkeep registers with Gemini CLI
// (`ctxkeep hook --agent gemini`, internal/gemini.Events) to the same
// policies as Claude Code's, through the gemini adapter where the clients
// differ (docs/GEMINI.md):
//   - AfterTool replaces a large result with the view through a "deny"
//     decision, whose reason the model gets, exactly, as the tool's error;
//   - BeforeTool runs a command likely to print a lot through the wrapper
//     (the CLI applies a rewritten tool_input);
//   - PreCompress fires before every turn and can change nothing: it
//     archives; the restore block goes into every request whose history
//     the CLI compressed, next to its <state_snapshot>, by BeforeModel;
//   - AfterAgent is the end of a turn (Stop): the chat is checked for
//     each view the model got (proof.ScanChat).
var geminiHandlers = map[string]handler{
	"SessionStart": sessionStart,
	"BeforeAgent":  all(pinDirectives, usageWarnings, recallOnPrompt),
	"BeforeModel":  geminiRestore,
	"BeforeTool":   geminiBeforeTool,
	"AfterTool":    geminiAfterTool,
	"PreCompress":  all(indexJournal, archiveTurn),
	"AfterAgent":   all(indexJournal, proveReplacements, archiveTurn, pruneOverLimit),
	"SessionEnd":   all(indexJournal, proveReplacements, archiveTurn, tendAtSessionEnd),
}

// geminiSessionChat points the call at the chat the CLI writes the
// session to: after a resume in another minute than the session began,
// some events (SessionStart) name a stray chat file of the resume, nearly
// empty, whose reading would reset the cursors of watch, keep and proof
// (gemini.SessionChat). It runs before the handler and the journal, which
// records the path.
func (c *Call) geminiSessionChat() {
	if c.Agent == ctxkeep.AgentGemini && c.validChat() == nil {
		c.Event.TranscriptPath = gemini.SessionChat(c.Event.TranscriptPath, c.Event.SessionID)
	}
}

// geminiCallID stands for the id of the call an event is about: Gemini's
// tool payloads carry none. The event's time, tool and input make one
// that is the same for no two calls of a session.
func geminiCallID(ev *Event) string {
	sum := sha256.Sum256([]byte(ev.Timestamp + "\x00" + ev.ToolName + "\x00" + string(ev.ToolInput)))
	return "gemini_" + hex.EncodeToString(sum[:10])
}

// geminiAfterTool swaps a large result out of Gemini's context: the exact
// output is stored, and the model gets the view instead, as the reason of
// a deny decision (the CLI gives the model that reason, whole, as the
// tool's error). Below the threshold the result stays whole, and the
// context warnings may come with it.
func geminiAfterTool(ctx context.Context, c *Call) (*Reply, error) {
	ev := c.Event
	c.replies = true // the deny's reason: the chat holds it, proof finds it there
	out, err := gemini.ReadOutput(ev.ToolName, ev.ToolResponse)
	if err != nil {
		return usageWarnings(ctx, c) // not text
	}
	tool := gemini.ClaudeName(ev.ToolName)
	in := claudecode.ParseInput(ev.ToolInput)
	call := swap.Call{Tool: tool, Command: in.Command, FilePath: in.FilePath}
	if swap.Decide(call, out.Text, c.Config) != "" {
		return usageWarnings(ctx, c) // below the threshold: a deny's reason is all ctxkeep can return
	}
	if int64(len(out.Text)) > c.Config.Limits.MaxOutputBytes {
		return nil, fmt.Errorf("%s output of %d bytes is over limits.max_output_bytes; left in the context", ev.ToolName, len(out.Text))
	}
	ev.ToolUseID = geminiCallID(ev)
	item := swap.Item{
		ID: swap.EntryID(ev.SessionID, ev.ToolUseID), Tool: tool,
		Input: in.Describe(tool, ev.ToolInput), Text: out.Text, Exit: swap.NoExit,
	}
	if ev.ToolName == gemini.Shell && out.Exit >= 0 {
		item.Exit = out.Exit
	}
	view, err := c.putOutput(ctx, &item, "", c.renderer(swap.Condensing(call, out.Text, c.Config), true), false)
	if err != nil {
		return nil, err
	}
	if ev.ToolName == gemini.Shell && c.Config.Wrapper.Learn {
		c.large = &ctxkeep.LargeOutput{Project: c.Project, Command: swap.Unwrap(in.Command), Chars: len(out.Text)}
	}
	return &Reply{Decision: "deny", Reason: view}, nil
}

// geminiBeforeTool runs a shell command likely to print a lot (a test,
// build or lint runner, or a command learned to be large) through the
// wrapper: the CLI runs the tool_input a BeforeTool hook gives back. The
// wrapped command prints the view itself, which reaches the model as the
// command's own (successful) output.
func geminiBeforeTool(ctx context.Context, c *Call) (*Reply, error) {
	ev := c.Event
	if ev.ToolName != gemini.Shell || !c.Config.Wrapper.Enabled {
		return nil, nil
	}
	in := claudecode.ParseInput(ev.ToolInput)
	if in.Command == "" || swap.IsWrapped(in.Command) || !c.likelyLarge(in.Command) || !swap.Wrappable(in.Command) {
		return nil, nil
	}
	ev.ToolUseID = geminiCallID(ev)
	r, err := c.wrap(in.Command, "")
	if err != nil || r == nil {
		return nil, err
	}
	return &Reply{Specific: &SpecificOutput{HookEventName: ev.HookEventName, ToolInput: r.Specific.UpdatedInput}}, nil
}

// geminiRestore answers BeforeModel: when the history the CLI is about to
// send was compressed (it holds a <state_snapshot>), ctxkeep's restore
// block is put after the snapshot, in the same message. The CLI does not
// keep a hook's edit in its history, so every request of a compressed
// history gets it again: the block is worked out once per snapshot and
// kept in the state folder.
func geminiRestore(ctx context.Context, c *Call) (*Reply, error) {
	raw := c.Event.LLMRequest
	if len(raw) == 0 || !bytes.Contains(raw, []byte("state_snapshot")) { // the brackets may be escaped (\u003c)
		return nil, nil
	}
	var req map[string]json.RawMessage
	if err := json.Unmarshal(raw, &req); err != nil {
		return nil, err
	}
	var msgs []map[string]json.RawMessage
	if err := json.Unmarshal(req["messages"], &msgs); err != nil {
		return nil, err
	}
	at, snapshot := -1, ""
	for i, m := range msgs {
		var content string
		if json.Unmarshal(m["content"], &content) != nil {
			continue
		}
		if k := strings.Index(content, "<state_snapshot>"); k >= 0 {
			at, snapshot = i, content[k:]
			break
		}
	}
	if at < 0 || strings.Contains(snapshot, restoreHead) {
		return nil, nil
	}
	block, err := c.geminiBlock(ctx, snapshot)
	if err != nil || block == "" {
		return nil, err
	}
	var content string
	json.Unmarshal(msgs[at]["content"], &content)
	msgs[at]["content"], _ = json.Marshal(strings.TrimRight(content, "\n") + "\n\n" + block)
	req["messages"], _ = json.Marshal(msgs)
	edited, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	return &Reply{Specific: &SpecificOutput{HookEventName: c.Event.HookEventName, LLMRequest: edited}}, nil
}

// restoreHead starts ctxkeep's restore block (keep's).
const restoreHead = "ctxkeep restored this session's working state"

// geminiBlock is the restore block for the session after the compression
// that left snapshot: the one already worked out for it, or a new one.
func (c *Call) geminiBlock(ctx context.Context, snapshot string) (string, error) {
	sum := sha256.Sum256([]byte(snapshot))
	key := hex.EncodeToString(sum[:])
	path := gemini.RestoredFile(c.keepDir(), c.Event.SessionID)
	var was gemini.Restored
	if data, err := fsx.ReadRegular(path, 4<<20); err == nil && json.Unmarshal(data, &was) == nil && was.Snapshot == key {
		return was.Block, nil
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		c.logf("BeforeModel session=%s: %v", c.Event.SessionID, err)
	}
	st, s, err := c.keepSession()
	if err != nil || st == nil {
		return "", err
	}
	block, err := keep.Restore(ctx, st, s, c.keepOptions())
	if err != nil {
		return "", err
	}
	if c.Config.Privacy.Redact {
		block = redact.String(block)
	}
	block = text.Printable(block)
	data, _ := json.Marshal(gemini.Restored{Snapshot: key, Block: block})
	if err := fsx.MkdirPrivate(c.keepDir()); err == nil {
		err = fsx.WriteFileReplace(path, data, fsx.FilePerm)
		if err != nil {
			c.logf("BeforeModel session=%s: keep the restore block: %v", c.Event.SessionID, err)
		}
	}
	return block, nil
}

// geminiLimits are a Gemini session's thresholds: the model's limit and
// the compression point of the merged settings.
func (c *Call) geminiLimits(u ctxkeep.Usage) watch.Limits {
	return watch.Fixed(gemini.Thresholds(u.Model, gemini.CompressionThreshold(c.Env.Getenv, c.Project)))
}

// validChat checks the transcript path before a Gemini chat is read at
// hook time: it comes from input.
func (c *Call) validChat() error { return gemini.ValidChat(c.Event.TranscriptPath) }

// claudeEvent is the Claude Code event whose deadline and role the call's
// event takes: itself for Claude Code and Codex.
func (c *Call) claudeEvent() string {
	if c.Agent == ctxkeep.AgentGemini {
		if e, ok := gemini.ClaudeEvent[c.Event.HookEventName]; ok {
			return e
		}
	}
	return c.Event.HookEventName
}
