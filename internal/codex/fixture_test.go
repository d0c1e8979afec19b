package codex

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// line builds one rollout line.
func line(ts, kind string, payload any) string {
	data, _ := json.Marshal(map[string]any{"timestamp": ts, "type": kind, "payload": payload})
	return string(data)
}

func writeRollout(t *testing.T, path string, lines []string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// failingSession is a turn whose test run fails.
var failingSession = []string{
	line("2026-11-26T10:00:00.000Z", "session_meta", map[string]any{"id": "s1", "cwd": "/p", "cli_version": "0.169.0"}),
	line("2026-11-26T10:00:00.100Z", "turn_context", map[string]any{"cwd": "/p", "model": "gpt-5.5", "sandbox_policy": map[string]string{"type": "danger-full-access"}}),
	line("2026-11-26T10:00:01.000Z", "response_item", map[string]any{"type": "message", "role": "user",
		"content": []map[string]string{{"type": "input_text", "text": "fix the refund test"}}}),
	line("2026-11-26T10:00:02.000Z", "response_item", map[string]any{"type": "function_call", "name": "exec_command", "call_id": "call_1",
		"arguments": `{"cmd":"go test ./..."}`}),
	line("2026-11-26T10:00:03.000Z", "event_msg", map[string]any{"type": "item_completed", "item": map[string]any{"type": "CommandExecution", "id": "call_1",
		"aggregated_output": "=== RUN   TestRefund\n--- FAIL: TestRefund (0.00s)\n    refund_test.go:42: got 1999 want 2000\nFAIL\nFAIL\texample.com/shop\t0.01s\n", "exit_code": 1}}),
	line("2026-11-26T10:00:03.100Z", "response_item", map[string]any{"type": "function_call_output", "call_id": "call_1", "output": "Process exited with code 1\n…"}),
	line("2026-11-26T10:00:04.000Z", "response_item", map[string]any{"type": "message", "role": "assistant",
		"content": []map[string]string{{"type": "output_text", "text": "The refund test fails: off by one cent."}}}),
}
