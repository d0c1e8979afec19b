package hook

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
)

// manyFiles writes a session that edits n files with long paths, more
// than a small restore block can name.
func manyFiles(t *testing.T, path string, n int) []string {
	var lines, files []string
	add := func(v map[string]any) {
		v["uuid"], v["sessionId"], v["timestamp"] = fmt.Sprintf("u%03d", len(lines)), session, "2026-11-21T10:00:00Z"
		b, _ := json.Marshal(v)
		lines = append(lines, string(b))
	}
	add(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": "Rename the config keys everywhere."}})
	for i := range n {
		file := fmt.Sprintf("/p/internal/some/rather/deep/package%02d/configuration_loader.go", i)
		files = append(files, file)
		id := fmt.Sprintf("e%02d", i)
		add(map[string]any{"type": "assistant", "message": map[string]any{"id": "m" + id, "role": "assistant", "model": "claude-sonnet-4-5",
			"content": []any{map[string]any{"type": "tool_use", "id": id, "name": "Edit", "input": map[string]any{"file_path": file, "old_string": "a", "new_string": "b"}}}}})
		add(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": "ok"}}}})
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return files
}

// After a compaction, PostCompact learns what the summary kept: the exact
// details that neither it nor the restore block holds are handed on once,
// by the next hook that can reach the model.
func TestSupplementAfterCompaction(t *testing.T) {
	f := newSwapFixture(t)
	f.vars["CTXKEEP_RESTORE_BUDGET"] = "2000"
	os.MkdirAll(f.sessionDir, 0o700)
	files := manyFiles(t, f.transcript, 40)
	event := func(v map[string]any) []byte {
		v["session_id"], v["transcript_path"], v["cwd"] = session, f.transcript, "/p"
		b, _ := json.Marshal(v)
		return b
	}
	var start struct {
		Specific struct{ AdditionalContext string } `json:"hookSpecificOutput"`
	}
	json.Unmarshal([]byte(f.run(event(map[string]any{"hook_event_name": "SessionStart", "source": "compact"}), handlers)), &start)
	restored := start.Specific.AdditionalContext
	if !strings.Contains(restored, "ctxkeep restored") || strings.Contains(restored, files[0]) {
		t.Fatalf("the restore block should be there, too small to name the first file:\n%s\nlog: %s", restored, f.log())
	}
	summary := "<analysis>…</analysis>\n<summary>The user asked to rename config keys; " + files[0] + " was done.</summary>"
	if out := f.run(event(map[string]any{"hook_event_name": "PostCompact", "trigger": "auto", "compact_summary": summary}), handlers); out != "" {
		t.Fatalf("PostCompact replied %q", out)
	}
	out := f.run(event(map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": "go on"}), handlers)
	named := 0
	for _, file := range files[1:] {
		if strings.Contains(out, file) && !strings.Contains(restored, file) {
			named++
		}
	}
	if !strings.Contains(out, "left out these exact details") || named < 10 {
		t.Fatalf("the next prompt did not get the paths the summary and the block left out:\n%s\nlog: %s", out, f.log())
	}
	if strings.Contains(out, files[0]+" (") {
		t.Errorf("the supplement repeats a path the summary has")
	}
	for _, line := range strings.Split(restored, "\n") {
		if strings.HasPrefix(line, "- /p/") && strings.Contains(out, line) {
			t.Errorf("the supplement repeats the restore block's %q", line)
		}
	}
	if again := f.run(event(map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": map[string]any{"command": "ls"},
		"tool_response": bash("a"), "tool_use_id": "toolu_x"}), handlers); strings.Contains(again, "left out") {
		t.Errorf("the supplement was handed on twice")
	}
}
