package hook

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/ctxkeep/ctxkeep/internal/store"
)

// bigSession writes a transcript of n prompts, each answered with a
// result of size bytes: a backlog one call may not read whole.
func bigSession(t *testing.T, path string, n, size int) int64 {
	var b strings.Builder
	for i := range n {
		for _, v := range []map[string]any{
			{"type": "user", "message": map[string]any{"role": "user", "content": fmt.Sprintf("prompt %d", i)}},
			{"type": "assistant", "message": map[string]any{"id": fmt.Sprintf("m%d", i), "role": "assistant", "model": "claude-sonnet-4-5",
				"content": []any{map[string]any{"type": "tool_use", "id": fmt.Sprintf("t%d", i), "name": "Bash", "input": map[string]any{"command": "cat log"}}}}},
			{"type": "user", "message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": fmt.Sprintf("t%d", i),
				"content": strings.Repeat("x", size)}}}},
		} {
			v["uuid"], v["sessionId"], v["timestamp"] = fmt.Sprintf("u%d-%s", i, v["type"]), session, "2026-11-21T10:00:00Z"
			line, _ := json.Marshal(v)
			b.Write(append(line, '\n'))
		}
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return int64(b.Len())
}

// A transcript larger than limits.transcript_read_bytes is archived over
// several Stops: each reads at most the limit (with one batch of slack to
// finish its last step) and saves its cursor, so that none pays for the
// whole backlog again, and the archive ends complete.
func TestStopArchivesABacklogOverSeveralTurns(t *testing.T) {
	f := newSwapFixture(t)
	f.vars["CTXKEEP_LIMITS_TRANSCRIPT_READ_BYTES"] = "100KB"
	f.vars["CTXKEEP_LIMITS_TRANSCRIPT_LINE_BYTES"] = "64KB"
	os.MkdirAll(f.sessionDir, 0o700)
	size := bigSession(t, f.transcript, 60, 10_000) // ~620 KB
	stop, _ := json.Marshal(map[string]any{"session_id": session, "transcript_path": f.transcript, "cwd": "/p", "hook_event_name": "Stop"})
	var last int64
	calls := 0
	for last < size-20_000 {
		f.run(stop, handlers)
		calls++
		cur, ok, err := f.openStore(t, store.Existing).Cursor(context.Background(), session)
		if err != nil || !ok {
			t.Fatalf("no cursor after Stop %d: %v; log: %s", calls, err, f.log())
		}
		if cur.Offset <= last || cur.Offset-last > 100_000 {
			t.Fatalf("Stop %d moved the cursor from %d to %d: want progress, at most the 100 KB limit", calls, last, cur.Offset)
		}
		last = cur.Offset
		if calls > 20 {
			t.Fatal("no end to the backlog")
		}
	}
	if calls < 5 {
		t.Errorf("%d Stops read a 620 KB backlog with a 100 KB limit", calls)
	}
	cs, _ := f.openStore(t, store.Existing).Chunks(context.Background(), session)
	if len(cs) != 60 || cs[59].Turn != 60 {
		t.Fatalf("%d chunks after the backlog, want the 60 turns", len(cs))
	}
}

// A line longer than limits.transcript_line_bytes is skipped and counted,
// never held: the turns around it are archived.
func TestStopSkipsAHugeLine(t *testing.T) {
	f := newSwapFixture(t)
	f.vars["CTXKEEP_LIMITS_TRANSCRIPT_LINE_BYTES"] = "64KB"
	os.MkdirAll(f.sessionDir, 0o700)
	bigSession(t, f.transcript, 3, 200_000)
	stop, _ := json.Marshal(map[string]any{"session_id": session, "transcript_path": f.transcript, "cwd": "/p", "hook_event_name": "Stop"})
	f.run(stop, handlers)
	cs, _ := f.openStore(t, store.Existing).Chunks(context.Background(), session)
	if len(cs) != 3 || !strings.Contains(cs[0].Body, "(no result)") {
		t.Fatalf("%d chunks; want the 3 turns, their huge results skipped", len(cs))
	}
	if !strings.Contains(f.log(), "3 lines over limits.transcript_line_bytes skipped") {
		t.Errorf("the skipped lines were not counted in the log: %s", f.log())
	}
}
