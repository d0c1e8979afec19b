package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/store"
)

// BenchmarkSessionEndTend is the in-process cost of ctxkeep's clean-up at
// SessionEnd on a store of 2000 outputs over 10 sessions: reading what
// prune needs (three queries, no walk of the blob folder) when nothing is
// due ("other"), and removing a session's 200 unpinned outputs ("clear").
func BenchmarkSessionEndTend(b *testing.B) {
	for _, reason := range []string{"other", "clear"} {
		b.Run(reason, func(b *testing.B) {
			f := newSwapFixture(&testing.T{})
			f.fixture.t = nil
			seed := func() {
				st, err := store.Open(context.Background(), f.dirs().IndexDB(), f.dirs().Blobs(), store.Existing, time.Now)
				if err != nil {
					b.Fatal(err)
				}
				defer st.Close()
				for i := range 2000 {
					s := fmt.Sprintf("session-%d", i%10)
					if i%10 == 0 {
						s = session
					}
					e := ctxkeep.Entry{ID: fmt.Sprintf("%012x", i), SessionID: s, Tool: "Bash", CreatedAt: time.Now()}
					if _, err := st.PutEntry(context.Background(), e, fmt.Appendf(nil, "output %d", i)); err != nil {
						b.Fatal(err)
					}
				}
			}
			payload, _ := json.Marshal(map[string]any{"session_id": session, "transcript_path": f.transcript, "cwd": "/p",
				"hook_event_name": "SessionEnd", "reason": reason})
			table := map[string]handler{"SessionEnd": tendAtSessionEnd}
			seed()
			b.ResetTimer()
			for range b.N {
				if reason == "clear" {
					b.StopTimer()
					seed() // the session's outputs again
					b.StartTimer()
				}
				run(time.Now(), f.env(), bytes.NewReader(payload), &bytes.Buffer{}, table)
			}
			b.StopTimer()
			if log := f.log(); log != "" {
				b.Fatal(log)
			}
		})
	}
}
