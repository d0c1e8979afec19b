package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxkeep/ctxkeep/internal/clienttest"
	"github.com/ctxkeep/ctxkeep/internal/fakeapi"
)

// TestWorkingStateSurvivesCompaction: a scripted session creates and
// completes tasks, edits files, hits a failing test, states a decision and
// receives a user correction; then `/compact`. The summarisation request
// carries ctxkeep's preservation notes; the first request after compaction
// carries the tasks, the files, the decision, the correction, the
// unresolved error and the stored outputs; and `ctxkeep search` finds an
// exact command output from before the compaction.
func TestWorkingStateSurvivesCompaction(t *testing.T) {
	h := clienttest.New(t)
	ck := newCtxkeep(t, h)
	ck.run("install")
	files := map[string]string{
		"test.sh": "echo '=== RUN   TestLimitBurst'\necho '--- FAIL: TestLimitBurst (0.00s)'\necho '    limit_test.go:31: got 11 requests, want 10'\nexit 1\n",
		"vet.sh":  "echo 'internal/api/limit.go:12:2: unreachable code'\nexit 1\n",
		"gen.sh":  "i=1\nwhile [ $i -le 800 ]; do echo \"request $i admitted by bucket ZEBRA-7731\"; i=$((i+1)); done\n",
	}
	for name, body := range files {
		os.WriteFile(filepath.Join(h.Project, name), []byte(body), 0o755)
	}
	limit := filepath.Join(h.Project, "limit.go")
	tools := []string{"--tools", "Bash,Read,Edit,Write,TaskCreate,TaskUpdate"}

	h.API.Script(
		fakeapi.Call("tc1", "TaskCreate", map[string]any{"subject": "Write the limiter", "description": "in internal/api"}),
		fakeapi.Call("tc2", "TaskCreate", map[string]any{"subject": "Document the limits", "description": "README section"}),
		fakeapi.Call("w1", "Write", map[string]any{"file_path": limit, "content": "package api\n\n// Limit admits requests.\nfunc Limit() bool { return true }\n"}),
		fakeapi.Bash("b1", "sh test.sh"),
		fakeapi.Bash("b2", "sh gen.sh"),
		fakeapi.Say("I'll use a token bucket instead of a sliding window, because it absorbs bursts."),
	)
	res := h.Run("Add a rate limiter to the API.", tools...)
	id := res.SessionID

	h.API.Script(
		fakeapi.Call("e1", "Edit", map[string]any{"file_path": limit, "old_string": "return true", "new_string": "return false"}),
		fakeapi.Call("tu1", "TaskUpdate", map[string]any{"taskId": "1", "status": "completed"}),
		fakeapi.Bash("b3", "sh vet.sh"),
		fakeapi.Say("Switched to a sliding window. go vet still reports unreachable code."),
	)
	h.Run("no, use the sliding window: we bill on exact counts.", append(tools, "--resume", id)...)

	h.Run("/compact", "--resume", id)
	summary := h.API.Last(fakeapi.Summary)
	if summary == nil {
		t.Fatal("no summarisation request")
	}
	notes := summary.LastUserText()
	for _, want := range []string{
		"ctxkeep preservation notes", "Document the limits", "[completed] #1 Write the limiter", limit,
		"token bucket instead of a sliding window", "no, use the sliding window: we bill on exact counts.",
		"internal/api/limit.go:12:2: unreachable code", "Rules for the summary", "The user's own instructions for compaction",
	} {
		if !strings.Contains(notes, want) {
			t.Errorf("the summarisation request lacks %q", want)
		}
	}

	before := len(h.API.RequestsOf(fakeapi.Main))
	h.Run("carry on", append(tools, "--resume", id)...)
	first := h.API.RequestsOf(fakeapi.Main)[before]
	restored := strings.Join(first.SystemMessages(), "\n")
	for _, want := range []string{
		"ctxkeep restored this session's working state after compaction",
		"Document the limits", limit, "token bucket instead of a sliding window",
		"no, use the sliding window: we bill on exact counts.", "unreachable code",
		"Outputs kept out of the context", "sh gen.sh",
	} {
		if !strings.Contains(restored, want) {
			t.Errorf("the first request after compaction lacks %q", want)
		}
	}
	if t.Failed() || os.Getenv("CTXKEEP_SHOW") != "" {
		t.Logf("restored:\n%s", restored)
	}

	// Search finds the exact output of a command run before compaction.
	var found struct {
		Results []struct {
			Key     string `json:"key"`
			Snippet string `json:"snippet"`
		} `json:"results"`
	}
	out := ck.run("search", "ZEBRA-7731", "--json")
	if err := json.Unmarshal([]byte(out), &found); err != nil || len(found.Results) == 0 {
		t.Fatalf("search: %v\n%s", err, out)
	}
	if !strings.Contains(found.Results[0].Snippet, "admitted by bucket ZEBRA-7731") {
		t.Errorf("snippet = %q", found.Results[0].Snippet)
	}
	recalled := ck.run("recall", found.Results[0].Key)
	if !strings.Contains(recalled, "request 800 admitted by bucket ZEBRA-7731") || !strings.Contains(recalled, "→ Bash: sh gen.sh") {
		t.Errorf("recall does not give the exact output back:\n%.600s", recalled)
	}
}
