package hook

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// appendTranscript appends records to the session's transcript.
func (f *swapFixture) appendTranscript(recs ...any) {
	f.t.Helper()
	tf, err := os.OpenFile(f.transcript, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		f.t.Fatal(err)
	}
	defer tf.Close()
	for _, r := range recs {
		b, _ := json.Marshal(r)
		tf.Write(append(b, '\n'))
	}
}

func resultRecord(id string, structured json.RawMessage, content string) map[string]any {
	return map[string]any{"type": "user", "uuid": "u-" + id, "isSidechain": false, "toolUseResult": structured,
		"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": content}}}}
}

// TestStopProvesReplacements: at Stop, each replacement the session's
// PostToolUse replies returned is checked in the transcript and its
// verdict stored with the entry: applied when the transcript holds it,
// not applied — naming the tool and the shape, and the client's reason —
// when it holds the original.
func TestStopProvesReplacements(t *testing.T) {
	f := newSwapFixture(t)
	big := strings.Repeat("=== RUN   TestX\n", 500)
	applied := f.post("Bash", map[string]any{"command": "./scripts/a.sh"}, bash(big)) // tool_use_id toolu_Bash
	if applied == nil {
		t.Fatalf("no reply; log %s", f.log())
	}
	f.appendTranscript(resultRecord("toolu_Bash", applied["updatedToolOutput"], "(the view)"))
	f.event("Stop", nil)
	es := f.entries()
	if len(es) != 1 || es[0].Replacement == "" || es[0].Applied == nil || !*es[0].Applied || es[0].Verdict != "" {
		t.Fatalf("after Stop: %+v; log %s", es, f.log())
	}

	// A replacement the client refused: the transcript holds the original.
	read := f.read("toolu_read", "/p/big.go", 0, 0, strings.Repeat("func f() {}\n", 2000), nil)
	if read == "" {
		t.Fatal("no view of the Read")
	}
	original, _ := json.Marshal(map[string]any{"type": "text", "file": map[string]any{"filePath": "/p/big.go", "content": "the original"}})
	f.appendTranscript(resultRecord("toolu_read", original, "1\tthe original"),
		map[string]any{"type": "attachment", "uuid": "e1", "attachment": map[string]any{"type": "hook_error_during_execution", "hookEvent": "PostToolUse",
			"toolUseID": "toolu_read", "hookName": "PostToolUse:Read", "content": "PostToolUse hook returned updatedToolOutput that does not match Read's output shape; using original output."}})
	f.event("Stop", nil)
	var verdict string
	for _, e := range f.entries() {
		if e.Tool == "Read" {
			if e.Applied == nil || *e.Applied {
				t.Fatalf("refused replacement: %+v", e)
			}
			verdict = e.Verdict
		}
	}
	for _, want := range []string{"Read replacement of shape {type, file: {filePath, content, numLines, startLine, totalLines}} not applied",
		"does not match Read's output shape"} {
		if !strings.Contains(verdict, want) {
			t.Errorf("verdict %q lacks %q", verdict, want)
		}
	}
	if strings.Contains(f.log(), "Stop") {
		t.Errorf("log: %s", f.log())
	}
}
