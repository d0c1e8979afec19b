package proof

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/fsx"
	"github.com/ctxkeep/ctxkeep/internal/transcript"
)

// Store is what Check needs of the index: the replacements waiting for
// their verdict, and where the last check stopped reading.
type Store interface {
	Unproven(ctx context.Context, session string) ([]ctxkeep.Entry, error)
	ProofCursor(ctx context.Context, session, transcript string) (offset int64, line int, err error)
	SaveProof(ctx context.Context, session, transcript string, offset int64, line int, vs []ctxkeep.Verdict) error
}

// Check judges the session's replacements still waiting for their verdict
// against its transcript at path (of the client agent: a Claude Code
// transcript, a Codex rollout or a Gemini CLI chat),
// and stores the verdicts. The main thread's are read from the session's
// proof cursor on; a subagent's from the subagent's own transcript beside
// it (<session>/subagents/agent-<id>.jsonl), from its start, at most limit
// bytes (a replacement in a subagent still running is judged by a later
// check). A session with nothing waiting costs one query. It returns how
// many replacements it judged.
func Check(ctx context.Context, st Store, session, path, agent string, limit int64) (int, error) {
	if !filepath.IsAbs(path) || filepath.Clean(path) != path || filepath.Ext(path) != ".jsonl" {
		return 0, nil
	}
	entries, err := st.Unproven(ctx, session)
	if err != nil || len(entries) == 0 {
		return 0, err
	}
	main, agents := []Replacement{}, map[string][]Replacement{}
	var order []string
	for _, e := range entries {
		r := Replacement{ID: e.ID, ToolUseID: e.ToolUseID, Tool: e.Tool, Sum: e.Replacement}
		switch {
		case e.AgentID == "":
			main = append(main, r)
		case agent != ctxkeep.AgentCodex && agent != ctxkeep.AgentGemini && validAgentID(e.AgentID):
			if agents[e.AgentID] == nil {
				order = append(order, e.AgentID)
			}
			agents[e.AgentID] = append(agents[e.AgentID], r)
		}
	}
	offset, line, err := st.ProofCursor(ctx, session, path)
	if err != nil {
		return 0, err
	}
	var verdicts []ctxkeep.Verdict
	next := transcript.Cursor{Offset: offset, Line: line}
	if len(main) > 0 {
		scan := Scan
		switch agent {
		case ctxkeep.AgentCodex:
			scan = ScanRollout
		case ctxkeep.AgentGemini:
			scan = ScanChat
		}
		vs, cur, found, err := scanFile(path, next, main, scan, -1)
		if err != nil {
			return 0, err
		}
		if found {
			verdicts, next = vs, cur
		}
	}
	for _, id := range order {
		vs, _, _, err := scanFile(SubagentTranscript(path, id), transcript.Cursor{}, agents[id], Scan, limit)
		if err != nil {
			return 0, err
		}
		verdicts = append(verdicts, vs...)
	}
	if len(verdicts) == 0 && next.Offset == offset && next.Line == line {
		return 0, nil
	}
	return len(verdicts), st.SaveProof(ctx, session, path, next.Offset, next.Line, verdicts)
}

// scanFile runs scan over the file at path from cur (from its start when
// the file is shorter: it was replaced), reading at most limit bytes when
// limit ≥ 0. A missing file is no verdict, and no error.
func scanFile(path string, cur transcript.Cursor, pending []Replacement,
	scan func(io.Reader, transcript.Cursor, []Replacement) ([]ctxkeep.Verdict, transcript.Cursor, error), limit int64) ([]ctxkeep.Verdict, transcript.Cursor, bool, error) {
	f, info, err := fsx.OpenRegular(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, cur, false, nil // nothing recorded yet
	}
	if err != nil {
		return nil, cur, false, err
	}
	defer f.Close()
	if info.Size() < cur.Offset { // the transcript was replaced (purge): from the start
		cur = transcript.Cursor{}
	}
	if _, err := f.Seek(cur.Offset, io.SeekStart); err != nil {
		return nil, cur, false, err
	}
	var r io.Reader = f
	if limit >= 0 {
		r = io.LimitReader(f, limit)
	}
	vs, next, err := scan(r, cur, pending)
	return vs, next, true, err
}

// SubagentTranscript is where Claude Code writes the transcript of a
// session's subagent (claude-code-hooks.md §8: subagents/agent-<id>.jsonl
// in the session's folder, beside its transcript).
func SubagentTranscript(transcriptPath, agentID string) string {
	return filepath.Join(strings.TrimSuffix(transcriptPath, ".jsonl"), "subagents", "agent-"+agentID+".jsonl")
}

// validAgentID accepts the client's agent ids (hex digits; letters,
// digits, '-' and '_' at most), nothing a path could climb out with.
func validAgentID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}
