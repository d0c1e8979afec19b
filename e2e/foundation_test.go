package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxkeep/ctxkeep/internal/clienttest"
	"github.com/ctxkeep/ctxkeep/internal/fakeapi"
)

// TestEveryEventRecordedThroughCompaction installs ctxkeep with `ctxkeep
// install`, runs a scripted session with a Bash call, compacts it with
// `-p "/compact" --resume`, and checks that ctxkeep recorded every hook
// event under the client's session id, failed open nowhere, and left what
// the model saw unchanged.
func TestEveryEventRecordedThroughCompaction(t *testing.T) {
	h := clienttest.New(t)
	ck := newCtxkeep(t, h)
	out := ck.run("install")
	if !strings.Contains(out, "installed ctxkeep's hooks for 10 events") {
		t.Fatalf("install said:\n%s", out)
	}

	h.API.Script(fakeapi.Bash("toolu_1", "echo hello-from-bash"), fakeapi.Say("Ran it."))
	res := h.Run("run the command")
	id := res.SessionID
	if id == "" {
		t.Fatal("no session id")
	}

	// The model saw the small output as the tool produced it.
	mains := h.API.RequestsOf(fakeapi.Main)
	if len(mains) < 2 {
		t.Fatalf("%d main requests", len(mains))
	}
	got, ok := mains[1].ToolResult("toolu_1")
	if !ok || strings.TrimSpace(got) != "hello-from-bash" {
		t.Fatalf("tool result the model saw = %q (found %v)", got, ok)
	}

	h.Run("/compact", "--resume", id)
	if len(h.API.RequestsOf(fakeapi.Summary)) == 0 {
		t.Fatal("the client sent no summarisation request")
	}

	s := ck.stats(id)
	if s.ID != id || s.Client != clienttest.Version || s.Cwd != h.Project || s.Failures != 0 {
		t.Errorf("session = %+v", s)
	}
	want := map[string]int{
		"SessionStart":     3, // startup, resume, compact
		"UserPromptSubmit": 1,
		"PreToolUse":       1,
		"PostToolUse":      1,
		"Stop":             1,
		"PreCompact":       1,
		"PostCompact":      1,
		"SubagentStop":     1, // the summarisation runs as a forked agent
		"SessionEnd":       2,
	}
	for ev, n := range want {
		if got := s.count(ev); got != n {
			t.Errorf("%s recorded %d times, want %d", ev, got, n)
		}
	}
	if len(s.ByTool) != 1 || s.ByTool[0].Tool != "Bash" || s.ByTool[0].Count != 2 {
		t.Errorf("tools = %+v", s.ByTool)
	}

	// Nothing was logged: no hook failed open.
	if log, err := os.ReadFile(filepath.Join(h.Home, ".local/state/ctxkeep/ctxkeep.log")); err == nil {
		t.Errorf("ctxkeep logged problems:\n%s", log)
	}
	doctor := ck.run("doctor")
	if !strings.Contains(doctor, "Claude Code 2.1.330 seen by the hooks") {
		t.Errorf("doctor:\n%s", doctor)
	}
}

// TestBrokenConfigFailsOpen breaks ctxkeep on purpose (a bad value in the
// project's config): the session must run exactly as without ctxkeep, and
// the reason must be in ctxkeep's log.
func TestBrokenConfigFailsOpen(t *testing.T) {
	h := clienttest.New(t)
	ck := newCtxkeep(t, h)
	ck.run("install")
	if err := os.WriteFile(filepath.Join(h.Project, ".ctxkeep.toml"), []byte("[threshold]\nBash = \"big\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	h.API.Script(fakeapi.Bash("toolu_1", "echo still-works"), fakeapi.Say("Ran it."))
	res := h.Run("run the command")
	got, ok := h.API.RequestsOf(fakeapi.Main)[1].ToolResult("toolu_1")
	if !ok || strings.TrimSpace(got) != "still-works" {
		t.Fatalf("tool result = %q (found %v)", got, ok)
	}
	for _, ev := range res.Events.Find("system", "") {
		if strings.Contains(string(ev.Raw), "hook_non_blocking_error") || strings.Contains(string(ev.Raw), "hook_error") {
			t.Errorf("the client reported a hook error: %s", ev.Raw)
		}
	}
	log, err := os.ReadFile(filepath.Join(h.Home, ".local/state/ctxkeep/ctxkeep.log"))
	if err != nil || !strings.Contains(string(log), "threshold.Bash") || !strings.Contains(string(log), "passing through") {
		t.Fatalf("log = %q, %v", log, err)
	}
	if _, _, err := ck.try("doctor"); err == nil {
		t.Error("doctor passed with a broken config")
	}
}
