package proof

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxkeep/ctxkeep"
)

// fakeStore holds entries, verdicts and the cursor as the index does.
type fakeStore struct {
	entries  []ctxkeep.Entry
	verdicts map[string]ctxkeep.Verdict
	cursor   [2]int64
}

func (f *fakeStore) Unproven(_ context.Context, session string) ([]ctxkeep.Entry, error) {
	var out []ctxkeep.Entry
	for _, e := range f.entries {
		if _, judged := f.verdicts[e.ID]; !judged && e.SessionID == session && e.Replacement != "" {
			out = append(out, e)
		}
	}
	return out, nil
}

func (f *fakeStore) ProofCursor(context.Context, string, string) (int64, int, error) {
	return f.cursor[0], int(f.cursor[1]), nil
}

func (f *fakeStore) SaveProof(_ context.Context, _, _ string, offset int64, line int, vs []ctxkeep.Verdict) error {
	f.cursor = [2]int64{offset, int64(line)}
	for _, v := range vs {
		f.verdicts[v.ID] = v
	}
	return nil
}

// Check judges the main thread's replacements in the transcript, from
// its cursor, and a subagent's in the subagent's own transcript; an agent
// id that could name another file is never read.
func TestCheckReadsSubagentTranscripts(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s1.jsonl")
	view := "[ctxkeep] Bash output swapped out …\n"
	os.WriteFile(path, []byte(toolResult("toolu_main", view, bash(view))), 0o600)
	sub := SubagentTranscript(path, "a1b2c3")
	os.MkdirAll(filepath.Dir(sub), 0o700)
	os.WriteFile(sub, []byte(toolResult("toolu_sub", "the original", bash("the original"))+toolResult("toolu_sub2", view, bash(view))), 0o600)
	if sub != filepath.Join(dir, "s1", "subagents", "agent-a1b2c3.jsonl") {
		t.Fatalf("subagent transcript at %s", sub)
	}
	st := &fakeStore{verdicts: map[string]ctxkeep.Verdict{}, entries: []ctxkeep.Entry{
		{ID: "m", SessionID: "s1", ToolUseID: "toolu_main", Tool: "Bash", Replacement: Sum(view)},
		{ID: "s", SessionID: "s1", AgentID: "a1b2c3", ToolUseID: "toolu_sub", Tool: "Bash", Replacement: Sum(view)},
		{ID: "s2", SessionID: "s1", AgentID: "a1b2c3", ToolUseID: "toolu_sub2", Tool: "Bash", Replacement: Sum(view)},
		{ID: "x", SessionID: "s1", AgentID: "../../s1", ToolUseID: "toolu_main", Tool: "Bash", Replacement: Sum(view)},
		{ID: "w", SessionID: "s1", AgentID: "a1b2c3", ToolUseID: "toolu_late", Tool: "Bash", Replacement: Sum(view)},
	}}
	n, err := Check(context.Background(), st, "s1", path, ctxkeep.AgentClaudeCode, 1<<20)
	if err != nil || n != 3 {
		t.Fatalf("judged %d, %v; want 3", n, err)
	}
	if !st.verdicts["m"].Applied || st.verdicts["s"].Applied || !st.verdicts["s2"].Applied {
		t.Errorf("verdicts %+v", st.verdicts)
	}
	if _, ok := st.verdicts["x"]; ok {
		t.Errorf("an agent id with a path in it was read: %+v", st.verdicts["x"])
	}
	if _, ok := st.verdicts["w"]; ok {
		t.Errorf("a result not written yet was judged")
	}
	if info, _ := os.Stat(path); st.cursor[0] != info.Size() || st.cursor[1] != 1 {
		t.Errorf("cursor %v after a transcript of %d bytes, 1 line", st.cursor, info.Size())
	}
	// Nothing new: no verdict, and the cursor stays.
	cursor := st.cursor
	if n, err := Check(context.Background(), st, "s1", path, ctxkeep.AgentClaudeCode, 1<<20); n != 0 || err != nil || st.cursor != cursor {
		t.Errorf("second check: %d, %v, cursor %v (was %v)", n, err, st.cursor, cursor)
	}
}
