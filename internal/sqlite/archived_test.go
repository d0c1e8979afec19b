package sqlite

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/ctxkeep/ctxkeep"
)

// ArchivedSessions sums every session up in one query: steps (not
// summaries), turns, compactions, first and last times, the client and
// project, the transcript and usage of the archive cursor; latest first.
func TestArchivedSessions(t *testing.T) {
	db, err := OpenMigrate(ctx, filepath.Join(t.TempDir(), "index.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	t0 := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	step := func(s string, turn, n int, at time.Duration) ctxkeep.Chunk {
		return ctxkeep.Chunk{Key: "k" + s + string(rune('0'+turn)) + string(rune('0'+n)), SessionID: s, Project: "/p/" + s, Kind: ctxkeep.KindStep,
			Agent: ctxkeep.AgentClaudeCode, Turn: turn, Step: n, Start: t0.Add(at), End: t0.Add(at + time.Minute), Body: s + " body"}
	}
	first := step("aaaa", 1, 1, 0)
	first.Prompt = "fix the parser"
	a := []ctxkeep.Chunk{first, step("aaaa", 1, 2, time.Hour), step("aaaa", 2, 1, 2*time.Hour),
		{Key: "kaaaasum", SessionID: "aaaa", Project: "/p/aaaa", Kind: ctxkeep.KindSummary, Agent: ctxkeep.AgentClaudeCode, Turn: 2, Start: t0.Add(2 * time.Hour), End: t0.Add(2 * time.Hour), Body: "summary"}}
	cur := ctxkeep.ArchiveCursor{Transcript: "/t/aaaa.jsonl", Offset: 10, Turn: 2, Step: 1, Usage: ctxkeep.Usage{Tokens: 4200}}
	if _, err := db.SaveChunks(ctx, "aaaa", a, cur); err != nil {
		t.Fatal(err)
	}
	b := step("bbbb", 1, 1, 3*time.Hour)
	b.Agent = ctxkeep.AgentCodex
	if _, err := db.SaveChunks(ctx, "bbbb", []ctxkeep.Chunk{b}, ctxkeep.ArchiveCursor{Transcript: "/t/bbbb.jsonl", Turn: 1, Step: 1}); err != nil {
		t.Fatal(err)
	}
	got, err := db.ArchivedSessions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ID != "bbbb" || got[1].ID != "aaaa" {
		t.Fatalf("sessions = %+v; want bbbb then aaaa", got)
	}
	s := got[1]
	if s.Steps != 3 || s.Turns != 2 || s.Compactions != 1 || s.Project != "/p/aaaa" || s.Agent != ctxkeep.AgentClaudeCode ||
		!s.Start.Equal(t0) || !s.End.Equal(t0.Add(2*time.Hour+time.Minute)) || s.Transcript != "/t/aaaa.jsonl" || s.Usage.Tokens != 4200 || s.Prompt != "fix the parser" {
		t.Errorf("aaaa = %+v", s)
	}
	if got[0].Agent != ctxkeep.AgentCodex || got[0].Steps != 1 {
		t.Errorf("bbbb = %+v", got[0])
	}
	one, err := db.ArchivedSessions(ctx, "aaaa")
	if err != nil || len(one) != 1 || one[0].Steps != 3 || one[0].Prompt != "fix the parser" {
		t.Errorf("ArchivedSessions(aaaa) = %+v, %v", one, err)
	}
	curs, err := db.ArchiveCursors(ctx)
	if err != nil || len(curs) != 2 || curs["aaaa"].Offset != 10 || curs["bbbb"].Transcript != "/t/bbbb.jsonl" {
		t.Errorf("ArchiveCursors = %+v, %v", curs, err)
	}
}
