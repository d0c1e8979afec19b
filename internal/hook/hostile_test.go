package hook

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/swap"
)

// Ids and paths inside events are input, as a hostile repository or a
// broken client may shape them: none of them may lead ctxkeep to a file
// outside its own folders or the session's tool-results folder.

// failure runs a PostToolUseFailure for a wrapped command with id as its
// tool_use_id, and returns stdout.
func (f *swapFixture) failure(id string) string {
	f.t.Helper()
	ev := map[string]any{"session_id": session, "transcript_path": f.transcript, "cwd": "/p", "hook_event_name": "PostToolUseFailure",
		"tool_name": "Bash", "tool_input": map[string]any{"command": swap.Wrap("go test ./...", "/x/ctxkeep", filepath.Join(f.dirs().Spool(), id))},
		"tool_use_id": id, "error": "Exit code 1\nFAIL"}
	payload, _ := json.Marshal(ev)
	return f.run(payload, handlers)
}

func TestFailureToolUseIDStaysInTheSpool(t *testing.T) {
	f := newSwapFixture(t)
	victim := filepath.Join(t.TempDir(), "victim")
	os.MkdirAll(victim, 0o700)
	notes := strings.Repeat("private notes\n", 1000)
	os.WriteFile(filepath.Join(victim, "notes.out"), []byte(notes), 0o600)
	os.WriteFile(filepath.Join(victim, "notes.json"), []byte(`{}`), 0o600)
	os.MkdirAll(f.dirs().Spool(), 0o700)
	id, err := filepath.Rel(f.dirs().Spool(), filepath.Join(victim, "notes"))
	if err != nil || !strings.HasPrefix(id, "..") {
		t.Fatalf("id %q: %v", id, err)
	}
	if out := f.failure(id); strings.Contains(out, "private notes") {
		t.Fatalf("a file outside the store reached the model: %s", out)
	}
	for _, name := range []string{"notes.out", "notes.json"} {
		if _, err := os.Stat(filepath.Join(victim, name)); err != nil {
			t.Errorf("%s outside the store: %v", name, err)
		}
	}
	if es := f.entries(); len(es) != 0 {
		t.Errorf("stored %+v", es)
	}
	f.failedOpen("invalid tool_use_id")
}

// failedOpen checks that the session's one call failed open (an error,
// not a timeout) and that the log says why.
func (f *swapFixture) failedOpen(why string) {
	f.t.Helper()
	recs := f.journal(session)
	if len(recs) != 1 || recs[0].Outcome != ctxkeep.Failed || !strings.Contains(f.log(), why) {
		f.t.Fatalf("journal %+v; log %s", recs, f.log())
	}
}

func TestPreToolUseToolUseIDStaysInTheSpool(t *testing.T) {
	f := newSwapFixture(t)
	for _, id := range []string{"../../escape", "a/b", "..", "", "toolu_1\x00", strings.Repeat("a", 200)} {
		ev := map[string]any{"session_id": session, "transcript_path": f.transcript, "cwd": "/p", "hook_event_name": "PreToolUse",
			"permission_mode": "bypassPermissions", "tool_name": "Bash", "tool_input": map[string]any{"command": "go test ./..."}, "tool_use_id": id}
		payload, _ := json.Marshal(ev)
		if out := f.run(payload, handlers); out != "" {
			t.Errorf("id %q: wrapped %s", id, out)
		}
	}
	if _, err := os.Stat(filepath.Join(f.dirs().Spool(), "../../escape") + ".json"); err == nil {
		t.Error("a spool file was written outside the spool folder")
	}
}

// persisted runs a PostToolUse whose Bash output the client cut and saved
// at path, and returns stdout.
func (f *swapFixture) persisted(path string) string {
	f.t.Helper()
	resp := bash(strings.Repeat("x", 30000))
	resp["persistedOutputPath"] = path
	ev := map[string]any{"session_id": session, "transcript_path": f.transcript, "cwd": "/p", "hook_event_name": "PostToolUse",
		"tool_name": "Bash", "tool_input": map[string]any{"command": "cat log"}, "tool_response": resp, "tool_use_id": "toolu_p" + filepath.Base(path)}
	payload, _ := json.Marshal(ev)
	return f.run(payload, handlers)
}

// The persisted output is read from a regular file in tool-results, never
// through a symbolic link: a link put there must not replace the output.
func TestPersistedOutputIsNotFollowedThroughALink(t *testing.T) {
	f := newSwapFixture(t)
	results := filepath.Join(f.sessionDir, "tool-results")
	os.MkdirAll(results, 0o700)
	other := strings.Repeat("some other file\n", 3000)
	os.WriteFile(filepath.Join(results, "other.txt"), []byte(other), 0o600)
	link := filepath.Join(results, "b1.txt")
	if err := os.Symlink(filepath.Join(results, "other.txt"), link); err != nil {
		t.Skip(err)
	}
	if out := f.persisted(link); out != "" || !strings.Contains(f.log(), "symbolic link") {
		t.Fatalf("stdout %.200s; log %s", out, f.log())
	}
	if es := f.entries(); len(es) != 0 {
		t.Fatalf("stored %+v", es)
	}
}

