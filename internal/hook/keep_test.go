package hook

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/ctxkeep/ctxkeep/internal/store"
)

// coldSession writes a transcript of 30 turns: task #1 done in the first,
// never mentioned again; the last response used tokens of context.
func coldSession(t *testing.T, path string, tokens int) {
	var lines []string
	n := 0
	add := func(v map[string]any) {
		n++
		v["uuid"], v["sessionId"], v["timestamp"] = fmt.Sprintf("u%03d", n), session, fmt.Sprintf("2026-11-21T10:%02d:%02dZ", n/60, n%60)
		b, _ := json.Marshal(v)
		lines = append(lines, string(b))
	}
	reply := func(content []any) {
		add(map[string]any{"type": "assistant", "message": map[string]any{"id": fmt.Sprintf("m%03d", n), "role": "assistant",
			"model": "claude-sonnet-4-5", "content": content,
			"usage": map[string]any{"input_tokens": 10, "cache_read_input_tokens": tokens - 110, "output_tokens": 100}}})
	}
	result := func(id, text string, structured any) {
		add(map[string]any{"type": "user", "toolUseResult": structured, "message": map[string]any{"role": "user",
			"content": []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": text}}}})
	}
	add(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": "Write the limiter."}})
	reply([]any{map[string]any{"type": "tool_use", "id": "c1", "name": "TaskCreate", "input": map[string]any{"subject": "Write the limiter", "description": "d"}}})
	result("c1", "Task #1 created successfully", map[string]any{"task": map[string]any{"id": "1", "subject": "Write the limiter"}})
	reply([]any{map[string]any{"type": "tool_use", "id": "u1", "name": "TaskUpdate", "input": map[string]any{"taskId": "1", "status": "completed"}}})
	result("u1", "Updated task #1", nil)
	for i := 2; i <= 30; i++ {
		add(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": fmt.Sprintf("Read part %d of the report.", i)}})
		reply([]any{map[string]any{"type": "text", "text": "Done."}})
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// Stop archives the turn and, with the context 70 % of the way to
// auto-compaction at a tenth turn, summarises the tasks that went cold.
func TestStopSummarisesColdTasksNearCompaction(t *testing.T) {
	for _, c := range []struct {
		tokens int
		want   int
	}{
		{60_000, 0},  // far from compaction (167k for a 200k window)
		{150_000, 1}, // 90 % of the way
	} {
		f := newSwapFixture(t)
		os.MkdirAll(f.sessionDir, 0o700)
		coldSession(t, f.transcript, c.tokens)
		stop, _ := json.Marshal(map[string]any{"session_id": session, "transcript_path": f.transcript, "cwd": "/p",
			"hook_event_name": "Stop", "stop_hook_active": false})
		if out := f.run(stop, handlers); out != "" {
			t.Errorf("Stop replied %q", out)
		}
		cold, err := f.openStore(t, store.Existing).ColdTasks(context.Background(), session)
		if err != nil || len(cold) != c.want {
			t.Errorf("at %d tokens: %d cold tasks (%v), want %d; log: %s", c.tokens, len(cold), err, c.want, f.log())
		}
	}
}

// A store past limits.total_bytes is pruned back under it at the end of a
// turn, without waiting for the session to end.
func TestStopPrunesAStoreOverItsLimit(t *testing.T) {
	f := newSwapFixture(t)
	f.vars["CTXKEEP_LIMITS_TOTAL_BYTES"] = "1MB"
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 5 {
		raw := make([]byte, 300_000)
		for j := range raw {
			raw[j] = byte(r.IntN(256))
		}
		out := base64.StdEncoding.EncodeToString(raw) // compresses little
		ev, _ := json.Marshal(map[string]any{
			"session_id": session, "transcript_path": f.transcript, "cwd": "/p", "hook_event_name": "PostToolUse",
			"tool_name": "Bash", "tool_input": map[string]any{"command": fmt.Sprintf("cat blob%d", i)},
			"tool_response": bash(out), "tool_use_id": fmt.Sprintf("toolu_%d", i),
		})
		if !strings.Contains(f.run(ev, handlers), "updatedToolOutput") {
			t.Fatalf("output %d not swapped; log: %s", i, f.log())
		}
	}
	stored := func() int64 {
		n, _ := f.openStore(t, store.Existing).StoredBytes(context.Background())
		return n
	}
	if before := stored(); before <= 1<<20 {
		t.Fatalf("the store holds %d bytes: the test needs more than its 1 MB limit", before)
	}
	stop, _ := json.Marshal(map[string]any{"session_id": session, "transcript_path": f.transcript, "cwd": "/p",
		"hook_event_name": "Stop", "stop_hook_active": false})
	f.run(stop, handlers)
	if after := stored(); after > 1<<20 || len(f.entries()) >= 5 {
		t.Errorf("after Stop: %d bytes stored, %d entries; log: %s", after, len(f.entries()), f.log())
	}
}
