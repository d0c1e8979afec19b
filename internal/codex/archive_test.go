package codex

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/archive"
	"github.com/ctxkeep/ctxkeep/internal/keep"
	"github.com/ctxkeep/ctxkeep/internal/storetest"
)

// A Codex session archives like a Claude Code one: its turn is cut into
// steps of the Codex agent (the calls, then the answer), with its command
// and exit status, the file its patch wrote, searchable, and the working
// state folds from them.
func TestArchivesACodexSession(t *testing.T) {
	ctx := context.Background()
	st := storetest.Local(t, t.TempDir())
	s := keep.Session{ID: "01a20989-cf1f-7171-a8fb-dd77982d6fa6", Project: "/home/user/work",
		Transcript: "testdata/rollout_multi_tools.trimmed.jsonl", Agent: ctxkeep.AgentCodex, Read: keep.ReadTurns(Reader{})}
	res, err := keep.Archive(ctx, st, s)
	if err != nil || res.Written != 2 || res.Usage.Tokens != 1050 {
		t.Fatalf("archive: %+v, %v", res, err)
	}
	chunks, err := st.Chunks(ctx, s.ID)
	if err != nil || len(chunks) != 2 {
		t.Fatalf("%d chunks, %v", len(chunks), err)
	}
	c := chunks[0]
	if c.Kind != ctxkeep.KindStep || c.Step != 1 || chunks[1].Step != 2 || !strings.Contains(chunks[1].Body, "assistant: Done: the command printed hello") {
		t.Errorf("steps: %+v", chunks)
	}
	if c.Agent != ctxkeep.AgentCodex || c.Prompt != "Run the command please" {
		t.Errorf("chunk agent %q prompt %q", c.Agent, c.Prompt)
	}
	if len(c.Meta.Commands) != 1 || c.Meta.Commands[0].Run != "echo hello; seq 1 2000" || c.Meta.Commands[0].Exit != 0 {
		t.Errorf("commands %+v", c.Meta.Commands)
	}
	if len(c.Meta.FilesModified) != 1 || c.Meta.FilesModified[0] != "/home/user/work/hello.txt" {
		t.Errorf("files modified %v", c.Meta.FilesModified)
	}
	if !strings.Contains(c.Body, "→ Bash: echo hello; seq 1 2000") {
		t.Errorf("body:\n%s", c.Body)
	}
	hits, err := st.SearchChunks(ctx, ctxkeep.ChunkQuery{Text: "hello.txt", Project: s.Project})
	if err != nil || len(hits) == 0 || hits[0].Agent != ctxkeep.AgentCodex || hits[0].Step != 1 {
		t.Errorf("search: %+v, %v", hits, err)
	}
	state := archive.Fold(s.ID, chunks, func(string) bool { return false })
	if len(state.Files) == 0 {
		t.Errorf("working state without files: %+v", state)
	}
	// Archiving again writes nothing.
	if again, err := keep.Archive(ctx, st, s); err != nil || again.Written != 0 {
		t.Errorf("again: %+v, %v", again, err)
	}
}

// A failed command keeps its exit status and its failure lines.
func TestArchivesAFailure(t *testing.T) {
	ctx := context.Background()
	st := storetest.Local(t, t.TempDir())
	path := t.TempDir() + "/rollout.jsonl"
	writeRollout(t, path, failingSession)
	s := keep.Session{ID: "s1", Project: "/p", Transcript: path, Agent: ctxkeep.AgentCodex, Read: keep.ReadTurns(Reader{})}
	if _, err := keep.Archive(ctx, st, s); err != nil {
		t.Fatal(err)
	}
	chunks, _ := st.Chunks(ctx, "s1")
	if len(chunks) != 2 || len(chunks[0].Meta.Commands) != 1 {
		t.Fatalf("chunks %+v", chunks)
	}
	cmd := chunks[0].Meta.Commands[0]
	if cmd.Run != "go test ./..." || cmd.Exit != 1 || len(cmd.Errors) == 0 || !strings.Contains(strings.Join(cmd.Errors, "\n"), "TestRefund") {
		t.Errorf("command %+v", cmd)
	}
}