// A tool-results folder that is itself a link leads elsewhere: refused.
func TestPersistedOutputIsNotReadThroughALinkedFolder(t *testing.T) {
	f := newSwapFixture(t)
	elsewhere := t.TempDir()
	os.WriteFile(filepath.Join(elsewhere, "b1.txt"), []byte(strings.Repeat("elsewhere\n", 5000)), 0o600)
	os.MkdirAll(f.sessionDir, 0o700)
	if err := os.Symlink(elsewhere, filepath.Join(f.sessionDir, "tool-results")); err != nil {
		t.Skip(err)
	}
	if out := f.persisted(filepath.Join(f.sessionDir, "tool-results", "b1.txt")); out != "" || !strings.Contains(f.log(), "symbolic link") {
		t.Fatalf("stdout %.200s; log %s", out, f.log())
	}
}

// A persisted output over limits.max_output_bytes is refused from its
// size, not read whole first: a 200 MB sparse file costs no memory.
func TestPersistedOutputOverTheLimitIsNotRead(t *testing.T) {
	f := newSwapFixture(t)
	f.vars["CTXKEEP_LIMITS_MAX_OUTPUT_BYTES"] = "1MB"
	results := filepath.Join(f.sessionDir, "tool-results")
	os.MkdirAll(results, 0o700)
	big := filepath.Join(results, "big.txt")
	if err := os.WriteFile(big, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, 200<<20); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	out := f.persisted(big)
	runtime.ReadMemStats(&after)
	if out != "" || !strings.Contains(f.log(), "max_output_bytes") {
		t.Fatalf("stdout %.200s; log %s", out, f.log())
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 50<<20 {
		t.Fatalf("allocated %d MB to refuse it", alloc>>20)
	}
}

// The wrapper's spool output is read the same way: a link in place of it
// is not followed by `ctxkeep capture`.
func TestCaptureDoesNotFollowALinkedSpool(t *testing.T) {
	f := newSwapFixture(t)
	spool := filepath.Join(f.dirs().Spool(), "toolu_w1")
	os.MkdirAll(filepath.Dir(spool), 0o700)
	writeSpec(spool, captureSpec{SessionID: session, ToolUseID: "toolu_w1", TranscriptPath: f.transcript, Cwd: "/p", Project: "/p", Command: "go test ./..."})
	target := filepath.Join(t.TempDir(), "private.txt")
	os.WriteFile(target, []byte("private notes\n"), 0o600)
	if err := os.Symlink(target, spool+".out"); err != nil {
		t.Skip(err)
	}
	var out bytes.Buffer
	if code := Capture(f.env(), spool, 0, &out); code != 0 || strings.Contains(out.String(), "private notes") {
		t.Fatalf("exit %d, printed %q", code, out.String())
	}
	if _, err := os.Stat(target); err != nil {
		t.Fatalf("link target: %v", err)
	}
}

// `ctxkeep capture` given a spool outside the spool folder shows what is
// there (fail open) but deletes nothing.
func TestCaptureOutsideTheSpoolDeletesNothing(t *testing.T) {
	f := newSwapFixture(t)
	other := filepath.Join(t.TempDir(), "notes")
	os.WriteFile(other+".out", []byte("output\n"), 0o600)
	os.WriteFile(other+".json", []byte(`{}`), 0o600)
	var out bytes.Buffer
	Capture(f.env(), other, 0, &out)
	if out.String() != "output\n" {
		t.Fatalf("printed %q", out.String())
	}
	for _, ext := range []string{".out", ".json"} {
		if _, err := os.Stat(other + ext); err != nil {
			t.Errorf("%s: %v", ext, err)
		}
	}
}

// The readable copy goes only into a real tool-results folder: one that
// links elsewhere gets nothing, and the view points to `ctxkeep show`.
func TestReadableCopyIsNotWrittenThroughALinkedFolder(t *testing.T) {
	f := newSwapFixture(t)
	elsewhere := t.TempDir()
	os.MkdirAll(f.sessionDir, 0o700)
	if err := os.Symlink(elsewhere, filepath.Join(f.sessionDir, "tool-results")); err != nil {
		t.Skip(err)
	}
	if f.post("Bash", map[string]any{"command": "go test ./..."}, bash(strings.Repeat("ok\n", 5000))) == nil {
		t.Fatalf("no reply; log %s", f.log())
	}
	if files, _ := os.ReadDir(elsewhere); len(files) != 0 {
		t.Fatalf("written through the link: %v", files)
	}
	if es := f.entries(); len(es) != 1 || es[0].CopyPath != "" {
		t.Fatalf("entries %+v", es)
	}
}
