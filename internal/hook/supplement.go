package hook

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ctxkeep/ctxkeep/internal/fsx"
	"github.com/ctxkeep/ctxkeep/internal/keep"
)

// The client writes its compaction summary to the transcript only after
// SessionStart(compact) has run (verified with 2.1.330), so the restore
// block cannot know what the summary kept. PostCompact, which follows,
// is given the summary: it works out the exact details neither the
// summary nor the restore block holds, and leaves them in a file that the
// next UserPromptSubmit or PostToolUse (the first hook able to reach the
// model) hands on, once.

// supplementBudget bounds that supplement: it comes on top of the block.
const supplementBudget = 3000

// keepDir holds keep's small per-session files in the state folder.
func (c *Call) keepDir() string { return filepath.Join(c.Dirs.State, "keep") }

// restoredPath is the restore block given at SessionStart(compact);
// supplementPath the supplement waiting to be handed on.
func (c *Call) restoredPath() string {
	return filepath.Join(c.keepDir(), c.Event.SessionID+".restored.txt")
}

func (c *Call) supplementPath() string {
	return filepath.Join(c.keepDir(), c.Event.SessionID+".supplement.txt")
}

// saveRestored keeps the restore block for PostCompact to compare with.
func (c *Call) saveRestored(text string) error {
	if err := fsx.MkdirPrivate(c.keepDir()); err != nil {
		return err
	}
	return fsx.WriteFileReplace(c.restoredPath(), []byte(text), fsx.FilePerm)
}

// noteWhatTheSummaryLacks answers PostCompact.
func noteWhatTheSummaryLacks(ctx context.Context, c *Call) (*Reply, error) {
	if c.Event.CompactSummary == "" || c.Event.AgentID != "" {
		return nil, nil
	}
	st, s, err := c.keepSession()
	if err != nil || st == nil {
		return nil, err
	}
	state, _, _, err := keep.State(ctx, st, s, c.isCheck)
	if err != nil {
		return nil, err
	}
	restored, err := os.ReadFile(c.restoredPath())
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	text := keep.Supplement(keep.SupplementInput{State: state, Summary: keep.SummaryOf(c.Event.CompactSummary),
		Restored: string(restored), Project: s.Project, Session: s.ID, Budget: supplementBudget, Retrieval: c.retrieval()})
	if text == "" {
		return nil, nil
	}
	if err := fsx.MkdirPrivate(c.keepDir()); err != nil {
		return nil, err
	}
	return nil, fsx.WriteFileReplace(c.supplementPath(), []byte(text), fsx.FilePerm)
}

// handOnSupplement gives the model the supplement PostCompact left, once:
// the file is claimed by a rename, so of parallel hooks only one has it.
// Without one (nearly always), it costs one failed rename.
func handOnSupplement(_ context.Context, c *Call) (*Reply, error) {
	if c.Event.AgentID != "" {
		return nil, nil
	}
	path := c.supplementPath()
	claimed := path + ".taken"
	if err := os.Rename(path, claimed); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	text, err := os.ReadFile(claimed)
	os.Remove(claimed)
	if err != nil || len(text) == 0 {
		return nil, err
	}
	return &Reply{Specific: &SpecificOutput{HookEventName: c.Event.HookEventName, AdditionalContext: string(text)}}, nil
}
