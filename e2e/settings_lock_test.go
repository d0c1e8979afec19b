package e2e

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxkeep/ctxkeep/internal/clienttest"
	"github.com/ctxkeep/ctxkeep/internal/fakeapi"
	"github.com/ctxkeep/ctxkeep/internal/fsx"
)

// TestSettingsLockIsTheClients checks the lock ctxkeep takes to edit
// settings (claudecode.ApplyFile) against the real client: it is the lock
// the client takes for its user settings (the folder settings.json.lock,
// npm's proper-lockfile). While ctxkeep holds it, the client finds it
// taken; once ctxkeep lets go, the client takes it and leaves nothing
// behind. The client writes its user settings at start-up when
// ~/.claude.json says bypassPermissionsModeAccepted (a migration to
// skipDangerousModePermissionPrompt).
func TestSettingsLockIsTheClients(t *testing.T) {
	h := clienttest.New(t)
	settings := filepath.Join(h.Home, ".claude", "settings.json")
	lock := settings + ".lock"
	migrate := func() {
		t.Helper()
		h.WriteUserSettings(map[string]any{"model": "claude-opus-5-5"})
		data, _ := json.Marshal(map[string]any{"bypassPermissionsModeAccepted": true, "hasCompletedOnboarding": true})
		if err := os.WriteFile(filepath.Join(h.Home, ".claude.json"), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	written := func() bool {
		data, _ := os.ReadFile(settings)
		return strings.Contains(string(data), `"skipDangerousModePermissionPrompt": true`)
	}
	contended := "settings: no lock on " + settings + " (contended)"

	migrate()
	release, err := fsx.LockFolder(lock, 10*time.Second, time.Second) // as ApplyFile takes it
	if err != nil {
		t.Fatal(err)
	}
	h.API.Script(fakeapi.Say("ok"))
	res := h.Run("hi", "--debug")
	release()
	if !written() {
		t.Fatal("the client did not write its user settings: the test no longer exercises its lock")
	}
	if !strings.Contains(debugLog(t, h, res), contended) {
		t.Errorf("while ctxkeep held the lock, the client did not find it taken (no %q in its debug output)", contended)
	}

	migrate()
	h.API.Script(fakeapi.Say("ok"))
	res = h.Run("hi", "--debug")
	if !written() {
		t.Fatal("the client did not write its user settings the second time")
	}
	if strings.Contains(debugLog(t, h, res), contended) {
		t.Error("the client found the lock taken after ctxkeep released it")
	}
	if _, err := os.Stat(lock); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the client left its lock behind: %v", err)
	}
}

// debugLog is what the client wrote with --debug during run res: its
// debug file, ~/.claude/debug/<session>.txt, and its stderr.
func debugLog(t *testing.T, h *clienttest.Harness, res *clienttest.Result) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(h.Home, ".claude", "debug", res.SessionID+".txt"))
	if err != nil {
		t.Fatalf("the client's debug log: %v", err)
	}
	return string(data) + res.Stderr
}
