package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ctxkeep/ctxkeep"
)

// The pages' budgets (docs/BENCHMARKS.md, "Web UI"): the Sessions page
// under 100 ms with 1,000 sessions, a session of 5,000 steps under 500 ms.
// Measured here, never asserted in a test.
//
//	go test ./internal/ui -run '^$' -bench . -benchtime 20x

// BenchmarkSessionsPage1000 is the Sessions page over 1,000 archived
// sessions of 20 steps each, 3 stored outputs each, in 25 projects.
func BenchmarkSessionsPage1000(b *testing.B) {
	dir := b.TempDir()
	if d := os.Getenv("CTXKEEP_UI_BENCH_DIR"); d != "" {
		dir = d // keep the store, for a profile
	}
	s, st := newServer(b, dir)
	ctx := context.Background()
	t0 := time.Now().Add(-1000 * time.Hour)
	for i := range 1000 {
		id := fmt.Sprintf("%08x-0000-4000-8000-%012x", i, i)
		var cs []ctxkeep.Chunk
		for n := range 20 {
			c := ctxkeep.Chunk{Key: fmt.Sprintf("k%05x%06x", i, n), SessionID: id, Project: fmt.Sprintf("/home/you/project-%02d", i%25),
				Kind: ctxkeep.KindStep, Agent: ctxkeep.AgentClaudeCode, Turn: 1 + n/4, Step: 1 + n%4,
				Start: t0.Add(time.Duration(i) * time.Hour), End: t0.Add(time.Duration(i)*time.Hour + time.Duration(n)*time.Minute),
				Summary: "tools: Bash | ran the tests", Body: strings.Repeat("→ Bash: go test ./...\n← result: ok\n", 20)}
			if n%4 == 0 {
				c.Prompt = fmt.Sprintf("fix the failing test number %d", i)
			}
			cs = append(cs, c)
		}
		cur := ctxkeep.ArchiveCursor{Transcript: "/nowhere/" + id + ".jsonl", Turn: 5, Step: 4, Usage: ctxkeep.Usage{Tokens: int64(50_000 + i*100), Model: "claude-opus-4-6"}}
		if _, err := st.SaveChunks(ctx, id, cs, cur); err != nil {
			b.Fatal(err)
		}
		for k := range 3 {
			if _, err := st.PutEntry(ctx, ctxkeep.Entry{ID: fmt.Sprintf("%06x%06x", i, k), SessionID: id, Tool: "Bash", Input: "go test ./...", Chars: 30_000, ViewChars: 2_000},
				[]byte(fmt.Sprintf("output %d %d %s", i, k, strings.Repeat("x", 1000)))); err != nil {
				b.Fatal(err)
			}
		}
	}
	if w := get(s, "/"); w.Code != http.StatusOK || strings.Count(w.Body.String(), `<td class="title">`) != pageRows ||
		!strings.Contains(w.Body.String(), "sessions 1–200 of 1000") {
		b.Fatalf("the page: %d, %d rows", w.Code, strings.Count(w.Body.String(), `<td class="title">`))
	}
	// As the page is loaded again and again: the index unchanged since.
	b.Run("unchanged", func(b *testing.B) { pageLoop(b, s, "/", func() {}) })
	// After a hook wrote: the cursors are read again, and the figures of
	// what swap kept out and of the pins (no session archived further).
	b.Run("written", func(b *testing.B) { pageLoop(b, s, "/", func() { s.lists.stamp = "" }) })
	// The first load: every session summed up.
	b.Run("first", func(b *testing.B) { pageLoop(b, s, "/", func() { s.lists = listCache{} }) })
}

// pageLoop loads path b.N times, after reset, and reports the wall and
// CPU time (user and system, of every thread) per page.
func pageLoop(b *testing.B, s *Server, path string, reset func()) {
	var before, after syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	for b.Loop() {
		reset()
		if w := get(s, path); w.Code != http.StatusOK {
			b.Fatal(w.Code)
		}
	}
	syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	cpu := time.Duration(after.Utime.Nano()+after.Stime.Nano()-before.Utime.Nano()-before.Stime.Nano()) / time.Duration(b.N)
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/page")
	b.ReportMetric(float64(cpu.Microseconds())/1000, "cpu-ms/page")
}

