// Package storetest is the conformance suite every backend of ctxkeep's
// store must pass (in the manner of restic's internal/backend/test): the
// local SQLite store now, a PostgreSQL archive later. It checks the
// contracts ctxkeep.OutputStore and ctxkeep.ArchiveIndex document: entries
// and their exact bytes, pins, removal, chunks and cursors, the search
// ranking contract, and concurrent use.
package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ctxkeep/ctxkeep"
)

// Opener returns a new, empty store for one test, closed by the test's
// cleanup.
type Opener func(t *testing.T) ctxkeep.Store

// Run runs the whole suite against the stores open returns.
func Run(t *testing.T, open Opener) {
	tests := []struct {
		name string
		fn   func(*testing.T, ctxkeep.Store)
	}{
		{"PutAndOpen", testPutAndOpen},
		{"EntryLookup", testEntryLookup},
		{"EntryFilter", testEntryFilter},
		{"PinAndTouch", testPinAndTouch},
		{"Remove", testRemove},
		{"ChunksAndCursor", testChunksAndCursor},
		{"ChunkLookup", testChunkLookup},
		{"Steps", testSteps},
		{"StepsReplaceTurn", testStepsReplaceTurn},
		{"SearchPhrase", testSearchPhrase},
		{"SearchContract", testSearchContract},
		{"SearchScope", testSearchScope},
		{"ColdTasks", testColdTasks},
		{"ConcurrentPuts", testConcurrentPuts},
		{"ConcurrentArchives", testConcurrentArchives},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.fn(t, open(t)) })
	}
}

var ctx = context.Background()

var t0 = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

func entry(id, session string, at time.Time) ctxkeep.Entry {
	return ctxkeep.Entry{ID: id, SessionID: session, ToolUseID: "toolu_" + id, Tool: "Bash", Input: "go test ./...",
		Chars: 10, Lines: 1, ViewChars: 5, Summary: "s", CreatedAt: at}
}

func put(t *testing.T, st ctxkeep.Store, e ctxkeep.Entry, data string) ctxkeep.Entry {
	t.Helper()
	got, err := st.PutEntry(ctx, e, []byte(data))
	if err != nil {
		t.Fatalf("PutEntry %s: %v", e.ID, err)
	}
	return got
}

func ids(es []ctxkeep.Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.ID
	}
	return out
}

func testPutAndOpen(t *testing.T, st ctxkeep.Store) {
	data := "exact bytes\x00\xff\r\n, not text"
	code := 3
	in := entry("aaaaaaaaaaaa", "s1", t0)
	in.ExitCode, in.Failures, in.CopyPath, in.Cwd = &code, 2, "/tmp/x/tool-results/ctxkeep-aaaaaaaaaaaa.txt", "/p"
	e := put(t, st, in, data)
	if e.Hash != ctxkeep.Sum([]byte(data)) {
		t.Fatalf("PutEntry set hash %s, want the SHA-256 of the bytes", e.Hash)
	}
	got, err := st.Open(ctx, e.Hash)
	if err != nil || !bytes.Equal(got, []byte(data)) {
		t.Fatalf("Open = %q, %v; want the exact bytes", got, err)
	}
	back, err := st.Entry(ctx, e.ID)
	if err != nil {
		t.Fatal(err)
	}
	if back.ExitCode == nil || *back.ExitCode != 3 || back.Failures != 2 || back.CopyPath != in.CopyPath ||
		back.Cwd != "/p" || !back.CreatedAt.Equal(t0) || back.Hash != e.Hash || back.PinLevel != ctxkeep.PinNone {
		t.Fatalf("Entry = %+v; want what was put", back)
	}
	// The same id again (a retried hook) replaces the entry.
	e2 := put(t, st, entry("aaaaaaaaaaaa", "s1", t0.Add(time.Second)), "v2")
	if es, _ := st.Entries(ctx, ctxkeep.EntryFilter{}); len(es) != 1 || es[0].Hash != e2.Hash {
		t.Fatalf("after a second put of the same id: %+v", es)
	}
	if _, err := st.Open(ctx, ctxkeep.Sum([]byte("never stored"))); !errors.Is(err, ctxkeep.ErrNotFound) {
		t.Fatalf("Open of bytes never stored = %v, want ErrNotFound", err)
	}
}

