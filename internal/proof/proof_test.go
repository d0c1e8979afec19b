package proof

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ctxkeep/ctxkeep/internal/transcript"
)

func toolResult(id, content string, structured any) string {
	rec := map[string]any{"type": "user", "uuid": "u-" + id, "isSidechain": false,
		"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": content}}}}
	if structured != nil {
		rec["toolUseResult"] = structured
	}
	b, _ := json.Marshal(rec)
	return string(b) + "\n"
}

func hookError(id, content string) string {
	b, _ := json.Marshal(map[string]any{"type": "attachment", "uuid": "e-" + id,
		"attachment": map[string]any{"type": "hook_error_during_execution", "content": content, "hookName": "PostToolUse:Bash", "toolUseID": id, "hookEvent": "PostToolUse"}})
	return string(b) + "\n"
}

func bash(stdout string) map[string]any {
	return map[string]any{"stdout": stdout, "stderr": "", "interrupted": false, "isImage": false, "noOutputExpected": false}
}

// TestScan: each kind of outcome, read the way the Stop hook reads it.
func TestScan(t *testing.T) {
	view := "[ctxkeep] Bash output swapped out …\n"
	readView := "[ctxkeep] Read of /p/x.go swapped out …\n"
	refusal := "PostToolUse hook returned updatedToolOutput that does not match Bash's output shape; using original output. [{\"expected\": \"object\"}]"
	lines := toolResult("toolu_applied", view, bash(view)) +
		toolResult("toolu_read", "1\t"+readView, map[string]any{"type": "text", "file": map[string]any{"filePath": "/p/x.go", "content": readView}}) +
		toolResult("toolu_refused", "the original output", bash("the original output")) + hookError("toolu_refused", refusal) +
		toolResult("toolu_other", "another hook's text", bash("another hook's text")) +
		toolResult("toolu_nostruct", view, nil) +
		toolResult("toolu_elsewhere", "not ours", bash("not ours"))
	partial := strings.TrimSuffix(toolResult("toolu_later", view, bash(view)), "\n") // being written
	pending := []Replacement{
		{ID: "a", ToolUseID: "toolu_applied", Tool: "Bash", Sum: Sum(view)},
		{ID: "r", ToolUseID: "toolu_read", Tool: "Read", Sum: Sum(readView)},
		{ID: "x", ToolUseID: "toolu_refused", Tool: "Bash", Sum: Sum(view)},
		{ID: "o", ToolUseID: "toolu_other", Tool: "Bash", Sum: Sum(view)},
		{ID: "n", ToolUseID: "toolu_nostruct", Tool: "Bash", Sum: Sum(view)},
		{ID: "l", ToolUseID: "toolu_later", Tool: "Bash", Sum: Sum(view)},
	}
	from := transcript.Cursor{Offset: 100, Line: 3}
	vs, next, err := Scan(strings.NewReader(lines+partial), from, pending)
	if err != nil {
		t.Fatal(err)
	}
	if next.Offset != from.Offset+int64(len(lines)) || next.Line != from.Line+7 {
		t.Errorf("cursor %+v, want %d bytes and 7 lines on", next, len(lines))
	}
	got := map[string]string{}
	for _, v := range vs {
		got[v.ID] = v.Reason
		if v.Applied != (v.Reason == "") {
			t.Errorf("%s: applied %v with reason %q", v.ID, v.Applied, v.Reason)
		}
	}
	if len(vs) != 5 {
		t.Errorf("%d verdicts: %+v", len(vs), vs)
	}
	for _, id := range []string{"a", "r", "n"} {
		if r, ok := got[id]; !ok || r != "" {
			t.Errorf("%s: %q (found %v), want applied", id, r, ok)
		}
	}
	if r := got["x"]; !strings.Contains(r, "Bash replacement of shape {stdout, stderr, interrupted, isImage, noOutputExpected} not applied: the client refused it: PostToolUse hook returned updatedToolOutput that does not match Bash's output shape") {
		t.Errorf("refused: %q", r)
	}
	if r := got["o"]; !strings.Contains(r, "not applied: the transcript holds 19 other characters") {
		t.Errorf("other hook: %q", r)
	}
	if _, ok := got["l"]; ok {
		t.Error("a verdict from a line still being written")
	}
}

