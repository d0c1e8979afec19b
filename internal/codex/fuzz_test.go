package codex

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/transcript"
)

// A rollout is input: whatever its lines, from whatever cursor and within
// whatever limit, the reader returns turns whose steps hold only the
// turn's own calls, and never panics.
func FuzzReader(f *testing.F) {
	f.Add(strings.Join(failingSession, "\n"), uint16(0), uint16(0))
	f.Add(strings.Join(failingSession, "\n"), uint16(300), uint16(200))
	f.Add(`{"type":"response_item","payload":{"type":"function_call_output","call_id":"x","output":"o"}}`+"\n", uint16(0), uint16(10))
	// One file for every input, rewritten: a folder made and removed per
	// input took most of the fuzzing time.
	path := filepath.Join(f.TempDir(), "rollout.jsonl")
	f.Fuzz(func(t *testing.T, rollout string, at, limit uint16) {
		writeRollout(t, path, []string{rollout})
		from := min(int64(at), int64(len(rollout)))
		out, err := Reader{}.Read(path, transcript.Cursor{Offset: from}, ctxkeep.Usage{}, transcript.ReadLimits{Bytes: int64(limit), Line: 1 << 16})
		if err != nil {
			return
		}
		for _, turn := range out.Turns {
			n := 0
			for _, st := range turn.Steps {
				n += len(st.Calls)
				for _, it := range st.Items {
					if it.Call >= len(st.Calls) {
						t.Fatalf("a step's item names call %d of %d", it.Call, len(st.Calls))
					}
				}
			}
			if n > len(turn.Calls) {
				t.Fatalf("the steps hold %d calls, the turn %d", n, len(turn.Calls))
			}
		}
	})
}
