package keep

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/gemini"
	"github.com/ctxkeep/ctxkeep/internal/proof"
)

// A Gemini CLI hook names no call, so the output ctxkeep swapped out of a
// Gemini step is found by the view that stood in for it: the archived step
// references the stored original (recall expands it, search finds its
// words), as a Claude Code or Codex step does. The chat is a real one of
// 0.61.0, its command's result replaced by the view as the AfterTool deny
// leaves it.
func TestArchiveGeminiFindsSwappedOutputByView(t *testing.T) {
	ctx := context.Background()
	real, err := os.ReadFile("../gemini/testdata/failing-command.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	view := "[ctxkeep] ./t.sh: 400 lines kept out; exit status 1.\n--- FAIL: X"
	denied, _ := json.Marshal(map[string]string{"error": view})
	const output = `{"output":"<untrusted_context>\nOutput: --- FAIL: X\nExit Code: 1\nProcess Group PGID: 30170\n</untrusted_context>"}`
	chat := strings.ReplaceAll(string(real), output, string(denied))
	if chat == string(real) {
		t.Fatal("the real chat does not hold the command's output")
	}
	path := filepath.Join(t.TempDir(), "session-2026-11-28T17-59-1cd246ab.jsonl")
	if err := os.WriteFile(path, []byte(chat), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, agent := range []string{ctxkeep.AgentGemini, ctxkeep.AgentClaudeCode} {
		st := newStore(t)
		e, err := st.PutEntry(ctx, ctxkeep.Entry{ID: "gem000000001", SessionID: "s", ToolUseID: "gemini_00112233445566778899", Tool: "Bash",
			Input: "./t.sh", Chars: 9000, ViewChars: len(view), Replacement: proof.Sum(view)}, []byte("the whole output: ORIGINAL-ONLY-WORD"))
		if err != nil {
			t.Fatal(err)
		}
		read := ReadTurns(gemini.Reader{})
		if _, err := ArchiveAll(ctx, st, Session{ID: "s", Project: "/p", Transcript: path, Agent: agent, Read: read}, nil); err != nil {
			t.Fatal(err)
		}
		cs, err := st.Chunks(ctx, "s")
		if err != nil {
			t.Fatal(err)
		}
		named := slices.ContainsFunc(cs, func(c ctxkeep.Chunk) bool {
			return slices.Contains(c.Meta.Entries, e.ID) && strings.Contains(c.Body, "[[ctxkeep:"+e.ID+"]]")
		})
		hits, err := st.SearchChunks(ctx, ctxkeep.ChunkQuery{Text: "ORIGINAL-ONLY-WORD"})
		if err != nil {
			t.Fatal(err)
		}
		if found := len(hits) > 0; found != named {
			t.Errorf("%s: search finds the original's words: %t", agent, found)
		}
		// Only a Gemini session is matched by view: the others' hooks
		// name their calls.
		if named != (agent == ctxkeep.AgentGemini) {
			t.Errorf("%s: the step names the stored output: %t", agent, named)
		}
	}
}
