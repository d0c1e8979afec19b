package codex

import (
	"path/filepath"
	"testing"
)

// LiveOutputs forgets the outputs before the last compaction: the model's
// context holds only its summary of them.
func TestLiveOutputs(t *testing.T) {
	call := func(ts, id, cmd, out string) []string {
		return []string{
			line(ts+".000Z", "response_item", map[string]any{"type": "function_call", "name": "exec_command", "call_id": id, "arguments": `{"cmd":"` + cmd + `"}`}),
			line(ts+".500Z", "response_item", map[string]any{"type": "function_call_output", "call_id": id, "output": out}),
		}
	}
	lines := []string{line("2026-11-26T10:00:00.000Z", "session_meta", map[string]any{"id": "s1", "cwd": "/p", "cli_version": "0.169.0"})}
	lines = append(lines, call("2026-11-26T10:00:01", "call_1", "make all", "a long build log")...)
	lines = append(lines, line("2026-11-26T10:00:02.000Z", "compacted", map[string]any{"message": "the summary"}))
	lines = append(lines, call("2026-11-26T10:00:03", "call_2", "go test ./...", "ok")...)
	lines = append(lines, call("2026-11-26T10:00:04", "call_3", "git status", "clean")...)
	path := filepath.Join(t.TempDir(), "rollout.jsonl")
	writeRollout(t, path, lines)

	live, err := LiveOutputs(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(live) != 2 || live[0].ID != "call_2" || live[0].Seen != "ok" || live[1].ID != "call_3" || live[0].Tool != Shell {
		t.Errorf("LiveOutputs = %+v, want call_2 and call_3", live)
	}
	_, all, _, err := Outputs(path)
	if err != nil || len(all) != 3 {
		t.Errorf("Outputs = %d outputs (%v), want all 3", len(all), err)
	}
}
