package keep

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/realdata"
	"github.com/ctxkeep/ctxkeep/internal/store"
	"github.com/ctxkeep/ctxkeep/internal/storetest"
	"github.com/ctxkeep/ctxkeep/internal/transcript"
)

var ctx = context.Background()

func newStore(t testing.TB) *store.Store {
	t.Helper()
	return storetest.Local(t, t.TempDir())
}

var spotterSessions = realdata.Spotter

// Archiving a session while it grows (here: at every 300th line, as Stop
// would) gives exactly the chunks one archive of the whole file gives.
func TestArchiveIncrementallyEqualsAtOnce(t *testing.T) {
	for _, path := range spotterSessions(t)[:3] {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, _ := os.ReadFile(path)
			lines := bytes.SplitAfter(data, []byte("\n"))
			grown := filepath.Join(t.TempDir(), filepath.Base(path))
			st := newStore(t)
			s := Session{ID: "grown", Project: "/p", Transcript: grown}
			for n := 300; ; n += 300 {
				os.WriteFile(grown, bytes.Join(lines[:min(n, len(lines))], nil), 0o600)
				if _, err := Archive(ctx, st, s); err != nil {
					t.Fatal(err)
				}
				if n >= len(lines) {
					break
				}
			}
			once := newStore(t)
			whole := Session{ID: "grown", Project: "/p", Transcript: path}
			res, err := Archive(ctx, once, whole)
			if err != nil {
				t.Fatal(err)
			}
			a, _ := st.Chunks(ctx, "grown")
			b, _ := once.Chunks(ctx, "grown")
			if len(a) != len(b) || len(b) == 0 {
				t.Fatalf("%d chunks incrementally, %d at once", len(a), len(b))
			}
			for i := range a {
				if a[i].Key != b[i].Key || a[i].BodyHash() != b[i].BodyHash() || a[i].Summary != b[i].Summary {
					t.Fatalf("chunk %d differs: turn %d %q vs turn %d %q", i, a[i].Turn, a[i].Summary, b[i].Turn, b[i].Summary)
				}
			}
			f, _ := transcript.ReadFile(path, transcript.Cursor{})
			if turns := len(transcript.Turns(f.Records)); res.Turns != turns {
				t.Errorf("archived %d turns, the transcript has %d", res.Turns, turns)
			}
			// Archiving again reads only the last turn and writes nothing.
			again, err := Archive(ctx, once, whole)
			if err != nil || again.Written != 0 || again.Read >= int64(len(data)) {
				t.Errorf("second archive: %+v, %v", again, err)
			}
		})
	}
}

// Each long spotter session holds one compaction: its summary is archived
// as a searchable chunk of its own.
func TestCompactionSummaryIsArchived(t *testing.T) {
	st := newStore(t)
	path := spotterSessions(t)[0]
	if _, err := Archive(ctx, st, Session{ID: "s", Project: "/p", Transcript: path}); err != nil {
		t.Fatal(err)
	}
	chunks, _ := st.Chunks(ctx, "s")
	n := 0
	for _, c := range chunks {
		if c.Kind == ctxkeep.KindSummary {
			n++
			if len(c.Body) < 500 {
				t.Errorf("summary chunk of %d bytes", len(c.Body))
			}
		}
	}
	if n != 1 {
		t.Fatalf("%d summary chunks, want 1", n)
	}
	hits, err := st.SearchChunks(ctx, ctxkeep.ChunkQuery{Text: "session continued previous conversation summary", Kind: ctxkeep.KindSummary})
	if err != nil || len(hits) != 1 {
		t.Fatalf("search for the summary: %d hits, %v", len(hits), err)
	}
}
