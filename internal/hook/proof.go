package hook

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"path/filepath"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/fsx"
	"github.com/ctxkeep/ctxkeep/internal/proof"
	"github.com/ctxkeep/ctxkeep/internal/transcript"
)

// proveReplacements checks, at the end of a turn (Stop) and of the
// session, that the client recorded each replacement the session's
// PostToolUse replies returned (internal/proof; in the transcript, or in a
// Codex session's rollout), and stores each verdict
// with its entry. It reads the transcript from its own cursor (kept in the
// index with the verdicts, in one transaction), and only when a
// replacement waits: a turn without one costs a query.
func proveReplacements(ctx context.Context, c *Call) (*Reply, error) {
	path := c.Event.TranscriptPath
	if !filepath.IsAbs(path) || filepath.Clean(path) != path || filepath.Ext(path) != ".jsonl" {
		return nil, nil
	}
	st, err := c.Store()
	if err != nil {
		return nil, err
	}
	session := c.Event.SessionID
	entries, err := st.Unproven(ctx, session)
	if err != nil || len(entries) == 0 {
		return nil, err
	}
	pending := make([]proof.Replacement, len(entries))
	for i, e := range entries {
		pending[i] = proof.Replacement{ID: e.ID, ToolUseID: e.ToolUseID, Tool: e.Tool, Sum: e.Replacement}
	}
	offset, line, err := st.ProofCursor(ctx, session, path)
	if err != nil {
		return nil, err
	}
	f, info, err := fsx.OpenRegular(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil // nothing recorded yet
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if info.Size() < offset { // the transcript was replaced (purge): from the start
		offset, line = 0, 0
	}
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return nil, err
	}
	scan := proof.Scan
	if c.Agent == ctxkeep.AgentCodex {
		scan = proof.ScanRollout
	}
	verdicts, next, err := scan(f, transcript.Cursor{Offset: offset, Line: line}, pending)
	if err != nil {
		return nil, err
	}
	return nil, st.SaveProof(ctx, session, path, next.Offset, next.Line, verdicts)
}
