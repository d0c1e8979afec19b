package geminitest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxkeep/ctxkeep/internal/fakegemini"
)

// recordingHooks registers, in the user's settings, a hook for every
// event that appends its stdin to log, one JSON object a line.
func recordingHooks(t *testing.T, h *Harness, log string) {
	t.Helper()
	cmd := fmt.Sprintf("(cat; echo) >> '%s'", log)
	hooks := map[string]any{}
	for _, ev := range []string{"SessionStart", "SessionEnd", "BeforeAgent", "AfterAgent", "BeforeModel", "BeforeTool", "AfterTool", "PreCompress"} {
		hooks[ev] = []any{map[string]any{"matcher": "*", "hooks": []any{map[string]any{"type": "command", "command": cmd, "timeout": 30000}}}}
	}
	data, _ := json.MarshalIndent(map[string]any{"hooks": hooks}, "", "  ")
	if err := os.WriteFile(h.SettingsFile(), data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func events(t *testing.T, log string) []string {
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		var ev struct {
			Name string `json:"hook_event_name"`
		}
		if json.Unmarshal([]byte(line), &ev) == nil && ev.Name != "" {
			out = append(out, ev.Name)
		}
	}
	return out
}

// A shell call runs, its output reaches the model under the call's id,
// the hooks fire with the session's id, and a second prompt resumes the
// session; with a tiny threshold it is compressed first.
func TestShellThenResumedCompression(t *testing.T) {
	h := New(t)
	h.CompressionThreshold = 0.0001
	log := filepath.Join(h.Home, "hooks.log")
	recordingHooks(t, h, log)
	h.API.Script(fakegemini.Shell("call_1", "echo hello-from-shell"), fakegemini.Say("first done"))
	res := h.Run("say hello")
	if res.SessionID == "" || res.Response != "first done" {
		t.Fatalf("stdout: %s", res.Stdout)
	}
	out, ok := h.API.Last(fakegemini.Main).ToolResponse("call_1")
	if !ok || !strings.Contains(out.Text(), "hello-from-shell") {
		t.Fatalf("tool response: %+v", out)
	}
	chat := h.Chat(res.SessionID)
	if data, _ := os.ReadFile(chat); !strings.Contains(string(data), "hello-from-shell") {
		t.Errorf("chat:\n%s", data)
	}
	h.API.Script(fakegemini.Say("second done"))
	res2 := h.Resume("go on")
	if res2.SessionID != res.SessionID {
		t.Errorf("resumed session %q, want %q", res2.SessionID, res.SessionID)
	}
	if h.API.Last(fakegemini.Summary) == nil {
		t.Errorf("no compression at the second prompt")
	}
	// GEMINITEST_DUMP=DIR keeps what the run left, to look at.
	if os.Getenv("GEMINITEST_DUMP") != "" {
		dump := os.Getenv("GEMINITEST_DUMP")
		os.MkdirAll(dump, 0o755)
		data, _ := os.ReadFile(log)
		os.WriteFile(filepath.Join(dump, "hooks.log"), data, 0o644)
		data, _ = os.ReadFile(chat)
		os.WriteFile(filepath.Join(dump, "chat.jsonl"), data, 0o644)
		for _, r := range h.API.Requests() {
			os.WriteFile(filepath.Join(dump, fmt.Sprintf("req-%02d-%s.json", r.Seq, r.Kind)), r.Body, 0o644)
		}
		os.WriteFile(filepath.Join(dump, "stderr1.txt"), []byte(res.Stderr), 0o644)
		os.WriteFile(filepath.Join(dump, "stdout1.txt"), []byte(res.Stdout), 0o644)
	}
	t.Logf("events: %v", events(t, log))
}
