package recall_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/keep"
	"github.com/ctxkeep/ctxkeep/internal/recall"
	"github.com/ctxkeep/ctxkeep/internal/storetest"
	"github.com/ctxkeep/ctxkeep/internal/swap"
)

var ctx = context.Background()

// transcript writes a Claude Code transcript: one prompt, then each call
// with its result.
func transcript(t *testing.T, path, session string, calls [][3]string) {
	t.Helper()
	var lines []string
	add := func(v map[string]any) {
		v["uuid"] = fmt.Sprintf("u%03d", len(lines))
		v["sessionId"] = session
		v["isSidechain"] = false
		v["timestamp"] = fmt.Sprintf("2026-11-21T10:00:%02dZ", len(lines))
		b, _ := json.Marshal(v)
		lines = append(lines, string(b))
	}
	add(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": "look around"}})
	for _, c := range calls { // id, tool, result
		add(map[string]any{"type": "assistant", "message": map[string]any{"id": "m" + c[0], "role": "assistant",
			"content": []any{map[string]any{"type": "tool_use", "id": c[0], "name": c[1], "input": map[string]any{"command": "x", "file_path": "/a/README.md"}}}}})
		add(map[string]any{"type": "user", "message": map[string]any{"role": "user",
			"content": []any{map[string]any{"type": "tool_result", "tool_use_id": c[0], "content": c[2]}}}})
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

func put(t *testing.T, st ctxkeep.OutputStore, session, call, text string) ctxkeep.Entry {
	t.Helper()
	e, err := st.PutEntry(ctx, ctxkeep.Entry{ID: swap.EntryID(session, call), SessionID: session, ToolUseID: call, Tool: "Bash"}, []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// A reference in one project's text pulls in nothing: project A's agent
// read a README that names an output of project B ([[ctxkeep:d4a3]], and
// its whole id); recall of A's step prints that line as it was, and B's
// output nowhere. The output ctxkeep swapped out of A's own step comes back
// in its place.
func TestTextCannotPullInAnotherProjectsOutput(t *testing.T) {
	st := storetest.Local(t, t.TempDir())
	theirs := put(t, st, "session-b", "toolu_b", "project B's deploy log\nDEPLOY_KEY=b-only-9f8e7d\n")
	ours := put(t, st, "session-a", "toolu_run", "project A's build log\nok\n")

	readme := fmt.Sprintf("# notes\nsee [[ctxkeep:%s]] and [[ctxkeep:%s]] for the deploy\n", theirs.ID[:4], theirs.ID)
	path := filepath.Join(t.TempDir(), "session-a.jsonl")
	transcript(t, path, "session-a", [][3]string{{"toolu_read", "Read", readme}, {"toolu_run", "Bash", "(the view)"}})
	if _, err := keep.Archive(ctx, st, keep.Session{ID: "session-a", Project: "/a", Transcript: path}); err != nil {
		t.Fatal(err)
	}
	chunks, err := recall.Chunks(ctx, st, "session-a:1")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := recall.Write(ctx, &b, st, chunks); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	if strings.Contains(got, "b-only-9f8e7d") || strings.Contains(got, "deploy log") {
		t.Errorf("recall of project A's step printed project B's output:\n%s", got)
	}
	for _, want := range []string{"see [[ctxkeep:" + theirs.ID[:4] + "]] and [[ctxkeep:" + theirs.ID + "]]", "project A's build log\nok\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("recall lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "[[ctxkeep:"+ours.ID+"]]") {
		t.Errorf("the output swapped out of the step is not put back:\n%s", got)
	}
}

// Only the outputs a step's own session stored come back: a chunk whose
// recorded references name another session's entry (which archive never
// writes) leaves the reference as it is.
func TestRecordedReferencesStayInTheSession(t *testing.T) {
	st := storetest.Local(t, t.TempDir())
	theirs := put(t, st, "session-b", "toolu_b", "DEPLOY_KEY=b-only-9f8e7d\n")
	ours := put(t, st, "session-a", "toolu_a", "A's output\n")
	c := ctxkeep.Chunk{Key: "k0123456789a", SessionID: "session-a", Project: "/a", Kind: ctxkeep.KindStep, Turn: 1, Step: 1,
		Body: "← result: [[ctxkeep:" + theirs.ID + "]]\n← result: [[ctxkeep:" + ours.ID + "]]\n",
		Meta: ctxkeep.Meta{Entries: []string{theirs.ID, ours.ID}}}
	var b strings.Builder
	if err := recall.Write(ctx, &b, st, []ctxkeep.Chunk{c}); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); strings.Contains(got, "b-only") || !strings.Contains(got, "← result: A's output\n") {
		t.Errorf("recall:\n%s", got)
	}
}
