package hook

import (
	"context"

	"github.com/ctxkeep/ctxkeep/internal/proof"
)

// proveReplacements checks, at the end of a turn (Stop) and of the
// session, that the client recorded each replacement the session's
// PostToolUse replies returned (internal/proof: in the transcript, a
// subagent's own transcript, a Codex session's rollout, a Gemini CLI
// session's chat), and stores
// each verdict with its entry. It reads the transcript from its own
// cursor (kept in the index with the verdicts, in one transaction), and
// only when a replacement waits: a turn without one costs a query.
func proveReplacements(ctx context.Context, c *Call) (*Reply, error) {
	st, err := c.Store()
	if err != nil {
		return nil, err
	}
	_, err = proof.Check(ctx, st, c.Event.SessionID, c.Event.TranscriptPath, c.Agent, c.Config.Limits.TranscriptReadBytes)
	return nil, err
}