func testEntryLookup(t *testing.T, st ctxkeep.Store) {
	put(t, st, entry("abc111111111", "s1", t0), "one")
	put(t, st, entry("abc222222222", "s1", t0), "two")
	if e, err := st.Entry(ctx, "abc1"); err != nil || e.ID != "abc111111111" {
		t.Fatalf("a unique prefix: %v, %v", e.ID, err)
	}
	if e, err := st.Entry(ctx, " ABC2 "); err != nil || e.ID != "abc222222222" {
		t.Fatalf("a prefix in capitals, with spaces: %v, %v", e.ID, err)
	}
	if _, err := st.Entry(ctx, "abc"); !errors.Is(err, ctxkeep.ErrAmbiguous) {
		t.Fatalf("an ambiguous prefix = %v, want ErrAmbiguous", err)
	}
	for _, id := range []string{"ffff", "", "%", "a_c", "abc%"} {
		if _, err := st.Entry(ctx, id); !errors.Is(err, ctxkeep.ErrNotFound) {
			t.Errorf("Entry(%q) = %v, want ErrNotFound", id, err)
		}
	}
}

func testEntryFilter(t *testing.T, st ctxkeep.Store) {
	put(t, st, entry("e00000000001", "s1", t0), "same")
	put(t, st, entry("e00000000002", "s2", t0.Add(1*time.Minute)), "other")
	put(t, st, entry("e00000000003", "s1", t0.Add(2*time.Minute)), "same")
	if _, err := st.SetPin(ctx, "e00000000003", ctxkeep.PinSoft, ""); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		f    ctxkeep.EntryFilter
		want []string
	}{
		{ctxkeep.EntryFilter{}, []string{"e00000000001", "e00000000002", "e00000000003"}},
		{ctxkeep.EntryFilter{Session: "s1"}, []string{"e00000000001", "e00000000003"}},
		{ctxkeep.EntryFilter{Latest: true}, []string{"e00000000003", "e00000000002", "e00000000001"}},
		{ctxkeep.EntryFilter{Session: "s1", Latest: true, Limit: 1}, []string{"e00000000003"}},
		{ctxkeep.EntryFilter{Pinned: true}, []string{"e00000000003"}},
		{ctxkeep.EntryFilter{Hash: ctxkeep.Sum([]byte("same"))}, []string{"e00000000001", "e00000000003"}},
		{ctxkeep.EntryFilter{Since: t0.Add(time.Minute)}, []string{"e00000000002", "e00000000003"}},
		{ctxkeep.EntryFilter{Session: "nobody"}, []string{}},
	} {
		got, err := st.Entries(ctx, c.f)
		if err != nil || !slices.Equal(ids(got), c.want) {
			t.Errorf("Entries(%+v) = %v, %v; want %v", c.f, ids(got), err, c.want)
		}
	}
}

func testPinAndTouch(t *testing.T, st ctxkeep.Store) {
	put(t, st, entry("p00000000001", "s1", t0), "x")
	e, err := st.SetPin(ctx, "p000", ctxkeep.PinHard, "the deploy log")
	if err != nil || e.ID != "p00000000001" || e.PinLevel != ctxkeep.PinHard || e.PinReason != "the deploy log" {
		t.Fatalf("SetPin by prefix = %+v, %v", e, err)
	}
	if e, _ := st.Entry(ctx, e.ID); e.PinLevel != ctxkeep.PinHard {
		t.Fatalf("pin not stored: %v", e.PinLevel)
	}
	if _, err := st.SetPin(ctx, "ffff", ctxkeep.PinSoft, ""); !errors.Is(err, ctxkeep.ErrNotFound) {
		t.Fatalf("SetPin of an unknown id = %v", err)
	}
	for range 2 {
		if err := st.Touch(ctx, e.ID, t0.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	if e, _ := st.Entry(ctx, e.ID); e.AccessCount != 2 || !e.LastAccess.Equal(t0.Add(time.Hour)) {
		t.Fatalf("after two retrievals: count %d, last %v", e.AccessCount, e.LastAccess)
	}
}

func testRemove(t *testing.T, st ctxkeep.Store) {
	a := put(t, st, entry("r00000000001", "s1", t0), "shared")
	b := put(t, st, entry("r00000000002", "s1", t0), "shared")
	c := put(t, st, entry("r00000000003", "s1", t0), "own")
	rm, err := st.Remove(ctx, []ctxkeep.Entry{a, c})
	if err != nil || len(rm.Entries) != 2 || len(rm.Freed) != 1 || rm.Freed[0].Hash != c.Hash || rm.Freed[0].Size != 3 {
		t.Fatalf("Remove = %+v, %v; want both entries, and the blob only c used", rm, err)
	}
	if _, err := st.Open(ctx, c.Hash); !errors.Is(err, ctxkeep.ErrNotFound) {
		t.Fatalf("a freed blob still opens: %v", err)
	}
	if got, err := st.Open(ctx, b.Hash); err != nil || string(got) != "shared" {
		t.Fatalf("a blob another entry uses went: %q, %v", got, err)
	}
	if rm, err := st.Remove(ctx, []ctxkeep.Entry{a, c}); err != nil || len(rm.Entries)+len(rm.Freed) != 0 {
		t.Fatalf("removing again = %+v, %v; want nothing and no error", rm, err)
	}
	// An entry replaced since it was read (the same id put again) is left.
	put(t, st, entry("r00000000002", "s1", t0.Add(time.Minute)), "newer")
	if rm, err := st.Remove(ctx, []ctxkeep.Entry{b}); err != nil || len(rm.Entries) != 0 {
		t.Fatalf("Remove of a stale entry = %+v, %v; want it left alone", rm, err)
	}
	if _, err := st.Entry(ctx, b.ID); err != nil {
		t.Fatalf("the newer entry went: %v", err)
	}
}

func chunk(session, project string, turn int, prompt, body string, files ...string) ctxkeep.Chunk {
	return ctxkeep.Chunk{Key: fmt.Sprintf("k%s%03d", session, turn), SessionID: session, Project: project, Kind: ctxkeep.KindTurn,
		Turn: turn, Start: t0.Add(time.Duration(turn) * time.Minute), End: t0.Add(time.Duration(turn)*time.Minute + 30*time.Second),
		Prompt: prompt, Summary: prompt, Body: body, Meta: ctxkeep.Meta{FilesModified: files, Tools: []string{"Bash"},
			Commands: []ctxkeep.Command{{Run: "go test", Exit: 1, Errors: []string{"--- FAIL: TestX"}}}}}
}

func save(t *testing.T, st ctxkeep.Store, session string, cs ...ctxkeep.Chunk) int {
	t.Helper()
	n, err := st.SaveChunks(ctx, session, cs, ctxkeep.ArchiveCursor{Transcript: "/t/" + session + ".jsonl", Turn: len(cs)})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func testChunksAndCursor(t *testing.T, st ctxkeep.Store) {
	if _, ok, err := st.Cursor(ctx, "s1"); ok || err != nil {
		t.Fatalf("a cursor before any archive: ok %t, %v", ok, err)
	}
	c1, c2 := chunk("s1", "/p", 1, "first", "body one"), chunk("s1", "/p", 2, "second", "body two")
	sum := ctxkeep.Chunk{Key: "ks1sum", SessionID: "s1", Project: "/p", Kind: ctxkeep.KindSummary, Turn: 2, Body: "the summary"}
	cur := ctxkeep.ArchiveCursor{Transcript: "/t/s1.jsonl", Offset: 1234, Line: 17, Turn: 2, Step: 5,
		Usage: ctxkeep.Usage{Tokens: 5570, InputTokens: 5550, Model: "m", MessageID: "msg_1", Timestamp: t0}}
	if n, err := st.SaveChunks(ctx, "s1", []ctxkeep.Chunk{c2, sum, c1}, cur); err != nil || n != 3 {
		t.Fatalf("SaveChunks = %d, %v", n, err)
	}
	got, ok, err := st.Cursor(ctx, "s1")
	if err != nil || !ok || got.Offset != 1234 || got.Line != 17 || got.Turn != 2 || got.Step != 5 || got.Transcript != cur.Transcript ||
		got.Usage.Tokens != 5570 || got.Usage.Model != "m" || !got.Usage.Timestamp.Equal(t0) {
		t.Fatalf("Cursor = %+v, %t, %v; want %+v", got, ok, err, cur)
	}
	cs, err := st.Chunks(ctx, "s1")
	if err != nil || len(cs) != 3 || cs[0].Turn != 1 || cs[1].Kind != ctxkeep.KindTurn || cs[2].Kind != ctxkeep.KindSummary {
		t.Fatalf("Chunks = %+v, %v; want turn 1, turn 2, then turn 2's summary", cs, err)
	}
	if cs[0].Body != "body one" || len(cs[0].Meta.Commands) != 1 || cs[0].Meta.Commands[0].Exit != 1 || !cs[0].End.Equal(c1.End) {
		t.Fatalf("chunk read back = %+v", cs[0])
	}
	// Unchanged chunks are left alone; a changed one (a turn that grew)
	// replaces the old, in the full-text index too.
	grown := chunk("s1", "/p", 2, "second", "body two, and then zanzibar")
	if n := save(t, st, "s1", c1, grown); n != 1 {
		t.Fatalf("saving one unchanged and one grown chunk wrote %d", n)
	}
	if hits, _ := st.SearchChunks(ctx, ctxkeep.ChunkQuery{Text: "zanzibar"}); len(hits) != 1 || hits[0].Key != grown.Key {
		t.Fatalf("the grown chunk is not found by its new words: %+v", hits)
	}
	if rs, err := st.TurnRange(ctx, "s1", 2, 5); err != nil || len(rs) != 1 || rs[0].Body != grown.Body {
		t.Fatalf("TurnRange = %+v, %v", rs, err)
	}
	save(t, st, "s2", chunk("s2", "/p", 1, "x", "y"))
	if ss, err := st.ChunkSessions(ctx); err != nil || !slices.Equal(ss, []string{"s1", "s2"}) && !slices.Equal(ss, []string{"s2", "s1"}) {
		t.Fatalf("ChunkSessions = %v, %v", ss, err)
	}
}

// step is a step chunk: step n of a session's turn.
func step(session string, turn, n int, body string) ctxkeep.Chunk {
	at := t0.Add(time.Duration(turn)*time.Hour + time.Duration(n)*time.Minute)
	return ctxkeep.Chunk{Key: fmt.Sprintf("k%s%03d%03d", session, turn, n), SessionID: session, Project: "/p", Kind: ctxkeep.KindStep,
		Turn: turn, Step: n, Start: at, End: at.Add(30 * time.Second), Summary: body, Body: body,
		Meta: ctxkeep.Meta{Tools: []string{"Bash"}, Commands: []ctxkeep.Command{{Run: "go test ./...", Exit: 1,
			Errors: []string{"--- FAIL: TestRefund", "refund_test.go:42: got 1999 want 2000"}}}}}
}

// testSteps: steps of one turn are told apart by their step number, come
// back by turn and step (the turn's summary after them), a step that grew
// replaces its old self, and TurnRange gives a turn's steps.
func testSteps(t *testing.T, st ctxkeep.Store) {
	first := step("s1", 1, 1, "user: fix the refund")
	first.Prompt = "fix the refund"
	sum := ctxkeep.Chunk{Key: "ks1sum", SessionID: "s1", Project: "/p", Kind: ctxkeep.KindSummary, Turn: 2, Body: "the summary"}
	cur := ctxkeep.ArchiveCursor{Transcript: "/t/s1.jsonl", Offset: 900, Line: 9, Turn: 2, Step: 2}
	in := []ctxkeep.Chunk{step("s1", 2, 2, "ran the tests twice"), sum, step("s1", 1, 3, "edited refund.go"), first,
		step("s1", 1, 2, "ran the tests"), step("s1", 2, 1, "user: and the docs")}
	if n, err := st.SaveChunks(ctx, "s1", in, cur); err != nil || n != 6 {
		t.Fatalf("SaveChunks of 5 steps and a summary = %d, %v", n, err)
	}
	cs, err := st.Chunks(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, c := range cs {
		order = append(order, fmt.Sprintf("%s %d.%d", c.Kind, c.Turn, c.Step))
	}
	want := []string{"step 1.1", "step 1.2", "step 1.3", "step 2.1", "step 2.2", "summary 2.0"}
	if !slices.Equal(order, want) {
		t.Fatalf("Chunks in the order %v, want %v", order, want)
	}
	if c := cs[0]; c.Prompt != "fix the refund" || c.Meta.Commands[0].Errors[1] != "refund_test.go:42: got 1999 want 2000" || !c.End.Equal(first.End) {
		t.Fatalf("step read back = %+v", c)
	}
	heads, err := st.ChunkHeads(ctx, "s1")
	if err != nil || len(heads) != len(cs) {
		t.Fatalf("ChunkHeads = %d chunks, %v; want %d", len(heads), err, len(cs))
	}
	for i, h := range heads {
		c := cs[i]
		if h.Body != "" || h.Key != c.Key || h.Turn != c.Turn || h.Step != c.Step || h.Kind != c.Kind || h.Prompt != c.Prompt ||
			h.Summary != c.Summary || !h.End.Equal(c.End) || len(h.Meta.Commands) != len(c.Meta.Commands) {
			t.Fatalf("ChunkHeads[%d] = %+v; want chunk %+v without its body", i, h, c)
		}
	}
	if got, _, _ := st.Cursor(ctx, "s1"); got.Turn != 2 || got.Step != 2 || got.Offset != 900 {
		t.Fatalf("Cursor = %+v, want turn 2 step 2 at 900", got)
	}
	// The open step grew: it replaces the old one; the others are left.
	grown := step("s1", 2, 2, "ran the tests twice, and now zanzibar passes")
	if n := save(t, st, "s1", step("s1", 2, 1, "user: and the docs"), grown); n != 1 {
		t.Fatalf("saving one unchanged and one grown step wrote %d", n)
	}
	if hits, _ := st.SearchChunks(ctx, ctxkeep.ChunkQuery{Text: "zanzibar"}); len(hits) != 1 || hits[0].Key != grown.Key || hits[0].Step != 2 {
		t.Fatalf("the grown step is not found by its new words: %+v", hits)
	}
	if hits, _ := st.SearchChunks(ctx, ctxkeep.ChunkQuery{Text: "twice"}); len(hits) != 1 {
		t.Fatalf("the grown step is indexed %d times", len(hits))
	}
	rs, err := st.TurnRange(ctx, "s1", 1, 1)
	if err != nil || len(rs) != 3 || rs[0].Step != 1 || rs[2].Step != 3 {
		t.Fatalf("TurnRange(1, 1) = %d chunks, %v; want turn 1's three steps in order", len(rs), err)
	}
	if rs, _ := st.TurnRange(ctx, "s1", 2, 9); len(rs) != 2 || rs[1].Body != grown.Body {
		t.Fatalf("TurnRange(2, 9) = %+v; want turn 2's two steps, not its summary", rs)
	}
	if c, err := st.Chunk(ctx, grown.Key); err != nil || c.Turn != 2 || c.Step != 2 || c.Kind != ctxkeep.KindStep {
		t.Fatalf("Chunk(%s) = %+v, %v", grown.Key, c, err)
	}
}

// testStepsReplaceTurn: a turn archived whole before steps came in (and
// a compaction summary archived in it then, at step 0) is replaced by its
// steps when it is archived again; other turns stay.
func testStepsReplaceTurn(t *testing.T, st ctxkeep.Store) {
	oldSummary := ctxkeep.Chunk{Key: "ks1oldsum", SessionID: "s1", Project: "/p", Kind: ctxkeep.KindSummary, Turn: 2, Body: "quokka summary"}
	save(t, st, "s1", chunk("s1", "/p", 1, "old turn one", "quokka one"), chunk("s1", "/p", 2, "old turn two", "quokka two"), oldSummary)
	newSummary := ctxkeep.Chunk{Key: "ks1newsum", SessionID: "s1", Project: "/p", Kind: ctxkeep.KindSummary, Turn: 2, Step: 2, Body: "quokka summary"}
	save(t, st, "s1", step("s1", 2, 1, "user: old turn two"), step("s1", 2, 2, "quokka two, then more"), newSummary)
	cs, _ := st.Chunks(ctx, "s1")
	var kinds []string
	for _, c := range cs {
		kinds = append(kinds, fmt.Sprintf("%s %d.%d", c.Kind, c.Turn, c.Step))
	}
	if want := []string{"turn 1.0", "step 2.1", "step 2.2", "summary 2.2"}; !slices.Equal(kinds, want) {
		t.Fatalf("after turn 2 came again as steps: %v, want %v (its old summary replaced too)", kinds, want)
	}
	hits, _ := st.SearchChunks(ctx, ctxkeep.ChunkQuery{Text: "quokka", Limit: 10})
	if len(hits) != 3 {
		t.Fatalf("the replaced turn and summary are still in the full-text index: %d hits, want 3", len(hits))
	}
	if rs, _ := st.TurnRange(ctx, "s1", 1, 2); len(rs) != 3 || rs[0].Kind != ctxkeep.KindTurn {
		t.Fatalf("TurnRange over an old turn and new steps = %+v", rs)
	}
}

// testSearchPhrase: the chunk holding the query's words as a phrase (an
// exact line, an identifier) comes first with Phrase set, even where
// others match the words more often.
func testSearchPhrase(t *testing.T, st ctxkeep.Store) {
	var cs []ctxkeep.Chunk
	for i := range 8 {
		cs = append(cs, step("s1", 1, i+1, "ok: 43 tests, 0 failures in 4 packages; tests of failures, tests of tests"))
	}
	cs[5] = step("s1", 1, 6, "FAIL: 5 tests, 4 failures")
	cs[6] = step("s1", 1, 7, "see refund_test.go:42 for the rounding")
	save(t, st, "s1", cs...)
	hits, err := st.SearchChunks(ctx, ctxkeep.ChunkQuery{Text: "5 tests, 4 failures", Limit: 5})
	if err != nil || len(hits) == 0 {
		t.Fatalf("hits = %v, %v", hits, err)
	}
	if hits[0].Step != 6 || !hits[0].Phrase {
		t.Fatalf("the step holding the phrase is not first with Phrase set: step %d, phrase %t", hits[0].Step, hits[0].Phrase)
	}
	for _, h := range hits[1:] {
		if h.Phrase || h.Lexical <= 0 {
			t.Errorf("step %d: Phrase %t, Lexical %v; want no phrase and a positive score", h.Step, h.Phrase, h.Lexical)
		}
	}
	if len(hits) != 5 {
		t.Errorf("Limit 5 gave %d hits", len(hits))
	}
	if hits, _ := st.SearchChunks(ctx, ctxkeep.ChunkQuery{Text: "refund_test.go:42"}); len(hits) != 1 || hits[0].Step != 7 || !hits[0].Phrase {
		t.Errorf("an identifier is not found as a phrase: %+v", hits)
	}
	if hits, _ := st.SearchChunks(ctx, ctxkeep.ChunkQuery{Text: "failures"}); len(hits) == 0 || hits[0].Phrase {
		t.Errorf("one word is no phrase: %+v", hits)
	}
}

func testChunkLookup(t *testing.T, st ctxkeep.Store) {
	save(t, st, "s1", ctxkeep.Chunk{Key: "kaaa111", SessionID: "s1", Kind: ctxkeep.KindTurn, Turn: 1, Body: "a"},
		ctxkeep.Chunk{Key: "kaaa222", SessionID: "s1", Kind: ctxkeep.KindTurn, Turn: 2, Body: "b"})
	if c, err := st.Chunk(ctx, "kaaa1"); err != nil || c.Turn != 1 {
		t.Fatalf("a unique prefix: %+v, %v", c, err)
	}
	if _, err := st.Chunk(ctx, "kaaa"); !errors.Is(err, ctxkeep.ErrAmbiguous) {
		t.Fatalf("an ambiguous prefix = %v", err)
	}
	for _, key := range []string{"kzzz", "", "k%", "k_a"} {
		if _, err := st.Chunk(ctx, key); !errors.Is(err, ctxkeep.ErrNotFound) {
			t.Errorf("Chunk(%q) = %v, want ErrNotFound", key, err)
		}
	}
}

// testSearchContract is what search.Search relies on: any word matches,
// more and rarer words rank higher, the prompt and files weigh more than
// the body, outputs kept out of the body are found, Lexical is positive
// and falls with the rank, and the limit holds.
func testSearchContract(t *testing.T, st ctxkeep.Store) {
	if _, err := st.SearchChunks(ctx, ctxkeep.ChunkQuery{Text: "the of and"}); !errors.Is(err, ctxkeep.ErrEmptyQuery) {
		t.Fatalf("a query of stop words = %v, want ErrEmptyQuery", err)
	}
	if _, err := st.SearchChunks(ctx, ctxkeep.ChunkQuery{Text: `"OR" NEAR( * -`}); err != nil && !errors.Is(err, ctxkeep.ErrEmptyQuery) {
		t.Fatalf("query syntax in the words must be taken as words: %v", err)
	}
	var cs []ctxkeep.Chunk
	for i := range 12 {
		cs = append(cs, chunk("s1", "/p", i+1, fmt.Sprintf("filler prompt %d", i), "nothing relevant here, just filler text"))
	}
	cs[2] = chunk("s1", "/p", 3, "fix the ratelimiter", "assistant: the limiter now uses a sliding window")
	cs[5] = chunk("s1", "/p", 6, "filler prompt 5", "the ratelimiter was mentioned in passing")
	cs[7] = chunk("s1", "/p", 8, "filler prompt 7", "edited a file", "/p/internal/ratelimiter/window.go")
	out := chunk("s1", "/p", 10, "run the tests", "← result: [[ctxkeep:0123456789ab]]")
	out.Outputs = []string{"checkout_test.go:1500: expected 42, got 41"}
	cs[9] = out
	save(t, st, "s1", cs...)

	hits, err := st.SearchChunks(ctx, ctxkeep.ChunkQuery{Text: "ratelimiter sliding", Limit: 10})
	if err != nil || len(hits) != 3 {
		t.Fatalf("hits = %d, %v; want the 3 chunks naming the words", len(hits), err)
	}
	if hits[0].Turn != 3 {
		t.Errorf("the chunk with both words, one in its prompt, ranks %d (turn %d first)", 1+slices.IndexFunc(hits, func(h ctxkeep.ChunkHit) bool { return h.Turn == 3 }), hits[0].Turn)
	}
	for i, h := range hits {
		if h.Lexical <= 0 || i > 0 && h.Lexical > hits[i-1].Lexical {
			t.Errorf("Lexical is not positive and falling with the rank: %v", lexicals(hits))
			break
		}
	}
	if hits, _ := st.SearchChunks(ctx, ctxkeep.ChunkQuery{Text: "expected 42 got 41 checkout_test"}); len(hits) == 0 || hits[0].Turn != 10 {
		t.Errorf("an exact line of an output kept out of the body is not found first: %+v", hits)
	}
	if hits, _ := st.SearchChunks(ctx, ctxkeep.ChunkQuery{Text: "filler", Limit: 4}); len(hits) != 4 {
		t.Errorf("Limit 4 gave %d hits", len(hits))
	}
	if hits, _ := st.SearchChunks(ctx, ctxkeep.ChunkQuery{Text: "Ratelimiter"}); len(hits) != 3 {
		t.Errorf("matching is not case-insensitive: %d hits", len(hits))
	}
}

func lexicals(hs []ctxkeep.ChunkHit) []float64 {
	out := make([]float64, len(hs))
	for i, h := range hs {
		out[i] = h.Lexical
	}
	return out
}

func testSearchScope(t *testing.T, st ctxkeep.Store) {
	save(t, st, "s1", chunk("s1", "/p", 1, "migrate the schema", "a"))
	save(t, st, "s2", chunk("s2", "/q", 1, "migrate the schema", "b"))
	sum := ctxkeep.Chunk{Key: "ks2sum", SessionID: "s2", Project: "/q", Kind: ctxkeep.KindSummary, Turn: 1, Body: "migrate summary"}
	save(t, st, "s2", chunk("s2", "/q", 1, "migrate the schema", "b"), sum)
	for _, c := range []struct {
		q    ctxkeep.ChunkQuery
		want int
	}{
		{ctxkeep.ChunkQuery{Text: "migrate"}, 3},
		{ctxkeep.ChunkQuery{Text: "migrate", Session: "s1"}, 1},
		{ctxkeep.ChunkQuery{Text: "migrate", Project: "/q"}, 2},
		{ctxkeep.ChunkQuery{Text: "migrate", Project: "/q", Kind: ctxkeep.KindTurn}, 1},
		{ctxkeep.ChunkQuery{Text: "migrate", Project: "/nowhere"}, 0},
	} {
		if hits, err := st.SearchChunks(ctx, c.q); err != nil || len(hits) != c.want {
			t.Errorf("SearchChunks(%+v) = %d hits, %v; want %d", c.q, len(hits), err, c.want)
		}
	}
}

func testColdTasks(t *testing.T, st ctxkeep.Store) {
	first := []ctxkeep.ColdTask{{TaskID: "1", Subject: "limiter", From: 1, To: 4, Summary: "wrote it"}}
	if err := st.AddColdTasks(ctx, "s1", first, t0); err != nil {
		t.Fatal(err)
	}
	again := []ctxkeep.ColdTask{{TaskID: "1", Subject: "limiter", From: 1, To: 9, Summary: "changed"}, {TaskID: "2", Subject: "docs", From: 5, To: 6, Summary: "wrote docs"}}
	if err := st.AddColdTasks(ctx, "s1", again, t0); err != nil {
		t.Fatal(err)
	}
	got, err := st.ColdTasks(ctx, "s1")
	if err != nil || len(got) != 2 || got[0].Summary != "wrote it" || got[1].TaskID != "2" || got[1].From != 5 {
		t.Fatalf("ColdTasks = %+v, %v; want the first summary of task 1 kept, then task 2", got, err)
	}
	if got, _ := st.ColdTasks(ctx, "s2"); len(got) != 0 {
		t.Fatalf("another session's cold tasks: %+v", got)
	}
}

// testConcurrentPuts stores from several goroutines at once, some of the
// same bytes: nothing may be lost or fail.
func testConcurrentPuts(t *testing.T, st ctxkeep.Store) {
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 25 {
				data := fmt.Sprintf("output %d", i%5) // shared across writers
				if _, err := st.PutEntry(ctx, entry(fmt.Sprintf("c%02d%09d", w, i), "s1", t0), []byte(data)); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	es, err := st.Entries(ctx, ctxkeep.EntryFilter{Session: "s1"})
	if err != nil || len(es) != 100 {
		t.Fatalf("%d entries after 100 concurrent puts, %v", len(es), err)
	}
	for _, e := range es {
		if _, err := st.Open(ctx, e.Hash); err != nil {
			t.Fatalf("entry %s: %v", e.ID, err)
		}
	}
}

// testConcurrentArchives saves chunks of several sessions at once, each
// session saved twice over: every chunk lands once.
func testConcurrentArchives(t *testing.T, st ctxkeep.Store) {
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := fmt.Sprintf("s%d", w%4)
			var cs []ctxkeep.Chunk
			for i := range 10 {
				cs = append(cs, chunk(s, "/p", i+1, "prompt", fmt.Sprintf("body %d of %s", i, s)))
			}
			if _, err := st.SaveChunks(ctx, s, cs, ctxkeep.ArchiveCursor{Transcript: s, Turn: 10}); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for w := range 4 {
		if cs, err := st.Chunks(ctx, fmt.Sprintf("s%d", w)); err != nil || len(cs) != 10 {
			t.Fatalf("session s%d: %d chunks, %v; want 10", w, len(cs), err)
		}
	}
	if hits, _ := st.SearchChunks(ctx, ctxkeep.ChunkQuery{Text: "body", Limit: 100}); len(hits) != 40 {
		t.Fatalf("the full-text index holds %d chunks, want 40 (each once)", len(hits))
	}
}
