package codextest

import (
	"os"
	"strings"
	"testing"

	"github.com/ctxkeep/ctxkeep/internal/fakeresponses"
)

// The harness drives the real client through one tool call: the fake's
// scripted exec_command runs, its output reaches the next request, and
// the session's rollout is where the harness says.
func TestHarnessRunsTheClient(t *testing.T) {
	h := New(t)
	h.API.Script(fakeresponses.Exec("call_1", "echo hello-from-codextest; exit 3"), fakeresponses.Say("all done"))
	res := h.Run("run it")
	if res.SessionID == "" {
		t.Fatalf("no thread.started in stdout:\n%s", res.Stdout)
	}
	main := h.API.RequestsOf(fakeresponses.Main)
	if len(main) != 2 {
		t.Fatalf("%d main requests, want 2", len(main))
	}
	out, ok := main[1].ToolOutput("call_1")
	if !ok || !strings.Contains(out, "hello-from-codextest") || !strings.Contains(out, "Process exited with code 3") {
		t.Errorf("second request's output of call_1 = %q (found %v)", out, ok)
	}
	if main[0].Params.PromptCacheKey != res.SessionID {
		t.Errorf("prompt_cache_key %q, session %q", main[0].Params.PromptCacheKey, res.SessionID)
	}
	data, err := os.ReadFile(h.Rollout(res.SessionID))
	if err != nil || !strings.Contains(string(data), `"session_meta"`) {
		t.Errorf("rollout: %v", err)
	}
}
