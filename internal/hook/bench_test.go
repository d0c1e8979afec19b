package hook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// BenchmarkPostToolUseSwap1MB is the in-process part of storing a new
// 1 MB Bash output (the spawn benchmark in cmd/ctxkeep times the whole
// process): a passing go test -v, which its condenser folds, and a server
// log, which gets the swap view. Payloads are built before the timer.
func BenchmarkPostToolUseSwap1MB(b *testing.B) {
	for _, kind := range []string{"gotest", "log"} {
		b.Run(kind, func(b *testing.B) {
			f := newSwapFixture(&testing.T{})
			f.fixture.t = nil
			payloads := make([][]byte, b.N)
			for i := range b.N {
				payloads[i] = payload1MB(kind, i, f.transcript)
			}
			b.SetBytes(int64(len(payloads[0])))
			b.ResetTimer()
			for i := range b.N {
				var stdout bytes.Buffer
				run(time.Now(), f.env(), bytes.NewReader(payloads[i]), &stdout, handlers)
				if stdout.Len() == 0 {
					b.Fatal("no reply")
				}
			}
		})
	}
}

// payload1MB is a PostToolUse event of a 1 MB Bash output unique to i.
func payload1MB(kind string, i int, transcript string) []byte {
	var out strings.Builder
	fmt.Fprintf(&out, "run %d\n", i)
	command := "go test -v ./..."
	for n := 0; out.Len() < 1<<20; n++ {
		if kind == "log" {
			command = "cat server.log"
			fmt.Fprintf(&out, "2026-11-21T10:%02d:%02d.%03dZ INFO request id=%d-%d path=/api/v1/items/%d served in %dms\n", n/60%60, n%60, n%1000, i, n, n%977, n%37)
			continue
		}
		fmt.Fprintf(&out, "=== RUN   TestCase%d\n--- PASS: TestCase%d (0.00s)\n", n, n)
	}
	ev := map[string]any{
		"session_id": session, "transcript_path": transcript, "cwd": "/p", "hook_event_name": "PostToolUse",
		"tool_name": "Bash", "tool_input": map[string]any{"command": command},
		"tool_response": bash(out.String()), "tool_use_id": fmt.Sprintf("toolu_%06d", i),
	}
	payload, _ := json.Marshal(ev)
	return payload
}