// Nothing pending: nothing is read.
func TestScanNothingPending(t *testing.T) {
	from := transcript.Cursor{Offset: 7, Line: 1}
	vs, next, err := Scan(strings.NewReader(toolResult("toolu_x", "v", bash("v"))), from, nil)
	if err != nil || len(vs) != 0 || next != from {
		t.Fatalf("%+v %+v %v", vs, next, err)
	}
}

// TestScanRollout: in a Codex rollout the function call's output is what
// the model got; the call itself, which names the id too, is not.
func TestScanRollout(t *testing.T) {
	line := func(payload map[string]any) string {
		b, _ := json.Marshal(map[string]any{"timestamp": "2026-11-27T10:00:00Z", "type": "response_item", "payload": payload})
		return string(b) + "\n"
	}
	view := "[ctxkeep] Bash output swapped out …"
	lines := line(map[string]any{"type": "function_call", "name": "exec_command", "call_id": "call_a", "arguments": `{"cmd":"make"}`}) +
		line(map[string]any{"type": "function_call_output", "call_id": "call_a", "output": view}) +
		line(map[string]any{"type": "function_call", "name": "exec_command", "call_id": "call_b", "arguments": `{"cmd":"make"}`}) +
		line(map[string]any{"type": "function_call_output", "call_id": "call_b", "output": "Process exited with code 0\nOutput:\nthe original"})
	pending := []Replacement{{ID: "a", ToolUseID: "call_a", Tool: "Bash", Sum: Sum(view)}, {ID: "b", ToolUseID: "call_b", Tool: "Bash", Sum: Sum(view)}, {ID: "c", ToolUseID: "call_c", Tool: "Bash", Sum: Sum(view)}}
	vs, next, err := ScanRollout(strings.NewReader(lines), transcript.Cursor{}, pending)
	if err != nil || next.Line != 4 || len(vs) != 2 {
		t.Fatalf("verdicts %+v, cursor %+v, err %v", vs, next, err)
	}
	if !vs[0].Applied || vs[1].Applied || !strings.Contains(vs[1].Reason, "the transcript holds 47 other characters") {
		t.Errorf("verdicts %+v", vs)
	}
}

// TestScanChat: a Gemini CLI chat names no call ctxkeep knows; a
// replacement is applied when a call's result is exactly its text (a
// deny's reason, recorded as the call's error), and stays unchecked when
// the chat holds no such result.
func TestScanChat(t *testing.T) {
	view := "[ctxkeep] Bash output swapped out of the context, kept exactly as id 0123456789ab: 60,000 chars; exit status 0.\n"
	other := "[ctxkeep] Bash output swapped out of the context, kept exactly as id ba9876543210: 1 chars; exit status 0.\n"
	call := func(id string, response any) string {
		b, _ := json.Marshal(map[string]any{"id": "m-" + id, "type": "gemini", "content": "", "toolCalls": []any{map[string]any{
			"id": id, "name": "run_shell_command", "args": map[string]any{"command": "seq 1 15000"}, "status": "error",
			"result": []any{map[string]any{"functionResponse": map[string]any{"id": id, "name": "run_shell_command", "response": response}}}}}})
		return string(b) + "\n"
	}
	lines := `{"sessionId":"s1","projectHash":"h","startTime":"2026-11-28T17:59:24.516Z","kind":"main"}` + "\n" +
		call("c1", map[string]any{"error": view}) +
		call("c2", map[string]any{"output": "<untrusted_context>\nOutput: [ctxkeep] not a view of ours\n</untrusted_context>"})
	pending := []Replacement{
		{ID: "a", ToolUseID: "gemini_1", Tool: "Bash", Sum: Sum(view)},
		{ID: "u", ToolUseID: "gemini_2", Tool: "Bash", Sum: Sum(other)},
	}
	vs, next, err := ScanChat(strings.NewReader(lines), transcript.Cursor{}, pending)
	if err != nil {
		t.Fatal(err)
	}
	if next.Offset != int64(len(lines)) || next.Line != 3 {
		t.Errorf("cursor %+v", next)
	}
	if len(vs) != 1 || vs[0].ID != "a" || !vs[0].Applied {
		t.Errorf("verdicts: %+v", vs)
	}
}
