package gemini

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// LiveOutputs are the calls the model's context still holds: none from
// before a compression; a resume that reloads the same compressed
// history forgets nothing.
func TestLiveOutputs(t *testing.T) {
	compressed, err := os.ReadFile("testdata/resumed-compressed.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	failing, err := os.ReadFile("testdata/failing-command.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	_, all, _, err := Outputs("testdata/resumed-compressed.jsonl")
	if err != nil || len(all) != 1 || !strings.Contains(string(all[0].Input), "echo hello-from-shell") {
		t.Fatalf("Outputs: %+v %v", all, err)
	}
	live, err := LiveOutputs("testdata/resumed-compressed.jsonl")
	if err != nil || len(live) != 0 {
		t.Fatalf("LiveOutputs of a compressed chat: %+v %v", live, err)
	}
	// After the compression, the failing command's call (a real line of
	// another chat), then a resume: the same snapshot reloaded.
	lines := strings.SplitAfter(string(compressed), "\n")
	var call string
	for _, l := range strings.SplitAfter(string(failing), "\n") {
		if strings.Contains(l, `"toolCalls"`) {
			call = l
		}
	}
	var reload string
	for _, l := range lines {
		if strings.Contains(l, "<state_snapshot>") {
			reload = l
		}
	}
	if call == "" || reload == "" {
		t.Fatal("the test data lacks a call or a snapshot")
	}
	path := filepath.Join(t.TempDir(), "chat.jsonl")
	if err := os.WriteFile(path, []byte(string(compressed)+call+reload), 0o600); err != nil {
		t.Fatal(err)
	}
	live, err = LiveOutputs(path)
	if err != nil || len(live) != 1 || live[0].Tool != Shell || live[0].Exit != 1 || live[0].Text != "--- FAIL: X" {
		t.Errorf("LiveOutputs after a resume: %+v %v", live, err)
	}
}
