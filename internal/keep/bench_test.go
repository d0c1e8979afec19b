package keep

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ctxkeep/ctxkeep/internal/realdata"
)

// BenchmarkArchive archives the five long spotter sessions from scratch,
// each into a fresh index; MB/s is transcript bytes read per second.
//
//	go test -run '^$' -bench Archive -benchtime 5x ./internal/keep
func BenchmarkArchive(b *testing.B) {
	files := spotterSessions(b)
	var size int64
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			b.Fatal(err)
		}
		size += fi.Size()
	}
	b.SetBytes(size)
	for range b.N {
		b.StopTimer()
		st := newStore(b)
		b.StartTimer()
		for _, f := range files {
			id := filepath.Base(f)
			if _, err := Archive(ctx, st, Session{ID: id[:36], Transcript: f}); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkPreserveAfterStop is PreCompact's work in process, on a 3 MB
// session Stop already archived: the archive run finds only the last turn
// to read again, then the state is folded and the block written.
//
//	go test -run '^$' -bench PreserveAfterStop -benchtime 20x ./internal/keep
func BenchmarkPreserveAfterStop(b *testing.B) {
	f := realdata.File(b, "cc-sessions-spotter/4d5611e5-241a-462a-8d15-5122611a9569.jsonl")
	st := newStore(b)
	s := Session{ID: "4d5611e5-241a-462a-8d15-5122611a9569", Transcript: f}
	if _, err := Archive(ctx, st, s); err != nil {
		b.Fatal(err)
	}
	o := Options{PreserveBudget: 10000, Now: time.Now()}
	b.ResetTimer()
	for range b.N {
		if _, err := Preserve(ctx, st, s, "auto", o); err != nil {
			b.Fatal(err)
		}
	}
}