// A rollout is archived within limits.transcript_read_bytes per call, over
// as many calls as it takes, each saving the cursor at the start of the
// last step it read: the archive is then the one a single unbounded call
// makes, step for step.
func TestArchiveIsBoundedAndResumes(t *testing.T) {
	ctx := context.Background()
	lines := []string{
		line("2026-11-26T10:00:00.000Z", "session_meta", map[string]any{"id": "s1", "cwd": "/p", "cli_version": "0.169.0"}),
		line("2026-11-26T10:00:01.000Z", "response_item", map[string]any{"type": "message", "role": "user",
			"content": []map[string]string{{"type": "input_text", "text": "make every package pass"}}}),
	}
	for i := range 40 {
		id := fmt.Sprintf("call_%02d", i)
		if i%6 == 0 {
			lines = append(lines, say(fmt.Sprintf("2026-11-26T10:01:%02d.000Z", i), fmt.Sprintf("Package %d next.", i)))
		}
		if i == 31 { // a patch deep in the turn: its relative path needs the turn's cwd
			lines = append(lines, line("2026-11-26T10:01:31.000Z", "response_item", map[string]any{"type": "custom_tool_call", "name": "apply_patch", "call_id": "patch_31",
				"input": "*** Begin Patch\n*** Update File: pkg31/fix.go\n@@\n-a\n+b\n*** End Patch\n"}))
		}
		lines = append(lines,
			line(fmt.Sprintf("2026-11-26T10:01:%02d.100Z", i), "response_item", map[string]any{"type": "function_call", "name": "exec_command", "call_id": id,
				"arguments": fmt.Sprintf(`{"cmd":"go test ./pkg%02d"}`, i)}),
			line(fmt.Sprintf("2026-11-26T10:01:%02d.500Z", i), "response_item", map[string]any{"type": "function_call_output", "call_id": id,
				"output": strings.Repeat(fmt.Sprintf("ok pkg%02d line\n", i), 150)}))
	}
	lines = append(lines, say("2026-11-26T10:02:00.000Z", "Every package passes."))
	path := filepath.Join(t.TempDir(), "rollout.jsonl")
	writeRollout(t, path, lines)
	s := keep.Session{ID: "s1", Project: "/p", Transcript: path, Agent: ctxkeep.AgentCodex, Read: keep.ReadTurns(Reader{})}

	whole := storetest.Local(t, t.TempDir())
	if res, err := keep.Archive(ctx, whole, s); err != nil || res.More {
		t.Fatalf("unbounded: %+v, %v", res, err)
	}
	bounded := storetest.Local(t, t.TempDir())
	s.Limits = keep.Limits{ReadBytes: 16 << 10}
	calls := 0
	for {
		res, err := keep.Archive(ctx, bounded, s)
		if err != nil {
			t.Fatal(err)
		}
		calls++
		if res.Read > s.Limits.ReadBytes {
			t.Fatalf("call %d read %d bytes, over the limit of %d", calls, res.Read, s.Limits.ReadBytes)
		}
		if !res.More {
			break
		}
		if calls > 100 {
			t.Fatal("no progress")
		}
	}
	want, _ := whole.Chunks(ctx, "s1")
	got, _ := bounded.Chunks(ctx, "s1")
	t.Logf("%d calls of at most %d bytes, %d steps", calls, s.Limits.ReadBytes, len(want))
	if calls < 4 || len(want) < 8 {
		t.Fatalf("%d calls, %d steps: the test reads too little to be bounded", calls, len(want))
	}
	if len(got) != len(want) {
		t.Fatalf("bounded: %d steps, unbounded %d", len(got), len(want))
	}
	patched := false
	for _, c := range want {
		patched = patched || slices.Contains(c.Meta.FilesModified, "/p/pkg31/fix.go")
	}
	if !patched {
		t.Errorf("no step modified /p/pkg31/fix.go")
	}
	for i := range want {
		if got[i].Key != want[i].Key || got[i].Turn != want[i].Turn || got[i].Step != want[i].Step || got[i].Body != want[i].Body {
			t.Errorf("step %d.%d bounded differs from %d.%d unbounded:\n%s\n---\n%s", got[i].Turn, got[i].Step, want[i].Turn, want[i].Step, got[i].Body, want[i].Body)
		}
	}
}
