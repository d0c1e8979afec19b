package hook

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// transcriptOf writes a one-turn transcript: a prompt, a Bash call with
// its output, and the assistant's words after it.
func transcriptOf(t *testing.T, path, id, prompt, command, output, words string, at time.Time) {
	var lines []string
	n := 0
	add := func(v map[string]any) {
		n++
		v["uuid"], v["sessionId"], v["cwd"] = fmt.Sprintf("%s-u%02d", id[:4], n), id, "/p"
		v["timestamp"] = at.Add(time.Duration(n) * time.Second).UTC().Format(time.RFC3339)
		b, _ := json.Marshal(v)
		lines = append(lines, string(b))
	}
	add(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": prompt}})
	add(map[string]any{"type": "assistant", "message": map[string]any{"id": id[:4] + "m1", "role": "assistant",
		"content": []any{map[string]any{"type": "tool_use", "id": id[:4] + "b1", "name": "Bash", "input": map[string]any{"command": command}}}}})
	result := map[string]any{"type": "tool_result", "tool_use_id": id[:4] + "b1", "content": output}
	if strings.Contains(output, "FAIL") {
		result["is_error"], result["content"] = true, "Exit code 1\n"+output
	}
	add(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": []any{result}}})
	add(map[string]any{"type": "assistant", "message": map[string]any{"id": id[:4] + "m2", "role": "assistant",
		"content": []any{map[string]any{"type": "text", "text": words}}}})
	os.MkdirAll(filepath.Dir(path), 0o700)
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// Auto-recall works on steps: a prompt gets the archived steps of the
// project that match it — with what in them it named and how their
// commands went — and not the session's own steps while they are still in
// its context, only once a compaction has taken them out.
func TestRecallOnPromptFindsSteps(t *testing.T) {
	f := newSwapFixture(t)
	f.vars["CTXKEEP_KEEP_RECALL_ON_PROMPT"] = "true"
	f.vars["CTXKEEP_KEEP_RECALL_MIN_SCORE"] = "0" // a handful of steps: every word is common
	other := "7d3e9b2a-1c4f-4e8b-9a6d-3f2e1b0c9d8e"
	otherPath := filepath.Join(filepath.Dir(f.transcript), other+".jsonl")
	past := time.Now().Add(-2 * time.Hour)
	transcriptOf(t, otherPath, other, "Fix the refund rounding.", "go test ./refund/...",
		"--- FAIL: TestRefundRounding (0.00s)\n    refund_test.go:42: got 1999 want 2000\nFAIL", "The refund rounds half-cents down; it must round them up.", past)
	transcriptOf(t, f.transcript, session, "Look at the invoice totals.", "go test ./invoice/...",
		"ok  \texample/invoice\t0.02s", "The invoice totals add the refund rounding of each line.", past.Add(time.Hour))
	for _, s := range []struct{ id, path string }{{other, otherPath}, {session, f.transcript}} {
		stop, _ := json.Marshal(map[string]any{"session_id": s.id, "transcript_path": s.path, "cwd": "/p", "hook_event_name": "Stop"})
		f.run(stop, handlers)
	}

	r := f.prompt("why does the refund rounding test fail?")
	if r == nil || r.Specific == nil {
		t.Fatalf("no recall; log: %s", f.log())
	}
	got := r.Specific.AdditionalContext
	for _, want := range []string{
		"ctxkeep found earlier steps of this project that match the request",
		"(session 7d3e9b2a, step 1.1): Fix the refund rounding.",
		"matched command go test ./refund/... → exit 1",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("recall lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "session 0b6f3c8e") {
		t.Errorf("recalls the session's own steps, still in its context:\n%s", got)
	}

	// Once the session was compacted, its steps from before are recalled too.
	os.MkdirAll(filepath.Join(f.dirs().State, "keep"), 0o700)
	os.WriteFile(filepath.Join(f.dirs().State, "keep", session+".restored.txt"), []byte("restored"), 0o600)
	r = f.prompt("why does the refund rounding test fail?")
	if r == nil || r.Specific == nil || !strings.Contains(r.Specific.AdditionalContext, "session 0b6f3c8e") {
		t.Errorf("after a compaction, the session's earlier steps are not recalled: %+v %s", r.Specific, f.log())
	}

	// Off by default.
	delete(f.vars, "CTXKEEP_KEEP_RECALL_ON_PROMPT")
	if r := f.prompt("why does the refund rounding test fail?"); r != nil {
		t.Errorf("recalled with keep.recall_on_prompt off: %+v", r)
	}
}
