package keep

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// session writes a transcript in the client's format, line by line.
type session struct {
	t     testing.TB
	lines []string
	n     int
}

func (s *session) line(v map[string]any) {
	s.n++
	v["uuid"] = fmt.Sprintf("u%03d", s.n)
	v["sessionId"] = "fixture"
	v["isSidechain"] = false
	v["timestamp"] = fmt.Sprintf("2026-11-21T10:%02d:%02dZ", s.n/60, s.n%60)
	b, err := json.Marshal(v)
	if err != nil {
		s.t.Fatal(err)
	}
	s.lines = append(s.lines, string(b))
}

func (s *session) prompt(text string) {
	s.line(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": text}})
}

func (s *session) say(text string) {
	s.line(map[string]any{"type": "assistant", "message": map[string]any{"id": fmt.Sprintf("m%03d", s.n), "role": "assistant",
		"content": []any{map[string]any{"type": "text", "text": text}}}})
}

// tool writes a tool call and its result; exit > 0 makes it a failure.
func (s *session) tool(id, name string, input any, result string, exit int, structured any) {
	s.line(map[string]any{"type": "assistant", "message": map[string]any{"id": "m" + id, "role": "assistant",
		"content": []any{map[string]any{"type": "tool_use", "id": id, "name": name, "input": input}}}})
	block := map[string]any{"type": "tool_result", "tool_use_id": id, "content": result}
	if exit > 0 {
		block["is_error"] = true
		block["content"] = fmt.Sprintf("Exit code %d\n%s", exit, result)
	}
	rec := map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": []any{block}}}
	if structured != nil {
		rec["toolUseResult"] = structured
	}
	s.line(rec)
}

func (s *session) write(path string) {
	if err := os.WriteFile(path, []byte(strings.Join(s.lines, "\n")+"\n"), 0o600); err != nil {
		s.t.Fatal(err)
	}
}

// fixture is a small session with one of everything the state tracks.
func fixture(t testing.TB, dir string) string {
	s := &session{t: t}
	s.prompt("Add a rate limiter to the API. Keep it in internal/api.")
	s.tool("t1", "TaskCreate", map[string]any{"subject": "Write the limiter", "description": "d"}, "Task #1 created successfully", 0, map[string]any{"task": map[string]any{"id": "1", "subject": "Write the limiter"}})
	s.tool("t2", "TaskCreate", map[string]any{"subject": "Document the limits", "description": "d"}, "Task #2 created successfully", 0, map[string]any{"task": map[string]any{"id": "2", "subject": "Document the limits"}})
	s.tool("t3", "TaskUpdate", map[string]any{"taskId": "1", "status": "in_progress"}, "Updated task #1", 0, nil)
	s.tool("e1", "Edit", map[string]any{"file_path": "/p/internal/api/limit.go", "old_string": "a", "new_string": "b"}, "The file has been updated", 0, nil)
	s.tool("b1", "Bash", map[string]any{"command": "go test ./internal/api/..."}, "--- FAIL: TestLimitBurst (0.00s)\n    limit_test.go:31: got 11 requests, want 10\nFAIL", 1, nil)
	s.say("I'll use a token bucket instead of a sliding window, because it absorbs bursts.")
	s.prompt("no, use the sliding window: we bill on exact counts.")
	s.tool("e2", "Edit", map[string]any{"file_path": "/p/internal/api/limit.go", "old_string": "b", "new_string": "c"}, "The file has been updated", 0, nil)
	s.tool("w1", "Write", map[string]any{"file_path": "/p/internal/api/limit_test.go", "content": "package api"}, "File created", 0, nil)
	s.tool("b2", "Bash", map[string]any{"command": "go test ./internal/api/..."}, "ok  \texample/internal/api\t0.01s", 0, nil)
	s.tool("b3", "Bash", map[string]any{"command": "go vet ./..."}, "internal/api/limit.go:12:2: unreachable code", 1, nil)
	s.tool("t4", "TaskUpdate", map[string]any{"taskId": "1", "status": "completed"}, "Updated task #1", 0, nil)
	s.say("Switched to a sliding window. The tests pass; go vet still reports unreachable code in limit.go.")
	path := filepath.Join(dir, "fixture.jsonl")
	s.write(path)
	return path
}
