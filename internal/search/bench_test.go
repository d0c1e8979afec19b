package search

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/archive"
	"github.com/ctxkeep/ctxkeep/internal/sqlite"
)

// BenchmarkSearch1M is `ctxkeep search --all` in process over an index of
// one million synthetic steps (100 sessions of 10,000, in turns of 50;
// words drawn from a Zipf distribution over 30,000, so that common words
// are common): the full-text queries (the words, and the phrase they make),
// then the ranking. It reports the median and the 95th
// percentile of 200 queries of each kind below.
//
// Building the index takes minutes; it is kept in the temporary folder
// and reused while CTXKEEP_BENCH_INDEX names it:
//
//	CTXKEEP_BENCH_INDEX=/tmp/ctxkeep-1m.db go test -run '^$' -bench Search1M -benchtime 1x -timeout 1h ./internal/search
func BenchmarkSearch1M(b *testing.B) {
	path := os.Getenv("CTXKEEP_BENCH_INDEX")
	if path == "" {
		path = filepath.Join(b.TempDir(), "index.db")
	}
	db, err := sqlite.OpenMigrate(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	words := vocabulary(30000)
	if err := fill(b, db, words, 100, 10000); err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	// Queries of three words: of middling frequency (ranks 100–2,100 of
	// 30,000, each in several per cent of the turns), and rarer ones
	// (ranks 2,000–30,000), closer to what people search for.
	kinds := []struct {
		name     string
		from, to int
	}{{"mid", 100, 2100}, {"rare", 2000, 30000}}
	times := make([][]time.Duration, len(kinds))
	shown := make([][]time.Duration, len(kinds)) // what search prints of the 10 hits (Show), on top
	b.ResetTimer()
	for range b.N {
		for range 200 {
			for k, kind := range kinds {
				word := func() string { return words[kind.from+r.IntN(kind.to-kind.from)] }
				q := word() + " " + word() + " " + word()
				start := time.Now()
				rs, err := Search(ctx, db, Query{Text: q, Limit: 10}, Signals{Now: time.Now()})
				if err != nil {
					b.Fatal(err)
				}
				times[k] = append(times[k], time.Since(start))
				start = time.Now()
				for _, r := range rs {
					Show(ctx, nil, r.Chunk, q)
				}
				shown[k] = append(shown[k], time.Since(start))
			}
		}
	}
	b.StopTimer()
	for k, kind := range kinds {
		slices.Sort(times[k])
		slices.Sort(shown[k])
		b.ReportMetric(float64(times[k][len(times[k])/2].Microseconds())/1000, kind.name+"-median-ms")
		b.ReportMetric(float64(times[k][len(times[k])*95/100].Microseconds())/1000, kind.name+"-p95-ms")
		b.ReportMetric(float64(shown[k][len(shown[k])/2].Microseconds())/1000, kind.name+"-show-median-ms")
	}
	b.ReportMetric(0, "ns/op")
}

// stepsPerTurn is how many steps the synthetic turns have.
const stepsPerTurn = 50

// vocabulary is n made-up words, the same every run.
func vocabulary(n int) []string {
	r := rand.New(rand.NewPCG(3, 4))
	const letters = "abcdefghijklmnopqrstuvwxyz"
	seen := map[string]bool{}
	var out []string
	for len(out) < n {
		w := make([]byte, 3+r.IntN(7))
		for i := range w {
			w[i] = letters[r.IntN(len(letters))]
		}
		if !seen[string(w)] {
			seen[string(w)] = true
			out = append(out, string(w))
		}
	}
	return out
}

// fill writes sessions × perSession steps of about 80 words each, in
// turns of stepsPerTurn (the first step of each with a prompt), unless the
// index already holds them.
func fill(b *testing.B, db *sqlite.DB, words []string, sessions, perSession int) error {
	have, err := db.ChunkSessions(ctx)
	if err != nil || len(have) == sessions {
		return err
	}
	r := rand.New(rand.NewPCG(5, 6))
	zipf := rand.NewZipf(rand.New(rand.NewPCG(7, 8)), 1.1, 2, uint64(len(words)-1))
	text := func(n int) string {
		var s strings.Builder
		for i := range n {
			if i > 0 {
				s.WriteByte(' ')
			}
			s.WriteString(words[zipf.Uint64()])
		}
		return s.String()
	}
	start := time.Now()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for s := range sessions {
		id := fmt.Sprintf("00000000-0000-4000-8000-%012d", s)
		for from := 0; from < perSession; from += 1000 {
			var chunks []ctxkeep.Chunk
			for i := from; i < from+1000; i++ {
				at := t0.Add(time.Duration(s*perSession+i) * time.Minute)
				turn, step := i/stepsPerTurn+1, i%stepsPerTurn+1
				prompt := ""
				if step == 1 {
					prompt = text(12)
				}
				chunks = append(chunks, ctxkeep.Chunk{Key: archive.StepKey(id, turn, step), SessionID: id,
					Project: fmt.Sprintf("/p/%d", s%10), Kind: ctxkeep.KindStep, Turn: turn, Step: step, Start: at, End: at,
					Prompt: prompt, Summary: text(15), Body: text(60) + fmt.Sprintf(" %d", r.IntN(1e6))})
			}
			last := from + 999
			cur := ctxkeep.ArchiveCursor{Transcript: id, Turn: last/stepsPerTurn + 1, Step: last%stepsPerTurn + 1}
			if _, err := db.SaveChunks(ctx, id, chunks, cur); err != nil {
				return err
			}
		}
		if s%10 == 9 {
			b.Logf("%d sessions of %d steps indexed in %v", s+1, perSession, time.Since(start).Round(time.Second))
		}
	}
	return nil
}
