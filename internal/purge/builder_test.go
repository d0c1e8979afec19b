package purge

import (
	"encoding/json"
	"fmt"
	"strings"
)

const testSession = "5e55a1a0-0000-4000-8000-000000000001"

// builder writes transcripts the way Claude Code 2.x does: one line per
// content block of a response (same message id), one line per tool
// result, each line the child of the one before, a result the child of
// the line holding its tool_use.
type builder struct {
	lines []string
	last  string            // uuid of the last line
	uses  map[string]string // tool_use id → uuid of its line
	n     int
}

func newBuilder() *builder { return &builder{uses: map[string]string{}} }

func (b *builder) add(fields map[string]any) string {
	b.n++
	uuid := fmt.Sprintf("00000000-0000-4000-8000-%012d", b.n)
	rec := map[string]any{"uuid": uuid, "sessionId": testSession, "isSidechain": false, "userType": "external",
		"cwd": "/p", "version": "2.1.330", "timestamp": fmt.Sprintf("2026-11-21T12:00:%02d.000Z", b.n%60)}
	if b.last != "" {
		rec["parentUuid"] = b.last
	} else {
		rec["parentUuid"] = nil
	}
	for k, v := range fields {
		rec[k] = v
	}
	data, err := json.Marshal(rec)
	if err != nil {
		panic(err)
	}
	b.lines = append(b.lines, string(data))
	b.last = uuid
	return uuid
}

func (b *builder) prompt(text string) string {
	return b.add(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": text}})
}

func (b *builder) block(msgID string, block map[string]any) string {
	return b.add(map[string]any{"type": "assistant", "message": map[string]any{"id": msgID, "role": "assistant",
		"model": "claude-opus-5-5", "content": []any{block}}})
}

func (b *builder) text(msgID, text string) string {
	return b.block(msgID, map[string]any{"type": "text", "text": text})
}

func (b *builder) thinking(msgID, text string) string {
	return b.block(msgID, map[string]any{"type": "thinking", "thinking": text, "signature": "sig-" + msgID + "-Zm9v+/="})
}

func (b *builder) toolUse(msgID, id, name string, input map[string]any) string {
	u := b.block(msgID, map[string]any{"type": "tool_use", "id": id, "name": name, "input": input})
	b.uses[id] = u
	return u
}

// result answers tool_use id, as the child of the line holding it.
func (b *builder) result(id string, content any, isError bool) string {
	b.last = b.uses[id]
	return b.add(map[string]any{"type": "user", "sourceToolAssistantUUID": b.uses[id],
		"message":       map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": content, "is_error": isError}}},
		"toolUseResult": map[string]any{"stdout": content, "stderr": "", "interrupted": false}})
}

func (b *builder) progress() string {
	return b.add(map[string]any{"type": "progress", "data": map[string]any{"type": "hook_progress"}})
}

func (b *builder) bookkeeping() {
	b.lines = append(b.lines, fmt.Sprintf(`{"type":"last-prompt","lastPrompt":"x","sessionId":%q}`, testSession))
}

func (b *builder) bytes() []byte { return []byte(strings.Join(b.lines, "\n") + "\n") }

// session is a small conversation: two turns, tool calls, thinking, a
// large result.
func session(big string) *builder {
	b := newBuilder()
	b.prompt("run the tests")
	b.thinking("msg_1", "I should run them.")
	b.text("msg_1", "Running the tests.")
	b.toolUse("msg_1", "toolu_a", "Bash", map[string]any{"command": "go test ./..."})
	b.progress()
	b.result("toolu_a", big, true)
	b.thinking("msg_2", "One failed.")
	b.text("msg_2", "TestX fails.")
	b.prompt("fix it")
	b.thinking("msg_3", "Look at x.go.")
	b.toolUse("msg_3", "toolu_b", "Read", map[string]any{"file_path": "/p/x.go"})
	b.result("toolu_b", "package x\n", false)
	b.text("msg_4", "Fixed.")
	b.bookkeeping()
	return b
}

func bigFailure() string {
	var s strings.Builder
	s.WriteString("Exit code 1\n")
	for i := range 400 {
		if i == 200 {
			s.WriteString("--- FAIL: TestX (0.01s)\n")
		}
		fmt.Fprintf(&s, "=== RUN   TestCase%d\n", i)
	}
	return s.String()
}
