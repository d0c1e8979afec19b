package hook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// BenchmarkPostToolUseSwap1MB is the in-process part of swapping out a new
// 1 MB Bash output (the spawn benchmark in cmd/ctxkeep times the process).
func BenchmarkPostToolUseSwap1MB(b *testing.B) {
	f := newSwapFixture(&testing.T{})
	f.fixture.t = nil
	var out strings.Builder
	for n := 0; out.Len() < 1<<20; n++ {
		fmt.Fprintf(&out, "=== RUN   TestCase%d\n--- PASS: TestCase%d (0.00s)\n", n, n)
	}
	text := out.String()
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for i := range b.N {
		ev := map[string]any{
			"session_id": session, "transcript_path": f.transcript, "cwd": "/p", "hook_event_name": "PostToolUse",
			"tool_name": "Bash", "tool_input": map[string]any{"command": "go test -v ./..."},
			"tool_response": bash(fmt.Sprintf("run %d\n", i) + text), "tool_use_id": fmt.Sprintf("toolu_%06d", i),
		}
		payload, _ := json.Marshal(ev)
		var stdout bytes.Buffer
		run(time.Now(), f.env(), bytes.NewReader(payload), &stdout, handlers)
		if stdout.Len() == 0 {
			b.Fatal("no reply")
		}
	}
}
