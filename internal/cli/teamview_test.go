package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/storetest"
)

// What team sync pushes of an output with team.push_outputs off is what
// the model saw in its place, as the transcript holds it; never the
// original, which a transcript holds when the client did not apply the
// replacement (issue 25.8).
func TestTeamViewIsWhatTheModelSaw(t *testing.T) {
	s := newSandbox(t)
	s.swap("toolu_applied")
	s.swap("toolu_refused")
	session := "0b6f3c8e-5d1a-4c1e-9f57-2f1c9d7e8a10"
	path := filepath.Join(s.home, ".claude/projects/-p", session+".jsonl")
	var original strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&original, "toolu_refused line %d ... ok\n", i) // what swap gave the hook
	}
	result := func(uuid, id, content string) string {
		b, _ := json.Marshal(map[string]any{"type": "user", "uuid": uuid, "sessionId": session, "cwd": "/p", "timestamp": "2026-11-21T10:00:09Z",
			"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": content}}}})
		return string(b) + "\n"
	}
	call := func(uuid, id string) string {
		b, _ := json.Marshal(map[string]any{"type": "assistant", "uuid": uuid, "sessionId": session, "cwd": "/p", "timestamp": "2026-11-21T10:00:08Z",
			"message": map[string]any{"id": "m" + uuid, "role": "assistant", "model": "claude-opus-4-6",
				"content": []any{map[string]any{"type": "tool_use", "id": id, "name": "Bash", "input": map[string]any{"command": "make"}}}}})
		return string(b) + "\n"
	}
	os.MkdirAll(filepath.Dir(path), 0o700)
	if err := os.WriteFile(path, []byte(call("a1", "toolu_applied")+result("u1", "toolu_applied", "[ctxkeep] make: 2000 lines, kept as the wombat view")+
		call("a2", "toolu_refused")+result("u2", "toolu_refused", original.String())), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := s.run(false, "", "archive", path); r.code != 0 { // the session's cursor names its transcript
		t.Fatalf("archive: %+v", r)
	}
	ctx := context.Background()
	st := storetest.Local(t, filepath.Join(s.home, ".local/share/ctxkeep"))
	entries, err := st.Entries(ctx, ctxkeep.EntryFilter{})
	if err != nil || len(entries) != 2 {
		t.Fatalf("entries: %d, %v", len(entries), err)
	}
	v := &transcriptViews{st: st}
	for _, e := range entries {
		view, ok := v.view(ctx, e)
		switch e.ToolUseID {
		case "toolu_applied":
			if !ok || view != "[ctxkeep] make: 2000 lines, kept as the wombat view" {
				t.Errorf("the view of an applied replacement: %q, %v", view, ok)
			}
		case "toolu_refused":
			if ok {
				t.Errorf("the original the transcript holds is given as the view (%d characters)", len(view))
			}
			no := false
			e.Applied = &no
			if _, ok := v.view(ctx, e); ok {
				t.Error("a replacement found not applied gives a view")
			}
		}
	}
}

// A Codex rollout's tool results are the function calls' outputs, as the
// model got them.
func TestToolResultsOfARollout(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rollout-2026-11-26T10-00-00-0b6f3c8e-5d1a-4c1e-9f57-2f1c9d7e8a10.jsonl")
	line := func(kind string, payload any) string {
		b, _ := json.Marshal(map[string]any{"timestamp": "2026-11-26T10:00:00.000Z", "type": kind, "payload": payload})
		return string(b) + "\n"
	}
	data := line("session_meta", map[string]any{"id": "0b6f3c8e-5d1a-4c1e-9f57-2f1c9d7e8a10", "cwd": "/p", "cli_version": "0.169.0"}) +
		line("response_item", map[string]any{"type": "function_call", "name": "exec_command", "call_id": "call_1", "arguments": `{"cmd":"go test ./..."}`}) +
		line("response_item", map[string]any{"type": "function_call_output", "call_id": "call_1", "output": "[ctxkeep] go test: FAIL TestWombat"})
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	got := toolResults(path, 0)
	if got["call_1"] != "[ctxkeep] go test: FAIL TestWombat" || len(got) != 1 {
		t.Fatalf("tool results of a rollout: %q", got)
	}
	if got := toolResults(filepath.Join(t.TempDir(), "gone.jsonl"), 0); len(got) != 0 {
		t.Fatalf("a missing transcript has results: %q", got)
	}
}
