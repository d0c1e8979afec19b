package gemini

import (
	"testing"

	"github.com/ctxkeep/ctxkeep"
	"github.com/ctxkeep/ctxkeep/internal/transcript"
)

// A real chat of 0.61.0: one prompt, a failing command, the answer.
func TestReaderFailingCommand(t *testing.T) {
	got, err := Reader{}.Read("testdata/failing-command.jsonl", transcript.Cursor{}, ctxkeep.Usage{}, transcript.ReadLimits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Turns) != 1 || got.Problems != 0 {
		t.Fatalf("%d turns, %d problems", len(got.Turns), got.Problems)
	}
	turn := got.Turns[0]
	if turn.UserText != "go" || turn.AssistantText != "done" || len(turn.Calls) != 1 {
		t.Fatalf("turn: %q %q %d calls", turn.UserText, turn.AssistantText, len(turn.Calls))
	}
	c := turn.Calls[0]
	if c.Name != "Bash" || string(c.Input) != `{"command":"./t.sh"}` || c.Result == nil {
		t.Fatalf("call: %+v", c)
	}
	if r := c.Result; r.Content.String != "--- FAIL: X" || r.Exit == nil || *r.Exit != 1 || !r.IsError {
		t.Errorf("result: %q exit %v error %t", r.Content.String, r.Exit, r.IsError)
	}
	if len(turn.Steps) != 2 {
		t.Errorf("%d steps", len(turn.Steps))
	}
	if !got.Usage.Known() || got.Usage.Tokens != 1000 || got.Usage.Window != 1_048_576 || got.Usage.Model != "gemini-2.5-pro" {
		t.Errorf("usage: %+v", got.Usage)
	}
}

// The same after a BeforeTool hook rewrote the command: the CLI adds a
// line of its own after the result.
func TestReaderRewrittenCommand(t *testing.T) {
	got, err := Reader{}.Read("testdata/wrapped-failing-command.jsonl", transcript.Cursor{}, ctxkeep.Usage{}, transcript.ReadLimits{})
	if err != nil {
		t.Fatal(err)
	}
	c := got.Turns[0].Calls[0]
	if r := c.Result; r == nil || r.Content.String != "--- FAIL: X" || r.Exit == nil || *r.Exit != 1 {
		t.Errorf("result: %+v", r)
	}
}

func TestShellOutput(t *testing.T) {
	for _, c := range []struct {
		in, out string
		exit    int
	}{
		{"<untrusted_context>\nOutput: a\nb\nProcess Group PGID: 1\n</untrusted_context>", "a\nb", 0},
		{"<untrusted_context>\nOutput: x\nExit Code: 3\nProcess Group PGID: 1\n</untrusted_context>\n\n[System] Tool input parameters were modified by a hook before execution.", "x", 3},
		{"<untrusted_context>\nOutput: (empty)\nProcess Group PGID: 1\n</untrusted_context>", "", 0},
		{"plain", "plain", -1},
	} {
		out, exit := ShellOutput(c.in)
		if out != c.out || exit != c.exit {
			t.Errorf("ShellOutput(%q) = %q, %d; want %q, %d", c.in, out, exit, c.out, c.exit)
		}
	}
	// An output whose last line looks like a status line is kept whole
	// when the CLI's display says so.
	resp := []byte(`{"llmContent": "<untrusted_context>\nOutput: Error: boom\nExit Code: 2\nProcess Group PGID: 9\n</untrusted_context>", "returnDisplay": "Error: boom"}`)
	out, err := ReadOutput(Shell, resp)
	if err != nil || out.Text != "Error: boom" || out.Exit != 2 {
		t.Errorf("ReadOutput: %+v %v", out, err)
	}
}
