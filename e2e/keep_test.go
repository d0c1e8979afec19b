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
		// Files are listed under the project's path, once: the whole path
		// is the header's folder and the line's name.
		"paths under " + h.Project + string(filepath.Separator) + ")", "- limit.go: edited 2×",
		"Document the limits", "token bucket instead of a sliding window",
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

// TestRestoreCarriesAFailureCause: a test run fails with its assertion in
// the middle of a long output (the client itself would cut the middle out
// of a failing command's output); the session is compacted by a
// summariser that keeps nothing. The first request after the compaction
// carries the assertion line, from the restore block, with the step it
// comes from. (After a manual /compact the client also hands the model
// the preservation notes as the command's output, §7.4; after an
// automatic one it does not, and the restore block is all there is.)
func TestRestoreCarriesAFailureCause(t *testing.T) {
	h := clienttest.New(t)
	ck := newCtxkeep(t, h)
	ck.run("install")
	script := "i=1\nwhile [ $i -le 1500 ]; do\n  if [ $i -eq 700 ]; then\n" +
		"    echo '--- FAIL: TestRefundRounding (0.00s)'\n    echo '    refund_test.go:42: got 1999 want 2000'\n" +
		"  else\n    echo \"=== RUN   TestCase$i\"; echo \"--- PASS: TestCase$i (0.00s)\"\n  fi\n  i=$((i+1))\ndone\necho FAIL\nexit 1\n"
	os.WriteFile(filepath.Join(h.Project, "gotest.sh"), []byte(script), 0o755)
	os.WriteFile(filepath.Join(h.Project, ".ctxkeep.toml"), []byte("[wrapper]\ncommands = [\"sh gotest.sh\"]\n"), 0o644)
	h.API.SetSummary("The user asked for work on the project.")

	h.API.Script(fakeapi.Bash("b1", "sh gotest.sh"), fakeapi.Say("One test fails; I will look at it next."))
	id := h.Run("run the tests", "--tools", "Bash").SessionID
	h.Run("/compact", "--resume", id)

	before := len(h.API.RequestsOf(fakeapi.Main))
	h.Run("carry on", "--tools", "Bash", "--resume", id)
	first := h.API.RequestsOf(fakeapi.Main)[before]
	for _, text := range first.UserTexts() {
		if strings.Contains(text, "This session is being continued") && strings.Contains(text, "refund_test.go:42") {
			t.Fatal("the client's summary holds the assertion: the test proves nothing")
		}
	}
	restored := strings.Join(first.SystemMessages(), "\n")
	want := "`sh gotest.sh` failed (exit 1): --- FAIL: TestRefundRounding (0.00s) / refund_test.go:42: got 1999 want 2000"
	if !strings.Contains(restored, "ctxkeep restored this session's working state") || !strings.Contains(restored, want) {
		i := strings.Index(restored, "ctxkeep restored")
		t.Errorf("the first request after compaction lacks %q:\n%.3000s", want, restored[max(i, 0):])
	}
	if s := ck.stats(id); s.count("PostCompact") != 1 || s.Failures != 0 {
		log, _ := os.ReadFile(filepath.Join(h.Home, ".local/state/ctxkeep/ctxkeep.log"))
		t.Errorf("PostCompact ran %d times, %d hook calls failed:\n%s", s.count("PostCompact"), s.Failures, log)
	}
}

// TestRecallOnPromptAtStepGrain: with keep.recall_on_prompt on, a prompt
// gets the archived steps of the project that match it, as the step
// archive holds them: in a new session, the step of an earlier session
// that ran the failing test, with the command and its failure; in the
// session itself, its own step once a compaction has taken it out of the
// context (not before: the model still has it).
func TestRecallOnPromptAtStepGrain(t *testing.T) {
	h := clienttest.New(t)
	ck := newCtxkeep(t, h)
	ck.run("install")
	config := filepath.Join(h.Home, ".config", "ctxkeep", "config.toml")
	f, err := os.OpenFile(config, os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	// A handful of steps: every word is common, so no BM25 score is high.
	f.WriteString("[keep]\nrecall_on_prompt = true\nrecall_min_score = 0\n")
	f.Close()
	os.WriteFile(filepath.Join(h.Project, "test.sh"), []byte("echo '--- FAIL: TestRefundRounding (0.00s)'\necho '    refund_test.go:42: got 1999 want 2000'\necho FAIL\nexit 1\n"), 0o755)
	h.API.SetSummary("The user asked for work on the project.")

	h.API.Script(fakeapi.Bash("b1", "sh test.sh"), fakeapi.Say("The refund rounds half-cents down; it must round them up."))
	first := h.Run("Fix the refund rounding.", "--tools", "Bash")
	id := first.SessionID

	recalled := func(prompt string, args ...string) string {
		before := len(h.API.RequestsOf(fakeapi.Main))
		h.API.Script(fakeapi.Say("Noted."))
		res := h.Run(prompt, append([]string{"--tools", "Bash"}, args...)...)
		req := h.API.RequestsOf(fakeapi.Main)[before]
		text := strings.Join(req.SystemMessages(), "\n")
		if i := strings.Index(text, "ctxkeep found earlier steps"); i >= 0 {
			text = text[i:]
		} else {
			text = ""
		}
		t.Logf("session %s, %q: recalled %q", res.SessionID[:8], prompt, text)
		return text
	}
	// In the session itself, before any compaction: nothing of its own.
	if got := recalled("why does the refund rounding test fail?", "--resume", id); strings.Contains(got, "session "+id[:8]) {
		t.Errorf("recalls the session's own step while the model has it:\n%s", got)
	}
	// A new session gets the step that ran the failing test.
	got := recalled("why does the refund rounding test fail?")
	for _, want := range []string{"(session " + id[:8] + ", step 1.1): Fix the refund rounding.", "command sh test.sh → exit 1",
		"refund_test.go:42: got 1999 want 2000"} {
		if !strings.Contains(got, want) {
			t.Errorf("a new session's prompt does not recall %q:\n%s", want, got)
		}
	}
	// After a compaction, the session gets its own earlier step back.
	h.Run("/compact", "--resume", id)
	if got := recalled("why does the refund rounding test fail?", "--resume", id); !strings.Contains(got, "(session "+id[:8]+", step 1.1)") {
		t.Errorf("after compaction, the session's own step is not recalled:\n%s", got)
	}
}
