package hook

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"unsafe"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/claudecode"
	"github.com/ctxkeep/ctxkeep/internal/codex"
	"github.com/ctxkeep/ctxkeep/internal/fsx"
	"github.com/ctxkeep/ctxkeep/internal/proof"
	"github.com/ctxkeep/ctxkeep/internal/redact"
	"github.com/ctxkeep/ctxkeep/internal/swap"
)

// postToolUse swaps a large tool output out of the context: it stores the
// exact original (durably, and indexed), writes a plain-text copy the
// agent's Read can page through, and replies with a view in the tool's own
// output shape. Small outputs, outputs that must arrive whole and outputs
// that are not text get no reply at all.
func postToolUse(ctx context.Context, c *Call) (*Reply, error) {
	ev := c.Event
	c.replies = true
	in := claudecode.ParseInput(ev.ToolInput)
	call := swap.Call{Tool: ev.ToolName, Command: in.Command, FilePath: in.FilePath, Agent: ev.AgentID != ""}
	if len(ev.ToolResponse) >= openEarly && claudecode.HasText(ev.ToolName) && swap.PassThrough(call, c.Config.Swap) == "" {
		go c.Store() // it will be stored: open the index on the other core while the output is decoded
	}
	out, err := claudecode.ReadOutput(ev.ToolName, ev.ToolResponse)
	if err != nil {
		return nil, nil // not text: images, background tasks, tools ctxkeep does not know
	}
	if ev.ToolName == "Read" {
		if reply, err := c.rereadPointer(ctx, in, out); reply != nil || err != nil {
			return reply, err
		}
	}
	cd, over, ok := swap.Replacing(call, out.Text, c.Config)
	if !ok {
		return nil, nil
	}
	sessionDir, err := claudecode.SessionDir(ev.TranscriptPath, ev.SessionID)
	if err != nil {
		return nil, err
	}
	text, err := fullText(out, sessionDir, c.Config.Limits.MaxOutputBytes)
	if err != nil {
		return nil, err
	}
	if int64(len(text)) > c.Config.Limits.MaxOutputBytes {
		return nil, fmt.Errorf("%s output of %d bytes is over limits.max_output_bytes; left in the context", ev.ToolName, len(text))
	}
	item := swap.Item{
		ID:       swap.EntryID(ev.SessionID, ev.ToolUseID),
		Tool:     ev.ToolName,
		Input:    in.Describe(ev.ToolName, ev.ToolInput),
		Text:     text,
		Exit:     exitStatus(ev.ToolName),
		FilePath: in.FilePath,
	}
	view, err := c.putOutput(ctx, &item, sessionDir, c.renderer(cd, over), !over)
	if err != nil || view == "" {
		return nil, err // "": not condensed enough to be worth replacing
	}
	if ev.ToolName == "Bash" && c.Config.Wrapper.Learn && over {
		c.large = &ctxkeep.LargeOutput{Project: c.Project, Command: swap.Unwrap(in.Command), Chars: len(text)}
	}
	return c.replace(out, view)
}

// replace is the reply that puts view in place of out, in the tool's own
// output shape.
func (c *Call) replace(out claudecode.Output, view string) (*Reply, error) {
	repl, err := out.Replace(view)
	if err != nil {
		return nil, err
	}
	return &Reply{Specific: &SpecificOutput{
		HookEventName:        c.Event.HookEventName,
		UpdatedToolOutput:    repl.ToolOutput,
		UpdatedMCPToolOutput: repl.MCPOutput,
	}}, nil
}

// fullText is the whole output: a Bash output the client cut is read back
// from the file the client saved it to. The path comes from hook input, so
// the file must lie in the session's tool-results folder, be reached
// without a symbolic link and be a regular file of at most max bytes
// (fsx.ReadRegularBelow): a link, a FIFO or a huge sparse file put there
// is refused at once rather than read.
func fullText(out claudecode.Output, sessionDir string, max int64) (string, error) {
	if out.PersistedPath == "" {
		return out.Text, nil
	}
	if !claudecode.Within(out.PersistedPath, claudecode.ToolResultsDir(sessionDir)) {
		return "", fmt.Errorf("persisted output %q is outside the session's tool-results folder", out.PersistedPath)
	}
	b, err := fsx.ReadRegularBelow(sessionDir, out.PersistedPath, max)
	if errors.Is(err, fsx.ErrTooLarge) {
		return "", fmt.Errorf("the client's persisted output is over limits.max_output_bytes; left in the context: %w", err)
	}
	if err != nil {
		return "", fmt.Errorf("read the client's persisted output: %w", err)
	}
	return unsafe.String(unsafe.SliceData(b), len(b)), nil // b is never changed: no copy
}