// BenchmarkSessionPage5000 is a session page of 5,000 steps: the archive's
// steps (each with a command, and every tenth with a stored output) and a
// transcript of 5,000 responses, read once and then from its cursor. The
// page lists the latest 1,000 steps (stepWindow) and charts all 5,000
// responses. The first view, which reads the transcript, is logged apart.
func BenchmarkSessionPage5000(b *testing.B) {
	dir := b.TempDir()
	s, st := newServer(b, dir)
	ctx := context.Background()
	const id = "5000-steps"
	path := filepath.Join(dir, id+".jsonl")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	t0 := time.Now().Add(-100 * time.Hour)
	var cs []ctxkeep.Chunk
	for n := range 5000 {
		at := t0.Add(time.Duration(n) * time.Minute)
		use := fmt.Sprintf("toolu_%06d", n)
		asst := map[string]any{"type": "assistant", "uuid": fmt.Sprint("a", n), "sessionId": id, "timestamp": at.Format(time.RFC3339),
			"message": map[string]any{"id": fmt.Sprint("msg_", n), "role": "assistant", "model": "claude-opus-4-6",
				"content": []any{map[string]any{"type": "text", "text": "Running the tests again."}, map[string]any{"type": "tool_use", "id": use, "name": "Bash", "input": map[string]any{"command": "go test ./..."}}},
				"usage":   map[string]any{"input_tokens": 3, "cache_read_input_tokens": 20_000 + (n%800)*180, "output_tokens": 200}}}
		user := map[string]any{"type": "user", "uuid": fmt.Sprint("u", n), "sessionId": id, "timestamp": at.Format(time.RFC3339),
			"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": use, "content": strings.Repeat("ok  \tpkg\t0.01s\n", 60)}}}}
		for _, rec := range []any{asst, user} {
			line, _ := json.Marshal(rec)
			f.Write(append(line, '\n'))
		}
		if n%800 == 799 {
			bd, _ := json.Marshal(map[string]any{"type": "system", "subtype": "compact_boundary", "uuid": fmt.Sprint("c", n), "sessionId": id,
				"timestamp": at.Format(time.RFC3339), "compactMetadata": map[string]any{"trigger": "auto", "preTokens": 167_000}})
			f.Write(append(bd, '\n'))
		}
		c := ctxkeep.Chunk{Key: fmt.Sprintf("k%011x", n), SessionID: id, Project: "/home/you/big", Kind: ctxkeep.KindStep, Agent: ctxkeep.AgentClaudeCode,
			Turn: 1 + n/10, Step: 1 + n%10, Start: at, End: at, Summary: "tools: Bash | Running the tests again.", Body: "→ Bash: go test ./...",
			Meta: ctxkeep.Meta{Tools: []string{"Bash"}, Commands: []ctxkeep.Command{{Run: "go test ./...", Exit: 0}}}}
		if n%10 == 0 {
			c.Prompt = fmt.Sprintf("prompt %d: run the tests", n/10)
			eid := fmt.Sprintf("e%011x", n)
			applied := true
			if _, err := st.PutEntry(ctx, ctxkeep.Entry{ID: eid, SessionID: id, ToolUseID: use, Tool: "Bash", Input: "go test ./...", Chars: 40_000, ViewChars: 1_500,
				Replacement: "x", Applied: &applied}, []byte(fmt.Sprint("output ", n))); err != nil {
				b.Fatal(err)
			}
			c.Meta.Entries = []string{eid}
		}
		cs = append(cs, c)
	}
	f.Close()
	if _, err := st.SaveChunks(ctx, id, cs, ctxkeep.ArchiveCursor{Transcript: path, Turn: 500, Step: 10}); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	w := get(s, "/s/"+id)
	first := time.Since(start)
	if n := strings.Count(w.Body.String(), `<li class="step`); w.Code != http.StatusOK || n != stepWindow || !strings.Contains(w.Body.String(), `class="chart"`) ||
		!strings.Contains(w.Body.String(), "4000 steps not shown") {
		b.Fatalf("the page: %d, %d steps", w.Code, strings.Count(w.Body.String(), `<li class="step`))
	}
	b.Logf("first view (reads the whole transcript, %.1f MB): %v; page %.1f MB", float64(fileSize(path))/1e6, first.Round(time.Millisecond), float64(w.Body.Len())/1e6)
	b.Run("again", func(b *testing.B) { pageLoop(b, s, "/s/"+id, func() {}) })
	// After the hooks archived more of it: its steps read from the index again.
	b.Run("archived-more", func(b *testing.B) { pageLoop(b, s, "/s/"+id, func() { s.headc = headCache{} }) })
	// The first view: the transcript read too.
	b.Run("first", func(b *testing.B) {
		pageLoop(b, s, "/s/"+id, func() { s.headc, s.scans = headCache{}, newScanCache() })
	})
}

func fileSize(path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return st.Size()
}
