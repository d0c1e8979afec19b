package hook

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ctxkeep/ctxkeep/internal/claudecode"
)

// response appends an assistant response calling a tool, with the context
// it reports, to a transcript: what the client writes before the tool runs.
func response(t *testing.T, path, id string, tokens int) {
	line, _ := json.Marshal(map[string]any{"type": "assistant", "uuid": "u" + id, "sessionId": session, "timestamp": "2026-11-21T10:00:00Z",
		"message": map[string]any{"id": "m" + id, "role": "assistant", "model": "claude-sonnet-4-5",
			"content": []any{map[string]any{"type": "tool_use", "id": "toolu_" + id, "name": "Bash", "input": map[string]any{"command": "ls"}}},
			"usage":   map[string]any{"input_tokens": 10, "cache_read_input_tokens": tokens - 110, "output_tokens": 100}}})
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.Write(append(line, '\n'))
}

// In one long autonomous turn, the PostToolUse after the call whose
// response crossed a level carries the warning, once: neither the calls
// after it, nor parallel calls, nor the next prompt tell it again; the
// next level is told when it is crossed.
func TestWarningsInsideALongTurn(t *testing.T) {
	f := newSwapFixture(t)
	os.MkdirAll(f.sessionDir, 0o700)
	event := func(name, id string) []byte {
		ev, _ := json.Marshal(map[string]any{"session_id": session, "transcript_path": f.transcript, "cwd": "/p",
			"hook_event_name": name, "tool_name": "Bash", "tool_input": map[string]any{"command": "ls"},
			"tool_response": bash("a.go"), "tool_use_id": "toolu_" + id, "prompt": "go on"})
		return ev
	}
	warnings := func(out, level string) int {
		return strings.Count(out, "ctxkeep: the context is at "+level+"% of the point where Claude Code compacts it")
	}
	// The 200k window of the sonnet model compacts at 167k; 70 % is 116.9k.
	response(t, f.transcript, "1", 100_000)
	if out := f.run(event("PostToolUse", "1"), handlers); warnings(out, "70") != 0 {
		t.Fatalf("warned at 60%%: %s", out)
	}
	response(t, f.transcript, "2", 120_000)
	var wg sync.WaitGroup
	outs := make([]string, 4)
	for i := range outs { // parallel tool calls of the same response
		wg.Add(1)
		go func() { defer wg.Done(); outs[i] = f.run(event("PostToolUse", fmt.Sprint("2", i)), handlers) }()
	}
	wg.Wait()
	told := 0
	for _, out := range outs {
		told += warnings(out, "70")
		if warnings(out, "70") == 1 && (!strings.Contains(out, `"hookEventName":"PostToolUse"`) || !strings.Contains(out, `"systemMessage"`)) {
			t.Errorf("the warning is not the PostToolUse's additional context and the user's message: %s", out)
		}
	}
	if told != 1 {
		t.Fatalf("the 70%% crossing was told %d times by 4 parallel PostToolUse hooks, want once; log: %s", told, f.log())
	}
	response(t, f.transcript, "3", 125_000)
	if out := f.run(event("PostToolUse", "3"), handlers); out != "" {
		t.Errorf("told again after the next call: %s", out)
	}
	if out := f.run(event("UserPromptSubmit", "4"), handlers); out != "" {
		t.Errorf("told again on the next prompt: %s", out)
	}
	response(t, f.transcript, "5", 137_000)
	if out := f.run(event("PostToolUse", "5"), handlers); warnings(out, "80") != 1 {
		t.Errorf("the 80%% crossing was not told: %q; log: %s", out, f.log())
	}
}

// The warning tells the model to get stored outputs back in part the way
// its session has: ctxkeep's MCP tool when registered, else the command.
func TestWarningNamesTheWayBack(t *testing.T) {
	for _, registered := range []bool{false, true} {
		f := newSwapFixture(t)
		f.vars["HOME"] = t.TempDir()
		if registered {
			claudecode.NoteMCPRegistered(f.dirs().MCPRegistrations(), filepath.Join(f.vars["HOME"], ".claude.json"), true)
		}
		os.MkdirAll(f.sessionDir, 0o700)
		response(t, f.transcript, "1", 120_000)
		ev, _ := json.Marshal(map[string]any{"session_id": session, "transcript_path": f.transcript, "cwd": "/p",
			"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": map[string]any{"command": "ls"},
			"tool_response": bash("a.go"), "tool_use_id": "toolu_1"})
		var reply struct {
			Specific struct {
				AdditionalContext string `json:"additionalContext"`
			} `json:"hookSpecificOutput"`
		}
		json.Unmarshal([]byte(f.run(ev, handlers)), &reply)
		want := "(`ctxkeep show ID --grep RE`"
		if registered {
			want = "(`mcp__ctxkeep__show {\"id\":\"ID\",\"grep\":\"RE\"}`, `lines`, `failures`) rather than whole"
		}
		if !strings.Contains(reply.Specific.AdditionalContext, want) {
			t.Errorf("registered %v: the warning lacks %q:\n%s", registered, want, reply.Specific.AdditionalContext)
		}
	}
}