// exitStatus is what PostToolUse says of a Bash command: it fires only for
// commands that succeeded (failures go to PostToolUseFailure).
func exitStatus(tool string) int {
	if tool == "Bash" {
		return 0
	}
	return swap.NoExit
}

func viewBudget(c *Call) swap.Budget {
	v := c.Config.View
	b := swap.Budget{Chars: v.Budget, Summary: v.SummaryLength, KeyLines: v.KeyPatterns, KeepSecrets: !c.Config.Privacy.Redact,
		Retrieval: c.retrieval()}
	if c.Agent == ctxkeep.AgentCodex {
		b.Chars = min(b.Chars, codex.MaxHookText) // Codex cuts longer hook text
	}
	return b
}

// renderer is what the model sees of an output (swap.Render): the view of
// an output over its threshold (over), or the condensed output cd makes
// of it.
func (c *Call) renderer(cd *swap.Condenser, over bool) func(swap.Item) (string, swap.Stats) {
	return func(it swap.Item) (string, swap.Stats) {
		return swap.Render(it, cd, over, viewBudget(c), c.Config.Swap.CondenseMinSaving)
	}
}

// openEarly is the size of a tool response (JSON) from which the hook opens
// the index while it decodes the output: so large an output is over every
// threshold, and decoding it takes about as long as opening the index.
const openEarly = 64 << 10

// putOutput stores the original durably and indexes it, and returns what
// render makes of it for the model. When render may decline (small: an
// output below its threshold that may not be worth condensing), it runs
// first, and an output it declines ("") is not stored. Otherwise the blob
// put (hash, compression, fsync), the readable copy and the rendering are
// independent and run at once. The entry is committed only after all
// three, and only after putOutput returns may the model see the view.
// Without a sessionDir (Codex has no folder its agent reads such copies
// from) there is no copy: the view points to `ctxkeep show`.
func (c *Call) putOutput(ctx context.Context, it *swap.Item, sessionDir string, render func(swap.Item) (string, swap.Stats), small bool) (string, error) {
	st, err := c.Store()
	if err != nil {
		return "", err
	}
	if sessionDir != "" {
		it.CopyPath = filepath.Join(claudecode.ToolResultsDir(sessionDir), swap.CopyPrefix+it.ID+".txt")
	}
	if c.Config.Privacy.RedactStore {
		it.Text = redact.String(it.Text) // the blob and the copy keep no secret either
	}
	input := it.Input
	if c.Config.Privacy.Redact {
		input = redact.String(input) // listed, restored and searched
	}
	var view string
	var stats swap.Stats
	if small { // decide first, store only what is replaced
		if view, stats = render(*it); view == "" {
			return "", nil
		}
	}
	var staged ctxkeep.Staged
	var putErr, copyErr error
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); staged, putErr = st.Stage(bytesOf(it.Text)) }()
	go func() {
		defer wg.Done()
		if it.CopyPath != "" {
			copyErr = writeCopy(it.CopyPath, it.Text)
		}
	}()
	if !small {
		view, stats = render(*it)
	}
	wg.Wait()
	if putErr != nil {
		return "", putErr
	}
	if copyErr != nil {
		c.logf("%s session=%s: readable copy: %v", c.Event.HookEventName, c.Event.SessionID, copyErr)
		it.CopyPath = "" // the view then points to `ctxkeep show` only
		view, stats = render(*it)
	}
	e := ctxkeep.Entry{
		ID: it.ID, SessionID: c.Event.SessionID, ToolUseID: c.Event.ToolUseID, AgentID: c.Event.AgentID,
		Tool: it.Tool, Input: input, Chars: stats.Chars, Lines: stats.Lines, ViewChars: stats.ViewChars,
		Failures: stats.Failures, Summary: stats.Brief, CopyPath: it.CopyPath, Cwd: c.Event.Cwd, CreatedAt: c.Env.Now(),
		Kind: stats.Kind, Project: c.Project,
	}
	if c.replies {
		e.Replacement = proof.Sum(view)
	}
	if it.Exit != swap.NoExit {
		code := it.Exit
		e.ExitCode = &code
	}
	c.pendingPin(&e)
	_, err = staged.Commit(ctx, e)
	return view, err
}

// writeCopy writes the readable copy into the session's tool-results
// folder, which must be a real folder: the session folder's path comes from
// input, and a tool-results that links elsewhere would carry the copy out.
func writeCopy(path, text string) error {
	dir := filepath.Dir(path)
	if err := fsx.MkdirPrivate(dir); err != nil {
		return err
	}
	if st, err := os.Lstat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("%s is not a folder (a symbolic link?)", dir)
	}
	return fsx.WriteFileReplace(path, bytesOf(text), fsx.FilePerm)
}

// bytesOf is s as bytes, without copying it: for a megabyte of output that
// is only hashed, compressed and written out (never changed), a copy is a
// megabyte of fresh memory for nothing.
func bytesOf(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }
