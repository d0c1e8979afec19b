package hook

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/app"
)

// memLocal is an in-memory fake of the local store: the handlers take the
// root package's interfaces, so they run without SQLite or a blob folder.
// It implements what the handlers tested here use; any other method is
// the embedded nil interface's and panics, which the dispatcher recovers
// and logs (fail open), so a test that reaches one fails on its assertion.
type memLocal struct {
	ctxkeep.Local
	mu      sync.Mutex
	blobs   map[ctxkeep.Hash][]byte
	entries []ctxkeep.Entry
	chunks  map[string][]ctxkeep.Chunk // by session
	cursors map[string]ctxkeep.ArchiveCursor
	cold    map[string][]ctxkeep.ColdTask
}

func newMemLocal() *memLocal {
	return &memLocal{blobs: map[ctxkeep.Hash][]byte{}, chunks: map[string][]ctxkeep.Chunk{},
		cursors: map[string]ctxkeep.ArchiveCursor{}, cold: map[string][]ctxkeep.ColdTask{}}
}

// backends hands the fake to a run, as the composition root hands the store.
func (m *memLocal) backends() *app.Backends {
	return &app.Backends{OpenLocal: func(context.Context, string, string, ctxkeep.OpenMode, func() time.Time) (ctxkeep.Local, error) {
		return m, nil
	}}
}

type memStaged struct {
	m    *memLocal
	data []byte
}

func (m *memLocal) Stage(data []byte) (ctxkeep.Staged, error) {
	return memStaged{m, slices.Clone(data)}, nil
}

func (s memStaged) Commit(_ context.Context, e ctxkeep.Entry) (ctxkeep.Entry, error) {
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	e.Hash = ctxkeep.Sum(s.data)
	s.m.blobs[e.Hash] = s.data
	s.m.entries = slices.DeleteFunc(s.m.entries, func(x ctxkeep.Entry) bool { return x.ID == e.ID })
	s.m.entries = append(s.m.entries, e)
	return e, nil
}

func (m *memLocal) Entries(_ context.Context, f ctxkeep.EntryFilter) ([]ctxkeep.Entry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []ctxkeep.Entry
	for _, e := range m.entries {
		if f.Session == "" || e.SessionID == f.Session {
			out = append(out, e)
		}
	}
	if f.Latest {
		slices.Reverse(out)
	}
	if f.Limit > 0 && len(out) > f.Limit {
		out = out[:f.Limit]
	}
	return out, nil
}

func (m *memLocal) Open(_ context.Context, h ctxkeep.Hash) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if b, ok := m.blobs[h]; ok {
		return b, nil
	}
	return nil, ctxkeep.ErrNotFound
}

func (m *memLocal) IngestJournals(context.Context, string, string) (ctxkeep.Ingested, error) {
	return ctxkeep.Ingested{}, nil
}

func (m *memLocal) Cursor(_ context.Context, session string) (ctxkeep.ArchiveCursor, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.cursors[session]
	return c, ok, nil
}

func (m *memLocal) SaveChunks(_ context.Context, session string, chunks []ctxkeep.Chunk, cur ctxkeep.ArchiveCursor) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, c := range chunks {
		m.chunks[session] = slices.DeleteFunc(m.chunks[session], func(x ctxkeep.Chunk) bool { return x.Key == c.Key })
		m.chunks[session] = append(m.chunks[session], c)
	}
	m.cursors[session] = cur
	return len(chunks), nil
}

func (m *memLocal) Chunks(_ context.Context, session string) ([]ctxkeep.Chunk, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := slices.Clone(m.chunks[session])
	slices.SortStableFunc(out, func(a, b ctxkeep.Chunk) int { return a.Turn*1000 + a.Step - (b.Turn*1000 + b.Step) })
	return out, nil
}

func (m *memLocal) Chunk(_ context.Context, key string) (ctxkeep.Chunk, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, cs := range m.chunks {
		for _, c := range cs {
			if strings.HasPrefix(c.Key, key) {
				return c, nil
			}
		}
	}
	return ctxkeep.Chunk{}, ctxkeep.ErrNotFound
}

func (m *memLocal) ChunkHeads(ctx context.Context, session string) ([]ctxkeep.Chunk, error) {
	cs, err := m.Chunks(ctx, session)
	for i := range cs {
		cs[i].Body = ""
	}
	return cs, err
}

// SearchChunks finds the chunks holding any word of the query: enough for
// the restore block's related steps, ranked as they come.
func (m *memLocal) SearchChunks(_ context.Context, q ctxkeep.ChunkQuery) ([]ctxkeep.ChunkHit, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	words := strings.Fields(strings.ToLower(q.Text))
	if len(words) == 0 {
		return nil, ctxkeep.ErrEmptyQuery
	}
	var out []ctxkeep.ChunkHit
	for _, cs := range m.chunks {
		for _, c := range cs {
			body := strings.ToLower(c.Prompt + " " + c.Summary + " " + c.Body)
			if slices.ContainsFunc(words, func(w string) bool { return strings.Contains(body, w) }) {
				out = append(out, ctxkeep.ChunkHit{Chunk: c})
			}
		}
	}
	return out, nil
}

func (m *memLocal) ColdTasks(_ context.Context, session string) ([]ctxkeep.ColdTask, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.cold[session]), nil
}

func (m *memLocal) AddColdTasks(_ context.Context, session string, tasks []ctxkeep.ColdTask, _ time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.cold[session] = append(m.cold[session], tasks...)
	return nil
}

func (m *memLocal) Unproven(context.Context, string) ([]ctxkeep.Entry, error) { return nil, nil }
func (m *memLocal) Close() error                                              { return nil }

// fakeSession is a swap fixture whose store is a memLocal, with a
// transcript holding a user's correction, a failing test's cause and a
// decision.
func fakeSession(t *testing.T) (*swapFixture, *memLocal, func(map[string]any) []byte) {
	f := newSwapFixture(t)
	m := newMemLocal()
	f.backends = m.backends()
	var lines []string
	add := func(v map[string]any) {
		v["uuid"], v["sessionId"], v["timestamp"] = "u"+string(rune('a'+len(lines))), session, "2026-11-21T10:00:00Z"
		b, _ := json.Marshal(v)
		lines = append(lines, string(b))
	}
	add(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": "fix the refund rounding; don't truncate"}})
	add(map[string]any{"type": "assistant", "message": map[string]any{"id": "m1", "role": "assistant", "model": "claude-sonnet-4-5",
		"content": []any{map[string]any{"type": "tool_use", "id": "b1", "name": "Bash", "input": map[string]any{"command": "go test ./refund/..."}}}}})
	add(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "b1",
		"content": "Exit code 1\n--- FAIL: TestRefundRounding (0.00s)\n    refund_test.go:42: got 1999 want 2000\nFAIL\nFAIL\texample.com/refund\t0.01s", "is_error": true}}}})
	add(map[string]any{"type": "assistant", "message": map[string]any{"id": "m2", "role": "assistant", "model": "claude-sonnet-4-5",
		"content": []any{map[string]any{"type": "text", "text": "I'll use banker's rounding instead of truncation."}}}})
	os.MkdirAll(f.sessionDir, 0o700)
	if err := os.WriteFile(f.transcript, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	event := func(v map[string]any) []byte {
		v["session_id"], v["transcript_path"], v["cwd"] = session, f.transcript, "/p"
		b, _ := json.Marshal(v)
		return b
	}
	return f, m, event
}

// PostToolUse with the store faked: the original goes into the store
// exactly, and the reply is the view.
func TestPostToolUseWithAFakeStore(t *testing.T) {
	f, m, _ := fakeSession(t)
	text := strings.Repeat("=== RUN   TestX\n", 600) + "--- FAIL: TestX (0.00s)\n"
	reply := f.post("Bash", map[string]any{"command": "go test ./..."}, bash(text))
	if reply == nil || !strings.Contains(string(reply["updatedToolOutput"]), "go test reports 1 failed") || !strings.Contains(string(reply["updatedToolOutput"]), "--- FAIL: TestX") {
		t.Fatalf("reply %s; log %s", reply["updatedToolOutput"], f.log())
	}
	es, _ := m.Entries(context.Background(), ctxkeep.EntryFilter{Session: session})
	if len(es) != 1 || string(m.blobs[es[0].Hash]) != text || es[0].Replacement == "" {
		t.Fatalf("entries %+v", es)
	}
}

// PreCompact with the store faked: the turn is archived into it, and the
// notes hand the summariser the failure's cause and the decision.
func TestPreCompactWithAFakeStore(t *testing.T) {
	f, m, event := fakeSession(t)
	out := f.run(event(map[string]any{"hook_event_name": "PreCompact", "trigger": "manual"}), handlers)
	for _, want := range []string{"refund_test.go:42: got 1999 want 2000", "banker's rounding"} {
		if !strings.Contains(out, want) {
			t.Errorf("notes lack %q:\n%s\nlog %s", want, out, f.log())
		}
	}
	if cs, _ := m.Chunks(context.Background(), session); len(cs) == 0 {
		t.Error("nothing archived")
	}
}

// SessionStart(compact) with the store faked: the restore block puts the
// cause and the decision back, each with the step it comes from.
func TestRestoreWithAFakeStore(t *testing.T) {
	f, _, event := fakeSession(t)
	f.run(event(map[string]any{"hook_event_name": "PreCompact", "trigger": "manual"}), handlers)
	out := f.run(event(map[string]any{"hook_event_name": "SessionStart", "source": "compact"}), handlers)
	for _, want := range []string{"ctxkeep restored this session's working state", "refund_test.go:42: got 1999 want 2000", "banker's rounding"} {
		if !strings.Contains(out, want) {
			t.Errorf("restore block lacks %q:\n%s\nlog %s", want, out, f.log())
		}
	}
}
